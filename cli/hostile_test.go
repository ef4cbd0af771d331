// Terminal safety of every command: hostile member names and hosts, group
// names, record keys, values and headers, and server error texts, all made
// by the real engine, must reach stdout and stderr inert.

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"ilinkdash/ui/sanitize/sanitizetest"

	"ilinkdash/ilink"
	"ilinkdash/ilink/consumer"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/engine/enginetest"
	"ilinkdash/ilink/wire"
	"ilinkdash/ui/sanitize"
)

// hostileText is every text attack payload of ui/sanitize/sanitizetest in one string (the
// binary one would make the sanitizer show the whole text as \xNN bytes,
// which is inert but hides what the test looks for; records carry it).
func hostileText() string {
	var b strings.Builder
	for _, p := range sanitizetest.Hostile() {
		if p.Name == "binary" {
			continue
		}
		b.Write(p.Bytes)
		b.WriteByte(' ')
	}
	return b.String()
}

// hostileClientName is "client " and as many of the hostile patterns as fit
// in a HELLO string (wire.MaxHelloString: the client refuses a longer
// ClientName), a title, a bidi override, C0 and C1 controls first.
func hostileClientName() string {
	b := []byte("client ")
	first := []string{"osc0-title", "bidi-override", "c0-controls", "c1-code-points"}
	pats := sanitizetest.Hostile()
	rank := func(p sanitizetest.Payload) int {
		if slices.Contains(first, p.Name) {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(pats, func(x, y sanitizetest.Payload) int { return rank(x) - rank(y) })
	for _, p := range pats {
		if p.Name != "binary" && len(b)+len(p.Bytes)+1 <= wire.MaxHelloString {
			b = append(append(b, p.Bytes...), ' ')
		}
	}
	return string(b)
}

func binaryPayload() []byte {
	for _, p := range sanitizetest.Hostile() {
		if p.Name == "binary" {
			return p.Bytes
		}
	}
	panic("no binary payload")
}

// hostileGroup is a group name the engine accepts (no control byte, none
// of |,:;) that still carries C1 controls, bidi overrides and a raw 8-bit
// CSI byte.
const hostileGroup = "grp-\u202Egnp.exe\u202C-\u009b2J-\u2066iso\u2069-\x9b6n"

// assertInert fails when s holds anything a terminal acts on: ESC, BEL or
// another C0 control except LF and tab, DEL, a C1 control (as a code point
// or a raw byte), invalid UTF-8, or a bidi/format character.
func assertInert(t *testing.T, what, s string) {
	t.Helper()
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		bad := ""
		switch {
		case r == utf8.RuneError && size == 1:
			bad = fmt.Sprintf("raw byte 0x%02x", s[i])
		case r == 0x1b:
			bad = "ESC"
		case r == 0x07:
			bad = "BEL"
		case r < 0x20 && r != '\n' && r != '\t':
			bad = fmt.Sprintf("C0 control %U", r)
		case r == 0x7f:
			bad = "DEL"
		case r >= 0x80 && r <= 0x9f:
			bad = fmt.Sprintf("C1 control %U", r)
		case sanitize.Escaped(r):
			bad = fmt.Sprintf("bidi/format character %U", r)
		}
		if bad != "" {
			lo, hi := max(0, i-40), min(len(s), i+40)
			t.Fatalf("%s: %s at byte %d reaches the terminal: %q", what, bad, i, s[lo:hi])
		}
		i += size
	}
}

// hostileCluster is an engine with hostile data in it.
type hostileCluster struct {
	e            *engine.Engine
	adm, addrs   string
	rejectAll    atomic.Bool // every request is answered with a hostile error
	member       *consumer.Consumer
	hostileTail  string
	hostileName  string // the real member's client name (hostileClientName)
	rawHostGroup string
}

func startHostileCluster(t *testing.T) *hostileCluster {
	t.Helper()
	e := enginetest.Start(t, engine.Config{ElectionDelay: 300 * time.Millisecond, QueueManager: "QMHOST", Cluster: "CHOST"})
	h := &hostileCluster{e: e, adm: e.AdminAddrs()[0], addrs: strings.Join(e.DataAddrs(), ","), hostileTail: hostileText(), hostileName: hostileClientName(), rawHostGroup: "rawhost"}
	e.Control(func(ev *engine.ControlEvent) engine.ControlAction {
		if h.rejectAll.Load() {
			return engine.ControlAction{Reject: &wire.ErrorBody{Name: "MIMQE_X\x1b]0;title\x07", Tail: h.hostileTail}}
		}
		return engine.ControlAction{}
	})
	if err := e.CreateTopic("HOST.T", "partitions=2"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	p, err := ilink.NewProducer(ctx, h.addrs, ilink.ProducerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	for i, pl := range sanitizetest.Hostile()[:6] {
		value := []byte(h.hostileTail)
		if i%2 == 1 {
			value = binaryPayload()
		}
		_, err := p.SendSync(ctx, &ilink.ProducerRecord{Topic: "HOST.T", Key: pl.Bytes, Value: value,
			Headers: []wire.RecordHeader{{Key: "h\x1b]52;c;eA==\x07" + fmt.Sprint(i), Value: pl.Bytes}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	p.Close()
	// A real member whose client name is hostile, in a group whose name is.
	opt := consumer.NewOptions()
	opt.Group, opt.ClientName = hostileGroup, h.hostileName
	h.member, err = consumer.Subscribe(ctx, h.addrs, "HOST.T", opt)
	if err != nil {
		t.Fatalf("subscribe as %q: %v", hostileGroup, err)
	}
	t.Cleanup(func() { h.member.Close() })
	if _, err := h.member.ReadBatch(ctx, 100, 2*time.Second); err != nil && !ilink.IsNoMessage(err) {
		t.Fatal(err)
	}
	h.member.CommitOffset(ctx, "HOST.T", 0, 1)
	// A member whose host is hostile (the client library sends the real
	// host name, so this one joins over a raw connection).
	joined := false
	for _, addr := range e.DataAddrs() {
		c, err := ilink.DialConn(ctx, addr, ilink.ConnConfig{Mode: wire.ModeConsumer})
		if err != nil {
			t.Fatal(err)
		}
		var rep wire.JoinGroupReply
		err = c.Do(ctx, wire.CodeJoinGroup, 0, &wire.JoinGroupRequest{Group: h.rawHostGroup, ClientName: "raw",
			Host: "host " + h.hostileTail, Topics: []string{"HOST.T"}, Durable: true}, &rep)
		c.Close()
		if err == nil {
			joined = true
			break
		}
		if !ilink.HasName(err, wire.ErrNotCoordinator) {
			t.Fatalf("raw join: %v", err)
		}
	}
	if !joined {
		t.Fatal("no node coordinates the raw group")
	}
	return h
}

func TestEveryCommandKeepsHostileBytesInert(t *testing.T) {
	h := startHostileCluster(t)
	admin := []string{"--admin", h.adm, "--addr", h.addrs}
	data := []string{"--addr", h.addrs}
	type run struct {
		args []string
		// shows is a sanitized fragment the output must hold, so that the
		// hostile data did reach it (inertly); "" = nothing to look for.
		shows string
	}
	shown := func(b []byte) string { return sanitize.String(string(b)) }
	runs := []run{
		{append([]string{"get", "groups"}, admin...), sanitize.String(hostileGroup)},
		{append([]string{"get", "groups", "-o", "json"}, admin...), `\u202e`},
		{append([]string{"describe", "group", hostileGroup}, admin...), sanitize.String(h.hostileName)},
		{append([]string{"describe", "group", hostileGroup, "-o", "json"}, admin...), `\u001b]0;pwned title\u0007`},
		{append([]string{"describe", "group", h.rawHostGroup}, admin...), sanitize.String("host " + h.hostileTail)},
		{append([]string{"group", "seek", hostileGroup, "--to", "earliest"}, admin...), sanitize.String(hostileGroup)},
		{append([]string{"group", "seek", hostileGroup, "--to", "-5m", "-o", "json"}, admin...), `\u202e`},
		{append([]string{"group", "delete", hostileGroup}, admin...), ""}, // refused: active member
		{append([]string{"tail", "HOST.T", "--from", "earliest", "--count", "6"}, data...), shown([]byte("h\x1b]52;c;eA==\x07"))},
		{append([]string{"tail", "HOST.T", "--from", "earliest", "--count", "6", "--format", "hex"}, data...), shown([]byte("h\x1b]52;c;eA==\x07"))},
		{append([]string{"tail", "HOST.T", "--from", "0@0", "--count", "2", "--format", "json"}, data...), `\u001b]52`},
		{append([]string{"get", "topics"}, admin...), "HOST.T"},
		{append([]string{"describe", "topic", "HOST.T"}, admin...), "HOST.T"},
		{append([]string{"get", "nodes"}, admin...), "QMHOST"},
	}
	for _, r := range runs {
		res := runCLIResult(t, "", r.args...)
		name := strings.Join(r.args[:min(3, len(r.args))], " ")
		assertInert(t, name+" stdout", res.stdout)
		assertInert(t, name+" stderr", res.stderr)
		if r.shows != "" && !strings.Contains(res.stdout, r.shows) {
			t.Errorf("%s: output does not show %q:\n%s\nstderr: %s", name, r.shows, res.stdout, res.stderr)
		}
		if strings.Contains(strings.Join(r.args, " "), "-o json") || strings.Contains(strings.Join(r.args, " "), "--format json") {
			for _, line := range strings.Split(strings.TrimSpace(res.stdout), "\n") {
				if strings.HasPrefix(line, "{") && strings.HasSuffix(line, "}") && !json.Valid([]byte(line)) {
					t.Errorf("%s: invalid JSON line %s", name, line)
				}
			}
		}
	}
	// The JSON keeps the exact bytes the engine sent.
	res := runCLIResult(t, "", append([]string{"describe", "group", hostileGroup, "-o", "json"}, admin...)...)
	var g groupDescJSON
	if err := json.Unmarshal([]byte(res.stdout), &g); err != nil || len(g.Members) != 1 ||
		!strings.Contains(g.Members[0].ClientName, "\x1b]0;pwned title\x07") || !strings.Contains(g.Members[0].ClientName, "\u202E") {
		t.Fatalf("JSON does not keep the client name's bytes: %v %+v", err, g.Members)
	}

	// Server error texts: every request is now refused with a hostile
	// name and tail; every command prints the error (stderr) inert.
	h.rejectAll.Store(true)
	defer h.rejectAll.Store(false)
	for _, args := range [][]string{
		{"get", "topics"}, {"get", "queues"}, {"get", "groups"}, {"get", "nodes"}, {"get", "cluster"}, {"get", "replication"},
		{"describe", "topic", "HOST.T"}, {"describe", "group", "g"}, {"group", "seek", "g", "--to", "latest"},
		{"group", "delete", "g"}, {"node", "stop", "2"},
		{"tail", "HOST.T", "--count", "1"}, {"publish", "HOST.T", "--value", "v"},
	} {
		res := runCLIResult(t, "", append(args, admin...)...)
		name := strings.Join(args, " ")
		assertInert(t, name+" stdout", res.stdout)
		assertInert(t, name+" stderr", res.stderr)
		if res.code == 0 || !strings.Contains(res.stderr, "MIMQE_X␛]0;title␇") {
			t.Errorf("%s: exit %d, stderr %q: want the server's error, inert", name, res.code, res.stderr)
		}
	}
}

// A produce refused with a hostile error text: publish's summary (first
// errors) and its final error stay inert.
func TestPublishHostileProduceErrorIsInert(t *testing.T) {
	h := startHostileCluster(t)
	h.e.Control(func(ev *engine.ControlEvent) engine.ControlAction {
		if ev.Code == wire.CodeProduce {
			return engine.ControlAction{Reject: &wire.ErrorBody{Name: wire.ErrInvalidArgument, Tail: h.hostileTail}}
		}
		return engine.ControlAction{}
	})
	for _, o := range []string{"table", "json"} {
		res := runCLIResult(t, "", "publish", "HOST.T", "--addr", h.addrs, "--value", "v", "--count", "3", "-o", o)
		assertInert(t, "publish -o "+o+" stdout", res.stdout)
		assertInert(t, "publish -o "+o+" stderr", res.stderr)
		shown := map[string]string{"table": "error: MIMQE_INVALID_ARGUMENT (␛]52", "json": `"first_errors":["MIMQE_INVALID_ARGUMENT (\u001b]52`}[o]
		if res.code != 1 || !strings.Contains(res.stdout, shown) || !strings.Contains(res.stderr, "␛]52") {
			t.Errorf("-o %s: exit %d, want 1 and the error shown:\n%s\n%s", o, res.code, res.stdout, res.stderr)
		}
	}
}

// `ilinkdash describe group X` as a process (what `go run . describe
// group X` runs): the hostile member name shows inert on the real stdout.
func TestDescribeGroupProcessShowsHostileNameInert(t *testing.T) {
	h := startHostileCluster(t)
	cmd := cliProcess(t, "describe", "group", hostileGroup, "--admin", h.adm, "--addr", h.addrs)
	out, err := cmd.Output()
	var stderr string
	if ee, ok := err.(*exec.ExitError); ok {
		stderr = string(ee.Stderr)
	}
	if err != nil {
		t.Fatalf("describe group: %v\n%s", err, stderr)
	}
	assertInert(t, "stdout", string(out))
	if !strings.Contains(string(out), sanitize.String(h.hostileName)) {
		t.Fatalf("member name not shown:\n%s", out)
	}
}

// Strings from a file: a config path and context names with escape
// sequences stay inert (config path), and are not offered as completions
// (they could not be typed as shown).
func TestStringsFromAFileAreInert(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/conf\x1b]0;x\x07\u202e.yaml"
	if err := os.WriteFile(path, []byte("contexts:\n  \"ok\":\n    addresses: [127.0.0.1:1]\n  \"bad\\e]52;c;eA==\\a\":\n    addresses: [127.0.0.1:1]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a := newTestApp(t, nil)
	var out, errb bytes.Buffer
	code, err := a.execute(context.Background(), []string{"config", "path", "--config", path}, strings.NewReader(""), &out, &errb)
	if code != 0 {
		t.Fatalf("config path: %d %v %s", code, err, errb.String())
	}
	assertInert(t, "config path", out.String())
	if !strings.Contains(out.String(), "conf␛]0;x␇\\u202e.yaml") {
		t.Fatalf("config path %q", out.String())
	}
	a = newTestApp(t, nil)
	out.Reset()
	a.execute(context.Background(), []string{"__complete", "get", "--config", path, "--context", ""}, strings.NewReader(""), &out, &errb)
	assertInert(t, "completion", out.String())
	if !strings.Contains(out.String(), "ok\n") || strings.Contains(out.String(), "bad") {
		t.Fatalf("context candidates %q", out.String())
	}
}
