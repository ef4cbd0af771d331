package jsonl

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestAppendJSONCompactsAndEscapes(t *testing.T) {
	doc := []byte("{ \"a\" : [1, 2.50, true, null, {\"b\": \"x\u202ey\\u001b[2J\"}], \"c\": {} }")
	out, err := AppendJSON(nil, doc)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"a":[1,2.50,true,null,{"b":"x\u202ey\u001b[2J"}],"c":{}}`
	if string(out) != want {
		t.Fatalf("AppendJSON = %s, want %s", out, want)
	}
	var a, b any
	if json.Unmarshal(doc, &a) != nil || json.Unmarshal(out, &b) != nil {
		t.Fatal("not JSON")
	}
	for _, bad := range []string{`{"a":`, `{"a":1} 2`, ``, `{"a" 1}`} {
		if got, err := AppendJSON([]byte("pre"), []byte(bad)); err == nil || string(got) != "pre" {
			t.Errorf("AppendJSON(%q) = %q, %v; want an error and dst unchanged", bad, got, err)
		}
	}
}

func TestDecodedFieldsWrittenAndIgnoredByParse(t *testing.T) {
	r := Record{Topic: "SHOP.ORDERS", Key: []byte("k"), Value: []byte{0xff, 0x01}, ValueDecoded: []byte(`{"id": "7"}`), KeyError: "not a shop.Key: bad"}
	line := Append(nil, &r)
	s := string(line)
	if !strings.Contains(s, `"key":"k","key_decode_error":"not a shop.Key: bad","value":`) || !strings.Contains(s, `"value_encoding":"base64","value_decoded":{"id":"7"}`) {
		t.Fatalf("line %s lacks the decoded fields after the raw ones", s)
	}
	back, err := Parse(line)
	if err != nil {
		t.Fatal(err)
	}
	if string(back.Value) != string(r.Value) || back.ValueDecoded != nil || back.KeyError != "" {
		t.Fatalf("Parse = %+v: the raw value is the record, decoded forms are not read back", back)
	}
	bad := Record{Topic: "T", ValueDecoded: []byte(`{oops`)}
	if s := string(Append(nil, &bad)); !strings.Contains(s, `"value_decode_error":"decoded form is not JSON`) {
		t.Fatalf("invalid decoded JSON written as %s", s)
	}
}
