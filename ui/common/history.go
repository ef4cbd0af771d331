package common

import (
	"strconv"
	"strings"
	"time"
)

// HistorySpans are the spans a history chart shows, in the order the
// ChartSpan key cycles them.
var HistorySpans = [...]time.Duration{15 * time.Minute, time.Hour, 6 * time.Hour, 24 * time.Hour}

// HistPoint is one recorded point of a history series.
type HistPoint struct {
	At time.Time
	V  float64
}

// History reads the recorded history the charts draw (the lag history of
// ilink/admin/history, which the root records every poll into). Its calls
// read a file: run them in a tea.Cmd.
type History interface {
	// GroupLag is a group's lag over the last span, oldest first.
	GroupLag(group string, span time.Duration) ([]HistPoint, error)
	// ClusterInOut is the cluster's records in and out per second over
	// the last span.
	ClusterInOut(span time.Duration) (in, out []HistPoint, err error)
	// Step is the spacing of the points over span (10 s, 1 min).
	Step(span time.Duration) time.Duration
}

// Span is the history span chosen (Context.HistorySpan), one of
// HistorySpans.
func (c *Context) Span() time.Duration {
	return HistorySpans[max(0, min(c.HistorySpan, len(HistorySpans)-1))]
}

// NextSpan chooses the next history span (after 24 h, 15 min again).
func (c *Context) NextSpan() { c.HistorySpan = (c.HistorySpan + 1) % len(HistorySpans) }

// SpanName is "15m", "1h", "6h" or "24h".
func SpanName(d time.Duration) string {
	if d < time.Hour {
		return strconv.Itoa(int(d/time.Minute)) + "m"
	}
	return strconv.Itoa(int(d/time.Hour)) + "h"
}

// SpanChoices is the spans with the one chosen in brackets:
// "15m [1h] 6h 24h".
func (c *Context) SpanChoices() string {
	var b strings.Builder
	for i, d := range HistorySpans {
		if i > 0 {
			b.WriteByte(' ')
		}
		if d == c.Span() {
			b.WriteString("[" + SpanName(d) + "]")
		} else {
			b.WriteString(SpanName(d))
		}
	}
	return b.String()
}
