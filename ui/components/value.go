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
	NumFormats
)

// FormatNames are the formats' names, by format.
var FormatNames = [NumFormats]string{"text", "json", "hex"}

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
