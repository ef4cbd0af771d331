package topics_test

import (
	"context"
	"strings"
	"testing"
	"time"

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

// busyInternal is the fake with a busy internal topic: 500 records/s
// into SYSTEM.GROUPS.
type busyInternal struct{ *fakes.Source }

func (s busyInternal) ListTopics(ctx context.Context) ([]admin.TopicInfo, error) {
	ts, err := s.Source.ListTopics(ctx)
	for i := range ts {
		if ts[i].Internal {
			ts[i].RecordsInPerSec, ts[i].RecordsOutPerSec = 500, 300
		}
	}
	return ts, err
}

// The list's summary sums the rates of the topics it counts: a hidden
// internal topic (SYSTEM.GROUPS) was in its "in N/s" though no row showed
// it; with i it is shown, and summed.
func TestTopicsSummarySumsTheListedTopics(t *testing.T) {
	var src busyInternal
	r := viewtest.New(t, false, func(ctx *common.Context, s *fakes.Source) common.View {
		src = busyInternal{s}
		return topics.New(ctx, src)
	})
	src.Advance(time.Minute)
	ts, err := src.ListTopics(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r.Send(common.DataMsg{Res: common.ResTopics, At: r.Now, Data: ts})
	var in, out, inAll, outAll float64
	for _, ti := range ts {
		inAll += ti.RecordsInPerSec
		outAll += ti.RecordsOutPerSec
		if !ti.Internal {
			in += ti.RecordsInPerSec
			out += ti.RecordsOutPerSec
		}
	}
	listed := "in " + common.Rate(in) + "/s · out " + common.Rate(out) + "/s"
	all := "in " + common.Rate(inAll) + "/s · out " + common.Rate(outAll) + "/s"
	if listed == all {
		t.Fatalf("%q: the internal topic's rates do not show in the sums", listed)
	}
	r.MustShow("1 internal hidden", listed)
	r.Key("i")
	r.MustShow("SYSTEM.GROUPS", all)
	r.Send(common.DataMsg{Res: common.ResTopics, At: r.Now, Data: ts})
	r.MustShow("SYSTEM.GROUPS", all)
	r.Key("i")
	r.MustShow(listed)
}
