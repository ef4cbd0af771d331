package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// headerValues maps a browsed message's headers by key ("<null>" for a
// null value), failing on a key given twice.
func headerValues(t *testing.T, m queueMessageJSON) map[string]string {
	t.Helper()
	got := map[string]string{}
	for _, h := range m.Headers {
		if _, dup := got[h.Key]; dup {
			t.Fatalf("header %q twice in %+v", h.Key, m.Headers)
		}
		v := "<null>"
		if h.Value != nil {
			v = *h.Value
		}
		got[h.Key] = v
	}
	return got
}

func TestQueuePutHeaders(t *testing.T) {
	_, tgt := queueEngine(t)
	if _, _, err := runAdminCLI(t, with(tgt, "queue", "create", "HDR")...); err != nil {
		t.Fatal(err)
	}

	// Two headers on every message, one static and one a template like
	// the value (as publish's --header values are).
	put := jsonOf[queuePutJSON](t, with(tgt, "queue", "put", "HDR", "--value", "body-{{seq}}", "--count", "2",
		"--header", "source=cli", "--header", "trace=t-{{seq}}")...)
	if put.Put != 2 || put.Headers != 2 {
		t.Fatalf("put %+v, want 2 messages with 2 headers", put)
	}
	b := jsonOf[browseJSON](t, with(tgt, "queue", "browse", "HDR")...)
	if b.Depth != 2 || len(b.Messages) != 2 {
		t.Fatalf("browse %+v", b)
	}
	for i, want := range []string{"0", "1"} {
		m := b.Messages[i]
		if m.Payload == nil || *m.Payload != "body-"+want {
			t.Fatalf("message %d body %v, want body-%s", i, m.Payload, want)
		}
		hs := headerValues(t, m)
		if len(hs) != 2 || hs["source"] != "cli" || hs["trace"] != "t-"+want {
			t.Fatalf("message %d headers %v, want source=cli trace=t-%s", i, hs, want)
		}
	}

	// --file: one message per line, {{seq}} the line's number; "k=" is an
	// empty value (not null), as in the dashboard's put form.
	file := filepath.Join(t.TempDir(), "lines.txt")
	if err := os.WriteFile(file, []byte("first\nsecond\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	put = jsonOf[queuePutJSON](t, with(tgt, "queue", "put", "HDR", "--file", file, "--header", "line={{seq}}", "--header", "note=")...)
	if put.Put != 2 || put.Headers != 2 {
		t.Fatalf("put --file %+v", put)
	}
	b = jsonOf[browseJSON](t, with(tgt, "queue", "browse", "HDR")...)
	if len(b.Messages) != 4 {
		t.Fatalf("browse after --file: %+v", b)
	}
	for i, body := range []string{"first", "second"} {
		m := b.Messages[2+i]
		hs := headerValues(t, m)
		if *m.Payload != body || len(hs) != 2 || hs["line"] != []string{"0", "1"}[i] || hs["note"] != "" {
			t.Fatalf("--file message %d: body %q headers %v", i, *m.Payload, hs)
		}
	}

	// The table says how many headers each message carries.
	out, _, err := runAdminCLI(t, with(tgt, "queue", "put", "HDR", "--value", "x", "--header", "a=1")...)
	if err != nil || !strings.Contains(out, "put 1 message on HDR") || !strings.Contains(out, ", 1 header each") {
		t.Fatalf("put table: %v\n%s", err, out)
	}
	// Without --header the JSON says 0 and the message has none.
	if put := jsonOf[queuePutJSON](t, with(tgt, "queue", "put", "HDR", "--value", "plain")...); put.Headers != 0 {
		t.Fatalf("put without --header %+v", put)
	}
	b = jsonOf[browseJSON](t, with(tgt, "queue", "browse", "HDR")...)
	if last := b.Messages[len(b.Messages)-1]; *last.Payload != "plain" || len(last.Headers) != 0 {
		t.Fatalf("plain message %+v", last)
	}
}

func TestQueuePutBadHeader(t *testing.T) {
	_, tgt := queueEngine(t)
	if _, _, err := runAdminCLI(t, with(tgt, "queue", "create", "HDR")...); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runAdminCLI(t, with(tgt, "queue", "put", "HDR", "--value", "before")...); err != nil {
		t.Fatal(err)
	}
	many := []string{"queue", "put", "HDR", "--value", "x"}
	for i := 0; i < 65; i++ {
		many = append(many, "--header", "k=v")
	}
	for _, c := range []cliCase{
		{[]string{"--header", "novalue"}, `--header "novalue": want key=value with a non-empty key`},
		{[]string{"--header", "=v"}, `--header "=v": want key=value with a non-empty key`},
		{[]string{"--header", " =v"}, `--header " =v": want key=value with a non-empty key`},
		// A good header before a bad one: still nothing is put.
		{[]string{"--header", "ok=1", "--header", "novalue"}, `--header "novalue"`},
		{[]string{"--header", "k={{nope}}"}, "--header k"},
		{[]string{"--header", "a\x1bb=v"}, `the key holds control characters`},
	} {
		_, _, err := runAdminCLI(t, with(tgt, append([]string{"queue", "put", "HDR", "--value", "x"}, c.args...)...)...)
		wantExit(t, err, 2, c.want)
	}
	_, _, err := runAdminCLI(t, with(tgt, many...)...)
	wantExit(t, err, 2, "--header given 65 times: a message carries at most 64 headers")

	b := jsonOf[browseJSON](t, with(tgt, "queue", "browse", "HDR")...)
	if b.Depth != 1 || len(b.Messages) != 1 || *b.Messages[0].Payload != "before" {
		t.Fatalf("after refused puts: depth %d, %+v (want only the message put before)", b.Depth, b.Messages)
	}
}
