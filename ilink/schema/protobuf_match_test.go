package schema

import (
	"fmt"
	"strings"
	"testing"
)

// kindsProto has a field of every kind the wire walk judges itself, and
// the ones it leaves to decoding.
const kindsProto = `syntax = "proto3";
package k;

enum Color { COLOR_UNSPECIFIED = 0; RED = 1; BLUE = 2; }

message Inner { string name = 1; sint32 level = 2; repeated int32 nums = 3; }

message All {
  string s = 1;
  int32 i32 = 2;
  int64 i64 = 3;
  uint32 u32 = 4;
  sint64 s64 = 5;
  fixed32 f32 = 6;
  sfixed64 sf64 = 7;
  bool b = 8;
  Color color = 9;
  Inner inner = 10;
  repeated Inner inners = 11;
  repeated string tags = 12;
  repeated int64 packed = 13;
  map<string, string> labels = 14;
  map<string, Inner> byname = 15;
  map<string, int32> counts = 16;
  optional int32 opt = 17;
  double d = 18;
  oneof pick { string left = 19; int32 right = 20; }
}
`

// The wire walk of a field term matches exactly where decoding to JSON
// and matching there does, on records and terms of every kind, and it
// is the codec's own matcher (not the decoding one).
func TestProtobufFieldMatcherAgreesWithDecoding(t *testing.T) {
	c := protoFile(t, "kinds.proto", kindsProto, "k.All")
	docs := []string{
		`{"s":"hello","i32":-5,"i64":"9000000000","u32":7,"s64":"-3","f32":12,"sf64":"-12","b":true,"color":"BLUE",` +
			`"inner":{"name":"in","level":-2,"nums":[1,2,3]},"inners":[{"name":"a"},{"name":"b","level":4}],"tags":["x","y"],` +
			`"packed":["10","20"],"labels":{"env":"prod","team":""},"byname":{"k1":{"name":"deep"}},"counts":{"n":3,"z":0},` +
			`"opt":0,"d":1.5,"left":""}`,
		`{"s":"","i32":0,"color":"COLOR_UNSPECIFIED","right":0,"inner":{}}`,
		`{"color":"RED","inners":[{"nums":[0,5]}],"tags":[""],"right":42}`,
		`{}`,
	}
	terms := []string{
		"s=hello", "s=", "i32=-5", "i32=0", "i64=9000000000", "u32=7", "s64=-3", "f32=12", "sf64=-12",
		"b=true", "b=false", "color=BLUE", "color=RED", "color=COLOR_UNSPECIFIED", "color=2",
		"inner.name=in", "inner.level=-2", "inner.nums=2", "inner.nums=9", "inner=x",
		"inners.name=b", "inners.level=4", "inners.nums=0", "inners.nums=5", "tags=y", "tags=",
		"packed=20", "packed=30", "labels.env=prod", "labels.team=", "labels.none=x", "byname.k1.name=deep",
		"counts.n=3", "counts.z=0", "opt=0", "left=", "right=0", "right=42", "nosuch=1", "s.deeper=x",
	}
	dm := func(ft FieldTerm) Matcher { return decodeMatcher{c, ft} }
	for i, d := range docs {
		enc, err := c.Encode([]byte(d))
		if err != nil {
			t.Fatalf("doc %d: %v", i, err)
		}
		for _, term := range terms {
			ft, err := ParseFieldTerm(term)
			if err != nil {
				t.Fatal(err)
			}
			m, err := NewMatcher(c, ft)
			if err != nil {
				t.Fatal(err)
			}
			got, gerr := m.Match(enc)
			want, werr := dm(ft).Match(enc)
			if got != want || (gerr == nil) != (werr == nil) {
				t.Errorf("doc %d, %s: the walk says %v (%v), decoding says %v (%v)", i, term, got, gerr, want, werr)
			}
		}
	}
	for _, term := range []string{"s=x", "inner.name=x", "labels.env=x", "tags=x"} {
		ft, _ := ParseFieldTerm(term)
		if m, _ := NewMatcher(c, ft); fmt.Sprintf("%T", m) != "*schema.protoMatcher" {
			t.Errorf("%s: matcher %T, want the wire walk", term, m)
		}
	}
	for _, term := range []string{"d=1.5"} { // a float's text is the JSON mapping's to spell
		ft, _ := ParseFieldTerm(term)
		if m, _ := NewMatcher(c, ft); fmt.Sprintf("%T", m) != "schema.decodeMatcher" {
			t.Errorf("%s: matcher %T, want decoding", term, m)
		}
	}
	// Bytes that are not protobuf are an error, as decoding says.
	ft, _ := ParseFieldTerm("s=x")
	m, _ := NewMatcher(c, ft)
	if ok, err := m.Match([]byte{0x0a, 0x05, 'a'}); ok || err == nil {
		t.Fatalf("truncated bytes: %v, %v; want an error", ok, err)
	}
}

// CheckFieldPath names the first step of a path that is no field, with
// the fields there are: a mistyped --field matched nothing, silently.
// Paths through nested messages, repeated fields, map keys and unions are
// accepted, and so is anything under a well-known type.
func TestCheckFieldPath(t *testing.T) {
	orders, _, _ := orderCodec(t)
	payments, _ := avroPaymentCodec(t)
	for _, c := range []struct {
		c    Codec
		path string
		want string // "" accepted, else what the error says
	}{
		{orders, "id", ""},
		{orders, "lines.sku", ""},
		{orders, "lines.price.units", ""},
		{orders, "tags.anything", ""},
		{orders, "placed_at.seconds", ""},
		{orders, "placedAt", ""},
		{orders, "total", ""},
		{orders, "nope.x", `shop.Order has no field "nope" (its fields: id, lines, tags, status, card, voucher, placed_at, total)`},
		{orders, "lines.price.cents", `shop.Order.lines.price has no field "cents" (its fields: currency, units)`},
		{orders, "id.x", `shop.Order.id has no field "x" (it is not a message or record)`},
		{payments, "payer.iban", ""},
		{payments, "payee.name", ""},
		{payments, "attrs.n", ""},
		{payments, "tags", ""},
		{payments, "payee.nam", `com.shop.Payment.payee has no field "nam" (its fields: name, iban)`},
		{payments, "amont", `com.shop.Payment has no field "amont" (its fields: id, amount, rate, paid, payer, tags, attrs, status, note, payee, receipt, day, at)`},
		{payments, "amount.x", `com.shop.Payment.amount has no field "x" (it is not a message or record)`},
	} {
		err := CheckFieldPath(c.c, strings.Split(c.path, "."))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %s: %v, want it accepted", c.c.Name(), c.path, err)
		case c.want != "" && (err == nil || err.Error() != c.want):
			t.Errorf("%s %s: %v, want %q", c.c.Name(), c.path, err, c.want)
		}
	}
}
