package common

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"ilinkdash/ui/sanitize"
)

// S sanitizes a network string for display (the one sanitizer).
func S(s string) string { return sanitize.String(s) }

// Width is the display width of a (possibly styled) string.
func Width(s string) int { return ansi.StringWidthWc(s) }

// Fit pads or truncates plain text to exactly w cells.
func Fit(s string, w int) string { return sanitize.Fit(s, w) }

// FitRight is Fit aligned right.
func FitRight(s string, w int) string { return sanitize.FitRight(s, w) }

// Trunc truncates plain text to at most w cells.
func Trunc(s string, w int) string { return sanitize.Truncate(s, w) }

// ClipStyled truncates a styled line to at most w cells without breaking
// its escape sequences.
func ClipStyled(line string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidthWc(line) <= w {
		return line
	}
	out := ansi.TruncateWc(line, w, "")
	// TruncateWc's quick check measures graphemes; make sure the wcwidth
	// measure fits as well.
	for cut := w - 1; ansi.StringWidthWc(out) > w && cut >= 0; cut-- {
		out = ansi.TruncateWc(line, cut, "")
	}
	return out
}

// PadStyled pads a styled line with spaces to w cells (no truncation).
func PadStyled(line string, w int) string {
	if n := ansi.StringWidthWc(line); n < w {
		return line + strings.Repeat(" ", w-n)
	}
	return line
}

// Frame fits lines into a w×h block: exactly h lines, none wider than w.
// Missing lines are blank; extra lines are dropped. Every view's output
// passes through it, which is what keeps every size from 120×40 to 40×12
// (and smaller) free of wrapped, garbled lines.
func Frame(lines []string, w, h int) string {
	if h <= 0 || w <= 0 {
		return ""
	}
	var b strings.Builder
	for i := 0; i < h; i++ {
		if i > 0 {
			b.WriteByte('\n')
		}
		if i < len(lines) {
			b.WriteString(ClipStyled(lines[i], w))
		}
	}
	return b.String()
}

// SplitLines splits a rendered block into lines.
func SplitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// Wrap word-wraps plain or styled text to width w (hard-wrapping words
// longer than w) and returns the lines.
func Wrap(s string, w int) []string {
	if w <= 0 {
		return nil
	}
	return strings.Split(ansi.WrapWc(s, w, ""), "\n")
}

// Pairs renders "label value" pairs separated by " · " and wraps them to
// width w, never splitting a pair unless it alone is wider than w.
func Pairs(st *Styles, w int, pairs ...string) []string {
	var lines []string
	var cur strings.Builder
	curW := 0
	sep := st.Faint.Render(" · ")
	for i := 0; i+1 < len(pairs); i += 2 {
		item := pairs[i+1]
		if pairs[i] != "" {
			item = st.Muted.Render(pairs[i]) + " " + pairs[i+1]
		}
		iw := Width(item)
		if curW > 0 && curW+3+iw > w {
			lines = append(lines, cur.String())
			cur.Reset()
			curW = 0
		}
		if curW > 0 {
			cur.WriteString(sep)
			curW += 3
		}
		cur.WriteString(item)
		curW += iw
	}
	if curW > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}
