package ui

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	lagfile "ilinkdash/ilink/admin/history"
)

// The root records every polled list into the lag history: the groups'
// lag (as the health tracker judged it), the cluster's in/out, the queues'
// depths; a :ctx switch would detach it (not tested here).
func TestPollsAreRecorded(t *testing.T) {
	hs := newHarness(t, 120, 40)
	st, warn, err := lagfile.Open(filepath.Join(t.TempDir(), lagfile.FileName("demo")), lagfile.Options{Now: hs.ctx.Now})
	if err != nil || warn != nil {
		t.Fatal(err, warn)
	}
	defer st.Close()
	WithLagHistory(st, nil)(hs.m)
	hs.warm(15) // 30 s of polls
	for _, se := range []lagfile.Series{lagfile.GroupLag("payment-audit"), lagfile.ClusterIn(), lagfile.ClusterOut()} {
		pts, err := st.Query(se, 15*time.Minute)
		if err != nil || len(pts) < 3 {
			t.Errorf("%v: %d points (%v), want one a 10 s step", se, len(pts), err)
		}
	}
	in, _ := st.Query(lagfile.ClusterIn(), 15*time.Minute)
	if in[len(in)-1].V <= 0 {
		t.Errorf("cluster in %v: the demo has traffic", in)
	}
	// The group detail draws it.
	hs.key("3", "/")
	hs.typeText("payment-audit")
	hs.key("enter", "enter")
	hs.warm(1)
	if s := hs.screen(); !strings.Contains(s, "Lag · last 1h") || !strings.Contains(s, "now") {
		t.Fatalf("no lag chart:\n%s", s)
	}
}

// A history file set aside (or none: in use) is said on the hint line at
// the start; the dashboard runs.
func TestLagHistoryWarningShown(t *testing.T) {
	hs := newHarness(t, 120, 40)
	WithLagHistory(nil, errors.New("no lag history this run: in use by another ilinkdash"))(hs.m)
	if s := hs.screen(); !strings.Contains(s, "no lag history this run: in use by another ilinkdash") {
		t.Fatalf("warning not shown:\n%s", s)
	}
}
