package components

import (
	"bytes"
	"encoding/json"
	"strings"

	"ilinkdash/ui/common"
	"ilinkdash/ui/sanitize"
)

// Value display formats of a record value or a message body (f cycles
// them in the tail's detail and the queue detail).
const (
	FormatText = iota
	FormatJSON
	FormatHex
	// FormatDecoded is the value as its schema decodes it (ilink/schema):
	// offered only where a decode rule gives the value a codec, and then
	// the default.
	FormatDecoded
	NumFormats
)

// FormatNames are the formats' names, by format.
var FormatNames = [NumFormats]string{"text", "json", "hex", "decoded"}

// NextFormat is the format after f in the f cycle: decoded is in it only
// when the value has a schema (decodes).
func NextFormat(f int, decodes bool) int {
	f = (f + 1) % NumFormats
	if f == FormatDecoded && !decodes {
		f = (f + 1) % NumFormats
	}
	return f
}

// DefaultFormat is the format a value opens in: decoded when it has a
// schema, else text.
func DefaultFormat(decodes bool) int {
	if decodes {
		return FormatDecoded
	}
	return FormatText
}

// Formats are the formats of the f cycle, in order (decoded only when
// the value has a schema).
func Formats(decodes bool) []int {
	if decodes {
		return []int{FormatText, FormatJSON, FormatHex, FormatDecoded}
	}
	return []int{FormatText, FormatJSON, FormatHex}
}

// Decoded is one value as its schema decoded it: the JSON document, or
// why it did not decode. The zero Decoded is a value without a schema.
type Decoded struct {
	// Schema names the codec ("protobuf shop.Order (…)"); "" = none.
	Schema string
	// Doc is the JSON document (nil when it did not decode).
	Doc []byte
	// Err is the codec's error when it did not decode.
	Err string
}

// Has reports whether the value has a schema (decoded or not).
func (d Decoded) Has() bool { return d.Schema != "" }

// Failed is the one-line preview of a value that did not decode, for a
// table row: the codec's error (why, sanitized) and the first bytes of the
// value in hex.
func Failed(why string, raw []byte) string {
	if len(why) > 256 {
		why = why[:256]
	}
	return "⚠ " + sanitize.String(why) + " · hex " + HexPreview(raw)
}

// HexPreview is the first bytes of b in hex ("0a 03 66 …"), for a row.
func HexPreview(b []byte) string {
	const n = 24
	out := make([]byte, 0, 3*n+3)
	for i, c := range b {
		if i == n {
			return string(append(out, "…"...))
		}
		if i > 0 {
			out = append(out, ' ')
		}
		out = append(out, hexLower[c>>4], hexLower[c&0xf])
	}
	return string(out)
}

// DecodedLines renders a value in a format as ValueLines does, and in
// the decoded format as its schema decoded it: the document indented, or,
// when it did not decode, the codec's error and the bytes in hex (never
// a silent fallback to text). Every line is sanitized display text.
func DecodedLines(st *common.Styles, v []byte, d Decoded, format, w int) []string {
	if format != FormatDecoded || !d.Has() || v == nil {
		return ValueLines(st, v, format, w)
	}
	if d.Doc == nil {
		cut := v
		if len(cut) > detailMax {
			cut = cut[:detailMax]
		}
		why := "does not decode with " + d.Schema + ": " + d.Err + " — shown as hex"
		out := []string{}
		for _, l := range textLines([]byte(why), w) {
			out = append(out, st.Err.Render(l))
		}
		return append(out, hexLines(cut, w)...)
	}
	var buf bytes.Buffer
	b := d.Doc
	if err := json.Indent(&buf, d.Doc, "", "  "); err == nil {
		b = buf.Bytes()
	}
	more := len(b) - detailMax
	if more > 0 {
		b = b[:detailMax]
	}
	out := textLines(b, w)
	if more > 0 {
		out = append(out, st.Muted.Render(common.Trunc("… "+common.Bytes(int64(more))+" more not shown (w saves the buffer)", w)))
	}
	return out
}

const hexLower = "0123456789abcdef"

// detailMax bounds how much of a value the detail pane renders; the rest
// is announced (save the buffer to see everything).
const detailMax = 64 << 10

// ValueLines renders a value in a format, wrapped to w cells. Every line
// is sanitized display text.
func ValueLines(st *common.Styles, v []byte, format, w int) []string {
	if v == nil {
		return []string{st.Muted.Render("null value")}
	}
	if len(v) == 0 {
		return []string{st.Muted.Render("empty value")}
	}
	cut := v
	if len(cut) > detailMax {
		cut = cut[:detailMax]
	}
	var out []string
	switch format {
	case FormatHex:
		out = hexLines(cut, w)
	case FormatJSON:
		var buf bytes.Buffer
		if err := json.Indent(&buf, v, "", "  "); err != nil {
			out = append(out, st.Warn.Render(common.Trunc("not JSON ("+sanitize.Error(err)+"); shown as text", w)))
			out = append(out, textLines(cut, w)...)
		} else {
			b := buf.Bytes()
			if len(b) > detailMax {
				b = b[:detailMax]
			}
			out = textLines(b, w)
		}
	default:
		if sanitize.LooksBinary(cut) {
			out = append(out, st.Muted.Render(common.Trunc("binary value: bytes shown as \\xNN (f → hex)", w)))
		}
		out = append(out, textLines(cut, w)...)
	}
	if len(v) > detailMax {
		out = append(out, st.Muted.Render(common.Trunc("… "+common.Bytes(int64(len(v)-detailMax))+" more not shown (w saves the buffer)", w)))
	}
	return out
}

// textLines sanitizes b keeping line feeds and hard-wraps it to w cells.
func textLines(b []byte, w int) []string {
	if w <= 0 {
		return nil
	}
	var out []string
	for _, line := range strings.Split(sanitize.Multiline(b), "\n") {
		out = append(out, hardWrap(line, w)...)
	}
	return out
}

// hardWrap cuts sanitized text into lines of at most w cells, never
// splitting a rune.
func hardWrap(s string, w int) []string {
	if sanitize.Width(s) <= w {
		return []string{s}
	}
	var out []string
	var cur strings.Builder
	cw := 0
	for _, r := range s {
		rw := sanitize.Width(string(r))
		if cw+rw > w && cw > 0 {
			out = append(out, cur.String())
			cur.Reset()
			cw = 0
		}
		cur.WriteRune(r)
		cw += rw
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// hexLines is a classic hex dump: offset, bytes, printable ASCII. 16 bytes
// per line when it fits, else 8 or 4.
func hexLines(b []byte, w int) []string {
	per := 16
	for per > 4 && 10+per*3+1+per+2 > w {
		per /= 2
	}
	var out []string
	var sb strings.Builder
	for off := 0; off < len(b); off += per {
		sb.Reset()
		sb.WriteString(hex8(off))
		sb.WriteString("  ")
		for i := 0; i < per; i++ {
			if i == per/2 && per >= 8 {
				sb.WriteByte(' ')
			}
			if off+i < len(b) {
				c := b[off+i]
				sb.WriteByte(hexLower[c>>4])
				sb.WriteByte(hexLower[c&0xf])
				sb.WriteByte(' ')
			} else {
				sb.WriteString("   ")
			}
		}
		sb.WriteString(" |")
		for i := 0; i < per && off+i < len(b); i++ {
			c := b[off+i]
			if c < 0x20 || c > 0x7e {
				c = '.'
			}
			sb.WriteByte(c)
		}
		sb.WriteByte('|')
		out = append(out, sb.String())
	}
	return out
}

func hex8(n int) string {
	var buf [8]byte
	for i := 7; i >= 0; i-- {
		buf[i] = hexLower[n&0xf]
		n >>= 4
	}
	return string(buf[:])
}
