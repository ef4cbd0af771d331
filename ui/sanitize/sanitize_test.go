package sanitize

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

func TestBytes(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain ascii", "ORDER.EVENT", "ORDER.EVENT"},
		{"empty", "", ""},
		{"utf8 kept", "Zürich → 東京", "Zürich → 東京"},
		{"tab is one space", "a\tb", "a b"},
		{"newline visible", "a\nb\r\n", "a␊b␍␊"},
		{"nul and bell", "a\x01b\x07", "a␁b␇"},
		{"del", "a\x7fb", "a␡b"},
		{"csi clear screen", "\x1b[2J\x1b[H", "␛[2J␛[H"},
		{"csi device status query", "x\x1b[6n", "x␛[6n"},
		{"csi cursor moves", "\x1b[10;20H\x1b[3A", "␛[10;20H␛[3A"},
		{"sgr colour spoof", "\x1b[31mERROR\x1b[0m", "␛[31mERROR␛[0m"},
		{"osc 52 clipboard", "\x1b]52;c;cm0gLXJmIH4=\x07", "␛]52;c;cm0gLXJmIH4=␇"},
		{"osc 8 link", "\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\", "␛]8;;http://evil␛\\click␛]8;;␛\\"},
		{"osc 0 title", "\x1b]0;pwned\x07", "␛]0;pwned␇"},
		{"unterminated osc", "\x1b]0;title and the rest", "␛]0;title and the rest"},
		{"dcs", "\x1bPq#0;2;0;0;0\x1b\\", "␛Pq#0;2;0;0;0␛\\"},
		{"apc kitty graphics", "\x1b_Gf=100;AAAA\x1b\\", "␛_Gf=100;AAAA␛\\"},
		{"pm and sos", "\x1b^pm\x1b\\\x1bXsos\x1b\\", "␛^pm␛\\␛Xsos␛\\"},
		{"c1 raw csi byte", "a\x9b2Jb", `a\x9b2Jb`},
		{"c1 raw osc and st", "\x9d0;t\x9c", `\x9d0;t\x9c`},
		{"c1 as code points", "a\u009b2J\u0085", `a\u009b2J\u0085`},
		{"bidi override", "abc\u202Egnp.exe", `abc\u202egnp.exe`},
		{"bidi isolates", "\u2066x\u2069\u2067y\u2068", `\u2066x\u2069\u2067y\u2068`},
		{"bidi embeddings and marks", "\u202A\u202B\u202C\u202D\u200E\u200F\u061C", `\u202a\u202b\u202c\u202d\u200e\u200f\u061c`},
		{"zero width", "a\u200Bb\u200Cc\u200Dd\u2060e\uFEFF", `a\u200bb\u200cc\u200dd\u2060e\ufeff`},
		{"soft hyphen", "co\u00ADop", `co\u00adop`},
		{"line separators", "a\u2028b\u2029", `a\u2028b\u2029`},
		{"tag characters", "hi\U000E0041\U000E007F", `hi\U000e0041\U000e007f`},
		{"variation selector", "\u2764\uFE0F", `❤\ufe0f`},
		{"invalid utf8", "ok\xffok\xc3", `ok\xffok\xc3`},
		{"overlong encoding", "\xc0\xaf", `\xc0\xaf`},
		{"encoded surrogate", "\xed\xa0\x80", `\xed\xa0\x80`},
		{"replacement char kept", "\uFFFD", "\uFFFD"},
		{"combining mark kept", "e\u0301", "e\u0301"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Bytes([]byte(tt.in)); got != tt.want {
				t.Errorf("Bytes(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if got := String(tt.in); got != tt.want {
				t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
			}
			assertSafe(t, Bytes([]byte(tt.in)), false)
		})
	}
}

func TestBinary(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"nul makes it binary", "ab\x00\xe6\x97\xa5", `ab\x00\xe6\x97\xa5`},
		{"mostly invalid", "\xff\xfe\xfd\x01A\x02\x03\x04\x05\x06\xe6\x97\xa5", `\xff\xfe\xfd\x01A\x02\x03\x04\x05\x06\xe6\x97\xa5`},
		{"esc in binary", "\x00\x1b[2J", `\x00\x1b[2J`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !LooksBinary([]byte(tt.in)) {
				t.Fatalf("LooksBinary(%q) = false", tt.in)
			}
			if got := Bytes([]byte(tt.in)); got != tt.want {
				t.Errorf("Bytes(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	for _, text := range []string{"hello", "\xff\xfe\xfd\x01A", "\x1b[31mred\x1b[0m\x1b[1mbold\x1b[0m", "line one\nline two\r\n\tindented", "one bad \xff byte in a long enough text", "Zürich"} {
		if LooksBinary([]byte(text)) {
			t.Errorf("LooksBinary(%q) = true", text)
		}
	}
	// A rune cut at the 1 KiB sample edge is not evidence.
	long := strings.Repeat("é", 700)
	if LooksBinary([]byte(long)) {
		t.Error("LooksBinary of long valid UTF-8 = true")
	}
}

func TestMultiline(t *testing.T) {
	got := Multiline([]byte("{\n  \"a\": \"\x1b]52;c;x\x07\"\r\n}"))
	want := "{\n  \"a\": \"␛]52;c;x␇\"␍\n}"
	if got != want {
		t.Errorf("Multiline = %q, want %q", got, want)
	}
	assertSafe(t, got, true)
}

func TestStringFastPathDoesNotAllocate(t *testing.T) {
	s := "ORDER.EVENT-partition-12"
	if n := testing.AllocsPerRun(100, func() { _ = String(s) }); n != 0 {
		t.Errorf("String allocates %v times on printable ASCII", n)
	}
}

func TestError(t *testing.T) {
	if Error(nil) != "" {
		t.Error("Error(nil) != \"\"")
	}
	if got := Error(errString("MIMQE_X (\x1b[2J)")); got != "MIMQE_X (␛[2J)" {
		t.Errorf("Error = %q", got)
	}
}

type errString string

func (e errString) Error() string { return string(e) }

func TestTruncate(t *testing.T) {
	tests := []struct {
		in   string
		w    int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello", 5, "hello"},
		{"hello", 4, "hel…"},
		{"hello", 1, "…"},
		{"hello", 0, ""},
		{"東京都", 6, "東京都"},
		{"東京都", 5, "東京…"},
		{"東京都", 4, "東…"}, // the wide rune that would straddle is left out
		{"a東京", 3, "a…"},
		{"e\u0301e\u0301e\u0301", 2, "e\u0301…"},
	}
	for _, tt := range tests {
		got := Truncate(tt.in, tt.w)
		if got != tt.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tt.in, tt.w, got, tt.want)
		}
		if Width(got) > max(tt.w, 0) {
			t.Errorf("Truncate(%q, %d) is %d wide", tt.in, tt.w, Width(got))
		}
	}
	if got := Fit("東京", 5); got != "東京 " {
		t.Errorf("Fit = %q", got)
	}
	if got := FitRight("42", 5); got != "   42" {
		t.Errorf("FitRight = %q", got)
	}
	if got := Fit("abcdef", 3); got != "ab…" {
		t.Errorf("Fit = %q", got)
	}
}

// assertSafe checks the invariants the package promises.
func assertSafe(t *testing.T, s string, multiline bool) {
	t.Helper()
	if !utf8.ValidString(s) {
		t.Fatalf("output is not valid UTF-8: %q", s)
	}
	for _, r := range s {
		switch {
		case r == '\n' && multiline:
		case r < 0x20 || r == 0x7f:
			t.Fatalf("output holds control %U: %q", r, s)
		case r >= 0x80 && r <= 0x9f:
			t.Fatalf("output holds C1 control %U: %q", r, s)
		case Escaped(r):
			t.Fatalf("output holds format/bidi character %U: %q", r, s)
		}
	}
	if !multiline && strings.ContainsAny(s, "\n\r") {
		t.Fatalf("single-line output holds a line break: %q", s)
	}
	// Nothing a terminal could parse as a sequence survives.
	if ansi.Strip(s) != s {
		t.Fatalf("output holds an escape sequence: %q", s)
	}
}
