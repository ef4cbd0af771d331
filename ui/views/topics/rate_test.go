package topics_test

import (
	"context"
	"strings"
	"testing"

	"ilinkdash/ilink/admin"
	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
	"ilinkdash/ui/internal/viewtest"
	"ilinkdash/ui/views/topics"
)

// countingSecond is the fake whose stat series end, as the engine's do
// (PROTOCOL.md, STAT SERIES), with the current second still counting: a
// quarter of the way in, a quarter of the rate.
type countingSecond struct{ *fakes.Source }

func (s countingSecond) StatSeries(ctx context.Context, scope string) (admin.StatSeries, error) {
	ser, err := s.Source.StatSeries(ctx, scope)
	if n := len(ser.Points); err == nil && n > 0 {
		for i := range ser.Points {
			ser.Points[i].RecordsIn, ser.Points[i].RecordsOut = 400, 200
		}
		ser.Points[n-1].RecordsIn, ser.Points[n-1].RecordsOut = 100, 50
	}
	return ser, err
}

// The topic detail's sparklines are the complete seconds': the counting
// one drew a dip in their last cell.
func TestTopicDetailSparklinesLeaveOutTheCountingSecond(t *testing.T) {
	r := viewtest.Polled(t, false, func(ctx *common.Context, s *fakes.Source) common.View {
		return topics.New(ctx, countingSecond{s})
	})
	r.Key("enter") // AUDIT.LOG
	r.MustShow("Topic AUDIT.LOG")
	lines := strings.Split(r.Screen(), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[1], "in ") {
		t.Fatalf("no rate line under the header:\n%s", r.Screen())
	}
	line := lines[1]
	if strings.ContainsAny(line, "▁▂▃▄▅▆▇") || strings.Count(line, "█") < 20 {
		t.Fatalf("the sparklines of a steady 400/s in and 200/s out dip (the counting second is in them):\n%s", line)
	}
}
