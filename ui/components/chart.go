package components

import (
	"math"
	"strconv"
	"strings"
	"time"

	"charm.land/lipgloss/v2"

	"ilinkdash/ui/common"
)

// ChartPoint is one point of a chart: a recorded history point.
type ChartPoint = common.HistPoint

// Chart is a line chart of fixed size: a value axis on the left (the top
// of the scale, its middle and 0), the line in braille dots (2×4 a cell),
// and a time axis below (-1h … now). Render is a pure function of it.
type Chart struct {
	Width, Height int          // cells, axes included
	From, To      time.Time    // the time axis
	Points        []ChartPoint // oldest first; the ones outside From..To are left out
	// Gap is the longest time between two points that is drawn as a line;
	// a longer one is a gap (no data: the dashboard was not running).
	// Zero joins every point.
	Gap time.Duration
	// Format writes a value axis label (nil: Count-like 1.2k).
	Format func(float64) string
	Line   common.Style
	Axis   common.Style
	// Empty is said in the middle when there is no point.
	Empty string
}

// braille dot bits by x (0, 1) and y (0 top … 3 bottom) within a cell.
var brailleDot = [2][4]rune{{0x01, 0x02, 0x04, 0x40}, {0x08, 0x10, 0x20, 0x80}}

// Render draws the chart: Height lines, each Width cells wide.
func (c Chart) Render() string {
	if c.Width < 12 || c.Height < 3 || !c.To.After(c.From) {
		return ""
	}
	top := c.top()
	format := c.Format
	if format == nil {
		format = shortNumber
	}
	labels := []string{format(top), format(top / 2), "0"}
	lw := 0
	for _, l := range labels {
		lw = max(lw, lipgloss.Width(l))
	}
	plotW, plotH := c.Width-lw-2, c.Height-1
	if plotW < 4 {
		return ""
	}
	ys := c.columns(plotW*2, plotH*4, top)
	cells := plot(ys, plotW, plotH)
	var b strings.Builder
	b.Grow(c.Height * (c.Width*3 + 16))
	for row := range plotH {
		label := ""
		switch row {
		case 0:
			label = labels[0]
		case plotH / 2:
			if plotH >= 5 {
				label = labels[1]
			}
		case plotH - 1:
			label = labels[2]
		}
		tick := "│"
		if label != "" {
			tick = "┤"
		}
		b.WriteString(c.Axis.Render(strings.Repeat(" ", lw-lipgloss.Width(label)) + label + " " + tick))
		line := string(cells[row])
		if len(c.Points) == 0 && row == plotH/2 && c.Empty != "" {
			line = center(c.Empty, plotW)
		}
		b.WriteString(c.Line.Render(line))
		b.WriteByte('\n')
	}
	b.WriteString(c.Axis.Render(strings.Repeat(" ", lw+2) + timeAxis(c.To.Sub(c.From), plotW)))
	return b.String()
}

// top is the scale's top: the largest value shown, rounded up to a
// round number (1 when every value is 0).
func (c Chart) top() float64 {
	m := 0.0
	for _, p := range c.Points {
		if !p.At.Before(c.From) && !p.At.After(c.To) && p.V > m && !math.IsInf(p.V, 0) {
			m = p.V
		}
	}
	if m <= 0 {
		return 1
	}
	mag := math.Pow(10, math.Floor(math.Log10(m)))
	for _, f := range []float64{1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10} {
		if f*mag >= m {
			return f * mag
		}
	}
	return 10 * mag
}

// columns is, per dot column, the dot row of the line (0 the top; -1
// nothing): a column's largest value, and the columns between two points
// within Gap joined.
func (c Chart) columns(w, h int, top float64) []int {
	ys := make([]int, w)
	for i := range ys {
		ys[i] = -1
	}
	span := float64(c.To.Sub(c.From))
	lastX, lastAt := -1, time.Time{}
	for _, p := range c.Points {
		if p.At.Before(c.From) || p.At.After(c.To) || math.IsNaN(p.V) {
			continue
		}
		x := min(int(float64(p.At.Sub(c.From))/span*float64(w)), w-1)
		y := h - 1 - int(math.Round(max(0, min(p.V, top))/top*float64(h-1)))
		if ys[x] < 0 || y < ys[x] {
			ys[x] = y
		}
		if lastX >= 0 && x > lastX+1 && (c.Gap <= 0 || p.At.Sub(lastAt) <= c.Gap) {
			y0 := ys[lastX]
			for i := lastX + 1; i < x; i++ {
				ys[i] = y0 + (y-y0)*(i-lastX)/(x-lastX)
			}
		}
		lastX, lastAt = x, p.At
	}
	return ys
}

// plot sets the dots of the line, a column's dots joined to the next
// column's so a steep line stays one line.
func plot(ys []int, w, h int) [][]rune {
	cells := make([][]rune, h)
	for r := range cells {
		cells[r] = make([]rune, w)
		for i := range cells[r] {
			cells[r][i] = 0x2800
		}
	}
	set := func(x, y int) {
		if y >= 0 && y < h*4 {
			cells[y/4][x/2] |= brailleDot[x%2][y%4]
		}
	}
	for x, y := range ys {
		if y < 0 {
			continue
		}
		lo, hi := y, y
		if x+1 < len(ys) && ys[x+1] >= 0 {
			lo, hi = min(y, (y+ys[x+1])/2), max(y, (y+ys[x+1])/2)
		}
		if x > 0 && ys[x-1] >= 0 {
			lo, hi = min(lo, (y+ys[x-1]+1)/2), max(hi, (y+ys[x-1])/2)
		}
		for yy := lo; yy <= hi; yy++ {
			set(x, yy)
		}
	}
	// Empty braille cells read as spaces on every terminal.
	for r := range cells {
		for i, ch := range cells[r] {
			if ch == 0x2800 {
				cells[r][i] = ' '
			}
		}
	}
	return cells
}

// timeAxis is the labels under a plot of w cells spanning span: "-1h",
// "-45m", …, "now", at round steps that fit.
func timeAxis(span time.Duration, w int) string {
	steps := []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute, 30 * time.Minute,
		time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour}
	step := steps[len(steps)-1]
	for _, s := range steps {
		n := int(span / s)
		if n <= 6 && w/max(n, 1) >= 8 {
			step = s
			break
		}
	}
	line := []rune(strings.Repeat(" ", w))
	put := func(at int, s string) {
		r := []rune(s)
		at = max(0, min(at, w-len(r)))
		for i := range r {
			line[at+i] = r[i]
		}
	}
	put(w-3, "now")
	for ago := step; ago <= span; ago += step {
		x := w - int(float64(ago)/float64(span)*float64(w))
		if x < w-3-len(agoLabel(ago))-1 { // not over "now"
			put(x-len(agoLabel(ago))/2, agoLabel(ago))
		}
	}
	return string(line)
}

func agoLabel(d time.Duration) string {
	if d%time.Hour == 0 {
		return "-" + strconv.Itoa(int(d/time.Hour)) + "h"
	}
	return "-" + strconv.Itoa(int(d/time.Minute)) + "m"
}

func center(s string, w int) string {
	n := lipgloss.Width(s)
	if n >= w {
		return s
	}
	return strings.Repeat(" ", (w-n)/2) + s + strings.Repeat(" ", w-n-(w-n)/2)
}

// shortNumber is 0, 950, 1.2k, 3.4M: a value axis label.
func shortNumber(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e9:
		return trimZero(strconv.FormatFloat(v/1e9, 'f', 1, 64)) + "G"
	case a >= 1e6:
		return trimZero(strconv.FormatFloat(v/1e6, 'f', 1, 64)) + "M"
	case a >= 1e3:
		return trimZero(strconv.FormatFloat(v/1e3, 'f', 1, 64)) + "k"
	case a >= 10 || a == 0:
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return trimZero(strconv.FormatFloat(v, 'f', 1, 64))
}

func trimZero(s string) string { return strings.TrimSuffix(s, ".0") }
