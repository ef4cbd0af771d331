#!/usr/bin/env bash
# Regenerates the dashboard screenshots in this directory from the real
# program on its embedded demo cluster.
#
#   screenshots/make.sh            # all PNGs, about 4 min (the lag chart waits for LAGWAIT=240 s of history)
#   KEEP=1 screenshots/make.sh     # also keep the captured .ansi screens (path printed)
#   RENDERER=freeze screenshots/make.sh   # render with freeze v0.2.2 instead (see README: it misdraws)
#   ONLY=29-tail-decoded screenshots/make.sh   # that one PNG (its scene alone), the rest left as they are
#
# Needs: go, tmux (>= 3.1). Nothing is installed; render/ is a separate module
# (its own go.mod), so the main module gains no dependency.
#
# How: build ./ilinkdash and ./screenshots/render, start ilinkdash in a
# private tmux server (its own socket and config) at 120x40 with an empty
# XDG_CONFIG_HOME (so no user config or context applies: the embedded demo
# starts), let the demo run for WARMUP seconds, drive every view with
# send-keys, capture each screen with `tmux capture-pane -e -p -N` (colours
# and trailing cells kept) and render it to PNG. Two views are taken again at
# 80x24 after resizing the window.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
out=${OUT:-$here}
warmup=${WARMUP:-15}
renderer=${RENDERER:-render}
only=${ONLY:-} # one screenshot by name (29-tail-decoded), or all
only=${only%.png}

for tool in go tmux; do
	command -v "$tool" >/dev/null || { echo "make.sh: $tool is needed" >&2; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/ilinkdash-shots.XXXXXX")
sock="ilinkdash-shots-$$"
cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null || true
	if [[ -n ${KEEP:-} ]]; then
		echo "make.sh: kept $work"
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT

echo "make.sh: building ilinkdash and the renderer"
(cd "$root" && go build -o "$work/ilinkdash" .)
if [[ $renderer == render ]]; then
	(cd "$here/render" && go build -o "$work/render" .)
fi

mkdir -p "$work/xdg/config" "$work/xdg/state" "$work/xdg/cache" "$work/xdg/data" "$out"
cat >"$work/tmux.conf" <<'EOF'
set -g status off
set -g default-terminal tmux-256color
set -g remain-on-exit on
set -g history-limit 0
EOF

T() { tmux -L "$sock" "$@"; }
now_ms() { date +%s%3N; }
plain() { T capture-pane -p -t shots; }

die() {
	echo "make.sh: $*" >&2
	echo "---- screen ----" >&2
	plain >&2 || true
	exit 1
}

# wait_for TEXT [SECONDS]: poll the screen until it shows TEXT.
wait_for() {
	local text=$1 deadline=$(($(now_ms) + ${2:-10} * 1000))
	until plain | grep -qF -- "$text"; do
		(($(now_ms) < deadline)) || die "timed out waiting for '$text'"
		sleep 0.1
	done
}

# keys K...: send named keys (Enter, Escape, Tab, BSpace, Right, j, 2, ...)
# one at a time. The pause matters: an Escape followed at once by another
# byte reads as alt+<key>.
keys() {
	local k
	for k in "$@"; do
		T send-keys -t shots "$k"
		if [[ $k == Escape ]]; then sleep 0.6; else sleep 0.25; fi
	done
}

# text STRING: type a string literally.
text() {
	T send-keys -t shots -l -- "$1"
	sleep 0.25
}

# shot NAME: capture the screen with colours and render it to $out/NAME.png.
shot() {
	local name=$1 cols rows cflag cx cy
	if [[ -n $only && $name != "$only" ]]; then
		return # ONLY: the other shots of its scene are left as they are
	fi
	read -r cols rows cflag cx cy < <(T display -p -t shots '#{pane_width} #{pane_height} #{cursor_flag} #{cursor_x} #{cursor_y}')
	T capture-pane -e -p -N -t shots >"$work/$name.ansi"
	local args=()
	if [[ $cflag == 1 ]]; then
		args=(-cursor "$cx,$cy") # only if the terminal cursor is shown; the inputs draw their own
	fi
	case $renderer in
	render) "$work/render" -cols "$cols" -rows "$rows" "${args[@]}" -o "$out/$name.png" "$work/$name.ansi" ;;
	freeze) (cd "$work" && go run github.com/charmbracelet/freeze@v0.2.2 --language ansi -o "$out/$name.png" "$work/$name.ansi" >/dev/null) ;;
	*) die "RENDERER=$renderer: want render or freeze" ;;
	esac
	printf '  %-28s %4sx%-3s %6s bytes\n' "$name.png" "$cols" "$rows" "$(stat -c %s "$out/$name.png")"
}

# The dashboard as every scene starts it: nothing of the caller's
# configuration, its own XDG directories, a truecolour terminal, UTC.
dash=(env -u NO_COLOR -u ILINKDASH_ADDR -u ILINKDASH_ADMIN -u ILINKDASH_CONTEXT
	-u ILINKDASH_READ_ONLY -u ILINKDASH_DEBUG -u ILINKDASH_LOG_FILE -u ILINKDASH_CONFIG
	XDG_CONFIG_HOME="$work/xdg/config" XDG_STATE_HOME="$work/xdg/state"
	XDG_CACHE_HOME="$work/xdg/cache" XDG_DATA_HOME="$work/xdg/data"
	TERM=xterm-256color COLORTERM=truecolor TZ=UTC
	"$work/ilinkdash")

echo "make.sh: starting the dashboard on the embedded demo (120x40)"
start=$(now_ms)
# sh writes the exit status (tmux's pane_dead_status is sometimes left empty)
T -f "$work/tmux.conf" new-session -d -s shots -x 120 -y 40 \
	sh -c 'f=$1; shift; "$@"; echo $? >"$f"' sh "$work/exit" \
	"${dash[@]}"
# TERM/COLORTERM: under TERM=tmux-* the colour profile is read from `tmux
# info`, which has no client here, and falls back to 256 colours.

wait_for "follower" 20
wait_for "DEMO" 5
left=$((warmup * 1000 - ($(now_ms) - start)))
if ((left > 0)); then
	echo "make.sh: letting the demo run for ${warmup}s"
	sleep "$((left / 1000)).$(printf '%03d' $((left % 1000)))"
fi

echo "make.sh: capturing"
# The views are taken in scenes, in this order; a scene starts where the
# one before it left the program (Escape back to a tab), so ONLY=NAME can
# run the one scene that takes NAME without the others.
SCENES=()

scene_overview() {
	# 1 Overview
	wait_for "Alerts"
	shot 01-overview
}
SCENES+=("overview: 01-overview")

scene_topics() {
	# 2 Topics, then the detail of ORDER.EVENT (third by name) and its consumers
	keys 2
	wait_for "IN TREND"
	sleep 1
	shot 02-topics
	keys g j j Enter # g: top (the cursor follows its row when the list changes)
	wait_for "Topic ORDER.EVENT"
	wait_for "LEADER"
	sleep 1
	shot 03-topic-detail
	keys v
	wait_for "MEMBERS"
	sleep 0.5
	shot 04-topic-consumers
	keys Escape
}
SCENES+=("topics: 02-topics 03-topic-detail 04-topic-consumers")

scene_groups() {
	# 3 Groups, the detail of analytics (first by name), a seek preview
	keys 3
	wait_for "HEALTH"
	sleep 1
	keys g
	shot 05-groups
	keys Enter
	wait_for "Group analytics"
	wait_for "COMMITTED"
	sleep 2
	shot 06-group-detail
	keys o
	wait_for "Seek group analytics"
	sleep 0.3
	keys Enter
	wait_for "preview"
	sleep 0.3
	shot 07-group-seek-preview
	keys Escape Escape
}
SCENES+=("groups: 05-groups 06-group-detail 07-group-seek-preview")

scene_queues() {
	# 4 Cluster, 5 Queues
	keys 4
	wait_for "Cluster C1"
	sleep 1
	shot 08-cluster
	keys 5
	wait_for "DEPTH TREND"
	sleep 1
	shot 09-queues

	# Queue detail of PAYMENT.DLQ (third by name): a dead letter browsed, then
	# the move back preview; the quarantine with the reinject warning
	keys g j j Enter
	wait_for "dlq.source"
	sleep 0.5
	shot 17-queue-dlq-browse
	keys M
	wait_for "Move messages of PAYMENT.DLQ back"
	keys Enter
	wait_for "Move back — preview"
	sleep 0.3
	shot 18-dlq-move-back-preview
	keys Escape Escape
	wait_for "DEPTH TREND"
	keys Q
	wait_for "Entries of"
	sleep 0.5
	shot 19-quarantine
	keys R
	wait_for "Reinject qdir1"
	keys Right Enter
	wait_for "Reinject — preview"
	sleep 0.3
	shot 20-reinject-warning
	keys Escape Escape
}
SCENES+=("queues: 08-cluster 09-queues 17-queue-dlq-browse 18-dlq-move-back-preview 19-quarantine 20-reinject-warning")

scene_topic_config() {
	# Topic configuration of ORDER.EVENT (third by name) and an alter preview
	keys 2
	wait_for "IN TREND"
	keys g j j c
	wait_for "Configuration of ORDER.EVENT"
	sleep 0.3
	shot 21-topic-config
	# Forms open navigating: e edits the focused field with its value selected
	# (typing replaces it); tab moves on still editing; enter submits.
	keys e
	text '6h'
	keys Tab Tab Tab
	text '8'
	keys Enter
	wait_for "Alter ORDER.EVENT — preview"
	sleep 0.3
	shot 22-topic-alter-preview
	keys Escape
}
SCENES+=("topic_config: 21-topic-config 22-topic-alter-preview")

scene_balance() {
	# Cluster leadership balance (one demo partition starts off its preferred
	# leader) and the rebalance preview
	keys 4
	wait_for "Cluster C1"
	keys v v v
	wait_for "PREFERRED"
	sleep 0.5
	shot 23-cluster-balance
	keys b
	wait_for "Rebalance leaders — preview"
	sleep 0.3
	shot 24-rebalance-preview
	keys Escape
}
SCENES+=("balance: 23-cluster-balance 24-rebalance-preview")

scene_tail() {
	# 6 Tail ORDER.* with the detail pane open, value as pretty JSON
	keys 6
	wait_for "Nothing tailed yet"
	keys :
	text 'tail ORDER.*'
	keys Enter
	wait_for "● live" 15
	sleep 3
	keys Enter
	wait_for "headers"
	keys f
	wait_for "[json]"
	sleep 0.5
	shot 10-tail

	# o: jump to the earliest records; the buffer fills from there, then the
	# tail holds (back pressure) and says how many newer records wait
	keys Escape o # esc closes the detail pane
	wait_for "Jump to an offset or a time"
	keys Enter
	text 'earliest'
	keys Enter
	wait_for "HELD at the jump" 60
	sleep 0.5
	shot 27-tail-held
	keys G # the end, live again (the tail stays open across tabs)
	wait_for "● live" 15
	sleep 6.5 # its flash ("tail at the latest records …") leaves the hint line

	# S: search ORDER.* beyond the buffer; the matches replace the live records
	keys S
	wait_for "Search beyond the buffer"
	keys Tab Tab Enter # the third field (value regex): enter edits it
	text '"items":9,'
	keys Enter
	wait_for "matches in" 30
	sleep 0.5
	shot 25-tail-search
}
SCENES+=("tail: 10-tail 27-tail-held 25-tail-search")

# 6 Tail of the demo's Protobuf topic SHOP.ORDERS (the built-in schema
# shop.Order): the rows and the detail pane decoded (the default format
# when a decode rule gives the topic a codec)
scene_decoded() {
	keys 6
	keys :
	text 'tail SHOP.ORDERS'
	keys Enter
	wait_for "● live" 15
	wait_for '{"id":"order-' 15
	sleep 3
	keys Enter
	wait_for "[decoded]"
	wait_for '"customer": {'
	sleep 0.5
	shot 29-tail-decoded
	keys Escape
}
SCENES+=("decoded: 29-tail-decoded")

scene_help() {
	# ? help (on Topics: the longest key list), : command line with completion
	keys 2
	wait_for "IN TREND"
	keys '?'
	wait_for "Keys — Topics"
	sleep 0.3
	shot 11-help
	keys Escape
	keys :
	text 'tail ORD'
	wait_for "tail ORDER.KR"
	sleep 0.3
	shot 12-command-line
	keys Escape
}
SCENES+=("help: 11-help 12-command-line")

scene_publish() {
	# 7 Publish: a filled form (it opens navigating: e edits the focused
	# field; tab moves on still editing), its confirmation, a finished run
	keys 7
	wait_for "▸ Topic"
	keys e
	text 'ORDER.EVENT'
	keys Tab
	text 'order-{{seq}}'
	keys Tab
	text '{"id":{{seq}},"at":"{{now}}","sku":"SKU-{{rand 500}}"}'
	keys Tab Tab
	text 'source=dashboard, run={{uuid}}'
	keys Tab BSpace
	text '3000'
	keys Tab BSpace
	text '1000'
	keys Tab Right
	keys Up Up # back on Count: the form's own cursor sits in a filled field
	sleep 0.5
	shot 13-publish-form
	keys C-s # the confirmation first; enter there sends
	wait_for "Send 3,000 records to ORDER.EVENT?"
	keys Enter
	wait_for "done in" 60
	sleep 0.5
	shot 14-publish-done

	# The confirmation of a run with both warnings (count above 100,000, no
	# rate limit); esc goes back to the form and sends nothing. e reopens the
	# form on Count, the field left last.
	keys e
	wait_for "▸ Count"
	keys e
	text '200000'
	keys Tab
	text '0'
	keys C-s
	wait_for "no rate limit"
	sleep 0.3
	shot 26-publish-confirm
	keys Escape
	wait_for "not sent"
	keys Escape # leave the form
	# the flash message ("not sent: …") stays on the hint line for 6 s
	sleep 6.5
}
SCENES+=("publish: 13-publish-form 14-publish-done 26-publish-confirm")

scene_drilldown() {
	# Drill-down from an alert: enter on the first alert (a stalled group)
	# opens the group with the cursor on the partition it lags most on; t
	# tails that one partition from the group's commit. x closes that tail.
	keys 1
	wait_for "Alerts"
	keys Enter
	wait_for "Overview › group"
	sleep 1
	keys t
	wait_for "one partition, no group" 15
	sleep 2
	shot 28-alert-drilldown
	keys x
	sleep 6.5 # the flash of x leaves the hint line
}
SCENES+=("drilldown: 28-alert-drilldown")

scene_small() {
	# 80x24: Overview and a live tail
	echo "make.sh: resizing to 80x24"
	T resize-window -t shots -x 80 -y 24
	keys 1
	sleep 1.5
	wait_for "Alerts"
	shot 15-overview-80x24
	keys 6
	keys :
	text 'tail ORDER.*'
	keys Enter
	wait_for "● live" 15
	sleep 3
	shot 16-tail-80x24
}
SCENES+=("small: 15-overview-80x24 16-tail-80x24")

# The lag history: the detail of analytics (the demo's LAGGING group)
# with its lag chart over 15 min, from the history this run recorded (at
# least LAGWAIT seconds of it, 240 by default: the scene waits for them).
scene_lagchart() {
	T resize-window -t shots -x 120 -y 40
	local lagwait=${LAGWAIT:-240} ran_s=$((($(now_ms) - start) / 1000))
	if ((ran_s < lagwait)); then
		echo "make.sh: letting the history record for $((lagwait - ran_s))s more"
		sleep "$((lagwait - ran_s))"
	fi
	keys 3 Escape # the drill-down scene left archiver's detail open on this tab
	wait_for "HEALTH"
	keys g Enter
	wait_for "Group analytics"
	wait_for "Lag · last 1h"
	keys w w w # 1h → 6h → 24h → 15m
	wait_for "[15m]"
	sleep 2
	shot 30-group-lag-chart
	keys Escape
}
SCENES+=("lagchart: 30-group-lag-chart")

# The Fleet tab (issue 27): the dashboard started again as
# `ilinkdash --demo fleet` (prod with the demo traffic, dr healthy, and a hub's
# spokes followed as a `spokes: all` context: hub/plant-1 with a node
# down, hub/plant-2 with a stopped group) at 160x40,
# where the rows have room for their in/out sparklines. Last: the program
# that runs on is the fleet's.
scene_fleet() {
	T resize-window -t shots -x 160 -y 40
	T respawn-pane -k -t shots \
		sh -c 'f=$1; shift; "$@"; echo $? >"$f"' sh "$work/exit" \
		"${dash[@]}" --demo fleet
	wait_for "Fleet · 4 clusters" 30
	wait_for "STOPPED" 20
	sleep "${FLEETWAIT:-20}" # the sparklines fill, the trend words settle
	shot 31-fleet
}
SCENES+=("fleet: 31-fleet")

ran=""
for sc in "${SCENES[@]}"; do
	name=${sc%%:*}
	shots=" ${sc#*:} "
	if [[ -z $only || $shots == *" $only "* ]]; then
		"scene_$name"
		ran=1
	fi
done
[[ -n $ran ]] || die "ONLY=$only: no such screenshot (see SCENES in make.sh)"

keys q
for _ in $(seq 50); do
	[[ -s $work/exit ]] && break
	sleep 0.1
done
[[ -s $work/exit ]] || die "the dashboard did not quit on q"
status=$(<"$work/exit")
[[ $status == 0 ]] || die "the dashboard exited with status $status"
echo "make.sh: done in $((($(now_ms) - start) / 1000))s; PNGs in $out"
