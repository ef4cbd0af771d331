package sanitize

import (
	"testing"
	"unicode/utf8"
)

func FuzzSanitize(f *testing.F) {
	for _, seed := range []string{
		"", "plain", "\x1b[2J", "\x1b]52;c;AAAA\x07", "\x1b]8;;http://x\x1b\\t\x1b]8;;\x1b\\",
		"\x1b]0;unterminated", "\x1bPdcs\x1b\\", "\x1b_apc\x1b\\", "\x9b6n", "\u009b6n", "\xc2\x9b",
		"a\u202eb", "\u2066\u2069", "\u200d", "\U000E0041", "\xff\xfe", "\x00\x01\x02", "東京\t\n\r",
		"\xed\xa0\x80", "\xf4\x90\x80\x80", "e\u0301\uFE0F",
	} {
		f.Add([]byte(seed), 10)
	}
	f.Fuzz(func(t *testing.T, b []byte, w int) {
		for _, multiline := range []bool{false, true} {
			var s string
			if multiline {
				s = Multiline(b)
			} else {
				s = Bytes(b)
				if s2 := String(string(b)); s2 != s {
					t.Fatalf("String and Bytes differ: %q vs %q", s2, s)
				}
			}
			if !utf8.ValidString(s) {
				t.Fatalf("invalid UTF-8 output %q", s)
			}
			for i := 0; i < len(s); i++ {
				if s[i] == 0x1b {
					t.Fatalf("ESC in output %q", s)
				}
			}
			for _, r := range s {
				if r == '\n' && multiline {
					continue
				}
				if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
					t.Fatalf("control %U in output %q", r, s)
				}
				if (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c {
					t.Fatalf("bidi control %U in output %q", r, s)
				}
				if Escaped(r) {
					t.Fatalf("format character %U in output %q", r, s)
				}
			}
			if !multiline {
				w = w%200 + 1
				if w < 0 {
					w = -w
				}
				if tw := Width(Truncate(s, w)); tw > w {
					t.Fatalf("Truncate(%q, %d) is %d wide", s, w, tw)
				}
			}
		}
	})
}
