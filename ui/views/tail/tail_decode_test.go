package tail_test

import (
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink/engine/demo"
	"ilinkdash/ilink/schema"
	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
	"ilinkdash/ui/internal/viewtest"
	"ilinkdash/ui/views/tail"
)

// demoSet is the demo's built-in decode rules, compiled.
func demoSet(t testing.TB) *schema.Set {
	t.Helper()
	set, err := schema.Compile(demo.DecodeRules())
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// newDecodingRig is a tail rig whose context decodes with set.
func newDecodingRig(t *testing.T, set *schema.Set) *tailRig {
	t.Helper()
	fk := fakes.NewTailer(fakes.TailerOptions{})
	tr := &tailRig{tl: fk}
	tr.Rig = viewtest.New(t, false, func(ctx *common.Context, _ *fakes.Source) common.View {
		ctx.Schemas = set
		tr.v = tail.New(ctx, fk)
		return tr.v
	})
	return tr
}

// order encodes a shop.Order of the demo from its JSON.
func order(t testing.TB, set *schema.Set, doc string) []byte {
	t.Helper()
	b, err := set.Topic(demo.ShopOrders).Value.Codec.Encode([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// waitTotal advances the clock until the view has received n records
// (they are decoded on a goroutine of their own on the way in).
func (r *tailRig) waitTotal(n int64) {
	r.T.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		r.Advance(300 * time.Millisecond)
		if _, total, _, _ := r.v.Counts(); total >= n {
			return
		}
		if time.Now().After(deadline) {
			_, total, _, _ := r.v.Counts()
			r.T.Fatalf("%d records received, want %d", total, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

const orderDoc = `{"id":"ord-7","customer":{"id":"c-1","name":"Kim \u001b[31mred\u202e","address":{"city":"Seoul","postcode":"04524"}},` +
	`"lines":[{"sku":"SKU-1","qty":2,"priceKrw":"12000"}],"labels":{"channel":"web"},"status":"PAID","card":{"brand":"VISA","last4":"4242"},` +
	`"createdAt":"2026-12-04T10:00:00Z","totalKrw":"24000"}`

func TestTailDecodesProtobufInListAndDetail(t *testing.T) {
	set := demoSet(t)
	r := newDecodingRig(t, set)
	r.Run(r.v.Open(demo.ShopOrders))
	s := r.tl.Last()
	s.EmitRecords(
		tail.Record{Topic: demo.ShopOrders, Partition: 1, Offset: 10, Key: []byte("ord-7"), Value: order(t, set, orderDoc)},
		tail.Record{Topic: demo.ShopOrders, Partition: 1, Offset: 11, Key: []byte("ord-8"), Value: []byte{0x0a, 0xff, 0x01}},
	)
	r.waitTotal(2)
	// The list shows the decoded document, and the record that does not
	// decode its error and its bytes in hex on its row.
	r.MustShow(`"id":"ord-7"`, "⚠ not a shop.Order: cannot parse")
	assertNoControls(t, r.V.View())
	r.Key("k", "enter") // the detail of the first record
	r.MustShow("[decoded]", "protobuf shop.Order", `"id": "ord-7"`, `"city": "Seoul"`)
	r.Key("pgdown")
	r.MustShow(`"status": "PAID"`, `"last4": "4242"`)
	assertNoControls(t, r.V.View())
	// f cycles text → json → hex → decoded.
	for _, want := range []string{"[text]", "[json]", "[hex]", "[decoded]"} {
		r.Key("f")
		r.MustShow(want)
	}
	// The undecodable record: the error and the bytes in hex, never a
	// silent fallback.
	r.Key("j")
	r.MustShow("[decoded]", "does not decode with protobuf shop.Order", "00000000  0a ff 01")
}

func TestTailWithoutSchemaHasNoDecodedFormat(t *testing.T) {
	r := newDecodingRig(t, demoSet(t))
	r.Run(r.v.Open("ORDER.EVENT"))
	r.tl.Last().Emit(3)
	r.waitTotal(3)
	r.Key("enter")
	r.MustShow("[text]")
	r.MustNotShow("decoded")
	for _, want := range []string{"[json]", "[hex]", "[text]"} {
		r.Key("f")
		r.MustShow(want)
	}
}

// assertNoControls fails when a plain (colourless) screen holds an escape
// or a bidi override: a decoded string reached the terminal unsanitized.
func assertNoControls(t *testing.T, screen string) {
	t.Helper()
	if i := strings.IndexAny(screen, "\x1b\u202e\u009b"); i >= 0 {
		t.Fatalf("control in the screen at %d: %q", i, screen[max(i-20, 0):min(i+20, len(screen))])
	}
}
