#!/usr/bin/env bash
# Measures the real dashboard (the built binary, in tmux) against the targets
# of the dashboard issue. Prints figures only; nothing here is a test.
#
#   screenshots/measure.sh              # everything, about 5 minutes
#   screenshots/measure.sh startup idle # only some parts: startup idle rss flood
#   RUNS=10 IDLE=60 SETTLE=15 FLOOD_RATE=50000 FLOOD_SECS=10 FLOOD_SIZE=100 screenshots/measure.sh
#
#  startup  time from process start to the first full frame on the embedded
#           demo (the overview shows its three node rows); RUNS runs.
#           Also against an already running engine (--addr/--admin).
#  idle     CPU of the dashboard over IDLE s once settled (SETTLE s) on the
#           Overview: (a) `ilinkdash` with the embedded engine and demo
#           traffic in the same process; (b) the engine with demo traffic in
#           its own process (`ilinkdash engine --demo`) and the dashboard
#           attached with --addr/--admin; (c) the dashboard attached to an
#           engine without traffic.
#  rss      VmRSS/VmHWM of the dashboard with a full tail buffer of 1 KiB
#           records: engine in one process, dashboard attached, Tail open on
#           topic BIG, 12,000 records of 1 KiB published (then 12,000 more).
#  flood    the same Tail while FLOOD_RATE records/s are published for
#           FLOOD_SECS s: the screen is sampled every ~40 ms (distinct
#           frames per second, status counters), space (pause/resume) is
#           sent every 2 s and the time until the screen shows it is taken.
#  bandwidth  bytes/s written to the terminal (a pty, read by a terminal
#           emulator) at 120x40 and 80x24, default and --low-bandwidth: each
#           view idle, the tail at 200 and 2,000 rec/s, paused, a publish
#           running; key-to-screen latency of space, a tab switch and j
#           through an 8,000 B/s relay; a 10 s pause at 2,000 rec/s. The Go
#           tool screenshots/bandwidth (its own module) does the work;
#           BANDWIDTH_ARGS passes it flags (-window 8s -settle 2s -repeats 5).
#           Not part of the default set (about 15 minutes).
#
# CPU comes from /proc/PID/stat (utime+stime, in clock ticks), memory from
# /proc/PID/status; % is of one core. Needs bash >= 5 ($EPOCHREALTIME), tmux,
# go, Linux /proc.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
RUNS=${RUNS:-5}
IDLE=${IDLE:-60}
SETTLE=${SETTLE:-15}
FLOOD_RATE=${FLOOD_RATE:-50000}
FLOOD_SECS=${FLOOD_SECS:-10}
FLOOD_SIZE=${FLOOD_SIZE:-100}
parts=("$@")
((${#parts[@]})) || parts=(startup idle rss flood)

work=$(mktemp -d "${TMPDIR:-/tmp}/ilinkdash-measure.XXXXXX")
sock="ilinkdash-measure-$$"
bin="$work/ilinkdash"
engine_pid=""
cleanup() {
	tmux -L "$sock" kill-server 2>/dev/null || true
	[[ -z $engine_pid ]] || kill "$engine_pid" 2>/dev/null || true
	[[ -n ${KEEP:-} ]] && echo "kept $work" || rm -rf "$work"
}
trap cleanup EXIT

echo "# building: (cd $root && go build -o \$WORK/ilinkdash .)"
(cd "$root" && go build -o "$bin" .)
mkdir -p "$work/xdg"
cat >"$work/tmux.conf" <<'EOF'
set -g status off
set -g default-terminal tmux-256color
set -g remain-on-exit on
set -g history-limit 0
EOF
hz=$(getconf CLK_TCK)
echo "# host: $(nproc) CPUs, $(awk '/MemTotal/{printf "%.0f MiB", $2/1024}' /proc/meminfo), $(uname -sr), $(go version | cut -d' ' -f3), tmux $(tmux -V | cut -d' ' -f2)"

T() { tmux -L "$sock" "$@"; }
# The first session keeps the tmux server up between runs.
T -f "$work/tmux.conf" new-session -d -s keep -x 120 -y 40 "sleep 100000"

us() { local t=$EPOCHREALTIME; echo "${t/./}"; } # microseconds, no fork
envs="env -u NO_COLOR -u ILINKDASH_ADDR -u ILINKDASH_ADMIN -u ILINKDASH_CONTEXT -u ILINKDASH_READ_ONLY -u ILINKDASH_DEBUG -u ILINKDASH_CONFIG XDG_CONFIG_HOME=$work/xdg TERM=xterm-256color COLORTERM=truecolor"

# open NAME ARGS...: run the dashboard in a new 120x40 window; its pid is the
# pane's (exec, no shell in between). The start time is taken by bash in the
# pane right before exec.
open() {
	local name=$1
	shift
	T new-window -d -n "$name" -t keep: "bash -c 'echo \$EPOCHREALTIME > $work/$name.t0; exec $envs $bin $*'"
	T resize-window -t "keep:$name" -x 120 -y 40 2>/dev/null || true
	for _ in $(seq 100); do [[ -s $work/$name.t0 ]] && break; sleep 0.01; done
	T display -p -t "keep:$name" '#{pane_pid}'
}
screen() { T capture-pane -p -t "keep:$1"; }
close() {
	T send-keys -t "keep:$1" q
	for _ in $(seq 50); do
		[[ $(T display -p -t "keep:$1" '#{pane_dead}') == 1 ]] && break
		sleep 0.1
	done
	T kill-window -t "keep:$1" 2>/dev/null || true
}
wait_for() { # WINDOW TEXT [SECONDS]
	local deadline=$(($(us) + ${3:-15} * 1000000))
	until screen "$1" | grep -qF -- "$2"; do
		(($(us) < deadline)) || {
			echo "timed out waiting for '$2' in $1; screen:" >&2
			screen "$1" >&2
			exit 1
		}
		sleep 0.05
	done
}
nodes_shown() { [[ $(screen "$1" | grep -cE '^ +[0-9]+ +QM1 .*(leader|follower)') -ge 3 ]]; }
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
mem() { awk '/^VmRSS/{r=$2} /^VmHWM/{h=$2} END{printf "VmRSS %.1f MiB, VmHWM %.1f MiB", r/1024, h/1024}' "/proc/$1/status"; }
pct() { awk -v t="$1" -v hz="$hz" -v s="$2" 'BEGIN{printf "%.2f%%", 100*t/hz/s}'; }

start_engine() { # ARGS...: ilinkdash engine in the background; sets DATA ADMIN engine_pid
	"$bin" engine "$@" >"$work/engine.out" 2>"$work/engine.err" &
	engine_pid=$!
	for _ in $(seq 100); do [[ $(grep -c '^node' "$work/engine.out" 2>/dev/null) -ge 3 ]] && break; sleep 0.05; done
	DATA=$(awk '/^node/{printf "%s%s", s, $4; s=","}' "$work/engine.out")
	ADMIN=$(awk '/^node 1 /{print $6}' "$work/engine.out")
	echo "  \$ ilinkdash engine $*    # pid $engine_pid: data $DATA admin $ADMIN"
}
stop_engine() {
	kill "$engine_pid"
	wait "$engine_pid" 2>/dev/null || true
	engine_pid=""
}

# ---------------------------------------------------------------- startup
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
startup_runs() { # LABEL ARGS...
	local label=$1 i pid t0 t first full outer
	shift
	local firsts=() fulls=() outers=()
	for ((i = 1; i <= RUNS; i++)); do
		rm -f "$work/s$i.t0"
		outer=$(us)
		pid=$(open "s$i" "$@")
		first="" full=""
		while :; do
			t=$(us)
			if [[ -z $first ]] && screen "s$i" | grep -qF "1 Overview"; then first=$t; fi
			if nodes_shown "s$i"; then full=$t; first=${first:-$t}; break; fi
			if ((t - $(tr -d . <"$work/s$i.t0") > 20000000)); then
				echo "  run $i: no full frame after 20 s" >&2
				screen "s$i" >&2
				exit 1
			fi
		done
		t0=$(tr -d . <"$work/s$i.t0")
		firsts+=($(((first - t0) / 1000)))
		fulls+=($(((full - t0) / 1000)))
		outers+=($(((full - outer) / 1000)))
		close "s$i"
	done
	echo "  $label: first paint ${firsts[*]} ms; first full frame ${fulls[*]} ms (median $(median "${fulls[@]}") ms)"
	echo "    the same from before \`tmux new-window\` (adds tmux and bash start): ${outers[*]} ms (median $(median "${outers[@]}") ms)"
}

part_startup() {
	echo
	echo "## (1) start to first full frame (target < 1 s)"
	echo "  polling \`tmux capture-pane -p\` back to back (~2-4 ms per poll) until the overview shows 3 node rows;"
	echo "  t0 = \$EPOCHREALTIME in the pane right before exec; $RUNS runs each"
	echo "  \$ ilinkdash                      # embedded engine + demo, empty XDG_CONFIG_HOME"
	startup_runs "embedded demo" ""
	start_engine
	echo "  \$ ilinkdash --addr $DATA --admin $ADMIN"
	startup_runs "attached to a running engine" "--addr $DATA --admin $ADMIN"
	stop_engine
}

# ---------------------------------------------------------------- idle
idle_window() { # WINDOW PID [ENGINE_PID]: settle, then CPU over IDLE s
	local w=$1 pid=$2 epid=${3:-} a b ea eb
	wait_for "$w" "Alerts" 20
	until nodes_shown "$w"; do sleep 0.1; done
	sleep "$SETTLE"
	a=$(ticks "$pid")
	[[ -z $epid ]] || ea=$(ticks "$epid")
	sleep "$IDLE"
	b=$(ticks "$pid")
	echo "    dashboard pid $pid: $((b - a)) ticks in ${IDLE}s = $(pct $((b - a)) "$IDLE") of one core; $(mem "$pid")"
	if [[ -n $epid ]]; then
		eb=$(ticks "$epid")
		echo "    engine    pid $epid: $((eb - ea)) ticks in ${IDLE}s = $(pct $((eb - ea)) "$IDLE") of one core; $(mem "$epid")"
	fi
}

part_idle() {
	local pid
	echo
	echo "## (2) idle CPU on the Overview (target < 1 % for the dashboard itself)"
	echo "  settle ${SETTLE}s after the first full frame, then utime+stime over ${IDLE}s (CLK_TCK $hz)"
	echo "  (a) \$ ilinkdash     # engine + demo traffic + dashboard in one process"
	pid=$(open idle-a)
	idle_window idle-a "$pid"
	close idle-a
	echo "  (b) engine with demo traffic in its own process, dashboard attached:"
	start_engine --demo
	echo "      \$ ilinkdash --addr $DATA --admin $ADMIN"
	pid=$(open idle-b "--addr $DATA --admin $ADMIN")
	idle_window idle-b "$pid" "$engine_pid"
	close idle-b
	stop_engine
	echo "  (c) engine without traffic, dashboard attached:"
	start_engine
	echo "      \$ ilinkdash --addr $DATA --admin $ADMIN"
	pid=$(open idle-c "--addr $DATA --admin $ADMIN")
	idle_window idle-c "$pid" "$engine_pid"
	close idle-c
	stop_engine
}

# ---------------------------------------------------------------- rss + flood
TAIL_PID=""
tail_setup() {
	[[ -n $TAIL_PID ]] && return
	start_engine
	echo "  \$ ilinkdash publish BIG --count 1 --size 1024 --partitions 6 --addr $DATA   # creates the topic"
	"$bin" publish BIG --count 1 --size 1024 --partitions 6 --addr "$DATA" >/dev/null 2>&1
	echo "  \$ ilinkdash --addr $DATA --admin $ADMIN    # then 6, :tail BIG"
	TAIL_PID=$(open tail "--addr $DATA --admin $ADMIN")
	wait_for tail "Alerts" 20
	T send-keys -t keep:tail 6
	sleep 0.3
	T send-keys -t keep:tail :
	sleep 0.2
	T send-keys -t keep:tail -l 'tail BIG'
	sleep 0.2
	T send-keys -t keep:tail Enter
	wait_for tail "● live" 15
	sleep 2
}
tail_total() { screen tail | sed -n 3p | grep -oE '[0-9,]+ total' | tr -d ', total'; }

part_rss() {
	local out
	echo
	echo "## (3) RSS with a full tail buffer of 1 KiB records (target < 150 MB)"
	tail_setup
	echo "  tail open, empty buffer: $(mem "$TAIL_PID")"
	for round in 1 2; do
		echo "  \$ ilinkdash publish BIG --count 12000 --size 1024 --addr $DATA"
		out=$("$bin" publish BIG --count 12000 --size 1024 --addr "$DATA" 2>&1 | head -1)
		echo "    $out"
		local want=$((round * 12000)) deadline=$(($(us) + 30000000))
		until [[ $(tail_total) -ge $want ]]; do
			(($(us) < deadline)) || { echo "tail total stuck at $(tail_total) (want $want)" >&2; screen tail >&2; exit 1; }
			sleep 0.1
		done
		sleep 3
		echo "    tail: $(screen tail | sed -n 3p | sed 's/^ *//')"
		echo "    dashboard pid $TAIL_PID after $want records: $(mem "$TAIL_PID")"
	done
}

part_flood() {
	local count=$((FLOOD_RATE * FLOOD_SECS)) before a b ea eb pub_pid t0 t end_us
	echo
	echo "## (4) tail under $FLOOD_RATE records/s for ${FLOOD_SECS}s (frames >= 10/s, input stays responsive)"
	tail_setup
	before=$(tail_total)
	echo "  \$ ilinkdash publish BIG --rate $FLOOD_RATE --count $count --size $FLOOD_SIZE --addr $DATA"
	a=$(ticks "$TAIL_PID")
	ea=$(ticks "$engine_pid")
	"$bin" publish BIG --rate "$FLOOD_RATE" --count "$count" --size "$FLOOD_SIZE" --addr "$DATA" >"$work/flood.out" 2>&1 &
	pub_pid=$!
	t0=$(us)
	end_us=$((t0 + (FLOOD_SECS + 4) * 1000000))
	# sampler: time, checksum of the whole screen, the tail's header line
	(
		while (($(us) < end_us)); do
			s=$(screen tail)
			printf '%s|%s|%s\n' "$(us)" "$(cksum <<<"$s" | cut -d' ' -f1)" "$(sed -n 3p <<<"$s")"
			sleep 0.02
		done
	) >"$work/samples.txt" &
	local sampler=$!
	# probes: space (pause) then space (resume), every 2 s
	: >"$work/probes.txt"
	local i want_paused
	for ((i = 0; i < FLOOD_SECS / 2 * 2; i++)); do
		sleep 0.9
		if ((i % 2 == 0)); then want_paused=1; else want_paused=0; fi
		t=$(us)
		T send-keys -t keep:tail Space
		while :; do
			if screen tail | sed -n 3p | grep -q paused; then
				((want_paused)) && break
			else
				((want_paused)) || break
			fi
			(($(us) - t < 5000000)) || { echo "probe $i: no change after 5 s" >>"$work/probes.txt"; break; }
			sleep 0.005
		done
		echo "$(((t - t0) / 1000)) $([[ $want_paused == 1 ]] && echo pause || echo resume) $((($(us) - t) / 1000))" >>"$work/probes.txt"
	done
	# leave it running, not paused
	screen tail | sed -n 3p | grep -q paused && T send-keys -t keep:tail Space
	wait "$pub_pid" || true
	wait "$sampler" || true
	b=$(ticks "$TAIL_PID")
	eb=$(ticks "$engine_pid")
	local el=$((($(us) - t0) / 1000))
	echo "    publisher: $(head -2 "$work/flood.out" | tr '\n' ' ')"
	echo "    dashboard CPU over ${el} ms: $((b - a)) ticks = $(awk -v t=$((b - a)) -v hz="$hz" -v ms="$el" 'BEGIN{printf "%.0f%%", 100*t/hz/(ms/1000)}') of one core; engine $((eb - ea)) ticks = $(awk -v t=$((eb - ea)) -v hz="$hz" -v ms="$el" 'BEGIN{printf "%.0f%%", 100*t/hz/(ms/1000)}'); $(nproc) CPUs shared with the publisher"
	echo "    dashboard memory after the flood: $(mem "$TAIL_PID")"
	echo "    tail total: before $before, after $(tail_total) (published $count)"
	awk -F'|' -v t0="$t0" -v secs="$FLOOD_SECS" '
		{ t = ($1 - t0) / 1e6; n++; if ($2 != last) { ch++; sec = int(t); per[sec]++; if (lastch != "") { g = t - lastch; if (g > maxgap) { maxgap = g; at = t } } lastch = t; last = $2 }
		  if (match($3, /[0-9,]+ total/)) { v = substr($3, RSTART, RLENGTH); gsub(/[, total]/, "", v); v += 0; if (v > prevtotal) adv++; prevtotal = v } }
		END {
			printf "    samples: %d in %.1f s (%.1f/s); distinct screens: %d\n", n, t, n / t, ch
			printf "    distinct screens per second, s0..s%d of the flood:", secs
			for (s = 0; s <= secs + 2; s++) printf " %d", per[s]
			printf "\n    longest gap between two distinct screens: %.0f ms (at %.1f s); samples where the total advanced: %d\n", maxgap * 1000, at, adv
		}' "$work/samples.txt"
	echo "    input (space) until the screen shows it, ms after flood start -> latency:"
	awk '{printf "      t=%5d ms  %-6s %4d ms\n", $1, $2, $3}' "$work/probes.txt"
	echo "    header line samples (every ~1 s):"
	awk -F'|' -v t0="$t0" '{ s = int(($1 - t0) / 1e6); if (s != last) { printf "      %5.1f s  %s\n", ($1 - t0) / 1e6, $3; last = s } }' "$work/samples.txt"
}

for p in "${parts[@]}"; do
	echo
	echo "# $(date -u +%H:%M:%SZ) load average $(cut -d' ' -f1-3 /proc/loadavg) (other processes compete for the $(nproc) CPUs)"
	case $p in
	startup) part_startup ;;
	idle) part_idle ;;
	rss) part_rss ;;
	flood) part_flood ;;
	bandwidth)
		echo
		echo "## (5) bandwidth: \$ (cd screenshots/bandwidth && go run . -bin \$WORK/ilinkdash ${BANDWIDTH_ARGS:-})"
		(cd "$here/bandwidth" && go run . -bin "$bin" ${BANDWIDTH_ARGS:-})
		;;
	*)
		echo "unknown part $p (want startup idle rss flood bandwidth)" >&2
		exit 2
		;;
	esac
done
