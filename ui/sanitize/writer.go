package sanitize

import (
	"io"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Writer is the stream form of the policy, for a command's standard output
// and standard error: every byte written to it reaches the underlying
// writer sanitized as by Multiline (line feeds kept, everything a terminal
// could act on as an inert glyph or escape), except that tabs are kept (a
// stream's own columns, such as shell completion's name<TAB>description,
// use them; a table cell is made one line with String first) and there is
// no binary heuristic (a stream is text; whoever prints a
// binary value picks its form first). A UTF-8 sequence cut by a write
// boundary is held back until the next write completes it, so a rune split
// by a buffer is not shown as \xNN; Flush writes a held-back remainder.
//
// Text that is already safe (sanitized fields, JSON escaped by JSON)
// passes unchanged, so wrapping a stream once, at the top, is the one
// choke point and costs nothing for well-formed output.
type Writer struct {
	w       io.Writer
	pending [utf8.UTFMax]byte
	n       int
	buf     []byte
}

// NewWriter returns a sanitizing Writer over w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Raw returns the underlying writer, for the caller's own control
// sequences (a progress line's carriage return); nothing from the network
// may be written to it.
func (w *Writer) Raw() io.Writer { return w.w }

// Write sanitizes p and writes it; it reports len(p) when the underlying
// write succeeded.
func (w *Writer) Write(p []byte) (int, error) {
	b := p
	if w.n > 0 {
		b = append(append(make([]byte, 0, w.n+len(p)), w.pending[:w.n]...), p...)
		w.n = 0
	}
	cut := len(b)
	for i := len(b) - 1; i >= 0 && i >= len(b)-(utf8.UTFMax-1); i-- {
		if c := b[i]; c < utf8.RuneSelf {
			break
		} else if utf8.RuneStart(c) {
			if !utf8.FullRune(b[i:]) {
				cut = i
			}
			break
		}
	}
	w.n = copy(w.pending[:], b[cut:])
	b = b[:cut]
	if len(b) == 0 {
		return len(p), nil
	}
	var err error
	if safeStream(b) {
		_, err = w.w.Write(b)
	} else {
		w.buf = appendText(w.buf[:0], b)
		_, err = w.w.Write(w.buf)
		if cap(w.buf) > 64<<10 {
			w.buf = nil // one huge write does not pin its buffer
		}
	}
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes a held-back incomplete UTF-8 sequence (as \xNN bytes).
func (w *Writer) Flush() error {
	if w.n == 0 {
		return nil
	}
	out := appendText(nil, w.pending[:w.n])
	w.n = 0
	_, err := w.w.Write(out)
	return err
}

// safeStream reports that b is printable ASCII, line feeds and tabs only.
func safeStream(b []byte) bool {
	for _, c := range b {
		if (c < 0x20 && c != '\n' && c != '\t') || c > 0x7e {
			return false
		}
	}
	return true
}

// appendText appends b in multiline text form to dst.
func appendText(dst, b []byte) []byte {
	var sb strings.Builder
	sb.Grow(len(b) + 16)
	textForm(&sb, b, true, true)
	return append(dst, sb.String()...)
}

// JSON makes an encoded JSON document safe to print on a terminal:
// encoding/json already escapes C0 controls (ESC and BEL included) and
// U+2028/U+2029, but leaves DEL, C1 controls and the format characters
// (bidi overrides, zero-width and tag characters) raw; JSON writes those
// as \uXXXX (surrogate pairs above U+FFFF) and invalid UTF-8 as \ufffd.
// They can only occur inside strings, so the document decodes to the same
// value. A document without such a character is returned as is.
func JSON(doc []byte) []byte {
	i := 0
	for i < len(doc) && doc[i] < 0x7f {
		i++
	}
	if i == len(doc) {
		return doc
	}
	out := make([]byte, 0, len(doc)+16)
	out = append(out, doc[:i]...)
	for i < len(doc) {
		c := doc[i]
		if c < 0x7f {
			out = append(out, c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(doc[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			out = append(out, `\ufffd`...)
		case r == 0x7f || Escaped(r):
			out = AppendJSONEscape(out, r)
		default:
			out = append(out, doc[i:i+size]...)
		}
		i += size
	}
	return out
}

// AppendJSONEscape appends r to dst as a JSON \uXXXX escape (a surrogate
// pair above U+FFFF).
func AppendJSONEscape(dst []byte, r rune) []byte {
	if r > 0xffff {
		a, b := utf16.EncodeRune(r)
		return appendU(appendU(dst, a), b)
	}
	return appendU(dst, r)
}

func appendU(dst []byte, r rune) []byte {
	return append(dst, '\\', 'u', hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
}
