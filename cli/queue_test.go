package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/ilinktest"
)

// queueEngine starts an engine for the queue commands and returns the
// target flags.
func queueEngine(t *testing.T) (*engine.Engine, []string) {
	t.Helper()
	e := startTestEngine(t, engine.Config{ElectionDelay: 200 * time.Millisecond})
	return e, []string{"--admin", e.AdminAddrs()[0], "--addr", strings.Join(e.DataAddrs(), ",")}
}

func with(args []string, more ...string) []string {
	return append(append([]string{}, more...), args...)
}

// wantExit checks err's exit status (2: a usage error) and text.
func wantExit(t *testing.T, err error, code int, msg string) {
	t.Helper()
	var ue *usageError
	var ee *exitError
	got := 1
	switch {
	case errors.As(err, &ue):
		got = exitUsage
	case errors.As(err, &ee):
		got = ee.code
	}
	if err == nil || got != code || !strings.Contains(err.Error(), msg) {
		t.Fatalf("error %v (exit %d), want exit %d with …%s…", err, got, code, msg)
	}
}

func TestQueueCommands(t *testing.T) {
	e, tgt := queueEngine(t)

	_, _, err := runAdminCLI(t, with(tgt, "queue", "create", "ORDERS", "--props", "maxDepth=x")...)
	wantExit(t, err, 2, `maxDepth="x": want a whole number`)
	_, _, err = runAdminCLI(t, with(tgt, "queue", "create", "ORDERS", "--dlq", "ORDERS.DLQ")...)
	if err == nil || !strings.Contains(err.Error(), "needs maxRedeliveries") {
		t.Fatalf("dlq without max redeliveries: %v", err)
	}
	p := jsonOf[queueJSON](t, with(tgt, "queue", "create", "ORDERS", "--props", "maxDepth=10,dlq=ORDERS.DLQ", "--max-redeliveries", "1")...)
	if p.Name != "ORDERS" || p.MaxDepth != 10 || p.DeadLetterQueue != "ORDERS.DLQ" || p.MaxRedeliveries != 1 {
		t.Fatalf("created %+v", p)
	}
	qs := jsonOf[[]queueJSON](t, with(tgt, "get", "queues")...)
	if len(qs) != 2 || qs[1].Name != "ORDERS.DLQ" {
		t.Fatalf("queues %+v", qs)
	}

	put := jsonOf[queuePutJSON](t, with(tgt, "queue", "put", "ORDERS", "--value", `{"n":{{seq}}}`, "--count", "3")...)
	if put.Put != 3 || put.FirstID == "" || put.FirstID == put.LastID {
		t.Fatalf("put %+v", put)
	}
	file := filepath.Join(t.TempDir(), "m.txt")
	if err := os.WriteFile(file, []byte("line a\n\x1b[2Jline b\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if put := jsonOf[queuePutJSON](t, with(tgt, "queue", "put", "ORDERS", "--file", file)...); put.Put != 2 {
		t.Fatalf("put --file %+v", put)
	}
	_, _, err = runAdminCLI(t, with(tgt, "queue", "put", "ORDERS", "--value", "{{nope}}")...)
	wantExit(t, err, 2, "--value")
	_, _, err = runAdminCLI(t, with(tgt, "queue", "put", "ORDERS")...)
	wantExit(t, err, 2, "exactly one of --value and --file")

	// Browse twice: nothing is consumed.
	for i := 0; i < 2; i++ {
		b := jsonOf[browseJSON](t, with(tgt, "queue", "browse", "ORDERS")...)
		if b.Depth != 5 || len(b.Messages) != 5 || *b.Messages[0].Payload != `{"n":0}` || *b.Messages[2].Payload != `{"n":2}` || b.More {
			t.Fatalf("browse %d: %+v", i, b)
		}
	}
	page := jsonOf[browseJSON](t, with(tgt, "queue", "browse", "ORDERS", "--count", "2")...)
	if len(page.Messages) != 2 || !page.More {
		t.Fatalf("browse --count 2: %+v", page)
	}
	// The table sanitizes bodies.
	out, _, err := runAdminCLI(t, with(tgt, "queue", "browse", "ORDERS")...)
	if err != nil || strings.Contains(out, "\x1b") || !strings.Contains(out, "line a") || !strings.Contains(out, "SEQ") {
		t.Fatalf("browse table: %v\n%q", err, out)
	}

	got := jsonOf[[]queueMessageJSON](t, with(tgt, "queue", "get", "ORDERS", "--count", "2")...)
	if len(got) != 2 || *got[0].Payload != `{"n":0}` || *got[1].Payload != `{"n":1}` {
		t.Fatalf("get %+v", got)
	}
	if b := jsonOf[browseJSON](t, with(tgt, "queue", "browse", "ORDERS")...); b.Depth != 3 {
		t.Fatalf("depth after get %d, want 3", b.Depth)
	}

	// A poison message: two rollbacks exceed maxRedeliveries=1.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sess, err := ilink.Dial(ctx, e.DataAddrs()[0], ilink.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	q, err := sess.AccessQueue(ctx, "ORDERS")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if _, err := q.Get(ctx, time.Second); err != nil {
			t.Fatal(err)
		}
		if err := sess.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
	}
	dead := jsonOf[browseJSON](t, with(tgt, "queue", "browse", "ORDERS.DLQ")...)
	if len(dead.Messages) != 1 || dead.Messages[0].Redeliveries != 2 || len(dead.Messages[0].Headers) != 3 || *dead.Messages[0].Headers[0].Value != "ORDERS" {
		t.Fatalf("DLQ %+v", dead)
	}
	id := dead.Messages[0].ID

	plan := jsonOf[moveBackJSON](t, with(tgt, "queue", "move-back", "ORDERS.DLQ")...)
	if plan.Executed || plan.Moved != 1 || len(plan.Moves) != 1 || plan.Moves[0].To != "ORDERS" {
		t.Fatalf("plan %+v", plan)
	}
	out, _, err = runAdminCLI(t, with(tgt, "queue", "move-back", "ORDERS.DLQ")...)
	if err != nil || !strings.Contains(out, "would move 1 of 1") || !strings.Contains(out, "add --execute") {
		t.Fatalf("plan table: %v\n%s", err, out)
	}
	_, _, err = runAdminCLI(t, with(tgt, "queue", "move-back", "ORDERS.DLQ", "--id", "zz")...)
	wantExit(t, err, 2, `--id "zz"`)
	_, _, err = runAdminCLI(t, with(tgt, "queue", "move-back", "ORDERS.DLQ", "--id", id, "--execute", "--read-only")...)
	if err == nil || !strings.Contains(err.Error(), "MIMQE_READ_ONLY (MoveMessages refused: read-only mode)") {
		t.Fatalf("move-back --read-only: %v", err)
	}
	done := jsonOf[moveBackJSON](t, with(tgt, "queue", "move-back", "ORDERS.DLQ", "--id", id, "--execute")...)
	if !done.Executed || done.Moved != 1 {
		t.Fatalf("move-back --execute %+v", done)
	}
	if b := jsonOf[browseJSON](t, with(tgt, "queue", "browse", "ORDERS")...); b.Depth != 3 || b.Messages[2].ID != id {
		t.Fatalf("ORDERS after the move back: %+v", b)
	}

	// Read-only: put and get are refused by the session before anything is sent.
	_, _, err = runAdminCLI(t, with(tgt, "queue", "get", "ORDERS", "--read-only")...)
	if err == nil || !strings.Contains(err.Error(), "MIMQE_READ_ONLY (Get refused") {
		t.Fatalf("get --read-only: %v", err)
	}
	// A delete is planned first: what it takes, and that the engine refuses
	// to delete a dead-letter queue in use; nothing changes without --execute.
	if p := jsonOf[queueDeleteJSON](t, with(tgt, "queue", "delete", "ORDERS.DLQ")...); p.Executed || p.Deleted || !slices.Equal(p.DeadLetterOf, []string{"ORDERS"}) {
		t.Fatalf("plan of the DLQ's delete %+v", p)
	}
	_, _, err = runAdminCLI(t, with(tgt, "queue", "delete", "ORDERS.DLQ", "--execute")...)
	if err == nil || !strings.Contains(err.Error(), "dead-letter queue of ORDERS") {
		t.Fatalf("delete of a DLQ in use: %v", err)
	}
	del := jsonOf[queueDeleteJSON](t, with(tgt, "queue", "delete", "ORDERS")...)
	if del.Executed || del.Deleted || del.Depth != 3 || len(del.DeadLetterOf) != 0 {
		t.Fatalf("plan of ORDERS' delete (3 messages) %+v", del)
	}
	if b := jsonOf[browseJSON](t, with(tgt, "queue", "browse", "ORDERS")...); b.Depth != 3 {
		t.Fatalf("the plan deleted something: ORDERS %+v", b)
	}
	out, _, err = runAdminCLI(t, with(tgt, "queue", "delete", "ORDERS")...)
	if err != nil || !strings.Contains(out, "queue ORDERS: delete 3 messages (0 in flight); planned (nothing changed; add --execute to delete it)") {
		t.Fatalf("the plan's words: %v\n%s", err, out)
	}
	if d := jsonOf[queueDeleteJSON](t, with(tgt, "queue", "delete", "ORDERS", "--execute")...); !d.Executed || !d.Deleted || d.Depth != 3 {
		t.Fatalf("delete --execute %+v", d)
	}
	_, _, err = runAdminCLI(t, with(tgt, "queue", "browse", "ORDERS")...)
	if err == nil || !strings.Contains(err.Error(), "no such queue") {
		t.Fatalf("ORDERS after the delete: %v", err)
	}
}

func TestEngineQueueFlag(t *testing.T) {
	for in, msg := range map[string]string{
		":maxDepth=1":         `--queue ":maxDepth=1": want NAME or NAME:PROPS`,
		"Q:maxDepth=-3":       `--queue "Q:maxDepth=-3": queue property maxDepth="-3"`,
		"Q:colour=blue":       `unknown queue property "colour"`,
		"Q:maxRedeliveries=2": "needs dlq=NAME",
	} {
		a := newTestApp(t, nil)
		a.root.SetArgs([]string{"engine", "--queue", in})
		a.root.SetOut(&ilinktest.Buffer{})
		err := a.root.ExecuteContext(context.Background())
		wantExit(t, err, 2, msg)
	}

	a := newTestApp(t, nil)
	var out ilinktest.Buffer
	a.root.SetOut(&out)
	a.root.SetArgs([]string{"engine", "--nodes", "1", "--queue", "ORDERS:maxDepth=1000,dlq=ORDERS.DLQ,maxRedeliveries=3", "--queue", "AUDIT"})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- a.root.ExecuteContext(ctx) }()
	line := regexp.MustCompile(`admin (127\.0\.0\.1:\d+)`)
	var adm string
	ilinktest.Poll(10*time.Second, func() bool {
		if m := line.FindStringSubmatch(out.String()); m != nil {
			adm = m[1]
		}
		return adm != ""
	})
	if adm == "" {
		cancel()
		t.Fatalf("no node line: %q", out.String())
	}
	qs := jsonOf[[]queueJSON](t, "get", "queues", "--admin", adm)
	cancel()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if len(qs) != 3 || qs[0].Name != "AUDIT" || qs[1].Name != "ORDERS" || qs[1].MaxDepth != 1000 || qs[1].DeadLetterQueue != "ORDERS.DLQ" ||
		qs[1].MaxRedeliveries != 3 || qs[2].Name != "ORDERS.DLQ" {
		t.Fatalf("queues of engine --queue: %+v", qs)
	}
}

func TestQuarantineCommands(t *testing.T) {
	e, tgt := queueEngine(t)
	if err := e.DefineQueue("ORDERS", engine.QueueConfig{MaxDepth: 2}); err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(-time.Hour)
	if err := e.AddQuarantine(
		engine.QuarantineEntry{Dir: "d1", Queue: "ORDERS", Payload: []byte("n1"), At: at},
		engine.QuarantineEntry{Dir: "d1", Queue: "ORDERS", Payload: []byte("o1"), At: at, Old: true},
		engine.QuarantineEntry{Dir: "d1", Queue: "ORDERS", Payload: []byte("n2")},
		engine.QuarantineEntry{Dir: "d1", Queue: "ORDERS", Payload: []byte("n3")},
		engine.QuarantineEntry{Dir: "d2", Queue: "OTHER\x1b[2J", Payload: []byte("x")},
	); err != nil {
		t.Fatal(err)
	}
	dirs := jsonOf[[]quarantineDirJSON](t, with(tgt, "quarantine", "list")...)
	if len(dirs) != 2 || dirs[0].Entries != 4 || dirs[0].Old != 1 || dirs[0].New != 3 {
		t.Fatalf("list %+v", dirs)
	}
	out, _, err := runAdminCLI(t, with(tgt, "quarantine", "list")...)
	if err != nil || strings.Contains(out, "\x1b") || !strings.Contains(out, "OTHER") {
		t.Fatalf("list table not sanitized: %v\n%q", err, out)
	}
	scan := jsonOf[quarantineScanJSON](t, with(tgt, "quarantine", "scan", "--queue", "ORDERS", "--since", "-30m")...)
	if scan.Total != 2 || scan.New != 2 || scan.Old != 0 {
		t.Fatalf("scan --since -30m %+v", scan)
	}
	_, _, err = runAdminCLI(t, with(tgt, "quarantine", "scan", "--since", "yesterday-ish")...)
	wantExit(t, err, 2, "--since")
	_, _, err = runAdminCLI(t, with(tgt, "quarantine", "reinject")...)
	wantExit(t, err, 2, "needs --queue")

	// The plan: without --include-old the OLD entry stays out; with it,
	// the duplicate warning comes with the plan.
	plan := jsonOf[reinjectJSON](t, with(tgt, "quarantine", "reinject", "--queue", "ORDERS")...)
	if plan.Executed || plan.Selected != 3 || plan.Skipped != 1 || plan.Warning != "" {
		t.Fatalf("plan %+v", plan)
	}
	out, _, err = runAdminCLI(t, with(tgt, "quarantine", "reinject", "--queue", "ORDERS", "--include-old")...)
	if err != nil || !strings.Contains(out, "would take 4 entries (3 NEW, 1 OLD)") || !strings.Contains(out, "warning: 1 OLD entry") || !strings.Contains(out, "add --execute") {
		t.Fatalf("plan with --include-old: %v\n%s", err, out)
	}
	if n := e.QuarantineLen(); n != 5 {
		t.Fatalf("a plan reinjected: %d entries left", n)
	}
	// Executed: the warning goes to stderr first; the queue holds 2, so the
	// reinjection stops with the reason.
	out, stderr, err := runAdminCLI(t, with(tgt, "quarantine", "reinject", "--queue", "ORDERS", "--include-old", "--execute")...)
	if err != nil || !strings.Contains(stderr, "warning: 1 OLD entry") || !strings.Contains(out, "reinject into ORDERS: 4 planned, 2 reinjected (leader node 1)") ||
		!strings.Contains(out, "stopped early: queue ORDERS is full (max depth 2)") {
		t.Fatalf("reinject --execute: %v\nstdout %s\nstderr %s", err, out, stderr)
	}
	if n := e.QuarantineLen(); n != 3 {
		t.Fatalf("%d entries left after reinjecting 2 of 5", n)
	}
	_, _, err = runAdminCLI(t, with(tgt, "quarantine", "reinject", "--queue", "ORDERS", "--execute", "--read-only")...)
	if err == nil || !strings.Contains(err.Error(), "ReinjectQuarantineIDs refused: read-only mode") {
		t.Fatalf("reinject --read-only: %v", err)
	}
}

// quarantine list and scan --raw print the engine's text, so --raw with
// -o json is a usage error; it printed the text, -o json ignored.
func TestQuarantineRawWithJSON(t *testing.T) {
	for _, cmd := range []string{"list", "scan"} {
		res := runCLIResult(t, "", "quarantine", cmd, "--raw", "-o", "json", "--admin", "127.0.0.1:1")
		if res.code != exitUsage || !strings.Contains(res.stderr, "--raw and -o json disagree") {
			t.Errorf("quarantine %s --raw -o json: exit %d, stderr %q; want 2", cmd, res.code, res.stderr)
		}
	}
}

// queue get takes messages off the queue; when it stops before --count
// (its --timeout, an interrupt) it prints those it took before it reports
// why. They were lost: taken, then the error alone.
func TestQueueGetStoppedPrintsWhatItTook(t *testing.T) {
	t.Parallel()
	e, tgt := queueEngine(t)
	if err := e.DefineQueue("KEEP", engine.QueueConfig{}); err != nil {
		t.Fatal(err)
	}
	if put := jsonOf[queuePutJSON](t, with(tgt, "queue", "put", "KEEP", "--value", "m{{seq}}", "--count", "2")...); put.Put != 2 {
		t.Fatalf("put %+v", put)
	}
	res := runCLIResult(t, "", with(tgt, "queue", "get", "KEEP", "--count", "5", "--wait", "30s", "--timeout", "1500ms", "-o", "json")...)
	var got []queueMessageJSON
	if err := json.Unmarshal([]byte(res.stdout), &got); err != nil || len(got) != 2 || *got[0].Payload != "m0" || *got[1].Payload != "m1" {
		t.Fatalf("stdout %q (%v): want the 2 messages taken", res.stdout, err)
	}
	if want := "ilinkdash: get from KEEP: no answer from " + tgt[1] + " within --timeout 1.5s\n"; res.code != 1 || res.stderr != want {
		t.Fatalf("exit %d, stderr %q: want 1 and %q", res.code, res.stderr, want)
	}
}

// queue put stopped by a failed put (a full queue, an interrupt, the
// --timeout) prints what it put before it says why: it said only the
// error, so the messages already put went uncounted.
func TestQueuePutStoppedPrintsWhatItPut(t *testing.T) {
	t.Parallel()
	e, tgt := queueEngine(t)
	if err := e.DefineQueue("FULL", engine.QueueConfig{MaxDepth: 3}); err != nil {
		t.Fatal(err)
	}
	res := runCLIResult(t, "", with(tgt, "queue", "put", "FULL", "--value", "m{{seq}}", "--count", "5", "-o", "json")...)
	var put queuePutJSON
	if err := json.Unmarshal([]byte(res.stdout), &put); err != nil || put.Put != 3 || put.FirstID == "" || put.LastID == "" {
		t.Fatalf("stdout %q (%v): want the 3 messages put", res.stdout, err)
	}
	if res.code != 1 || !strings.Contains(res.stderr, "put 4 of FULL: ") || !strings.Contains(res.stderr, "MIMQE_QUEUE_FULL") {
		t.Fatalf("exit %d, stderr %q: want 1 and put 4 of FULL: MIMQE_QUEUE_FULL", res.code, res.stderr)
	}
	// The queue full from the first: -o json says put 0 (it printed
	// nothing, where a partial put prints its object).
	res = runCLIResult(t, "", with(tgt, "queue", "put", "FULL", "--value", "m", "-o", "json")...)
	if err := json.Unmarshal([]byte(res.stdout), &put); err != nil || put.Put != 0 || put.Queue != "FULL" || res.code != 1 || !strings.Contains(res.stderr, "put 1 of FULL: ") {
		t.Fatalf("a first put refused: exit %d, stdout %q (%v), stderr %q", res.code, res.stdout, err, res.stderr)
	}
}

// queue create checks what it sends as the engine would, a usage error
// naming the flag or --props key: a dlq without maxRedeliveries was the
// engine's MIMQE_INVALID_PROPERTY (exit 1), and --max-depth -1 named both
// --max-depth and --max-redeliveries.
func TestQueueCreateChecksItsDefinitionLocally(t *testing.T) {
	for _, c := range []cliCase{
		{[]string{"--props", "dlq=D"}, "--props dlq=D needs maxRedeliveries=N, N >= 1 (--max-redeliveries N)"},
		{[]string{"--dlq", "D"}, "--dlq D needs maxRedeliveries=N, N >= 1"},
		{[]string{"--props", "dlq=D", "--max-redeliveries", "0"}, "--props dlq=D with --max-redeliveries 0 needs maxRedeliveries=N"},
		{[]string{"--props", "maxRedeliveries=3"}, "--props maxRedeliveries=3 needs dlq=QUEUE (--dlq QUEUE)"},
		{[]string{"--max-redeliveries", "3"}, "--max-redeliveries 3 needs dlq=QUEUE"},
		{[]string{"--props", "dlq=Q,maxRedeliveries=1"}, "--props dlq=Q: queue Q cannot be its own dead-letter queue"},
		{[]string{"--max-depth", "-1"}, "--max-depth -1: must not be negative (0 = unlimited)"},
		{[]string{"--max-redeliveries", "-2", "--dlq", "D"}, "--max-redeliveries -2: must not be negative"},
		{[]string{"--max-depth", "99999999999999"}, "--max-depth 99999999999999: at most 1099511627776"},
	} {
		// No cluster at 127.0.0.1:1: each is refused before connecting.
		r := runCLIResult(t, "", append([]string{"queue", "create", "Q", "--admin", "127.0.0.1:1"}, c.args...)...)
		if r.code != exitUsage || !strings.HasPrefix(r.stderr, "ilinkdash: "+c.want) || strings.Contains(r.stderr, "and --max-redeliveries") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

// jsonArray writes, element by element, the bytes writeJSON writes for the
// whole slice (indented, sanitized), for none, one and several elements.
func TestJSONArrayWritesWhatWriteJSONWrites(t *testing.T) {
	payload := "bidi \u202e ESC \x1b del \x7f"
	for n := range 4 {
		all := make([]queueMessageJSON, n)
		var streamed bytes.Buffer
		arr := jsonArray{w: &streamed}
		for i := range all {
			all[i] = queueMessageJSON{ID: fmt.Sprint(i), Headers: []headerJSON{}, Payload: &payload, Bytes: i}
			if err := arr.add(all[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := arr.close(); err != nil {
			t.Fatal(err)
		}
		var whole bytes.Buffer
		if err := writeJSON(&whole, all, true); err != nil {
			t.Fatal(err)
		}
		if streamed.String() != whole.String() {
			t.Errorf("%d elements: streamed\n%s\nwant\n%s", n, streamed.String(), whole.String())
		}
	}
}

// queue get prints each message as it takes it: -o json writes a message
// before the next is taken, and a table holds at most takenBlock short
// rows. It held every message taken, bodies and all, until --count.
func TestQueueGetPrintsAsItTakes(t *testing.T) {
	body := strings.Repeat("b", 4096)
	msg := queueMessageJSON{ID: "0102", PutTime: "2026-12-07T00:00:00Z", Headers: []headerJSON{}, Payload: &body, Bytes: len(body)}

	var js bytes.Buffer
	p := takenPrinter{queue: "Q", json: &jsonArray{w: &js}}
	for i := 1; i <= 3; i++ {
		before := js.Len()
		if err := p.add(msg); err != nil {
			t.Fatal(err)
		}
		if js.Len()-before < len(body) {
			t.Fatalf("json: message %d not written when taken (%d bytes written)", i, js.Len()-before)
		}
	}

	var tb bytes.Buffer
	p = takenPrinter{queue: "Q", tb: newTable(&tb)}
	for i := 1; i <= takenBlock; i++ {
		if err := p.add(msg); err != nil {
			t.Fatal(err)
		}
		if i < takenBlock && tb.Len() != 0 {
			t.Fatalf("table: printed after %d rows, want a block of %d aligned", i, takenBlock)
		}
	}
	lines := strings.Count(tb.String(), "\n")
	if lines != takenBlock+1 || len(tb.String()) > lines*200 {
		t.Fatalf("table: %d lines, %d bytes after a block; want the header and %d short rows", lines, tb.Len(), takenBlock)
	}
	if err := p.close(); err != nil || strings.Count(tb.String(), "\n") != lines {
		t.Fatalf("close: %v; it added %d lines to a full block", err, strings.Count(tb.String(), "\n")-lines)
	}
}

// A table of no message says so under its header.
func TestQueueGetTableOfNone(t *testing.T) {
	var tb bytes.Buffer
	p := takenPrinter{queue: "EMPTY", tb: newTable(&tb)}
	if err := p.close(); err != nil {
		t.Fatal(err)
	}
	if got := tb.String(); !strings.HasPrefix(got, "ID") || !strings.HasSuffix(got, "no message on EMPTY\n") {
		t.Fatalf("table of none: %q", got)
	}
}
