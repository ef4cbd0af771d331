package components

import (
	"strings"
	"testing"
	"time"

	"charm.land/lipgloss/v2"
)

func chartOf(n int, span time.Duration, v func(i int) float64) Chart {
	to := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	c := Chart{Width: 80, Height: 10, From: to.Add(-span), To: to, Gap: time.Minute}
	step := span / time.Duration(n)
	for i := range n {
		c.Points = append(c.Points, ChartPoint{At: c.From.Add(step * time.Duration(i+1)), V: v(i)})
	}
	return c
}

// The chart has its size, a value axis from 0 to a round top above the
// largest value, a time axis from -1h to now, and a rising line that
// starts low on the left and ends at the top on the right.
func TestChartAxesAndLine(t *testing.T) {
	c := chartOf(400, time.Hour, func(i int) float64 { return float64(i+1) * 100 })
	out := c.Render()
	lines := strings.Split(out, "\n")
	if len(lines) != c.Height {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), c.Height, out)
	}
	for i, l := range lines {
		if w := lipgloss.Width(l); w > c.Width {
			t.Errorf("line %d is %d wide, want ≤ %d: %q", i, w, c.Width, l)
		}
	}
	if !strings.HasPrefix(strings.TrimSpace(lines[0]), "40k ┤") || !strings.Contains(lines[len(lines)-2], "0 ┤") {
		t.Errorf("value axis: top %q, bottom %q", lines[0], lines[len(lines)-2])
	}
	axis := lines[len(lines)-1]
	for _, l := range []string{"-1h", "-45m", "-30m", "-15m", "now"} {
		if !strings.Contains(axis, l) {
			t.Errorf("time axis %q lacks %s", axis, l)
		}
	}
	if strings.Index(axis, "-1h") > strings.Index(axis, "-15m") || !strings.HasSuffix(axis, "now") {
		t.Errorf("time axis order: %q", axis)
	}
	// The bottom plot row has dots on the left, the top row only on the right.
	bottom, topRow := []rune(lines[len(lines)-2]), []rune(lines[0])
	if !isBraille(bottom[len(bottom)-70]) {
		t.Errorf("no line low on the left: %q", lines[len(lines)-2])
	}
	if isBraille(topRow[len(topRow)-70]) || !isBraille(topRow[len(topRow)-1]) {
		t.Errorf("top row: %q", lines[0])
	}
}

func isBraille(r rune) bool { return r > 0x2800 && r <= 0x28ff }

// A gap longer than Gap (the dashboard was not running) is not drawn;
// no point at all says Empty.
func TestChartGapAndEmpty(t *testing.T) {
	c := chartOf(360, time.Hour, func(int) float64 { return 5 })
	c.Points = append(c.Points[:60], c.Points[300:]...) // -50m … -10m missing
	row := []rune(strings.Split(c.Render(), "\n")[0])
	if isBraille(row[len(row)-30]) || !isBraille(row[len(row)-2]) || !isBraille(row[len(row)-72]) {
		t.Errorf("gap drawn or data missing: %q", string(row))
	}
	c.Points = nil
	c.Empty = "no history yet"
	if out := c.Render(); !strings.Contains(out, "no history yet") {
		t.Errorf("empty chart:\n%s", out)
	}
}

// A frame of the largest chart the group detail draws, over the points
// of 6 h of 10 s steps, renders in well under 2 ms.
func BenchmarkChartRender(b *testing.B) {
	c := chartOf(2160, 6*time.Hour, func(i int) float64 { return float64(i%97) * 13 })
	c.Width, c.Height = 160, 16
	b.ReportAllocs()
	for b.Loop() {
		_ = c.Render()
	}
}
