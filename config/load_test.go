package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// writeConfig writes content to dir/config.yaml and returns the path.
func writeConfig(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadValid(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	path := writeConfig(t, `current-context: prod
contexts:
  prod:
    addresses: [ilink-1.example:5000, "[::1]:5001"]
    admin: ilink-1.example:9998
    queue-manager: QM1
    client-name: dash
    endpoint-cache-file: ~/.cache/ilinkdash/prod.endpoints
    read-only: true
    theme: dark
    tail-buffer: 500
    refresh: {overview: 1s, topics: 500ms, cluster: 1m}
    health: {window: 30s, max-lag-warning: 500, queue-depth: 0}
  dev:
    addresses: [localhost:19999]
    endpoint-cache-file: cache/dev.endpoints
  zeta:
`)
	f, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if f.Path != path || !f.Exists || f.CurrentContext != "prod" {
		t.Errorf("file = %q exists=%v current=%q", f.Path, f.Exists, f.CurrentContext)
	}
	if got, want := f.Names(), []string{"prod", "dev", "zeta"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Names() = %v, want file order %v", got, want)
	}

	prod, _ := f.Lookup("prod")
	want := Context{
		Name:              "prod",
		Addresses:         []string{"ilink-1.example:5000", "[::1]:5001"},
		Admin:             "ilink-1.example:9998",
		QueueManager:      "QM1",
		ClientName:        "dash",
		EndpointCacheFile: filepath.Join(home, ".cache/ilinkdash/prod.endpoints"),
		ReadOnly:          true,
		Refresh: Refresh{
			Overview: time.Second, Topics: 500 * time.Millisecond, Cluster: time.Minute,
			// Left out, so defaulted.
			Groups: 2 * time.Second, Queues: 2 * time.Second, Replication: 2 * time.Second,
		},
		Theme:           ThemeDark,
		TailBuffer:      500,
		TailBufferBytes: DefaultTailBufferBytes,
		Health: Health{Window: 30 * time.Second, MaxLagWarning: 500, QueueDepth: 0,
			// Left out, so defaulted.
			StallAfter: 10 * time.Second, MaxLagCritical: 100000, DLQWindow: 5 * time.Minute},
	}
	if !reflect.DeepEqual(prod, want) {
		t.Errorf("prod =\n%+v\nwant\n%+v", prod, want)
	}

	dev, _ := f.Lookup("dev")
	if got, want := dev.EndpointCacheFile, filepath.Join(filepath.Dir(path), "cache/dev.endpoints"); got != want {
		t.Errorf("relative endpoint-cache-file = %q, want %q (relative to the config file)", got, want)
	}
	wantDev := DefaultContext()
	wantDev.Name, wantDev.Addresses, wantDev.EndpointCacheFile = "dev", []string{"localhost:19999"}, dev.EndpointCacheFile
	if !reflect.DeepEqual(dev, wantDev) {
		t.Errorf("dev =\n%+v\nwant defaults\n%+v", dev, wantDev)
	}

	// A context with a null body is all defaults.
	zeta, ok := f.Lookup("zeta")
	wantZeta := DefaultContext()
	wantZeta.Name = "zeta"
	if !ok || !reflect.DeepEqual(zeta, wantZeta) {
		t.Errorf("zeta = %+v, %v; want defaults", zeta, ok)
	}

	// Lookup hands out copies.
	prod.Addresses[0] = "changed:1"
	if again, _ := f.Lookup("prod"); again.Addresses[0] != "ilink-1.example:5000" {
		t.Error("editing a Lookup result changed the File")
	}
}

func TestLoadMergeKeys(t *testing.T) {
	f, err := Parse("config.yaml", []byte(`contexts:
  a: &base
    admin: h:9998
    theme: dark
    refresh: {topics: 1s}
  b:
    <<: *base
    theme: light
`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := f.Lookup("b")
	if b.Admin != "h:9998" || b.Theme != ThemeLight || b.Refresh.Topics != time.Second {
		t.Errorf("b = %+v; want admin and refresh merged from a, theme overridden", b)
	}
}

func TestLoadEmpty(t *testing.T) {
	for _, content := range []string{"", "# just a comment\n", "---\n"} {
		f, err := Load(writeConfig(t, content))
		if err != nil || len(f.Contexts) != 0 || f.CurrentContext != "" {
			t.Errorf("Load(%q) = %+v, %v; want an empty File", content, f, err)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name   string
		yaml   string
		line   int
		col    int    // 0: not checked (syntax errors have none)
		field  string // "" for syntax errors
		substr string
	}{
		{name: "unknown field with suggestion", yaml: "contexts:\n  prod:\n    adress: [h:1]\n", line: 3, col: 5, field: "contexts.prod.adress", substr: `unknown field; did you mean "addresses"?`},
		{name: "unknown field without close match lists the known ones", yaml: "contexts:\n  prod:\n    refresh:\n      banana: 2s\n", line: 4, col: 7, field: "contexts.prod.refresh.banana", substr: "known fields: overview, topics, groups, cluster, queues, replication"},
		{name: "context setting at the top level", yaml: "admin: h:1\n", line: 1, col: 1, field: "admin", substr: "belong under contexts.<name>"},
		{name: "wrong type: scalar for addresses", yaml: "contexts:\n  prod:\n    admin: h:1\n    addresses: h:1\n", line: 4, col: 16, field: "contexts.prod.addresses", substr: `expected a list of host:port addresses, got string "h:1"`},
		{name: "wrong type: string for tail-buffer", yaml: "contexts:\n  prod:\n    tail-buffer: lots\n", line: 3, col: 18, field: "contexts.prod.tail-buffer", substr: `expected an integer, got string "lots"`},
		{name: "wrong type: yes for read-only", yaml: "contexts:\n  prod:\n    read-only: yes\n", line: 3, col: 16, field: "contexts.prod.read-only", substr: `expected true or false, got string "yes"`},
		{name: "wrong type: number for a string", yaml: "contexts:\n  prod:\n    queue-manager: 12\n", line: 3, col: 20, field: "contexts.prod.queue-manager", substr: "expected a string, got integer 12"},
		{name: "wrong type: contexts as a list", yaml: "contexts:\n  - prod\n", line: 2, col: 3, field: "contexts", substr: "expected a mapping of context name to settings, got a list"},
		{name: "bad duration", yaml: "contexts:\n  prod:\n    admin: h:1\n    refresh:\n      overview: 2s\n      topics: 2x\n", line: 6, col: 15, field: "contexts.prod.refresh.topics", substr: `invalid duration "2x"`},
		{name: "zero duration", yaml: "contexts:\n  prod:\n    refresh: {cluster: 0s}\n", line: 3, col: 24, field: "contexts.prod.refresh.cluster", substr: `duration must be positive, got "0s"`},
		{name: "negative duration", yaml: "contexts:\n  prod:\n    refresh: {queues: -1s}\n", line: 3, col: 23, field: "contexts.prod.refresh.queues", substr: "must be positive"},
		{name: "duration without unit", yaml: "contexts:\n  prod:\n    refresh: {groups: 2}\n", line: 3, col: 23, field: "contexts.prod.refresh.groups", substr: "add a unit"},
		{name: "bad address in list", yaml: "contexts:\n  prod:\n    addresses:\n      - ilink-1.example:5000\n      - ilink-2.example\n", line: 5, col: 9, field: "contexts.prod.addresses[1]", substr: `invalid address "ilink-2.example"`},
		{name: "bad port", yaml: "contexts:\n  prod:\n    addresses: [h:99999]\n", line: 3, col: 17, field: "contexts.prod.addresses[0]", substr: "port must be a number in 1..65535"},
		{name: "bad admin address", yaml: "contexts:\n  prod:\n    admin: :9998\n", line: 3, col: 12, field: "contexts.prod.admin", substr: "missing host"},
		{name: "bad theme", yaml: "contexts:\n  prod:\n    admin: h:1\n    theme: blue\n", line: 4, col: 12, field: "contexts.prod.theme", substr: `unknown theme "blue" (want auto, dark or light)`},
		{name: "tail-buffer too small", yaml: "contexts:\n  prod:\n    tail-buffer: 99\n", line: 3, col: 18, field: "contexts.prod.tail-buffer", substr: "must be between 100 and 1000000, got 99"},
		{name: "tail-buffer too large", yaml: "contexts:\n  prod:\n    tail-buffer: 1000001\n", line: 3, col: 18, field: "contexts.prod.tail-buffer", substr: "must be between 100 and 1000000"},
		{name: "fps too high", yaml: "contexts:\n  prod:\n    fps: 500\n", line: 3, col: 10, field: "contexts.prod.fps", substr: "must be between 1 and 120 frames per second, got 500"},
		{name: "fps not a number", yaml: "contexts:\n  prod:\n    fps: fast\n", line: 3, col: 10, field: "contexts.prod.fps", substr: "expected an integer"},
		{name: "unknown current-context", yaml: "current-context: stage\ncontexts:\n  prod: {admin: 'h:1'}\n  dev: {admin: 'h:2'}\n", line: 1, col: 18, field: "current-context", substr: `context "stage" is not defined (known: prod, dev)`},
		{name: "empty context name", yaml: "contexts:\n  prod: {admin: 'h:1'}\n  \"\": {admin: 'h:2'}\n", line: 3, col: 3, field: "contexts", substr: "context name must not be empty"},
		{name: "duplicate context", yaml: "contexts:\n  prod: {admin: 'h:1'}\n  prod: {admin: 'h:2'}\n", line: 3, col: 3, field: "contexts.prod", substr: "defined twice (first at line 2)"},
		{name: "context name with a dot is quoted in the path", yaml: "contexts:\n  eu.prod:\n    theme: x\n", line: 3, col: 12, field: `contexts["eu.prod"].theme`, substr: "unknown theme"},
		{name: "syntax error", yaml: "contexts:\n  prod:\n    admin: h:1\n    theme dark\n    read-only: true\n", line: 4, substr: "syntax error: could not find expected ':'"},
		{name: "syntax error: unclosed flow list", yaml: "contexts:\n  prod:\n    addresses: [h:1, h:2\n    admin: h:3\n", line: 3, substr: "syntax error: did not find expected ',' or ']'"},
		{name: "health: a bare number for a duration", yaml: "contexts:\n  prod:\n    health:\n      window: 10\n", line: 4, col: 15, field: "contexts.prod.health.window", substr: `expected a duration such as "2s"`},
		{name: "health: a negative limit", yaml: "contexts:\n  prod:\n    health: {queue-depth: -5}\n", line: 3, col: 27, field: "contexts.prod.health.queue-depth", substr: "must not be negative, got -5 (0 turns it off)"},
		{name: "health: a limit that is not a number", yaml: "contexts:\n  prod:\n    health: {max-lag-warning: 1k}\n", line: 3, col: 31, field: "contexts.prod.health.max-lag-warning", substr: `expected a whole number of records, got string "1k"`},
		{name: "health: critical below warning", yaml: "contexts:\n  prod:\n    health:\n      max-lag-warning: 5000\n      max-lag-critical: 100\n", line: 5, col: 25, field: "contexts.prod.health.max-lag-critical", substr: "max-lag-critical 100 is below max-lag-warning 5000 (0 turns it off)"},
		{name: "health: unknown field", yaml: "contexts:\n  prod:\n    health:\n      stal-after: 5s\n", line: 4, col: 7, field: "contexts.prod.health.stal-after", substr: `did you mean "stall-after"?`},
		{name: "syntax error: tab indentation", yaml: "contexts:\n\tprod: {}\n", line: 2, substr: "syntax error"},
		{name: "syntax error on line 1", yaml: "contexts: [\n", line: 2, substr: "syntax error"}, // reported at the end of input
		// The parser names the line the enclosing mapping began on (2, 3);
		// the error names the line of the slip.
		{name: "syntax error: key indented too little", yaml: "contexts:\n  a:\n    admin: h:1\n   b: x\n", line: 4, substr: "syntax error: did not find expected key"},
		{name: "syntax error: list item indented too little", yaml: "current-context: a\ncontexts:\n  a:\n    admin: h:1\n  b:\n    addresses:\n    - h:2\n   - h:3\n", line: 8, substr: "syntax error: did not find expected key"},
		{name: "syntax error: unknown anchor", yaml: "contexts:\n  prod:\n    refresh: *common\n", line: 3, substr: "unknown anchor 'common'"},
		{name: "hub: bad address", yaml: "contexts:\n  p7:\n    hub: ilink-hub.example\n    spoke: p7\n", line: 3, col: 10, field: "contexts.p7.hub", substr: `invalid address "ilink-hub.example"`},
		{name: "hub: spoke and spoke-key", yaml: "contexts:\n  p7:\n    hub: ilink-hub.example:9998\n    spoke: p7\n    spoke-key: SK1\n", line: 5, col: 5, field: "contexts.p7.spoke-key", substr: "spoke and spoke-key are exclusive"},
		{name: "hub: neither spoke nor spokes", yaml: "contexts:\n  p7:\n    hub: ilink-hub.example:9998\n", line: 3, col: 5, field: "contexts.p7.hub", substr: "needs spoke: NAME, spoke-key: KEY or spokes: all"},
		{name: "hub: spoke without a hub", yaml: "contexts:\n  p7:\n    spoke: p7\n", line: 3, col: 5, field: "contexts.p7.spoke", substr: "needs hub: HOST:PORT"},
		{name: "hub: spokes all with a spoke", yaml: "contexts:\n  p7:\n    hub: ilink-hub.example:9998\n    spoke: p7\n    spokes: all\n", line: 5, col: 5, field: "contexts.p7.spokes", substr: "leave out spoke and spoke-key"},
		{name: "hub: spokes some", yaml: "contexts:\n  p7:\n    hub: ilink-hub.example:9998\n    spokes: some\n", line: 4, col: 13, field: "contexts.p7.spokes", substr: `unknown value "some" (want all`},
		{name: "hub: with an admin", yaml: "contexts:\n  p7:\n    hub: ilink-hub.example:9998\n    spoke: p7\n    admin: ilink-1.example:9998\n", line: 5, col: 5, field: "contexts.p7.admin", substr: "through the hub only; leave out admin"},
		{name: "hub: empty spoke name", yaml: "contexts:\n  p7:\n    hub: ilink-hub.example:9998\n    spoke: ' '\n", line: 4, col: 12, field: "contexts.p7.spoke", substr: "must not be empty"},
		{name: "two documents", yaml: "contexts: {}\n---\ncontexts: {}\n", line: 3, col: 1, substr: "only one YAML document is allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeConfig(t, tt.yaml)
			f, err := Load(path)
			if err == nil {
				t.Fatalf("Load succeeded with %+v; want an error", f)
			}
			msg := err.Error()
			pos := path + ":" + strconv.Itoa(tt.line)
			if tt.col > 0 {
				pos += ":" + strconv.Itoa(tt.col)
			}
			pos += ": "
			if tt.field != "" {
				pos += tt.field + ": "
			}
			if !strings.HasPrefix(msg, pos) {
				t.Errorf("error %q\ndoes not start with %q", msg, pos)
			}
			if !strings.Contains(msg, tt.substr) {
				t.Errorf("error %q\ndoes not contain %q", msg, tt.substr)
			}
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("error %T is not a *FieldError", err)
			}
			if fe.File != path || fe.Line != tt.line || fe.Field != tt.field {
				t.Errorf("FieldError = %+v; want file %s line %d field %q", fe, path, tt.line, tt.field)
			}
		})
	}
}

// All problems are reported at once, in file order.
func TestLoadReportsEveryError(t *testing.T) {
	_, err := Parse("c.yaml", []byte(`current-context: nope
contexts:
  a:
    theme: blue
    tail-buffer: 1
  b:
    refresh: {topics: 2x}
`))
	if err == nil {
		t.Fatal("want errors")
	}
	var lines []string
	for _, line := range strings.Split(err.Error(), "\n") {
		pos, _, _ := strings.Cut(line, ": ")
		lines = append(lines, pos)
	}
	want := []string{"c.yaml:1:18", "c.yaml:4:12", "c.yaml:5:18", "c.yaml:7:23"}
	if !reflect.DeepEqual(lines, want) {
		t.Errorf("error positions = %v, want %v\n%v", lines, want, err)
	}
	if n := len(err.(interface{ Unwrap() []error }).Unwrap()); n != 4 {
		t.Errorf("%d wrapped errors, want 4", n)
	}
}

func TestLoadMissingFile(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)

	// The default path may be absent: first run, no config yet.
	f, err := Load("")
	if err != nil {
		t.Fatalf("Load(\"\") with no file: %v", err)
	}
	if want := filepath.Join(dir, "ilinkdash", "config.yaml"); f.Path != want || f.Exists || len(f.Contexts) != 0 {
		t.Errorf("Load(\"\") = %+v; want empty File at %s", f, want)
	}

	// A path the user named must exist.
	missing := filepath.Join(dir, "nope.yaml")
	_, err = Load(missing)
	if err == nil || !strings.Contains(err.Error(), missing) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Load(missing) error = %v; want one naming %s and wrapping fs.ErrNotExist", err, missing)
	}
}

func TestDefaultPathHonoursXDGConfigHome(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	if got, want := DefaultPath(), filepath.Join(dir, "ilinkdash", "config.yaml"); got != want {
		t.Errorf("DefaultPath() = %q, want %q", got, want)
	}
	t.Setenv("XDG_STATE_HOME", dir)
	if got, want := DefaultLogFile(), filepath.Join(dir, "ilinkdash", "debug.log"); got != want {
		t.Errorf("DefaultLogFile() = %q, want %q", got, want)
	}
	t.Setenv("XDG_DATA_HOME", dir)
	if got, want := DefaultHostKey(), filepath.Join(dir, "ilinkdash", "ssh_host_ed25519_key"); got != want {
		t.Errorf("DefaultHostKey() = %q, want %q", got, want)
	}
	// The XDG spec says relative values are to be ignored.
	t.Setenv("XDG_CONFIG_HOME", "relative/dir")
	if got := DefaultPath(); strings.HasPrefix(got, "relative") {
		t.Errorf("DefaultPath() = %q used a relative XDG_CONFIG_HOME", got)
	}
}

func TestSuggest(t *testing.T) {
	names := []string{"addresses", "admin", "queue-manager", "client-name", "read-only", "tail-buffer"}
	for in, want := range map[string]string{
		"adress":        "addresses",
		"address":       "addresses",
		"queue_manager": "queue-manager",
		"readonly":      "read-only",
		"ReadOnly":      "read-only",
		"tailbuffer":    "tail-buffer",
		"colour":        "",
		"x":             "",
	} {
		if got := suggest(in, names); got != want {
			t.Errorf("suggest(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLoadServe(t *testing.T) {
	path := writeConfig(t, `serve:
  listen: ":2022"
  authorized-keys: keys/viewers
  operator-keys: /etc/ilinkdash/operators
  max-sessions: 5
  idle-timeout: 10m
  max-tails: 0
  tail-buffer: 500
  tail-buffer-bytes: 4MiB
  max-columns: 300
  max-rows: 100
  open-timeout: 5s
  max-startups: 8
  max-sessions-per-key: 2
  save-dir: saves
  save-max-bytes: 1048576
  audit-log: audit.jsonl
`)
	f, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(path)
	want := Serve{
		Listen:         ":2022",
		AuthorizedKeys: filepath.Join(dir, "keys/viewers"),
		OperatorKeys:   "/etc/ilinkdash/operators",
		MaxSessions:    5,
		IdleTimeout:    10 * time.Minute,
		MaxTails:       0,
		TailBuffer:     500,
		AuditLog:       filepath.Join(dir, "audit.jsonl"),

		TailBufferBytes: 4 << 20, MaxColumns: 300, MaxRows: 100, OpenTimeout: 5 * time.Second,
		MaxStartups: 8, MaxSessionsPerKey: 2, SaveDir: filepath.Join(dir, "saves"), SaveMaxBytes: 1 << 20,
	}
	if f.Serve != want {
		t.Fatalf("serve = %+v\nwant    %+v", f.Serve, want)
	}

	// Left out: the defaults, with a file and without one.
	f, err = Load(writeConfig(t, "contexts: {}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Serve != DefaultServe() {
		t.Fatalf("serve without a section = %+v", f.Serve)
	}
	r, err := Resolve(nil, &Flags{Config: ""}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if r.File.Serve != DefaultServe() {
		t.Fatalf("serve without a file = %+v", r.File.Serve)
	}
}

func TestLoadServeErrors(t *testing.T) {
	tests := []struct {
		yaml, field, substr string
		line, col           int
	}{
		{"serve:\n  listen: nowhere\n", "serve.listen", `invalid address "nowhere"`, 2, 11},
		{"serve:\n  listen: h:99999\n", "serve.listen", "port must be a number", 2, 11},
		{"serve:\n  max-sessions: 0\n", "serve.max-sessions", "between 1 and 10000", 2, 17},
		{"serve:\n  max-tails: -1\n", "serve.max-tails", "between 0 and 1000", 2, 14},
		{"serve:\n  idle-timeout: 30\n", "serve.idle-timeout", "add a unit", 2, 17},
		{"serve:\n  tail-buffer-bytes: 16mb\n", "serve.tail-buffer-bytes", `invalid size "16mb"`, 2, 22},
		{"serve:\n  tail-buffer-bytes: 1KiB\n", "serve.tail-buffer-bytes", "between 1MiB and 16GiB", 2, 22},
		{"serve:\n  max-columns: 100000\n", "serve.max-columns", "between 40 and 2000", 2, 16},
		{"serve:\n  tail-buffer: 5\n", "serve.tail-buffer", "between 100 and 1000000", 2, 16},
		{"serve:\n  operator_keys: x\n", "serve.operator_keys", `did you mean "operator-keys"?`, 2, 3},
		{"serve:\n  audit-log: [a]\n", "serve.audit-log", "expected a string", 2, 14},
	}
	for _, tc := range tests {
		_, err := Parse("c.yaml", []byte(tc.yaml))
		var fe *FieldError
		if !errors.As(err, &fe) {
			t.Errorf("%q: got %v, want a FieldError", tc.yaml, err)
			continue
		}
		if fe.Field != tc.field || fe.Line != tc.line || fe.Column != tc.col || !strings.Contains(fe.Msg, tc.substr) {
			t.Errorf("%q: got %v (field %s, %d:%d), want %s at %d:%d containing %q", tc.yaml, err, fe.Field, fe.Line, fe.Column, tc.field, tc.line, tc.col, tc.substr)
		}
	}
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"16MiB": 16 << 20, "1048576": 1 << 20, "512 KiB": 512 << 10, "2GiB": 2 << 30, "7B": 7} {
		if got, err := ParseBytes(in); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
		if back, _ := ParseBytes(FormatBytes(want)); back != want {
			t.Errorf("FormatBytes(%d) = %q does not read back", want, FormatBytes(want))
		}
	}
	for _, bad := range []string{"", "16mb", "-1", "1.5MiB", "99999999999GiB", "MiB"} {
		if _, err := ParseBytes(bad); err == nil || !strings.Contains(err.Error(), "invalid size") {
			t.Errorf("ParseBytes(%q): %v, want an invalid-size error", bad, err)
		}
	}
}
