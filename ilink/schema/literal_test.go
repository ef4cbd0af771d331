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
// for other codecs, no literal is vouched for.
func TestLiteralNoneWhereUnknown(t *testing.T) {
	c := protoFile(t, "a.proto", `syntax = "proto3";
package a;
import "google/protobuf/any.proto";
message M { string id = 1; google.protobuf.Any x = 2; }
`, "a.M")
	if l := Literal(c, []byte("order-150000")); l != nil {
		t.Fatalf("a message with an Any: literal %q, want none", l)
	}
	avsc := filepath.Join(t.TempDir(), "p.avsc")
	writeFile(t, avsc, `{"type":"record","name":"P","fields":[{"name":"id","type":"string"}]}`)
	av, err := Avro(avsc)
	if err != nil {
		t.Fatal(err)
	}
	if l := Literal(av, []byte("order-150000")); l != nil {
		t.Fatalf("avro: literal %q, want none", l)
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
