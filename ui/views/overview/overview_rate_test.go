package overview

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"ilinkdash/ilink/admin"
	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/viewtest"
)

func TestRecentActivityTrimsLeadingIdleSeconds(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	pts := make([]admin.StatPoint, 900)
	for i := range pts {
		pts[i].Time = t0.Add(time.Duration(i) * time.Second)
		if i >= 880 { // traffic in the last 20 s only
			pts[i].RecordsIn = 100
		}
	}
	got := recentActivity(pts, 60)
	if len(got) != 60 || !got[0].Time.Equal(pts[840].Time) {
		t.Fatalf("young cluster: kept %d points from %v, want the last 60", len(got), got[0].Time)
	}
	pts[100].RecordsOut = 1 // activity 800 s ago: keep everything from there
	if got := recentActivity(pts, 60); len(got) != 800 {
		t.Fatalf("kept %d points, want 800", len(got))
	}
	if got := recentActivity(pts[:30], 60); len(got) != 30 {
		t.Fatalf("short series: kept %d points, want all 30", len(got))
	}
}

var t0 = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

// The rate "now" is the last complete second's: a stat series ends with
// the current second, still counting (PROTOCOL.md, STAT SERIES), which
// read a quarter of the way in said a quarter of the real rate.
func TestOverviewRateNowIsTheLastCompleteSecond(t *testing.T) {
	s := withStats(func(i int) admin.StatPoint { return admin.StatPoint{RecordsIn: 400, RecordsOut: 200} }, func(last *admin.StatPoint) {
		last.RecordsIn, last.RecordsOut = 100, 50 // the current second, a quarter counted
	})
	if !strings.Contains(s, "records in      400/s") || !strings.Contains(s, "records out     200/s") {
		t.Fatalf("the rates now are not the last complete second's (400/s in, 200/s out):\n%s", s)
	}
}

// The in and out sparklines are as wide, whatever their peaks' figures
// ("peak 1.81k/s" and "peak 479/s"), so that a column is the same
// seconds in both.
func TestOverviewInOutSparklinesLineUp(t *testing.T) {
	mustLineUp(t, withStats(func(i int) admin.StatPoint {
		return admin.StatPoint{RecordsIn: 1000 + float64(i%7)*100, RecordsOut: 400 + float64(i%5)*20}
	}, nil))
}

// mustLineUp fails unless the records in and records out lines' sparklines
// start and end in the same columns.
func mustLineUp(t *testing.T, screen string) {
	t.Helper()
	var spans [][2]int
	for _, l := range strings.Split(screen, "\n") {
		if !strings.HasPrefix(l, "records in ") && !strings.HasPrefix(l, "records out ") {
			continue
		}
		rs := []rune(l)
		first, last := -1, -1
		for i, r := range rs {
			if r >= '▁' && r <= '█' {
				if first < 0 {
					first = i
				}
				last = i
			}
		}
		spans = append(spans, [2]int{first, last})
	}
	if len(spans) != 2 || spans[0][0] < 0 || spans[0] != spans[1] {
		t.Fatalf("the in and out sparklines do not span the same columns (%v):\n%s", spans, screen)
	}
}

// withStats is the Overview (120x37, plain) given a stat series of 900
// seconds ending at t0, point i from point(i) (its Time set here); last,
// when set, edits the last point first. It returns the screen's text.
func withStats(point func(i int) admin.StatPoint, last func(*admin.StatPoint)) string {
	v := New(viewtest.BenchContext(common.Plain), nil)
	v.SetSize(120, 37)
	pts := make([]admin.StatPoint, 900)
	for i := range pts {
		pts[i] = point(i)
		pts[i].Time = t0.Add(time.Duration(i-899) * time.Second)
	}
	if last != nil {
		last(&pts[len(pts)-1])
	}
	v.Update(common.DataMsg{Res: common.ResStats, At: t0, Data: admin.StatSeries{Resolution: time.Second, Points: pts}})
	return ansi.Strip(v.View())
}
