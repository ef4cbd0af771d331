package queues_test

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"ilinkdash/ilink/schema"
	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
	"ilinkdash/ui/internal/viewtest"
	"ilinkdash/ui/views/queues"
)

// The browse of a queue with a decode rule shows its bodies decoded (the
// default format), a body that does not decode its error and its bytes in
// hex, and f cycles through every format, decoded included.
func TestQueueBrowseDecodesBodies(t *testing.T) {
	set, err := schema.Compile([]schema.Rule{{Queues: "AUDIT.*", Where: "test rule",
		Value: schema.Spec{Kind: schema.KindJSONSchema, Schema: "audit.json", FS: fstest.MapFS{
			"audit.json": {Data: []byte(`{"type":"object","required":["id"],"properties":{"id":{"type":"integer"},"who":{"type":"string"}}}`)},
		}}}})
	if err != nil {
		t.Fatal(err)
	}
	r := viewtest.Polled(t, false, func(ctx *common.Context, s *fakes.Source) common.View {
		ctx.Schemas = set
		return queues.New(ctx, s)
	})
	if _, err := r.Src.PutMessages(context.Background(), "AUDIT.ARCHIVE", [][]byte{[]byte(`{"id":7,"who":"\u001b]0;pwned\u0007kim"}`)}, nil); err != nil {
		t.Fatal(err)
	}
	r.Poll()
	r.Key("enter") // AUDIT.ARCHIVE: 30 plain-text audit records, then the JSON one
	r.MustShow("browsing 31 of 31", "body (decoded: json-schema", "does not decode with json-schema", "00000000  61 75 64 69 74", "⚠ ")
	r.Key("G")
	r.MustShow(`"id": 7`)
	r.Key("c", "left") // the last choice: the decoded body
	r.MustShow("body (decoded JSON)")
	r.Key("enter")
	copied := false
	for _, f := range viewtest.FlashTexts(r) {
		copied = copied || strings.Contains(f, "copied the decoded body of message")
	}
	if !copied {
		t.Fatalf("the decoded body was not copied: %v", viewtest.FlashTexts(r))
	}
	if screen := r.V.View(); containsControl(screen) {
		t.Fatalf("a control reached the screen: %q", screen)
	}
	for _, want := range []string{"body (text,", "body (json,", "body (hex,", "body (decoded"} {
		r.Key("f")
		r.MustShow(want)
	}
	// A queue without a rule has no decoded format.
	r.Key("esc")
	r.Key("j", "enter")
	r.MustShow("body (text,")
	r.MustNotShow("decoded")
	for _, want := range []string{"body (json,", "body (hex,", "body (text,"} {
		r.Key("f")
		r.MustShow(want)
	}
}

func containsControl(s string) bool {
	for _, c := range s {
		if c == 0x1b || c == 0x07 || (c >= 0x80 && c < 0xa0) {
			return true
		}
	}
	return false
}

// A quarantined entry of a queue with a decode rule opens decoded.
func TestQuarantineEntryDecoded(t *testing.T) {
	set, err := schema.Compile([]schema.Rule{{Queues: "ORDERS.*", Where: "test rule",
		Value: schema.Spec{Kind: schema.KindJSONSchema, Schema: "order.json", FS: fstest.MapFS{
			"order.json": {Data: []byte(`{"type":"object","required":["order"],"properties":{"amount":{"type":"integer","maximum":1200000}}}`)},
		}}}})
	if err != nil {
		t.Fatal(err)
	}
	r := viewtest.Polled(t, false, func(ctx *common.Context, s *fakes.Source) common.View {
		ctx.Schemas = set
		return queues.New(ctx, s)
	})
	r.Key("Q", "enter", "enter")
	r.MustShow("qdir1 / ORDERS.IN", "body (decoded: json-schema", `"amount": 1200000`)
	r.Key("enter", "down", "enter") // the second: 1,200,500 is over the schema's maximum
	r.MustShow("body (decoded: json-schema", "does not decode with json-schema", "amount", "00000000  7b 22")
}
