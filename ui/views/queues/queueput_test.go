package queues_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/engine/demo"
	"ilinkdash/ilink/schema"
	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
	"ilinkdash/ui/internal/viewtest"
	"ilinkdash/ui/views/queues"
)

// newPutRig is a queues rig whose context encodes AUDIT.* bodies with the
// demo's shop.Order (Protobuf: its bytes are not the JSON typed).
func newPutRig(t *testing.T) (*viewtest.Rig, schema.Codec) {
	t.Helper()
	rule := demo.DecodeRules()[0]
	rule.Topics, rule.Queues, rule.Where = "", "AUDIT.*", "test rule"
	set, err := schema.Compile([]schema.Rule{rule})
	if err != nil {
		t.Fatal(err)
	}
	r := viewtest.Polled(t, false, func(ctx *common.Context, s *fakes.Source) common.View {
		ctx.Schemas = set
		return queues.New(ctx, s)
	})
	return r, set.Queue("AUDIT.ARCHIVE").Value.Codec
}

// putForm fills the put dialog of the queue shown: the body, the count,
// and (encode) the Encode choice moved right that many times.
func putForm(r *viewtest.Rig, body, count string, encode int) {
	r.Key("P", "enter") // the dialog opens navigating: enter edits
	r.TypeText(body)
	r.Key("tab", "backspace")
	r.TypeText(count)
	if encode > 0 {
		r.Key("tab", "tab")
		for range encode {
			r.Key("right")
		}
	}
	r.Key("enter")
}

// lastBodies is the last n bodies on the fake's queue.
func lastBodies(t *testing.T, r *viewtest.Rig, queue string, n int) [][]byte {
	t.Helper()
	b, err := r.Src.BrowseQueueAt(context.Background(), queue, admin.BrowseAt{Before: admin.BrowseLast, Max: n})
	if err != nil || len(b.Messages) != n {
		t.Fatalf("browse %s: %v, %d messages", queue, err, len(b.Messages))
	}
	out := make([][]byte, n)
	for i, m := range b.Messages {
		out[i] = m.Payload
	}
	return out
}

// oneLine is the screen with its words joined by single spaces and the
// dialog's borders dropped, so a wrapped sentence reads whole.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "│", " ")), " ")
}

// The JSON typed in the put dialog of a queue with a value codec is
// encoded with it after the templates are expanded: the bodies put are the
// codec's own bytes, which decode back (the browse shows them decoded),
// and the dialog and the flash say what encoded them.
func TestQueuePutEncodesJSONWithTheQueuesSchema(t *testing.T) {
	r, codec := newPutRig(t)
	r.Key("enter") // AUDIT.ARCHIVE, 30 messages
	r.MustShow("browsing 30 of 30")
	r.Key("P")
	r.MustShow("Put messages on AUDIT.ARCHIVE", "Encode", "‹ with the schema ›")
	if s := oneLine(r.Screen()); !strings.Contains(s, "Encoded: the JSON, with protobuf shop.Order") || !strings.Contains(s, "the queue's decode rule (test rule)") {
		t.Fatalf("the dialog does not say what encodes the bodies:\n%s", r.Screen())
	}
	r.Key("esc")
	const body = `{"id":"ord-{{seq}}","status":"PAID","lines":[{"sku":"SKU-1","qty":{{seq}}}]}`
	putForm(r, body, "3", 0)
	r.MustShow("browsing 33 of 33")
	flashed := false
	for _, f := range viewtest.FlashTexts(r) {
		flashed = flashed || f == "3 messages put on AUDIT.ARCHIVE, encoded with "+codec.Name()
	}
	if !flashed {
		t.Fatalf("no flash saying the encoding: %v", viewtest.FlashTexts(r))
	}
	for i, got := range lastBodies(t, r, "AUDIT.ARCHIVE", 3) {
		want, err := codec.Encode([]byte(strings.ReplaceAll(body, "{{seq}}", fmt.Sprint(i))))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) || json.Valid(got) {
			t.Fatalf("message %d: %x, want the codec's %x", i, got, want)
		}
		back, err := codec.Decode(got)
		if err != nil || !bytes.Contains(back, []byte(fmt.Sprintf(`"id":"ord-%d"`, i))) || !bytes.Contains(back, []byte(`"status":"PAID"`)) {
			t.Fatalf("message %d decodes to %s (%v)", i, back, err)
		}
	}
	r.Key("G")
	r.MustShow(`"id": "ord-2"`, `"status": "PAID"`)
}

// JSON that does not fit the queue's schema is refused in the dialog
// naming the field, and nothing is put; a body that stops fitting at a
// later {{seq}} stops the put before any message goes, naming the message.
func TestQueuePutRefusesJSONThatDoesNotFit(t *testing.T) {
	r, _ := newPutRig(t)
	r.Key("enter")
	r.MustShow("browsing 30 of 30")
	for _, c := range []struct{ body, want string }{
		{`{"id":"a","status":"LOST"}`, "body does not fit protobuf shop.Order"},
		{`{"id":"a","lines":[{"qty":"many"}]}`, "qty"},
		{`{"id":"a","nope":1}`, "nope"},
		{`not json {{seq}}`, "body does not fit"},
		// qty is an int32: {{seq}} 0…9 fit, 10 (11000000000) does not.
		{`{"id":"a","lines":[{"qty":1{{seq}}00000000}]}`, "put failed: message 11 ({{seq}} 10): body does not fit protobuf shop.Order"},
	} {
		putForm(r, c.body, "12", 0)
		s := oneLine(r.Screen())
		if !strings.Contains(s, c.want) || !strings.Contains(s, "nothing is put") && !strings.Contains(s, "nothing was put") {
			t.Errorf("%s: screen lacks %q:\n%s", c.body, c.want, r.Screen())
		}
		r.Key("esc")
	}
	b, err := r.Src.BrowseQueue(context.Background(), "AUDIT.ARCHIVE", 0, 0)
	if n := r.Src.Calls("PutMessages"); n != 0 || err != nil || len(b.Messages) != 30 {
		t.Fatalf("%d put calls, %d messages (%v): want none put", n, len(b.Messages), err)
	}
}

// Encode set to raw puts the text as typed on a queue with a codec, as
// the CLI's --raw; a queue without a rule has no Encode choice and gets
// the text unchanged.
func TestQueuePutRawAndQueueWithoutRule(t *testing.T) {
	r, _ := newPutRig(t)
	r.Key("enter")
	putForm(r, `not json {{seq}}`, "2", 1)
	r.MustShow("browsing 32 of 32")
	if got := lastBodies(t, r, "AUDIT.ARCHIVE", 2); string(got[0]) != "not json 0" || string(got[1]) != "not json 1" {
		t.Fatalf("raw bodies %q", got)
	}
	r.Key("esc")
	r.Key("j", "enter") // ORDERS.IN: no rule
	r.MustShow("Queue ORDERS.IN")
	r.Key("P")
	r.MustNotShow("Encode", "with the schema")
	r.Key("esc")
	const body = `{"id":"ord-{{seq}}","status":"LOST"}`
	putForm(r, body, "1", 0)
	if got := lastBodies(t, r, "ORDERS.IN", 1); string(got[0]) != `{"id":"ord-0","status":"LOST"}` {
		t.Fatalf("body %q, want the text unchanged", got[0])
	}
	for _, f := range viewtest.FlashTexts(r) {
		if strings.Contains(f, "encoded") {
			t.Fatalf("flash %q on a queue without a rule", f)
		}
	}
}

// A put of many that stops at a full queue says that those before the
// failing message were put (each commits on its own), and reads the queue
// again: "put failed" alone read as nothing put, and putting again
// duplicated them.
func TestQueuePutStoppedByAFullQueueSaysWhatWasPut(t *testing.T) {
	r := viewtest.Polled(t, false, func(ctx *common.Context, s *fakes.Source) common.View { return queues.New(ctx, s) })
	r.OpenRow("PAYMENTS.IN") // max depth 5,000
	before, err := r.Src.BrowseQueue(context.Background(), "PAYMENTS.IN", 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	browses := r.Src.Calls("BrowseQueue")
	putForm(r, "p-{{seq}}", "6000", 0)
	r.MustShow("put failed: MIMQE_QUEUE_FULL", "each message is", "committed as it is put", "putting again puts all 6,000 again")
	// How many went, counted by the put itself (the queue held some).
	r.MustShow(fmt.Sprintf("the %s of 6,000 before the one that failed", common.Thousands(5000-before.Depth)))
	if r.Src.Calls("BrowseQueue") == browses {
		t.Fatal("the queue was not read again after the partial put")
	}
}
