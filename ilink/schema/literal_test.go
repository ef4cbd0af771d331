package schema

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// literalProto has every source of text the JSON mapping makes up: enum
// and field names, 64-bit integers, bytes (base64), a Timestamp, a
// Duration, a Struct, maps with integer and bool keys, a double.
const literalProto = `syntax = "proto3";
package l;
import "google/protobuf/timestamp.proto";
import "google/protobuf/duration.proto";
import "google/protobuf/struct.proto";

enum Color { COLOR_UNSPECIFIED = 0; RED = 1; DARK_BLUE = 2; }
message Inner { string name = 1; repeated string tags = 2; }
message Rec {
  string id = 1;
  int64 big = 2;
  bytes blob = 3;
  Color color = 4;
  google.protobuf.Timestamp at = 5;
  google.protobuf.Duration took = 6;
  google.protobuf.Struct extra = 7;
  map<int32, string> by_num = 8;
  map<bool, Inner> by_flag = 9;
  map<string, string> labels = 10;
  double ratio = 11;
  Inner inner = 12;
}
`

// Literal never drops a match: for every substring of the decoded JSON
// of records full of escapes and made-up text, the literal it returns
// (if any) is in the record's bytes. It does return one for the needles
// a search is made of (a field's text).
func TestLiteralNeverDropsAMatch(t *testing.T) {
	c := protoFile(t, "l.proto", literalProto, "l.Rec")
	docs := []string{
		`{"id":"order-150000","big":"-9000000000","blob":"aGVsbG8gd29ybGQ=","color":"DARK_BLUE","at":"2026-12-04T10:00:00.123Z",` +
			`"took":"1.500s","extra":{"k":"v\"q","n":1e+21,"b":true,"z":null,"l":["x\ny",2.5]},"by_num":{"-7":"seven","12":"a\\b"},` +
			`"by_flag":{"true":{"name":"tab\there","tags":["\u001fctl","é ünï","\u007fdel"]}},"labels":{"k\"ey":"RED","color":"12"},` +
			`"ratio":-0.25,"inner":{"name":"line\nbreak\rret\fff\bbs","tags":["u0041","nabc","\"quoted\""]}}`,
		`{"id":"\\n\\u0041","ratio":"NaN","inner":{"tags":["Infinity","-Infinity","true","null"]}}`,
		`{}`,
	}
	vouched := 0
	for i, d := range docs {
		raw, err := c.Encode([]byte(d))
		if err != nil {
			t.Fatalf("doc %d: %v", i, err)
		}
		dec, err := c.Decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		for a := 0; a < len(dec); a++ {
			for b := a + 1; b <= len(dec) && b <= a+24; b++ {
				lit := Literal(c, dec[a:b])
				if lit == nil {
					continue
				}
				vouched++
				if !bytes.Contains(raw, lit) {
					t.Fatalf("doc %d: needle %q: literal %q is not in the bytes %x (decoded %s)", i, dec[a:b], lit, raw, dec)
				}
			}
		}
	}
	if vouched == 0 {
		t.Fatal("no needle got a literal")
	}
	for needle, want := range map[string]string{
		`"id":"order-150000"`: "order-150000", `order-150000`: "order-150000", `"name":"li-ne"`: "li-ne", `nabc-1`: "abc-1", `u0041-x`: "-x", `line`: "", /* base64 of blob */
		`RED`: "", `DARK`: "", `1500`: "", `2026-12-04T10:00`: "", `"big":"-9`: "", `true`: "", `tags`: "",
	} {
		if got := string(Literal(c, []byte(needle))); got != want {
			t.Errorf("Literal(%q) = %q, want %q", needle, got, want)
		}
	}
	if got := Literal(c, JSONStringContent("a\"order-1")); string(got) != "order-1" {
		t.Errorf("a field term's value with a quote: literal %q, want order-1", got)
	}
}

// protoFile compiles text, written as a file named name in a new
// directory, and returns the codec of message.
func protoFile(t *testing.T, name, text, message string) Codec {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "p")
	writeFile(t, filepath.Join(dir, name), text)
	c, err := Protobuf([]string{filepath.Join(dir, name)}, []string{dir}, message)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Where the mapping's text is not known from names (Any, FieldMask), and
// for a codec without a vocabulary (JSON Schema), no literal is vouched
// for.
func TestLiteralNoneWhereUnknown(t *testing.T) {
	c := protoFile(t, "a.proto", `syntax = "proto3";
package a;
import "google/protobuf/any.proto";
message M { string id = 1; google.protobuf.Any x = 2; }
`, "a.M")
	if l := Literal(c, []byte("order-150000")); l != nil {
		t.Fatalf("a message with an Any: literal %q, want none", l)
	}
	js := filepath.Join(t.TempDir(), "p.json")
	writeFile(t, js, `{"type":"object","properties":{"id":{"type":"string"}}}`)
	jc, err := JSONSchema(js)
	if err != nil {
		t.Fatal(err)
	}
	if l := Literal(jc, []byte("order-150000")); l != nil {
		t.Fatalf("JSON Schema: literal %q, want none", l)
	}
}

// Decode writes compact JSON (protojson's random spaces dropped, those in
// strings kept) and still refuses a proto2 record without its required
// field, while a message without one skips the check.
func TestProtobufDecodeCompactAndRequired(t *testing.T) {
	c := protoFile(t, "l.proto", literalProto, "l.Rec")
	raw, err := c.Encode([]byte(`{"id":"a b \" c\\ d","extra":{"k":" x , y : z "},"inner":{"tags":["\t", " "]}}`))
	if err != nil {
		t.Fatal(err)
	}
	for range 5 { // protojson's spaces vary from process to process, not call to call: several calls agree
		dec, err := c.Decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, dec); err != nil || compact.String() != string(dec) {
			t.Fatalf("decoded %s: not compact JSON (%v)", dec, err)
		}
		if want := `"id":"a b \" c\\ d"`; !bytes.Contains(dec, []byte(want)) || !bytes.Contains(dec, []byte(`" x , y : z "`)) {
			t.Fatalf("decoded %s: the strings' spaces are lost", dec)
		}
	}
	if got := string(dropSpaces([]byte(`{"a": "x y\" ,", "b":[1, 2],` + "\n" + `"c" : {}}`))); got != `{"a":"x y\" ,","b":[1,2],"c":{}}` {
		t.Fatalf("dropSpaces: %s", got)
	}
	p2 := protoFile(t, "r.proto", "syntax = \"proto2\";\npackage r;\nmessage R { required string id = 1; optional int32 n = 2; }\n", "r.R")
	if _, err := p2.Decode([]byte{0x10, 0x05}); err == nil || !strings.Contains(err.Error(), "id") {
		t.Fatalf("a proto2 record without its required id: %v", err)
	}
}

// Avro's literals never drop a match either: for every substring (up to
// 24 bytes) of decoded payments and readings (strings full of escapes,
// control characters, U+2028, bytes, fixed, decimals, durations, dates,
// times and timestamps, enums, maps, unions), a literal Literal vouches
// for is in the encoded bytes; and so is the literal of every string
// value as a field term's value, an invalid UTF-8 byte included (the
// decode shows it as U+FFFD).
func TestAvroLiteralNeverDropsAMatch(t *testing.T) {
	pay, _ := avroPaymentCodec(t)
	reading, err := Avro(avroWrite(t, "reading.avsc", logicalAvsc))
	if err != nil {
		t.Fatal(err)
	}
	type enc struct {
		c   Codec
		raw []byte
	}
	var encs []enc
	for _, d := range []string{
		paymentJSON,
		`{"at": "2026-12-04T04:19:29Z", "id": "order-150000 \"q\" \\ \n\t\u0001\u007f \u2028 é", "amount": 7, "rate": -1e+21, "paid": false,
		  "payer": {"name": "NEWPAID", "iban": "u0041\\u0041"}, "tags": ["REFUNDED", "AAEC", "true", "null"], "attrs": {"k\"ey": 1, "PAID": -3},
		  "status": "REFUNDED", "note": "2026-12-04", "payee": null, "receipt": "aGVsbG8gd29ybGQ=", "day": "1970-01-01"}`,
	} {
		raw, err := pay.Encode([]byte(d))
		if err != nil {
			t.Fatal(err)
		}
		encs = append(encs, enc{pay, raw})
	}
	rd, err := reading.Encode([]byte(`{"price": "-12.50", "code": "AAECAw==", "ratio": 0.5, "t": "10:00:00.123", "us": "23:59:59.999999",
	  "u": "5f2b-uuid", "local": "2026-12-04T10:00:00.5", "dur": {"months": 1, "days": 2, "milliseconds": 3}, "nan": "NaN"}`))
	if err != nil {
		t.Fatal(err)
	}
	encs = append(encs, enc{reading, rd})
	// No bytes reachable, so words are not base64: the enum's symbols and
	// the duration's words are what the mapping makes up.
	enums, err := Avro(avroWrite(t, "e.avsc", `{"type":"record","name":"E","fields":[
	  {"name":"state","type":{"type":"enum","name":"S","symbols":["ALPHA","BETA"]}},
	  {"name":"labels","type":{"type":"map","values":"string"}},
	  {"name":"wait","type":{"type":"fixed","name":"D","size":12,"logicalType":"duration"}},
	  {"name":"comment","type":["null","string"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	ed, err := enums.Encode([]byte(`{"state":"BETA","labels":{"key":"value"},"wait":{"months":1,"days":2,"milliseconds":3},"comment":"str"}`))
	if err != nil {
		t.Fatal(err)
	}
	encs = append(encs, enc{enums, ed})
	// An id of invalid UTF-8, written by hand (Encode takes only valid
	// JSON): the rest of the payment's bytes after its first field.
	bad := append([]byte{2 * 3, 'a', 0xff, 'b'}, encs[0].raw[1+len("p-1"):]...)
	encs = append(encs, enc{pay, bad})

	vouched := 0
	for i, e := range encs {
		dec, err := e.c.Decode(e.raw)
		if err != nil {
			t.Fatalf("value %d: %v", i, err)
		}
		for a := 0; a < len(dec); a++ {
			for b := a + 1; b <= len(dec) && b <= a+24; b++ {
				lit := Literal(e.c, dec[a:b])
				if lit == nil {
					continue
				}
				vouched++
				if !bytes.Contains(e.raw, lit) {
					t.Fatalf("value %d: needle %q: literal %q is not in the bytes %x (decoded %s)", i, dec[a:b], lit, e.raw, dec)
				}
			}
		}
		var doc any
		if err := json.Unmarshal(dec, &doc); err != nil {
			t.Fatal(err)
		}
		for _, s := range jsonStrings(doc) {
			if lit := Literal(e.c, JSONStringContent(s)); lit != nil && !bytes.Contains(e.raw, lit) {
				t.Fatalf("value %d: the field value %q: literal %q is not in the bytes %x", i, s, lit, e.raw)
			}
		}
	}
	if vouched < 100 {
		t.Fatalf("only %d needles got a literal", vouched)
	}
	for needle, want := range map[string]string{
		`"id":"order-150000`: "order-150000", `NEW`: "", `REFUNDED`: "", `AAEC`: "", `2026-12-04T04:19`: "", `months`: "", `name`: "",
		`"note":"first note"`: "irst note", `Ann Example`: "nn Example", // f, A: an escape's tail (\f, \uA…)
	} {
		if got := string(Literal(pay, []byte(needle))); got != want {
			t.Errorf("Literal(%q) = %q, want %q", needle, got, want)
		}
	}
}

// jsonStrings are the strings of a decoded JSON value, keys included.
func jsonStrings(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, jsonStrings(e)...)
		}
		return out
	case map[string]any:
		var out []string
		for k, e := range x {
			out = append(append(out, k), jsonStrings(e)...)
		}
		return out
	}
	return nil
}
