// Bad input of issue 25: a schema that does not compile, JSON that does
// not fit, a record that does not decode.

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// endOffsetSum is how many records topic holds, read through the admin.
func endOffsetSum(t *testing.T, e interface{ AdminAddrs() []string }, topic string) int64 {
	t.Helper()
	_, q := adminAt(t, e.AdminAddrs()[0])
	d, err := q.DescribeTopic(context.Background(), topic)
	if err != nil {
		t.Fatal(err)
	}
	return d.EndOffsetSum
}

func TestSchemaThatDoesNotCompileIsAnErrorAtStart(t *testing.T) {
	bad := writeFile(t, "orders.proto", "syntax = \"proto3\";\npackage shop;\nmessage Order {\n  string id = 1\n}\n")
	_, _, err := runCLI(t, "", "tail", "SHOP.ORDERS", "--addr", "127.0.0.1:1", "--value-proto", bad+":shop.Order")
	wantExit(t, err, 2, bad+":5:1")
	if !strings.Contains(err.Error(), "--value-proto") {
		t.Fatalf("error %v does not name the flag", err)
	}
	avsc := writeFile(t, "p.avsc", "{\"type\": \"record\", \"name\": \"P\", \"fields\": [\n  {\"name\": \"a\", \"type\": \"lnog\"}\n]}")
	_, _, err = runCLI(t, "", "publish", "T", "--addr", "127.0.0.1:1", "--value", "{}", "--value-avro", avsc)
	wantExit(t, err, 2, avsc+":2")
	for _, args := range [][]string{
		{"tail", "T", "--value-proto", "orders.proto"},
		{"tail", "T", "--proto-path", "x"},
		{"tail", "T", "--value-avro", avsc, "--value-proto", bad + ":shop.Order"},
		{"tail", "T", "--key-format", "base32"},
		// publish and queue put send --key as given: the flag that only
		// changes how keys show was accepted there and did nothing.
		{"publish", "T", "--value", "v", "--key-format", "hex"},
		{"queue", "put", "Q", "--value", "v", "--key-format", "hex"},
	} {
		res := runCLIResult(t, "", append(args, "--addr", "127.0.0.1:1")...)
		if res.code != exitUsage {
			t.Errorf("%v: exit %d (%v), want a usage error", args, res.code, res.err)
		}
	}
}

func TestPublishJSONThatDoesNotFitSendsNothing(t *testing.T) {
	e, tgt := topicEngine(t, "SHOP.ORDERS", "partitions=1")
	flags := []string{"--value-proto", filepath.Join(demoProtoDir, "shop/order.proto") + ":shop.Order", "--proto-path", demoProtoDir}
	_, _, err := runCLI(t, "", with(tgt, append([]string{"publish", "SHOP.ORDERS", "--count", "3", "--value", `{"id":"o-{{seq}}","lines":[{"qty":"many"}]}`}, flags...)...)...)
	wantExit(t, err, 2, "lines")
	if !strings.Contains(err.Error(), "qty") || !strings.Contains(err.Error(), "nothing sent") {
		t.Fatalf("error %v: want the field (lines[0].qty) and that nothing was sent", err)
	}
	// A file is checked whole before anything is sent: line 3 is bad.
	file := writeFile(t, "orders.jsonl", "{\"id\":\"a\"}\n{\"id\":\"b\"}\n{\"id\":\"c\",\"status\":\"LOST\"}\n")
	_, _, err = runCLI(t, "", with(tgt, append([]string{"publish", "SHOP.ORDERS", "--file", file}, flags...)...)...)
	wantExit(t, err, 2, "line 3")
	if !strings.Contains(err.Error(), "status") {
		t.Fatalf("error %v does not name the field", err)
	}
	// --size would generate filler the topic's readers cannot decode.
	_, _, err = runCLI(t, "", with(tgt, append([]string{"publish", "SHOP.ORDERS", "--count", "3", "--size", "100"}, flags...)...)...)
	wantExit(t, err, 2, "--raw")
	if n := endOffsetSum(t, e, "SHOP.ORDERS"); n != 0 {
		t.Fatalf("%d records on the topic after refused publishes, want none", n)
	}
	// Stdin is checked as it is read: the good lines before a bad one go,
	// the bad one and the rest do not, and the error says so.
	_, _, err = runCLI(t, "{\"id\":\"a\"}\n{\"id\":7}\n{\"id\":\"c\"}\n", with(tgt, append([]string{"publish", "SHOP.ORDERS", "--file", "-"}, flags...)...)...)
	if err == nil || !strings.Contains(err.Error(), "record 1 not sent (nor any after it)") || !strings.Contains(err.Error(), "id") {
		t.Fatalf("stdin with a bad second line: %v", err)
	}
	if n := endOffsetSum(t, e, "SHOP.ORDERS"); n != 1 {
		t.Fatalf("%d records after a stdin run stopped at its second line, want 1", n)
	}
	// --raw sends the bytes as given.
	if _, stderr, err := runCLI(t, "", with(tgt, append([]string{"publish", "SHOP.ORDERS", "--raw", "--value", "not protobuf \xff"}, flags...)...)...); err != nil {
		t.Fatalf("publish --raw: %v\n%s", err, stderr)
	}
	// The raw record does not decode: its row shows hex and the error,
	// never a crash or the bytes as text.
	text, stderr, err := runCLI(t, "", with(tgt, append([]string{"tail", "SHOP.ORDERS", "--from", "earliest", "--count", "2"}, flags...)...)...)
	if err != nil {
		t.Fatalf("tail: %v\n%s", err, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `{"id":"a"}`) || !strings.Contains(lines[1], " 6e6f742070726f746f62756620ff decode-error=\"not a shop.Order") {
		t.Fatalf("tail lines %q: want the decoded first record and the raw one as hex with its error", lines)
	}
	_, decoded, jl := tailValues(t, tgt, "SHOP.ORDERS", 2, flags...)
	if decoded[1] != nil || !strings.Contains(jl[1], `"value_decode_error":"not a shop.Order`) {
		t.Fatalf("json line %s: want value_decode_error and no value_decoded", jl[1])
	}
}

// Queue browse decodes bodies with the queue's schema: a JSON Schema
// here, which validates; a body that does not fit shows its error.
func TestQueueBrowseDecodesBodies(t *testing.T) {
	_, tgt := queueEngine(t)
	if _, _, err := runAdminCLI(t, with(tgt, "queue", "create", "INVOICE.Q")...); err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{`{"id": "i-1", "amount": 5}`, `{"id": 7}`} {
		if _, _, err := runAdminCLI(t, with(tgt, "queue", "put", "INVOICE.Q", "--value", body)...); err != nil {
			t.Fatal(err)
		}
	}
	sch := writeFile(t, "invoice.json", `{"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}, "amount": {"type": "integer"}}}`)
	b := jsonOf[browseJSON](t, with(tgt, "queue", "browse", "INVOICE.Q", "--value-json-schema", sch)...)
	if len(b.Messages) != 2 {
		t.Fatalf("%d messages, want 2", len(b.Messages))
	}
	var compact bytes.Buffer
	_ = json.Compact(&compact, b.Messages[0].PayloadDecoded)
	if got := compact.String(); got != `{"id":"i-1","amount":5}` || b.Messages[0].PayloadDecodeError != "" {
		t.Fatalf("first body decoded %s (%q)", got, b.Messages[0].PayloadDecodeError)
	}
	if m := b.Messages[1]; m.PayloadDecoded != nil || !strings.Contains(m.PayloadDecodeError, "/id") {
		t.Fatalf("second body: decoded %s, error %q; want the error at /id", m.PayloadDecoded, m.PayloadDecodeError)
	}
	out, _, err := runAdminCLI(t, with(tgt, "queue", "browse", "INVOICE.Q", "-o", "table", "--value-json-schema", sch)...)
	if err != nil || !strings.Contains(out, `{"id":"i-1","amount":5}`) || !strings.Contains(out, "decode-error=") {
		t.Fatalf("table %q (%v): want the decoded body and the decode error", out, err)
	}
}

// queue put encodes with the queue's schema as publish does: JSON that
// does not fit is refused naming the field, and nothing is put.
func TestQueuePutJSONThatDoesNotFitPutsNothing(t *testing.T) {
	_, tgt := queueEngine(t)
	if _, _, err := runAdminCLI(t, with(tgt, "queue", "create", "SHOP.Q")...); err != nil {
		t.Fatal(err)
	}
	flags := []string{"--value-proto", filepath.Join(demoProtoDir, "shop/order.proto") + ":shop.Order", "--proto-path", demoProtoDir}
	_, _, err := runAdminCLI(t, with(tgt, append([]string{"queue", "put", "SHOP.Q", "--count", "3", "--value", `{"id":"o-{{seq}}","lines":[{"qty":"many"}]}`}, flags...)...)...)
	wantExit(t, err, 2, "nothing put")
	if !strings.Contains(err.Error(), "qty") {
		t.Fatalf("error %v does not name the field", err)
	}
	file := writeFile(t, "orders.jsonl", "{\"id\":\"a\"}\n{\"id\":\"b\",\"status\":\"LOST\"}\n")
	_, _, err = runAdminCLI(t, with(tgt, append([]string{"queue", "put", "SHOP.Q", "--file", file}, flags...)...)...)
	wantExit(t, err, 2, "line 2")
	if !strings.Contains(err.Error(), "status") {
		t.Fatalf("error %v does not name the field", err)
	}
	if b := jsonOf[browseJSON](t, with(tgt, "queue", "browse", "SHOP.Q")...); b.Depth != 0 {
		t.Fatalf("depth %d after refused puts, want 0", b.Depth)
	}
	// --count 1 puts the first line only: the bad second line, never put,
	// does not refuse it.
	if _, _, err := runAdminCLI(t, with(tgt, append([]string{"queue", "put", "SHOP.Q", "--file", file, "--count", "1"}, flags...)...)...); err != nil {
		t.Fatalf("put of a file's first line, its second not fitting: %v", err)
	}
	if b := jsonOf[browseJSON](t, with(tgt, "queue", "browse", "SHOP.Q")...); b.Depth != 1 {
		t.Fatalf("depth %d after --count 1, want 1", b.Depth)
	}
	if _, _, err := runAdminCLI(t, with(tgt, "queue", "get", "SHOP.Q")...); err != nil {
		t.Fatal(err)
	}
	// Stdin is checked as it is read: the run stops at the bad line.
	_, _, err = runCLI(t, "{\"id\":\"a\"}\n{\"id\":7}\n{\"id\":\"c\"}\n", with(tgt, append([]string{"queue", "put", "SHOP.Q", "--file", "-"}, flags...)...)...)
	wantExit(t, err, 2, "message 2 of SHOP.Q does not fit its schema (1 put before it)")
	if b := jsonOf[browseJSON](t, with(tgt, "queue", "browse", "SHOP.Q")...); b.Depth != 1 {
		t.Fatalf("depth %d after a stdin run stopped at its second line, want 1", b.Depth)
	}
}

// A JSON Schema that parses but breaks its draft's rules is an error at
// start naming each place with its line and reason, once (the flags'
// topics and queues rules share the schema).
func TestJSONSchemaThatBreaksItsDraft(t *testing.T) {
	sch := writeFile(t, "invoice.json", "{\n  \"type\": \"object\",\n  \"properties\": {\n    \"id\": {\"type\": \"strnig\"},\n    \"n\": {\"minimum\": \"x\"}\n  }\n}\n")
	_, _, err := runCLI(t, "", "tail", "T", "--addr", "127.0.0.1:1", "--value-json-schema", sch)
	wantExit(t, err, 2, sch+":4:20: at /properties/id/type: value must be one of")
	if msg := err.Error(); !strings.Contains(msg, sch+":5:22: at /properties/n/minimum: got string, want number") || strings.Count(msg, "/properties/n/minimum") != 1 {
		t.Fatalf("error %q: want each place once, with its line", msg)
	}
}
