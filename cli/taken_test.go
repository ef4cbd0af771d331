package cli

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

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
