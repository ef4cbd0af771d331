package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"ilinkdash/config"
	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/consumer"
	"ilinkdash/ilink/position"
)

func TestUsageErrorsExitTwoWithTheUsageLine(t *testing.T) {
	for _, tc := range []cliCase{ // want: the usage line printed
		{[]string{"nope"}, "Usage: ilinkdash [flags]"},
		{[]string{"get", "topics", "--nope"}, "Usage: ilinkdash get topics|queues|groups|nodes|cluster|replication [flags]"},
		{[]string{"get"}, "Usage: ilinkdash get"},
		{[]string{"get", "bananas", "--embedded"}, "Usage: ilinkdash get"},
		{[]string{"describe", "topic"}, "Usage: ilinkdash describe topic|group NAME [flags]"},
		{[]string{"group", "nope"}, "Usage: ilinkdash group [flags]"},
		{[]string{"completion", "tcsh"}, "Usage: ilinkdash completion [flags]"},
		{[]string{"group", "seek", "g"}, "Usage: ilinkdash group seek GROUP"},
		{[]string{"node", "reboot", "1"}, "Usage: ilinkdash node stop|start|kill N [flags]"},
		{[]string{"get", "topics", "-o", "yaml"}, "Usage: ilinkdash get"},
		{[]string{"tail", "T", "-o", "xml"}, "Usage: ilinkdash tail TOPIC_OR_PATTERN [flags]"},
		{[]string{"publish", "T", "--count", "x"}, "Usage: ilinkdash publish TOPIC [flags]"},
		{[]string{"publish", "T", "--value", "{{nope}}", "--addr", "127.0.0.1:1"}, "Usage: ilinkdash publish TOPIC [flags]"},
		{[]string{"publish", "T", "--json", "-o", "table", "--value", "v"}, "Usage: ilinkdash publish TOPIC [flags]"},
		{[]string{"engine", "--nodes", "0"}, "Usage: ilinkdash engine [flags]"},
		{[]string{"version", "extra"}, "Usage: ilinkdash version [flags]"},
		{[]string{"config", "path", "-o", "xml"}, "Usage: ilinkdash config path [flags]"},
	} {
		res := runCLIResult(t, "", tc.args...)
		if res.code != exitUsage || !strings.HasPrefix(res.stderr, "ilinkdash: ") || !strings.Contains(res.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2, the message and %q", tc.args, res.code, res.stderr, tc.want)
		}
	}
	// A group of commands alone shows its help (exit 0); a failure that is
	// not a usage error exits 1 without the usage line.
	if res := runCLIResult(t, "", "group"); res.code != 0 || !strings.Contains(res.stdout, "seek") {
		t.Errorf("group: exit %d, %q", res.code, res.stdout)
	}
	if res := runCLIResult(t, "", "completion"); res.code != 0 || !strings.Contains(res.stdout, "powershell") {
		t.Errorf("completion: exit %d, %q", res.code, res.stdout)
	}
	res := runCLIResult(t, "", "get", "topics", "--admin", "127.0.0.1:1", "--timeout", "2s")
	if res.code != 1 || strings.Contains(res.stderr, "Usage:") {
		t.Errorf("unreachable admin: exit %d, stderr %q; want 1 without the usage line", res.code, res.stderr)
	}
	if res := runCLIResult(t, "", "nope"); !strings.Contains(res.stderr, `unknown command "nope" for "ilinkdash"`) {
		t.Errorf("unknown command message: %q", res.stderr)
	}
	if res := runCLIResult(t, "", "tial", "T"); !strings.Contains(res.stderr, "did you mean tail?") {
		t.Errorf("no suggestion: %q", res.stderr)
	}
	// A time limit that leaves no time is a usage error, not "context deadline exceeded".
	for _, d := range []string{"0s", "-1s"} {
		if res := runCLIResult(t, "", "get", "topics", "--embedded", "--timeout", d); res.code != 2 || !strings.Contains(res.stderr, "--timeout "+d+": must be positive") {
			t.Errorf("--timeout %s: exit %d, stderr %q; want 2, must be positive", d, res.code, res.stderr)
		}
	}
	// A --file that cannot be opened is bad input naming the flag, as --from-jsonl's is.
	missing := filepath.Join(t.TempDir(), "values.txt")
	if res := runCLIResult(t, "", "publish", "T", "--embedded", "--file", missing); res.code != 2 || !strings.Contains(res.stderr, "--file: open "+missing+": no such file or directory") {
		t.Errorf("publish --file missing: exit %d, stderr %q; want 2 naming --file", res.code, res.stderr)
	}
	// A verb typed without the command it lives under is found there.
	if res := runCLIResult(t, "", "seek", "billing"); res.code != 2 || !strings.Contains(res.stderr, "did you mean group seek?") {
		t.Errorf("seek: exit %d, stderr %q; want 2 and the suggestion group seek", res.code, res.stderr)
	}
	if res := runCLIResult(t, "", "create", "T"); !strings.Contains(res.stderr, "did you mean ") || !strings.Contains(res.stderr, "topic create") {
		t.Errorf("create: no suggestion of topic create: %q", res.stderr)
	}
	if res := runCLIResult(t, "", "put", "Q"); !strings.Contains(res.stderr, "did you mean queue put or get?") {
		t.Errorf("put: want the nested command first, then the near name: %q", res.stderr)
	}
}

func TestVersion(t *testing.T) {
	res := runCLIResult(t, "", "--version")
	if res.code != 0 || !regexp.MustCompile(`^ilinkdash \S+ .*go1\.\d+.* \w+/\w+\n$`).MatchString(res.stdout) {
		t.Fatalf("--version: exit %d, %q", res.code, res.stdout)
	}
	res = runCLIResult(t, "", "version", "-o", "json")
	var b map[string]any
	if err := json.Unmarshal([]byte(res.stdout), &b); err != nil {
		t.Fatalf("version -o json: %v %q", err, res.stdout)
	}
	for _, k := range []string{"version", "vcs_revision", "vcs_time", "vcs_modified", "go_version", "platform", "module"} {
		if _, ok := b[k]; !ok {
			t.Errorf("version JSON has no %q: %s", k, res.stdout)
		}
	}
	if b["module"] != "ilinkdash" || !strings.HasPrefix(b["go_version"].(string), "go") {
		t.Errorf("version JSON %s", res.stdout)
	}
	res = runCLIResult(t, "", "version")
	if !strings.Contains(res.stdout, "VERSION") || !strings.Contains(res.stdout, "GO ") {
		t.Errorf("version table %q", res.stdout)
	}
}

// Every position form, in each command that takes one (spec of the
// parser: ilink/position).
func TestPositionFormsInEachCommand(t *testing.T) {
	now := time.Date(2026, 3, 4, 12, 30, 0, 0, time.Local)
	today := func(h, m, s int) time.Time { return time.Date(2026, 3, 4, h, m, s, 0, time.Local) }
	for _, tc := range []struct {
		in        string
		kind      position.Kind
		offset    int64
		partition int32
		at        time.Time
	}{
		{"earliest", position.Earliest, 0, -1, time.Time{}},
		{"LATEST", position.Latest, 0, -1, time.Time{}},
		{"now", position.Latest, 0, -1, time.Time{}},
		{"1200", position.Offset, 1200, -1, time.Time{}},
		{"3@1200", position.Offset, 1200, 3, time.Time{}},
		{"2026-01-02T15:04:05Z", position.Time, 0, -1, time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)},
		{"2026-03-01 10:00", position.Time, 0, -1, time.Date(2026, 3, 1, 10, 0, 0, 0, time.Local)},
		{"10:00", position.Time, 0, -1, today(10, 0, 0)},
		{"10:00:05", position.Time, 0, -1, today(10, 0, 5)},
		{"-5m", position.Time, 0, -1, now.Add(-5 * time.Minute)},
		{"-2h", position.Time, 0, -1, now.Add(-2 * time.Hour)},
		{"2h ago", position.Time, 0, -1, now.Add(-2 * time.Hour)},
	} {
		// tail --from
		f, err := position.Parse(tc.in, now)
		if err != nil {
			t.Errorf("tail --from %s: %v", tc.in, err)
		} else {
			want := map[position.Kind]consumer.StartMode{position.Earliest: consumer.StartEarliest, position.Latest: consumer.StartLatest,
				position.Offset: consumer.StartOffset, position.Time: consumer.StartTime}[tc.kind]
			opt := consumer.NewOptions()
			if err := opt.StartFrom(f); err != nil {
				t.Errorf("tail --from %s: %v", tc.in, err)
			}
			if opt.Start != want || opt.StartOffset != tc.offset || f.Partition != tc.partition || !opt.StartTime.Equal(tc.at) {
				t.Errorf("tail --from %s = %+v, start %v at %d, %v", tc.in, f, opt.Start, opt.StartOffset, opt.StartTime)
			}
		}
		// group seek --to
		target, _, err := parseSeekTarget(tc.in, now)
		if tc.partition >= 0 { // one partition (cli/seek_partition_test.go)
			if err != nil || len(target.Partitions) != 1 || target.Partitions[0] != tc.partition || target.Offset != tc.offset {
				t.Errorf("group seek --to %s = %+v, %v", tc.in, target, err)
			}
			continue
		}
		wantTarget := admin.SeekTarget{Earliest: tc.kind == position.Earliest, Latest: tc.kind == position.Latest, Offset: tc.offset, Time: tc.at}
		if err != nil || target.Earliest != wantTarget.Earliest || target.Latest != wantTarget.Latest || target.Offset != wantTarget.Offset || !target.Time.Equal(wantTarget.Time) {
			t.Errorf("group seek --to %s = %+v, %v", tc.in, target, err)
		}
	}
	for _, bad := range []string{"", "yesterday", "-5", "12x", "3@", "@5"} {
		if _, err := position.Parse(bad, now); err == nil {
			t.Errorf("tail --from %q accepted", bad)
		}
		if _, _, err := parseSeekTarget(bad, now); err == nil {
			t.Errorf("group seek --to %q accepted", bad)
		}
	}
}

// The forms end to end: tail and group seek against an engine.
func TestPositionFormsAgainstTheEngine(t *testing.T) {
	e := startStopEngine(t, "POS.T", 20) // 2 partitions, 20 records, written just now
	addr := strings.Join(e.DataAddrs(), ",")
	count := func(res cliResult) int { return strings.Count(res.stdout, "\n") }
	for _, tc := range []struct {
		from string
		want int
	}{{"earliest", 20}, {"-5m", 20}, {"2h ago", 20}, {"0", 20}} {
		res := runCLIResult(t, "", "tail", "POS.T", "--from", tc.from, "--count", "20", "--addr", addr)
		if res.code != 0 || count(res) != tc.want {
			t.Errorf("tail --from %s: exit %d, %d lines, %s", tc.from, res.code, count(res), res.stderr)
		}
	}
	// P@OFFSET: only that partition, from that offset.
	var p0 int64
	for _, ti := range e.Topics() {
		if ti.Name == "POS.T" {
			p0 = ti.EndOffsetSum
		}
	}
	recs, _ := e.ReadPartition("POS.T", 1, 0, 100)
	res := runCLIResult(t, "", "tail", "POS.T", "--from", "1@2", "--count", "3", "--addr", addr)
	if res.code != 0 || count(res) != 3 || len(recs) < 5 || p0 != 20 {
		t.Fatalf("--from 1@2: exit %d %q %s (partition 1 holds %d)", res.code, res.stdout, res.stderr, len(recs))
	}
	for i, line := range strings.Split(strings.TrimSpace(res.stdout), "\n") {
		if want := "POS.T/1@" + string(rune('2'+i)); !strings.Contains(line, want) {
			t.Errorf("line %d %q: want %s", i, line, want)
		}
	}
	if len(tempGroups(t, e)) != 0 {
		t.Errorf("P@OFFSET joined a group: %v", tempGroups(t, e))
	}
	res = runCLIResult(t, "", "tail", "POS.*", "--from", "1@2", "--addr", addr)
	if res.code != exitUsage || !strings.Contains(res.stderr, "needs one topic") {
		t.Errorf("pattern with P@OFFSET: exit %d %q", res.code, res.stderr)
	}
	// group seek --to -5m plans a move to the start (everything is newer).
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	opt := consumer.NewOptions()
	opt.Group = "posgroup"
	c, err := consumer.Subscribe(ctx, addr, "POS.T", opt)
	if err != nil {
		t.Fatal(err)
	}
	c.ReadBatch(ctx, 100, time.Second)
	c.Close()
	adm := e.AdminAddrs()[0]
	for _, to := range []string{"-5m", "10:00", "earliest"} {
		if to == "10:00" && time.Now().Hour() < 10 {
			continue // 10:00 today is in the future: nothing to move to
		}
		plan := jsonOf[seekJSON](t, "group", "seek", "posgroup", "--to", to, "--admin", adm, "--addr", addr)
		if len(plan.Changes) != 2 || plan.Changes[0].New != 0 || plan.Changes[1].New != 0 {
			t.Errorf("group seek --to %s: %+v", to, plan)
		}
	}
	res = runCLIResult(t, "", "group", "seek", "posgroup", "--to", "1@2", "--admin", adm)
	if res.code != exitUsage || !strings.Contains(res.stderr, "P@OFFSET") {
		t.Errorf("group seek --to 1@2: exit %d %q", res.code, res.stderr)
	}
}

func TestPublishTemplatesAndAcksDefault(t *testing.T) {
	e := startStopEngine(t, "TPL.T", 0)
	addr := strings.Join(e.DataAddrs(), ",")
	res := runCLIResult(t, "", "publish", "TPL.T", "--addr", addr, "--count", "4", "--key", "k-{{seq}}",
		"--value", `{"id":"{{uuid}}","at":"{{now}}","r":"{{rand 6}}"}`, "--header", "n={{seq}}", "--header", "fixed=x", "-o", "json")
	if res.code != 0 {
		t.Fatalf("publish: %d %s", res.code, res.stderr)
	}
	var sum publishSummary
	if err := json.Unmarshal([]byte(res.stdout), &sum); err != nil || sum.Records != 4 || sum.Acks != "all" {
		t.Fatalf("summary %+v %v: want 4 records and the default acks all", sum, err)
	}
	seen := map[string]bool{}
	uuid := regexp.MustCompile(`^\{"id":"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}","at":"20\d\d-[^"]+Z","r":"[0-9A-Za-z]{6}"\}$`)
	for p := 0; p < 2; p++ {
		recs, _ := e.ReadPartition("TPL.T", p, 0, 10)
		for _, r := range recs {
			if !uuid.Match(r.Value) {
				t.Errorf("value %s", r.Value)
			}
			if len(r.Headers) != 2 || "k-"+string(r.Headers[0].Value) != string(r.Key) || string(r.Headers[1].Value) != "x" {
				t.Errorf("key %s headers %v", r.Key, r.Headers)
			}
			seen[string(r.Key)] = true
		}
	}
	if len(seen) != 4 || !seen["k-0"] || !seen["k-3"] {
		t.Errorf("keys %v, want k-0..k-3", seen)
	}
	// --json is -o json.
	res = runCLIResult(t, "", "publish", "TPL.T", "--addr", addr, "--value", "v", "--json", "--acks", "1")
	if err := json.Unmarshal([]byte(res.stdout), &sum); err != nil || sum.Acks != "1" {
		t.Errorf("--json: %v %q", err, res.stdout)
	}
	// The acks default is the tools' one constant, said in the help.
	if f := newTestApp(t, nil).root.Commands(); f == nil {
		t.Fatal("no commands")
	}
	cmd, _, _ := newTestApp(t, nil).root.Find([]string{"publish"})
	if fl := cmd.Flags().Lookup("acks"); fl.DefValue != "all" {
		t.Errorf("--acks default %q", fl.DefValue)
	}
}

func TestTablesUseHumanUnits(t *testing.T) {
	e := startStopEngine(t, "UNITS.T", 0)
	if err := e.CreateTopic("RET.T", "partitions=1,retention.ms=604800000,retention.bytes=33554432"); err != nil {
		t.Fatal(err)
	}
	if err := e.CreateTopic("FOREVER.T", "partitions=1,retention.ms=0"); err != nil {
		t.Fatal(err)
	}
	out, stderr, err := runCLI(t, "", "get", "topics", "--admin", e.AdminAddrs()[0])
	if err != nil {
		t.Fatal(err, stderr)
	}
	if !regexp.MustCompile(`(?m)^RET\.T .* 7d/32MiB\s*$`).MatchString(out) || !regexp.MustCompile(`(?m)^FOREVER\.T .* forever\s*$`).MatchString(out) {
		t.Errorf("get topics:\n%s", out)
	}
	out, _, _ = runCLI(t, "", "describe", "topic", "RET.T", "--admin", e.AdminAddrs()[0])
	if !regexp.MustCompile(`RETENTION\s+7d\n`).MatchString(out) || !strings.Contains(out, "32MiB per partition") {
		t.Errorf("describe topic:\n%s", out)
	}
}

// `:ctx dead` in the dashboard showed "context dead: context dead: ...":
// the switcher named the context, and so did the dashboard.
func TestSwitcherErrorDoesNotNameTheContextTwice(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(path, []byte("contexts:\n  dead:\n    addresses: [127.0.0.1:1]\n    admin: 127.0.0.1:1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	sw := (&app{}).switcher(config.Resolved{File: f}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, name := range []string{"dead", "missing"} {
		_, _, err := sw(ctx, name)
		if err == nil {
			t.Fatalf("%s: switched", name)
		}
		// The dashboard shows "context NAME: " + the error.
		if shown := "context " + name + ": " + err.Error(); strings.Count(shown, "context "+name) != 1 {
			t.Errorf("%s: the dashboard would show %q", name, shown)
		}
	}
}

// docs/CLI.md names every command and every flag cobra has, so the two
// cannot drift apart.
func TestDocsNameEveryCommandAndFlag(t *testing.T) {
	b, err := os.ReadFile("../docs/CLI.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	a := newTestApp(t, nil)
	a.root.InitDefaultCompletionCmd()
	forEachCommand(a.root, func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" {
			return
		}
		if path := c.CommandPath(); !regexp.MustCompile(regexp.QuoteMeta(path) + `([^a-z-]|$)`).MatchString(doc) {
			t.Errorf("docs/CLI.md does not name the command %q", path)
		}
		check := func(f *pflag.Flag) {
			if f.Hidden || f.Name == "help" {
				return
			}
			if !regexp.MustCompile(`--` + regexp.QuoteMeta(f.Name) + `([^a-z0-9-]|$)`).MatchString(doc) {
				t.Errorf("docs/CLI.md does not name %s's flag --%s", c.CommandPath(), f.Name)
			}
			if f.Shorthand != "" && !strings.Contains(doc, "-"+f.Shorthand+"`") && !strings.Contains(doc, "-"+f.Shorthand+" ") {
				t.Errorf("docs/CLI.md does not name %s's flag -%s", c.CommandPath(), f.Shorthand)
			}
		}
		c.LocalNonPersistentFlags().VisitAll(check)
		c.PersistentFlags().VisitAll(check)
	})
	for _, code := range []string{"| 0 |", "| 1 |", "| 2 |", "| 130 |"} {
		if !strings.Contains(doc, code) {
			t.Errorf("docs/CLI.md has no exit status row %q", code)
		}
	}
}

// An admin command whose --timeout expires says which address did not
// answer within which limit (exit 1); it said "context deadline exceeded".
func TestAdminTimeoutSaysWhatTimedOut(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0") // accepts, never answers
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	addr := ln.Addr().String()
	for _, args := range [][]string{{"get", "topics"}, {"describe", "group", "g"}, {"topic", "delete", "T"}} {
		res := runCLIResult(t, "", append(args, "--admin", addr, "--timeout", "300ms")...)
		want := "ilinkdash: no answer from " + addr + " within --timeout 300ms\n"
		if res.code != 1 || res.stderr != want {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q", args, res.code, res.stderr, want)
		}
	}
}

// An error that joins others (a config file's errors, each naming its
// line) prints one line each: they printed as one line joined by ␊. Any
// other error stays one sanitized line, whatever newlines its text holds,
// and a %w-wrapped pair keeps the text between them.
func TestErrorLines(t *testing.T) {
	a := errors.New("c.yaml:3:12: unknown theme")
	b := errors.New("c.yaml:4:18: tail-buffer too small")
	for _, c := range []struct {
		err  error
		want []string
	}{
		{errors.Join(a, b), []string{"c.yaml:3:12: unknown theme", "c.yaml:4:18: tail-buffer too small"}},
		{&exitError{code: 2, err: errors.Join(a, b)}, []string{"c.yaml:3:12: unknown theme", "c.yaml:4:18: tail-buffer too small"}},
		{fmt.Errorf("load: %w", errors.Join(a, b)), []string{"load: c.yaml:3:12: unknown theme␊c.yaml:4:18: tail-buffer too small"}},
		{fmt.Errorf("%w; %w", a, b), []string{"c.yaml:3:12: unknown theme; c.yaml:4:18: tail-buffer too small"}},
		{errors.New("from the network\nilinkdash: forged line"), []string{"from the network␊ilinkdash: forged line"}},
		{errors.Join(errors.New("one\x1b[2J"), errors.New("two")), []string{"one␛[2J", "two"}},
	} {
		if got := errorLines(c.err); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: lines %q, want %q", c.err, got, c.want)
		}
	}
}

// A wrong number of arguments names them from the usage line: cobra's
// "accepts 1 arg(s), received 0" named none. Exit 2 with the usage line.
func TestArgumentCountNamesTheArguments(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"queue", "put"}, "missing NAME"},
		{[]string{"describe"}, "missing topic|group NAME"},
		{[]string{"describe", "topic"}, "missing NAME"},
		{[]string{"cluster", "move-leader", "T"}, "missing PARTITION"},
		{[]string{"tail", "a", "b"}, `unexpected argument "b": ilinkdash tail takes TOPIC_OR_PATTERN`},
		{[]string{"config", "init", "a", "b"}, `unexpected argument "b": ilinkdash config init takes PATH`},
	} {
		r := runCLIResult(t, "", c.args...)
		if r.code != exitUsage || !strings.HasPrefix(r.stderr, "ilinkdash: "+c.want+"\nUsage: ") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q then the usage line", c.args, r.code, r.stderr, c.want)
		}
	}
}
