package ui

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	lagfile "ilinkdash/ilink/admin/history"

	"ilinkdash/config"
	"ilinkdash/ui/internal/fakes"
)

// The root records every polled list into the lag history: the groups'
// lag (as the health tracker judged it), the cluster's in/out, the queues'
// depths.
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
	hs.mustChartGroup("payment-audit")
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

// :ctx moves to the new context's history file: the old one is closed,
// the new one opened and recorded into (history-prod.db).
func TestContextSwitchMovesTheLagHistory(t *testing.T) {
	dir := t.TempDir()
	hs := newHarness(t, 120, 40)
	open := func(name string) (*lagfile.Store, error, error) {
		return lagfile.Open(filepath.Join(dir, lagfile.FileName(name)), lagfile.Options{Now: hs.ctx.Now})
	}
	first, _, err := open("demo")
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	WithLagHistory(first, nil)(hs.m)
	WithLagHistoryOpener(open)(hs.m)
	hs.m.switcher = func(context.Context, string) (Sources, config.Context, error) {
		c := config.DefaultContext()
		c.Name = "prod"
		return fakes.NewDemo(), c, nil
	}
	hs.warm(2)
	hs.command("ctx prod")
	if _, err := first.Query(lagfile.ClusterIn(), time.Hour); !errors.Is(err, lagfile.ErrClosed) {
		t.Fatalf("the first context's history is still open: %v", err)
	}
	if hs.m.lag == nil || hs.ctx.History == nil {
		t.Fatal("no history after the switch")
	}
	hs.warm(10)
	pts, err := hs.m.lag.st.Query(lagfile.ClusterIn(), time.Hour)
	if err != nil || len(pts) < 2 || hs.m.lag.st.Path() != filepath.Join(dir, "history-prod.db") {
		t.Fatalf("prod's history: %s, %d points, %v", hs.m.lag.st.Path(), len(pts), err)
	}
	hs.m.lag.st.Close()
}

// A shared history (serve's sessions) is read, never written: the group
// detail charts what the store holds, the Overview its in/out, while the
// polls add nothing to it (its one writer is serve's watcher).
func TestSharedLagHistoryIsReadOnly(t *testing.T) {
	hs := newHarness(t, 120, 40)
	st, _, err := lagfile.Open(filepath.Join(t.TempDir(), lagfile.FileName("demo")), lagfile.Options{Now: hs.ctx.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := hs.ctx.Now()
	for i := range 4 { // a minute apart: the Overview draws a history that covers 2 minutes
		at := now.Add(time.Duration(i-4) * time.Minute)
		ss := []lagfile.Sample{{Series: lagfile.GroupLag("payment-audit"), V: float64(100 * i)}, {Series: lagfile.ClusterIn(), V: 50}, {Series: lagfile.ClusterOut(), V: 40}}
		if err := st.Record(at, ss); err != nil {
			t.Fatal(err)
		}
	}
	WithSharedLagHistory(st)(hs.m)
	hs.warm(15) // 30 s of polls
	if s := hs.screen(); !strings.Contains(s, "from the history, oldest left") {
		t.Errorf("the Overview's in/out is not the history's:\n%s", s)
	}
	if pts, _ := st.Query(lagfile.GroupLag("payment-audit"), time.Hour); len(pts) != 4 || pts[3].V != 300 {
		t.Errorf("payment-audit's lag %v, want the 4 points recorded before (the root recorded into a shared history)", pts)
	}
	hs.mustChartGroup("payment-audit")
}

// mustChartGroup opens group's detail on the Groups tab and fails unless
// it draws the lag chart over the last hour.
func (hs *harness) mustChartGroup(group string) {
	hs.t.Helper()
	hs.key("3", "/")
	hs.typeText(group)
	hs.key("enter", "enter")
	hs.warm(1)
	if s := hs.screen(); !strings.Contains(s, "Lag · last 1h") || !strings.Contains(s, "now") {
		hs.t.Fatalf("no lag chart:\n%s", s)
	}
}
