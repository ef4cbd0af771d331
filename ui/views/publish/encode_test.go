package publish_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink/engine/demo"
	"ilinkdash/ilink/schema"
	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
	"ilinkdash/ui/internal/viewtest"
	"ilinkdash/ui/views/publish"
)

// newEncodingRig is a publish rig whose context has the demo's decode
// rules (SHOP.ORDERS: protobuf shop.Order).
func newEncodingRig(t *testing.T, pub *fakes.Publisher) (*pubRig, *schema.Set) {
	t.Helper()
	set, err := schema.Compile(demo.DecodeRules())
	if err != nil {
		t.Fatal(err)
	}
	pr := &pubRig{pub: pub}
	pr.Rig = viewtest.New(t, false, func(ctx *common.Context, _ *fakes.Source) common.View {
		ctx.Schemas = set
		pr.v = publish.New(ctx, pub)
		return pr.v
	})
	return pr, set
}

// The JSON typed for a topic with a value codec is encoded with it, after
// the templates are expanded: the record sent holds the codec's bytes,
// which decode back to the same fields.
func TestPublishEncodesJSONWithTheTopicsSchema(t *testing.T) {
	r, set := newEncodingRig(t, &fakes.Publisher{})
	codec := set.Topic(demo.ShopOrders).Value.Codec
	const value = `{"id":"ord-{{seq}}","status":"PAID","lines":[{"sku":"SKU-1","qty":{{seq}}}],"labels":{"channel":"web"},"card":{"brand":"VISA","last4":"4242"}}`
	r.fill(map[int]string{0: demo.ShopOrders, 1: "k-{{seq}}", 2: value, 5: "3"})
	r.Key("ctrl+s")
	r.MustShow("Encoded", "the JSON, with protobuf shop.Order")
	r.Key("enter")
	run := r.pub.Last()
	if run == nil || !run.Wait(5*time.Second) {
		t.Fatalf("no run finished:\n%s", r.Screen())
	}
	recs := run.Records()
	if len(recs) != 3 {
		t.Fatalf("%d records sent", len(recs))
	}
	for i, rec := range recs {
		doc := strings.ReplaceAll(value, "{{seq}}", fmt.Sprint(i))
		want, err := codec.Encode([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(rec.Value, want) {
			t.Fatalf("record %d: %x, want the codec's %x", i, rec.Value, want)
		}
		if json.Valid(rec.Value) {
			t.Fatalf("record %d was sent as JSON: %s", i, rec.Value)
		}
		back, err := codec.Decode(rec.Value)
		if err != nil || !bytes.Contains(back, []byte(fmt.Sprintf(`"id":"ord-%d"`, i))) || !bytes.Contains(back, []byte(`"status":"PAID"`)) {
			t.Fatalf("record %d decodes to %s (%v)", i, back, err)
		}
	}
}

// JSON that does not fit the schema is refused before anything is sent,
// naming the field; so is a value file's.
func TestPublishRefusesJSONThatDoesNotFit(t *testing.T) {
	r, _ := newEncodingRig(t, &fakes.Publisher{Manual: true})
	for _, c := range []struct{ value, want string }{
		{`{"id":"a","status":"LOST"}`, "value does not fit protobuf shop.Order"},
		{`{"id":"a","lines":[{"qty":"many"}]}`, "qty"},
		{`{"id":"a","nope":1}`, "nope"},
		{`not json {{seq}}`, "value does not fit"},
	} {
		r.fill(map[int]string{0: demo.ShopOrders, 2: c.value, 5: "1"})
		r.Key("ctrl+s")
		s := strings.Join(strings.Fields(r.Screen()), " ")
		if !strings.Contains(s, c.want) || !strings.Contains(s, "nothing is sent") {
			t.Errorf("%s: screen lacks %q:\n%s", c.value, c.want, r.Screen())
		}
		if r.pub.Runs() != 0 {
			t.Fatalf("%s: a run started", c.value)
		}
		r.Key("esc")
	}
}

// A record whose JSON stops fitting at some seq (a template) is not sent:
// it counts as failed with the codec's error.
func TestPublishRecordThatStopsFittingIsNotSent(t *testing.T) {
	r, _ := newEncodingRig(t, &fakes.Publisher{})
	// qty is an int32: 1000000000 … 1900000000 fit, 11000000000 does not.
	r.fill(map[int]string{0: demo.ShopOrders, 2: `{"id":"a","lines":[{"qty":1{{seq}}00000000}]}`, 5: "12"})
	r.Key("ctrl+s", "enter")
	run := r.pub.Last()
	if run == nil || !run.Wait(5*time.Second) {
		t.Fatalf("no run finished:\n%s", r.Screen())
	}
	if n := len(run.Records()); n != 10 {
		t.Fatalf("%d records sent, want 10", n)
	}
	r.Advance(250 * time.Millisecond)
	p := run.Progress()
	if p.Acked != 10 || p.Failed != 2 || len(p.Errors) != 2 || !strings.Contains(p.Errors[0].Text, "JSON does not fit shop.Order at lines[0].qty") {
		t.Fatalf("progress %+v", p)
	}
}

// The confirmation's size is what is sent: the codec's bytes, not the
// JSON typed (it counted the JSON text, about four times the record).
func TestPublishConfirmationSizesTheEncodedRecord(t *testing.T) {
	r, set := newEncodingRig(t, &fakes.Publisher{})
	const value = `{"id":"ord-1","status":"PAID","lines":[{"sku":"SKU-1","qty":2}],"labels":{"channel":"web"}}`
	enc, err := set.Topic(demo.ShopOrders).Value.Codec.Encode([]byte(value))
	if err != nil {
		t.Fatal(err)
	}
	r.fill(map[int]string{0: demo.ShopOrders, 2: value, 5: "3"})
	r.Key("ctrl+s")
	r.MustShow(fmt.Sprintf("value %s encoded (the JSON %s)", common.Bytes(int64(len(enc))), common.Bytes(int64(len(value)))),
		common.Bytes(int64(len(enc)))+" a record")
}
