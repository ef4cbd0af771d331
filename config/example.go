package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// exampleYAML is a complete, commented config file. A test loads it, so it
// cannot drift from what Load accepts.
const exampleHead = `# ilinkdash configuration.
#
# Location: $XDG_CONFIG_HOME/ilinkdash/config.yaml (usually ~/.config/ilinkdash/),
# or the file given by --config / ILINKDASH_CONFIG.
#
# Every setting can be overridden for one run, field by field:
#   flags  >  environment (ILINKDASH_*)  >  this file  >  built-in defaults
#   --context  ILINKDASH_CONTEXT    pick a context (default: current-context)
#   --addr     ILINKDASH_ADDR       data addresses, comma-separated
#   --admin    ILINKDASH_ADMIN      admin address
#   --read-only ILINKDASH_READ_ONLY true/false/1/0
#
# With no context selected and no --addr/--admin, ilinkdash starts its
# in-process demo engine instead of connecting anywhere.
#
# The contexts below are commented out, so until you edit them ilinkdash
# keeps starting its demo engine. Uncomment one (remove the leading "# "
# of its lines), set its addresses, and set current-context to its name.

`

// exampleContexts is the contexts part of the example, written commented
// out (commentOut): an example whose current-context named a host that does
// not exist would break the embedded default the moment it is written.
const exampleContexts = `# Context used when neither --context nor ILINKDASH_CONTEXT picks one.
# Remove the line to start the demo engine by default.
current-context: prod

# Named connection targets. They are listed in this order in the context picker.
contexts:
  prod:
    # Data (queue manager listener) addresses, host:port, tried in order.
    # Listing every node lets ilinkdash reach a new leader after a failover.
    addresses: [ilink-1.example:5000, ilink-2.example:5000]
    # Admin endpoint, host:port (the engine's admin port, typically 9998).
    admin: ilink-1.example:9998
    # Queue manager name.
    queue-manager: QM1
    # Name ilinkdash reports to the engine. Default: ilinkdash.
    client-name: ilinkdash
    # Keeps the cluster's endpoint list across restarts, so ilinkdash can start
    # even when the first address is a dead old leader. "~" is expanded; a
    # relative path is relative to this file. Default: none (memory only).
    endpoint-cache-file: ~/.cache/ilinkdash/prod.endpoints
    # Refuse every mutating action (create/delete/flush/produce/reset).
    # Default: false.
    read-only: true
    # Colours: auto (follow the terminal), dark or light. Default: auto.
    theme: auto
    # Records kept by the tail view, 100..1000000. Default: 10000.
    tail-buffer: 10000
    # Bytes of keys, values and headers the tail view keeps (plus 512 per
    # record), 1MiB..16GiB; whichever bound comes first drops the oldest.
    # Default: 256MiB.
    tail-buffer-bytes: 256MiB
    # For slow links (SSH over 64 kbit/s): the tail advances at most 2x/s,
    # counters change at most 1x/s, nothing animates. Default: false.
    low-bandwidth: false
    # Frame rate cap, 1..120. Default: 20 (10 with low-bandwidth).
    fps: 20
    # Polling interval per view, as Go durations ("500ms", "2s", "1m").
    # Must be positive. Defaults: 2s, except cluster 5s.
    refresh: {overview: 2s, topics: 2s, groups: 2s, cluster: 5s, queues: 2s, replication: 2s}
    # Thresholds of the health words and alerts (docs/HEALTH.md). The
    # dashboard and "ilinkdash check" judge by the same values.
    health:
      # Sliding window of the trend rules (LAGGING, REWOUND, caught up
      # within the window, consumption rate). Default: 10s.
      window: 10s
      # A group with members and unread records whose commits have not
      # advanced for this long is STALLED. Keep it above your consumers'
      # commit interval. Default: 10s.
      stall-after: 10s
      # A LAGGING group raises a warning from this lag (records), a critical
      # alert from max-lag-critical (0: never critical). Defaults: 1000, 100000.
      max-lag-warning: 1000
      max-lag-critical: 100000
      # A queue deeper than this raises a warning (0: off). Default: 10000.
      queue-depth: 10000
      # A dead-letter queue (named by another queue's dead-letter property,
      # or DLQ / *.DLQ) is "growing" while its depth rose within this long.
      # Default: 5m.
      dlq-window: 5m
    # How records are shown, by topic or queue (a glob: * ? [..]); the
    # first rule that matches wins. A side is text, json or hex, or a
    # schema from the team's repository (paths relative to this file):
    # protobuf (.proto files compiled in-process, or one descriptor set
    # *.pb), avro (.avsc; plain binary or single-object encoding) or
    # json-schema (validated and pretty-printed). Default: none.
    decode:
      - topics: "ORDER.*"
        key: text
        value: {protobuf: {files: [schemas/orders.proto], import-paths: [schemas], message: shop.Order}}
      - topics: "PAYMENT.*"
        value: {avro: {schema: schemas/payment.avsc}}
      - queues: "INVOICE.Q"
        value: {json-schema: schemas/invoice.json}

  # A spoke of a hub (hub and spokes): spokes connect out to the hub, the
  # only one with an inbound port, and every connection of this context
  # (views, tail, publish) goes through the hub's admin address. Name the
  # spoke by name (or by its key, below); a context has no admin or addresses of its own then.
  plant-7:
    hub: ilink-hub.example:9998
    spoke: plant-7

  # The same spoke by its key (spokes with one name on several hubs).
  plant-7-by-key:
    hub: ilink-hub.example:9998
    spoke-key: SK2F6A0D1C9B3E8F47

  # Every spoke the hub lists, one row each in the Fleet tab (running or
  # not), following spokes as they link and leave.
  plants:
    hub: ilink-hub.example:9998
    spokes: all

  # A minimal context: every field left out takes its default.
  local:
    addresses: [localhost:19999]
    admin: localhost:9998
    queue-manager: QMGR1
`

const exampleServe = `# ilinkdash serve: the dashboard served over SSH (one poller for everyone).
# Flags (--listen, --authorized-keys, ...) override these field by field.
serve:
  # SSH listen address. Default: 127.0.0.1:2222.
  listen: 127.0.0.1:2222
  # OpenSSH authorized_keys files, re-read when they change. Keys in
  # authorized-keys get a read-only dashboard; keys in operator-keys may
  # change the cluster. Every other key is refused. "~" is expanded; a
  # relative path is relative to this file.
  authorized-keys: ~/.config/ilinkdash/viewers.keys
  operator-keys: ~/.config/ilinkdash/operators.keys
  # The server's ed25519 host key, created (mode 0600) on first start.
  # Default: $XDG_DATA_HOME/ilinkdash/ssh_host_ed25519_key.
  host-key: ~/.local/share/ilinkdash/ssh_host_ed25519_key
  # Dashboards served at once (1..10000). Default: 32.
  max-sessions: 32
  # A session without input for this long is closed. Default: 30m.
  idle-timeout: 30m
  # Tails running at once over all sessions, each in its own temporary
  # group (0..1000; 0 disables tailing). Default: 8.
  max-tails: 8
  # Records each session's tail keeps (100..1000000). Default: 2000.
  tail-buffer: 2000
  # Bytes each session's tail keeps (1MiB..16GiB). Default: 16MiB. The
  # tails of the whole server hold at most max-tails x this.
  tail-buffer-bytes: 16MiB
  # Every session's terminal is clamped to this size, whatever the client
  # asks (40..2000 columns, 10..1000 rows). Default: 300 x 100. A session
  # holds about 250 bytes a cell: ~8 MiB at 300 x 100, ~1.2 MiB at 120 x 40.
  max-columns: 300
  max-rows: 100
  # A connection without a dashboard is closed this long after it
  # authenticated (or after its last dashboard ended). Default: 10s.
  open-timeout: 10s
  # Connections without a dashboard yet (handshaking, authenticating,
  # opening one) at once; more are closed at once (1..1000). Default: 64.
  max-startups: 64
  # Dashboards one key may hold at once (one key cannot take every
  # session). Default: 16.
  max-sessions-per-key: 16
  # The only directory a session may write to: operators' tail saves, under
  # names the server chooses. Default: none (saving off).
  # save-dir: ~/.local/state/ilinkdash/saves
  # The largest file one save writes. Default: 64MiB.
  save-max-bytes: 64MiB
  # Every mutating action (who, what, target, outcome), connect and
  # disconnect, as JSON lines. Default: none.
  audit-log: ~/.local/state/ilinkdash/audit.jsonl
`

// exampleYAML is a complete, commented config file: its contexts commented
// out. A test loads it both as written and with the contexts uncommented
// (ExampleContextsYAML), so neither can drift from what Load accepts.
var exampleYAML = exampleHead + commentOut(exampleContexts) + "\n" + exampleServe

// ExampleYAML returns the example config file "config init" writes.
func ExampleYAML() string { return exampleYAML }

// ExampleContextsYAML returns the example with its contexts active, as a
// user who uncomments them gets it.
func ExampleContextsYAML() string { return exampleHead + exampleContexts + "\n" + exampleServe }

// commentOut prefixes every line with "# " (empty lines with "#"), so
// removing the first two characters of each line restores it.
func commentOut(s string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		switch strings.TrimRight(l, "\n") {
		case "":
			if l != "" {
				b.WriteString("#\n")
			}
		default:
			b.WriteString("# " + l)
		}
	}
	return b.String()
}

// WriteExample writes ExampleYAML to path (DefaultPath() when empty),
// creating missing directories with mode 0700 and the file with 0600,
// because the file names internal hosts. An existing file is kept unless
// force is set; the refusal wraps fs.ErrExist.
func WriteExample(path string, force bool) error {
	if path == "" {
		path = DefaultPath()
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write example config: %w", err)
	}
	if !force {
		// O_EXCL makes the existence check and the creation one step.
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			return existsError{path}
		}
		if err != nil {
			return fmt.Errorf("write example config: %w", err)
		}
		_, err = f.WriteString(exampleYAML)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("write example config %s: %w", path, err)
		}
		return nil
	}
	// Overwrite through a temporary file and rename, so an interrupted
	// write never leaves a truncated config, and the result is 0600 even if
	// the old file was not.
	tmp, err := os.CreateTemp(dir, ".config-*.yaml")
	if err != nil {
		return fmt.Errorf("write example config: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	_, err = tmp.WriteString(exampleYAML)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o600)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("write example config %s: %w", path, err)
	}
	return nil
}

// existsError is WriteExample's refusal to overwrite. It matches
// fs.ErrExist for errors.Is without repeating "file already exists" in the
// message.
type existsError struct{ path string }

func (e existsError) Error() string {
	return "config file " + e.path + " already exists; refusing to overwrite it (--force replaces it)"
}

func (e existsError) Is(target error) bool { return target == fs.ErrExist }
