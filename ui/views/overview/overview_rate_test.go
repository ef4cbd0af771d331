package overview

import (
	"testing"
	"time"

	"ilinkdash/ilink/admin"
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
