package tail_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

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
	return newDecodingRigOver(t, set, fk, fk)
}

// newDecodingRigOver is newDecodingRig reading tl, built over fk.
func newDecodingRigOver(t *testing.T, set *schema.Set, tl tail.Tailer, fk *fakes.Tailer) *tailRig {
	t.Helper()
	tr := &tailRig{tl: fk}
	tr.Rig = viewtest.New(t, false, func(ctx *common.Context, _ *fakes.Source) common.View {
		ctx.Schemas = set
		tr.v = tail.New(ctx, tl)
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
	// c offers the decoded JSON first.
	r.Out = nil
	r.Key("c")
	r.MustShow("‹ value (decoded JSON)")
	r.Key("enter")
	doc, err := set.Topic(demo.ShopOrders).Value.Codec.Decode(order(t, set, orderDoc))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(r.Out, tea.Msg(tea.SetClipboard(string(doc))())) {
		t.Fatalf("the decoded JSON was not copied: %#v", r.Out)
	}
	// The undecodable record: the error and the bytes in hex, never a
	// silent fallback; c offers its raw value.
	r.Key("j")
	r.MustShow("[decoded]", "does not decode with protobuf shop.Order", "00000000  0a ff 01")
	r.Key("c")
	r.MustShow("‹ value (raw)")
	r.Key("esc")
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

// v: and a bare term match the decoded JSON text of a record with a
// schema; field:PATH=VALUE its decoded fields (an array stands for each
// item); a field term on a tail without a schema says why it cannot
// match.
func TestTailFilterMatchesDecodedFields(t *testing.T) {
	set := demoSet(t)
	r := newDecodingRig(t, set)
	r.Run(r.v.Open(demo.ShopOrders))
	r.tl.Last().EmitRecords(
		tail.Record{Topic: demo.ShopOrders, Offset: 1, Key: []byte("a"), Value: order(t, set, `{"id":"ord-1","status":"PAID","lines":[{"sku":"SKU-1"},{"sku":"SKU-9"}]}`)},
		tail.Record{Topic: demo.ShopOrders, Offset: 2, Key: []byte("b"), Value: order(t, set, `{"id":"ord-2","status":"SHIPPED","customer":{"address":{"city":"Busan"}}}`)},
		tail.Record{Topic: demo.ShopOrders, Offset: 3, Key: []byte("c"), Value: []byte{0xff}},
	)
	r.waitTotal(3)
	count := func(filter string) int {
		t.Helper()
		r.Key("/", "ctrl+u")
		r.TypeText(filter)
		r.Key("enter")
		n := r.v.Shown()
		r.Key("esc")
		return n
	}
	for filter, want := range map[string]int{
		`v:"status":"PAID"`:                  1, // the JSON text, not in the binary
		`SHIPPED`:                            1,
		`field:status=SHIPPED`:               1,
		`field:lines.sku=SKU-9`:              1,
		`field:customer.address.city=Busan`:  1,
		`!field:customer.address.city=Busan`: 2, // the undecodable record has no such field
		`field:status=PAID field:id=ord-2`:   0,
		`v:re:"id":"ord-[12]"`:               2,
	} {
		if got := count(filter); got != want {
			t.Errorf("/%s: %d rows, want %d", filter, got, want)
		}
	}
	r.Key("/", "ctrl+u")
	r.TypeText("field:status")
	r.MustShow("want field:PATH=VALUE")
	r.Key("esc")
}

func TestTailFieldTermWithoutSchema(t *testing.T) {
	r := newDecodingRig(t, demoSet(t))
	r.Run(r.v.Open("ORDER.EVENT"))
	r.Key("/")
	r.TypeText("field:status=PAID")
	r.MustShow("field:status=PAID: a field term needs a schema, and no decode rule matches this tail")
}

// searchFieldOfShopOrders is a tail of the demo's SHOP.ORDERS decoding
// with set, its search form open on the field term, being edited.
func searchFieldOfShopOrders(t *testing.T, set *schema.Set) (*searchTailer, *tailRig) {
	t.Helper()
	st := &searchTailer{Tailer: fakes.NewTailer(fakes.TailerOptions{})}
	r := newDecodingRigOver(t, set, st, st.Tailer)
	r.Run(r.v.Open(demo.ShopOrders))
	r.Key("S", "enter", "tab", "tab", "tab", "tab", "tab", "tab")
	return st, r
}

// The search beyond the buffer takes decoded field terms (checked in the
// form) with the context's schemas, and its matches arrive decoded.
func TestTailSearchDecodedFields(t *testing.T) {
	set := demoSet(t)
	st, r := searchFieldOfShopOrders(t, set)
	r.TypeText("status")
	r.Key("enter")
	r.MustShow("want field:PATH=VALUE")
	r.TypeText("=PAID")
	r.Key("enter")
	if len(st.specs) != 1 || len(st.specs[0].Fields) != 1 || st.specs[0].Fields[0] != "status=PAID" || st.specs[0].Schemas != set {
		t.Fatalf("search specs %+v", st.specs)
	}
	r.MustShow("field:status=PAID")
	st.run.ch <- tail.Record{Topic: demo.ShopOrders, Offset: 5, Key: []byte("k"), Value: order(t, set, `{"id":"ord-5","status":"PAID"}`)}
	r.waitTotal(1)
	r.MustShow(`{"id":"ord-5","status":"PAID"}`)
}

// A rule's display format for values (value: hex, value: json) is the
// format the tail of its topic opens in; other topics open as text.
func TestTailOpensInTheRulesValueFormat(t *testing.T) {
	set, err := schema.Compile([]schema.Rule{
		{Topics: "ORDER.*", Value: schema.Spec{Kind: schema.KindHex}, Where: "c.yaml:3"},
		{Topics: "PAY.*", Value: schema.Spec{Kind: schema.KindJSON}, Where: "c.yaml:5"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for topic, want := range map[string]string{"ORDER.EVENT": "[hex]", "PAY.RESULT": "[json]", "OTHER": "[text]"} {
		r := newDecodingRig(t, set)
		r.Run(r.v.Open(topic))
		r.tl.Last().Emit(1)
		r.waitTotal(1)
		r.Key("enter")
		r.MustShow(want)
	}
}

// A field term the topic's schema lacks is refused in the search form,
// naming the step and the fields there are: it scanned and found nothing.
func TestTailSearchFieldTheSchemaLacks(t *testing.T) {
	st, r := searchFieldOfShopOrders(t, demoSet(t))
	r.TypeText("customer.city=Seoul")
	r.Key("enter")
	r.MustShow(`field:customer.city=Seoul: shop.Order.customer has no field "city"`)
	if len(st.specs) != 0 {
		t.Fatalf("a search started: %+v", st.specs)
	}
}

// A rule's key: hex shows the keys of its topics as hex, in the row and
// the detail; keys showed as text whatever the rule said.
func TestTailKeysInTheRulesFormat(t *testing.T) {
	set, err := schema.Compile([]schema.Rule{{Topics: "HEX.*", Key: schema.Spec{Kind: schema.KindHex}, Where: "c.yaml:3"}})
	if err != nil {
		t.Fatal(err)
	}
	r := newDecodingRig(t, set)
	r.Run(r.v.Open("HEX.T"))
	r.tl.Last().EmitRecords(tail.Record{Topic: "HEX.T", Offset: 7, Key: []byte("k1"), Value: []byte("v")})
	r.waitTotal(1)
	r.MustShow("6b 31")
	r.MustNotShow(" k1 ")
	r.Key("enter")
	r.MustShow("key     6b 31")
}
