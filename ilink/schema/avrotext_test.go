package schema

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// avroFormat writes what AppendFormat writes, for each of the four
// layouts, over instants from year 0 to 9999 in milliseconds and in
// microseconds (every fraction length), and the edges of the range.
func TestAvroFormatIsAppendFormat(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	lo, hi := time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro(), time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC).UnixMicro()
	instants := []int64{lo, hi, 0, -1, 1, 999999, 1000000}
	for range 200000 {
		us := lo + r.Int64N(hi-lo)
		switch r.IntN(4) {
		case 0:
			us -= us % 1000 // milliseconds
		case 1:
			us -= us % 1000000 // whole seconds
		}
		instants = append(instants, us)
	}
	for _, us := range instants {
		tm := time.UnixMicro(us).UTC()
		for _, layout := range []string{avroDateLayout, avroTimeLayout, avroTimestampLayout, avroLocalLayout} {
			if got, want := string(avroFormat(nil, tm, layout)), tm.Format(layout); got != want {
				t.Fatalf("%d µs in %q: %q, AppendFormat writes %q", us, layout, got, want)
			}
		}
	}
}

// avroAppendString writes a JSON string that reads back as s with each
// byte of invalid UTF-8 as U+FFFD, and holds no raw control character,
// DEL, U+2028 or U+2029 (a terminal or a JavaScript reader would take
// them): over random strings of printable runs, escapes, controls,
// multi-byte and broken UTF-8.
func TestAvroAppendStringEscapes(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	pieces := []string{"order-1", " ", "a\"b", `c\d`, "\n", "\r", "\t", "\x00", "\x1b[31m", "\x7f", "é", "日本", "\u2028", "\u2029", "\xff", "\xe2\x82", "<&>", "\U0001F600"}
	for range 100000 {
		var b strings.Builder
		for range r.IntN(8) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		out := avroAppendString(nil, s)
		if outB := avroAppendString(nil, []byte(s)); string(outB) != string(out) {
			t.Fatalf("%q: the string and []byte forms differ: %s, %s", s, out, outB)
		}
		var back string
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("%q wrote %s, not a JSON string: %v", s, out, err)
		}
		var want strings.Builder
		for i := 0; i < len(s); {
			c, size := utf8.DecodeRuneInString(s[i:])
			if c == utf8.RuneError && size == 1 {
				c = utf8.RuneError
			}
			want.WriteRune(c)
			i += size
		}
		if back != want.String() {
			t.Fatalf("%q wrote %s, which reads back as %q, want %q", s, out, back, want.String())
		}
		for _, c := range string(out) {
			if c < 0x20 || c == 0x7f || c == '\u2028' || c == '\u2029' {
				t.Fatalf("%q wrote %q raw in %s", s, c, out)
			}
		}
	}
}
