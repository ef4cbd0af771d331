package sanitize

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestWriterKeepsLinesAndNeutralisesTheRest(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	in := "ok line\nbell\x07 esc \x1b]52;c;ZXZpbA==\x07 c1 \u009b2J raw \x9b bidi \u202Eabc\u202C\ttab\r\n"
	if n, err := w.Write([]byte(in)); err != nil || n != len(in) {
		t.Fatalf("Write = %d, %v", n, err)
	}
	want := "ok line\nbell␇ esc ␛]52;c;ZXZpbA==␇ c1 \\u009b2J raw \\x9b bidi \\u202eabc\\u202c\ttab␍\n"
	if out.String() != want {
		t.Fatalf("got  %q\nwant %q", out.String(), want)
	}
	assertSafe(t, strings.ReplaceAll(out.String(), "\t", " "), true)
}

func TestWriterHoldsBackASplitRune(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	s := []byte("東京 \u202E!")
	// Every split point, byte by byte: the output is the same as one write.
	for _, c := range s {
		if _, err := w.Write([]byte{c}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if want := "東京 \\u202e!"; out.String() != want {
		t.Fatalf("got %q, want %q", out.String(), want)
	}
	// A truncated sequence at the end shows as bytes once flushed.
	out.Reset()
	w.Write([]byte("x\xe6\x9d"))
	if out.String() != "x" {
		t.Fatalf("before flush %q", out.String())
	}
	w.Flush()
	if out.String() != `x\xe6\x9d` {
		t.Fatalf("after flush %q", out.String())
	}
}

func TestWriterPassesSafeTextUnchanged(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	in := "NAME  PARTITIONS\nORDER.EVENT  3\nZürich ␛[2J \\u202e\n"
	w.Write([]byte(in))
	if out.String() != in {
		t.Fatalf("got %q", out.String())
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestWriterReportsErrors(t *testing.T) {
	if _, err := NewWriter(failWriter{}).Write([]byte("a\x1b")); err == nil {
		t.Fatal("want the underlying error")
	}
}

func TestJSONEscapesWhatEncodingJSONLeavesRaw(t *testing.T) {
	v := map[string]string{"name": "a\x1b[2J\x07\x7f\u009b\u202Ex\u200B\U000E0041\u2028ok Zürich"}
	doc, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	safe := JSON(doc)
	for _, r := range string(safe) {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || Escaped(r) {
			t.Fatalf("raw %U left in %s", r, safe)
		}
	}
	if !strings.Contains(string(safe), `\u007f\u009b\u202ex\u200b\udb40\udc41`) || !strings.Contains(string(safe), "Zürich") {
		t.Fatalf("escapes: %s", safe)
	}
	var back map[string]string
	if err := json.Unmarshal(safe, &back); err != nil || back["name"] != v["name"] {
		t.Fatalf("does not decode to the same value: %v %q", err, back["name"])
	}
	plain := []byte(`{"a":"b"}`)
	if got := JSON(plain); &got[0] != &plain[0] {
		t.Fatal("plain document was copied")
	}
}
