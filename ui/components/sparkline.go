// Package components holds the dashboard's reusable widgets: a virtualized
// table, sparklines, and dialogs (forms, confirmations, notices). They read
// styles and keys from the shared common.Context.
package components

import (
	"math"
	"strings"
)

var sparkLevels = [...]rune{'▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'}

// Sparkline draws the last `width` values as block characters ▁▂▃▄▅▆▇█,
// scaled from 0 to the largest value shown. Fewer values than width are
// right-aligned (the newest sample is always the last cell); negative and
// NaN values ("no data") are blank.
func Sparkline(vals []float64, width int) string {
	return SparklineMax(vals, width, 0)
}

// SparklineMax is Sparkline with a fixed top of scale; top <= 0 means the
// largest value shown.
func SparklineMax(vals []float64, width int, top float64) string {
	if width <= 0 {
		return ""
	}
	if len(vals) > width {
		vals = vals[len(vals)-width:]
	}
	if top <= 0 {
		for _, v := range vals {
			if v > top {
				top = v
			}
		}
	}
	var b strings.Builder
	b.Grow(width * 3)
	for i := len(vals); i < width; i++ {
		b.WriteByte(' ')
	}
	for _, v := range vals {
		switch {
		case v < 0 || math.IsNaN(v):
			b.WriteByte(' ')
		case top <= 0:
			b.WriteRune(sparkLevels[0])
		default:
			idx := int(math.Round(v / top * float64(len(sparkLevels)-1)))
			idx = max(0, min(idx, len(sparkLevels)-1))
			b.WriteRune(sparkLevels[idx])
		}
	}
	return b.String()
}
