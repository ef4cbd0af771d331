package schema

import (
	"strings"
	"testing"
	"testing/fstest"
)

var setFS = fstest.MapFS{
	"shop/order.proto": {Data: []byte(`syntax = "proto3";
package shop;
message Order { string id = 1; int64 cents = 2; repeated Item items = 3; }
message Item { string sku = 1; int32 qty = 2; }
`)},
	"pay.avsc":     {Data: []byte(`{"type":"record","name":"Payment","fields":[{"name":"id","type":"string"},{"name":"cents","type":"long"}]}`)},
	"invoice.json": {Data: []byte(`{"type":"object","required":["number"],"properties":{"number":{"type":"integer","minimum":1},"lines":{"type":"array","items":{"$ref":"line.json"}}}}`)},
	"line.json":    {Data: []byte(`{"type":"object","properties":{"amount":{"type":"number"}},"required":["amount"]}`)},
}

func TestSetFirstMatchWins(t *testing.T) {
	s, err := Compile([]Rule{
		{Topics: "ORDER.*", Key: Spec{Kind: KindText}, Value: Spec{Kind: KindProtobuf, FS: setFS, Files: []string{"shop/order.proto"}, Message: "shop.Order"}, Where: "c.yaml:3"},
		{Topics: "*", Value: Spec{Kind: KindHex}, Where: "c.yaml:6"},
		{Queues: "INVOICE.?", Value: Spec{Kind: KindJSONSchema, FS: setFS, Schema: "invoice.json"}, Where: "c.yaml:8"},
		{Topics: "PAY", Value: Spec{Kind: KindAvro, FS: setFS, Schema: "pay.avsc"}, Where: "c.yaml:10"},
	})
	if err != nil {
		t.Fatal(err)
	}
	p := s.Topic("ORDER.EU")
	if p.Rule != "c.yaml:3" || p.Key.Format != KindText || p.Value.Codec == nil || !strings.Contains(p.Value.Codec.Name(), "shop.Order") {
		t.Fatalf("ORDER.EU: %+v", p)
	}
	// PAY is matched by "*" first: the first rule wins, not the most specific.
	if p := s.Topic("PAY"); p.Rule != "c.yaml:6" || p.Value.Format != KindHex || p.Decodes() {
		t.Errorf("PAY: %+v", p)
	}
	if p := s.Topic("INVOICE.Q"); p.Rule != "c.yaml:6" {
		t.Errorf("a topic matched a queue rule? %+v", p)
	}
	if p := s.Queue("INVOICE.Q"); p.Rule != "c.yaml:8" || p.Value.Codec == nil {
		t.Errorf("INVOICE.Q: %+v", p)
	}
	if p := s.Queue("ORDER.EU"); p.Rule != "" {
		t.Errorf("a queue matched a topic rule: %+v", p)
	}
	var none *Set
	if p := none.Topic("X"); p.Rule != "" || p.Decodes() {
		t.Errorf("nil set matched: %+v", p)
	}
	// A flag's rule, prepended, wins over the config's.
	flag, err := Compile([]Rule{{Topics: "PAY", Value: Spec{Kind: KindAvro, FS: setFS, Schema: "pay.avsc"}, Where: "--value-avro"}})
	if err != nil {
		t.Fatal(err)
	}
	if p := s.Prepend(flag).Topic("PAY"); p.Rule != "--value-avro" {
		t.Errorf("prepended: %+v", p)
	}
}

func TestSetErrorsNameTheRuleAndTheFile(t *testing.T) {
	bad := fstest.MapFS{
		"broken.proto": {Data: []byte("syntax = \"proto3\";\nmessage A {\n  strin x = 1;\n}\n")},
		"broken.avsc":  {Data: []byte(`{"type":"record","name":"P","fields":[{"name":"a","type":"strng"}]}`)},
		"broken.json":  {Data: []byte("{\"type\": \"object\",\n \"properties\": {\"a\": {\"type\": 5}}}")},
	}
	_, err := Compile([]Rule{
		{Topics: "A", Value: Spec{Kind: KindProtobuf, FS: bad, Files: []string{"broken.proto"}, Message: "A"}, Where: "c.yaml:3"},
		{Topics: "B", Value: Spec{Kind: KindAvro, FS: bad, Schema: "broken.avsc"}, Where: "c.yaml:5"},
		{Queues: "C", Value: Spec{Kind: KindJSONSchema, FS: bad, Schema: "broken.json"}, Where: "c.yaml:7"},
		{Topics: "D", Value: Spec{Kind: "thrift"}, Where: "c.yaml:9"},
		{Topics: "[", Value: Spec{Kind: KindText}, Where: "c.yaml:11"},
	})
	if err == nil {
		t.Fatal("bad rules compiled")
	}
	msg := err.Error()
	for _, want := range []string{
		"c.yaml:3: value: protobuf: broken.proto:3:", // file:line:col of the typo
		"c.yaml:5: value: avro: broken.avsc:1:",
		"c.yaml:7: value: json-schema: broken.json",
		`c.yaml:9: value: unknown kind "thrift"`,
		"c.yaml:11: pattern",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
}

func TestJSONSchemaValidates(t *testing.T) {
	c, err := JSONSchemaFS(setFS, "invoice.json")
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.Decode([]byte(`{ "number": 7, "lines": [ {"amount": 1.5} ] }`))
	if err != nil || string(out) != `{"number":7,"lines":[{"amount":1.5}]}` {
		t.Fatalf("decode: %s, %v", out, err)
	}
	// A value against a $ref'd sibling schema, named by its field.
	_, err = c.Decode([]byte(`{"number": 7, "lines": [{"amount": "x"}]}`))
	if err == nil || !strings.Contains(err.Error(), "/lines/0/amount") {
		t.Errorf("bad line: %v", err)
	}
	_, err = c.Encode([]byte(`{"number": 0}`))
	if err == nil || !strings.Contains(err.Error(), "JSON does not fit the schema at /number") {
		t.Errorf("encode below minimum: %v", err)
	}
	if _, err := c.Encode([]byte(`{"number": 1`)); err == nil || !strings.Contains(err.Error(), "not JSON") {
		t.Errorf("encode not JSON: %v", err)
	}
}

func TestFieldTerm(t *testing.T) {
	for _, tc := range []struct {
		term, doc string
		want      bool
	}{
		{"id=A-1", `{"id":"A-1"}`, true},
		{"id=A-2", `{"id":"A-1"}`, false},
		{"items.sku=X", `{"items":[{"sku":"Y"},{"sku":"X"}]}`, true},
		{"cents=1250", `{"cents":1250}`, true},
		{"cents=1250", `{"cents":"1250"}`, true}, // int64 as protojson writes it
		{"paid=true", `{"paid":true}`, true},
		{"note=null", `{"note":null}`, true},
		{"customer=x", `{"customer":{"x":1}}`, false},
		{"a.b.c=1", `{"a":{"b":[{"c":2},{"c":1}]}}`, true},
	} {
		ft, err := ParseFieldTerm(tc.term)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ft.MatchJSON([]byte(tc.doc))
		if err != nil || got != tc.want {
			t.Errorf("%s on %s: %v, %v; want %v", tc.term, tc.doc, got, err, tc.want)
		}
	}
	for _, bad := range []string{"id", "=x", "a..b=1"} {
		if _, err := ParseFieldTerm(bad); err == nil {
			t.Errorf("ParseFieldTerm(%q) accepted", bad)
		}
	}
}

// A partial rule (the flags') gives only the sides it names: a key
// format alone leaves the value to the rule after it, and a value schema
// alone the key; a plain rule keeps first-match-wins for both sides.
func TestSetPartialRuleLeavesTheOtherSide(t *testing.T) {
	order := Spec{Kind: KindProtobuf, FS: setFS, Files: []string{"shop/order.proto"}, Message: "shop.Order"}
	s, err := Compile([]Rule{
		{Topics: "*", Key: Spec{Kind: KindHex}, Where: "--key-format", Partial: true},
		{Topics: "ORDER.*", Key: Spec{Kind: KindText}, Value: order, Where: "c.yaml:3"},
		{Topics: "*", Key: Spec{Kind: KindJSON}, Where: "c.yaml:6"},
		{Topics: "*", Value: Spec{Kind: KindHex}, Where: "c.yaml:9"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if p := s.Topic("ORDER.EU"); p.Key.Format != KindHex || p.Value.Codec == nil || p.Rule != "c.yaml:3" {
		t.Errorf("ORDER.EU with --key-format hex: key %q, value codec %v, rule %q; want hex, shop.Order, c.yaml:3", p.Key.Format, p.Value.Codec, p.Rule)
	}
	// c.yaml:6 is a plain rule: its empty value side is not filled from c.yaml:9.
	if p := s.Topic("OTHER"); p.Key.Format != KindHex || p.Value.Format != "" || p.Rule != "--key-format" {
		t.Errorf("OTHER: %+v", p)
	}
	s, err = Compile([]Rule{
		{Topics: "*", Value: Spec{Kind: KindAvro, FS: setFS, Schema: "pay.avsc"}, Where: "--value-avro", Partial: true},
		{Topics: "PAY", Key: Spec{Kind: KindHex}, Value: Spec{Kind: KindJSON}, Where: "c.yaml:3"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if p := s.Topic("PAY"); p.Key.Format != KindHex || p.Value.Codec == nil || p.Rule != "--value-avro" {
		t.Errorf("PAY with --value-avro: %+v", p)
	}
	if p := s.Topic("X"); p.Key.Format != "" || p.Value.Codec == nil || p.Rule != "--value-avro" {
		t.Errorf("X with --value-avro: %+v", p)
	}
}
