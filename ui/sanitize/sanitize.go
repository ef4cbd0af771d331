// Package sanitize turns untrusted bytes (anything that came from the
// network: topic, group and queue names, record keys, values and headers,
// member client names and hosts, error texts) into text that is safe to put
// on a terminal. It is the one place where that decision is made; the
// dashboard (package ui and its views) and the headless commands both call
// it. Package ui re-exports it as ui.Sanitize and ui.SanitizeString.
//
// # Policy
//
// The output is always valid UTF-8, never contains ESC (0x1b), any other C0
// control, DEL, a C1 control (U+0080–U+009F) or a Unicode format character,
// and (in single-line mode) never contains a line break. Nothing is dropped
// silently: every byte the terminal could act on becomes a visible, inert
// glyph, so an operator sees that something was attempted.
//
//   - Printable ASCII and valid, printable UTF-8 pass unchanged (fast path:
//     pure printable ASCII input is returned as is, without allocating).
//   - C0 controls 0x00–0x1f become the Unicode "Control Pictures" U+2400–U+241F
//     (NUL → ␀, BEL → ␇, ESC → ␛, …) and DEL 0x7f becomes ␡ (U+2421).
//     Because ESC itself becomes ␛, every escape sequence it would start is
//     rendered inert and readable: CSI `ESC [ 2 J` shows as `␛[2J`, OSC 52
//     `ESC ] 52;c;… BEL` as `␛]52;c;…␇`, DCS/APC/PM/SOS as `␛P…`, `␛_…`,
//     `␛^…`, `␛X…`, the string terminator as `␛\`. An unterminated OSC cannot
//     swallow the rest of the screen because nothing is ever interpreted.
//   - Tab becomes one space (so a cell's width is known and columns stay
//     aligned). LF becomes ␊ and CR ␍ in single-line mode (a record stays one
//     row); Multiline keeps LF, and still shows CR as ␍.
//   - C1 controls written as code points (U+0080–U+009F, UTF-8 C2 80–C2 9F)
//     become `\u0080`…`\u009f`; written as raw bytes 0x80–0x9f (invalid
//     UTF-8, the form an 8-bit terminal would act on) they become `\x80`…
//     `\x9f` like every other invalid byte.
//   - Every Unicode format character (general category Cf) becomes `\uXXXX`
//     (`\UXXXXXXXX` above the BMP): the bidi embeddings, overrides and
//     isolates U+202A–U+202E and U+2066–U+2069, the marks LRM/RLM/ALM, the
//     zero-width space, non-joiner and joiner U+200B–U+200D, word joiner and
//     invisible operators U+2060–U+2064, BOM U+FEFF, soft hyphen U+00AD,
//     interlinear annotations and the "tag" characters U+E0000–U+E007F (used
//     to smuggle invisible text). The line and paragraph separators U+2028
//     and U+2029 and the emoji variation selectors U+FE0E/U+FE0F are escaped
//     the same way: they make the terminal's idea of a line or of a cell
//     width differ from ours. Escaping ZWJ splits emoji ZWJ sequences into
//     their parts; layout stability wins over emoji joining.
//   - Invalid UTF-8 shows each offending byte as `\xNN` (lowercase hex).
//   - Binary values (see LooksBinary) are shown entirely in escaped form:
//     printable ASCII stays, every other byte is `\xNN`, so a binary blob
//     never shows up as random glyphs.
//
// The display form is for reading, not for round-tripping: a value that
// literally contains the text `\x1b` looks like one holding an invalid byte.
// The raw bytes stay in the model; a hex view is the exact form.
//
// Width: Width and Truncate measure with wcwidth rules (the Bubble Tea
// renderer's default), which, for sanitized text, is never narrower than
// the grapheme-cluster width, so a line that fits by Width fits on screen.
package sanitize

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

const hexDigits = "0123456789abcdef"

// Bytes returns b as single-line display text (see the package policy).
func Bytes(b []byte) string {
	if printableASCII(b) {
		return string(b)
	}
	return display(b, false)
}

// String is Bytes for a string; printable ASCII input is returned as is.
func String(s string) string {
	if printableASCIIString(s) {
		return s
	}
	return Bytes([]byte(s))
}

// Multiline is Bytes but keeps line feeds, for detail panes that show a
// whole value (pretty JSON, headers, long error texts).
func Multiline(b []byte) string { return display(b, true) }

// display is b in binary form when it looks binary, else in text form
// (keeping its line feeds when multiline).
func display(b []byte, multiline bool) string {
	if LooksBinary(b) {
		return binaryForm(b)
	}
	var sb strings.Builder
	sb.Grow(len(b) + 16)
	textForm(&sb, b, multiline, false)
	return sb.String()
}

// Error sanitizes an error's text for display; nil gives "".
func Error(err error) string {
	if err == nil {
		return ""
	}
	return String(err.Error())
}

func printableASCII(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

func printableASCIIString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// binarySample is how much of a value LooksBinary inspects.
const binarySample = 1024

// LooksBinary reports whether b is better shown as escaped bytes than as
// text: it holds a NUL byte, or at least 8 of the runes in its first 1 KiB,
// and more than 10% of them, are invalid UTF-8 bytes or C0 controls other
// than tab, LF, CR and ESC. (Text with escape sequences, such as a coloured
// log line, stays text and shows ␛; a short name with one bad byte stays
// text and shows that byte as \xNN.)
func LooksBinary(b []byte) bool {
	truncated := false
	if len(b) > binarySample {
		b = b[:binarySample]
		truncated = true
	}
	bad, n := 0, 0
	for i := 0; i < len(b); {
		if truncated && !utf8.FullRune(b[i:]) {
			break // a rune cut at the sample's edge is not evidence
		}
		r, size := utf8.DecodeRune(b[i:])
		n++
		switch {
		case r == 0:
			return true
		case r == utf8.RuneError && size == 1:
			bad++
		case r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != 0x1b:
			bad++
		}
		i += size
	}
	return bad >= 8 && bad*10 > n
}

func binaryForm(b []byte) string {
	var sb strings.Builder
	sb.Grow(len(b) * 2)
	for _, c := range b {
		if c >= 0x20 && c <= 0x7e {
			sb.WriteByte(c)
			continue
		}
		writeHexByte(&sb, c)
	}
	return sb.String()
}

func writeHexByte(sb *strings.Builder, c byte) {
	sb.WriteString(`\x`)
	sb.WriteByte(hexDigits[c>>4])
	sb.WriteByte(hexDigits[c&0xf])
}

func writeCodePoint(sb *strings.Builder, r rune) {
	if r > 0xffff {
		sb.WriteString(`\U`)
		for shift := 28; shift >= 0; shift -= 4 {
			sb.WriteByte(hexDigits[(r>>shift)&0xf])
		}
		return
	}
	sb.WriteString(`\u`)
	for shift := 12; shift >= 0; shift -= 4 {
		sb.WriteByte(hexDigits[(r>>shift)&0xf])
	}
}

// textForm writes b in text form: multiline keeps line feeds, keepTab
// keeps tabs (the stream Writer) instead of making them one space.
func textForm(sb *strings.Builder, b []byte, multiline, keepTab bool) {
	for i := 0; i < len(b); {
		c := b[i]
		if c >= 0x20 && c <= 0x7e {
			sb.WriteByte(c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			writeHexByte(sb, c)
		case r == '\t':
			if keepTab {
				sb.WriteByte('\t')
			} else {
				sb.WriteByte(' ')
			}
		case r == '\n' && multiline:
			sb.WriteByte('\n')
		case r < 0x20:
			sb.WriteRune(0x2400 + r)
		case r == 0x7f:
			sb.WriteRune(0x2421)
		case Escaped(r):
			writeCodePoint(sb, r)
		default:
			sb.WriteRune(r)
		}
	}
}

// Escaped reports whether a valid code point at or above U+0080 is shown as
// a \u escape: C1 controls, format characters (Cf), line and paragraph
// separators and the emoji variation selectors.
func Escaped(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x2028 || r == 0x2029 || r == 0xfe0e || r == 0xfe0f:
		return true
	case r < 0xa0:
		return false
	}
	return unicode.Is(unicode.Cf, r)
}

// Width is the number of terminal cells s occupies (wcwidth rules; escape
// sequences, if any, count zero).
func Width(s string) int {
	if printableASCIIString(s) {
		return len(s)
	}
	return ansi.StringWidthWc(s)
}

// Truncate shortens s to at most w cells, ending it with "…" when something
// was cut. It never splits a rune, and a wide rune that would straddle the
// limit is left out, so the result may be one cell narrower than w.
func Truncate(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if printableASCIIString(s) {
		if len(s) <= w {
			return s
		}
		if w == 1 {
			return "…"
		}
		return s[:w-1] + "…"
	}
	if len(s) > w && printableASCIIString(s[:w+1]) {
		// The first w+1 cells are plain ASCII: it is too wide, and the
		// cut falls inside them (a long value preview).
		if w == 1 {
			return "…"
		}
		return s[:w-1] + "…"
	}
	if ansi.StringWidthWc(s) <= w {
		return s
	}
	limit, cur := w-1, 0
	for i, r := range s {
		rw := runeWidth(r)
		if cur+rw > limit {
			return s[:i] + "…"
		}
		cur += rw
	}
	return s // not reached: the whole string was wider than w
}

// runeWidth is the wcwidth of one rune, as Width counts it.
func runeWidth(r rune) int {
	if r >= 0x20 && r < 0x7f {
		return 1
	}
	var buf [utf8.UTFMax]byte
	n := utf8.EncodeRune(buf[:], r)
	return ansi.StringWidthWc(string(buf[:n]))
}

// Fit truncates s to w cells and pads it with spaces to exactly w cells.
func Fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	s = Truncate(s, w)
	if n := Width(s); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}

// FitRight is Fit with the text aligned to the right.
func FitRight(s string, w int) string {
	if w <= 0 {
		return ""
	}
	s = Truncate(s, w)
	if n := Width(s); n < w {
		return strings.Repeat(" ", w-n) + s
	}
	return s
}
