package e2e

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink/admin/history"
	"ilinkdash/ilink/ilinktest"
)

// TestLagHistorySurvivesRestart (issue 26, History): the dashboard
// records a group's lag of 18 into the history file; it quits, the file is
// closed, the group catches up (lag 0); a new dashboard on the reopened
// file shows, in the group's detail, the lag chart of the points from
// before the restart (its scale tops at 20: the new points alone, all 0,
// would top it at 1), over 1 h and, after `w`, over 6 h.
func TestLagHistorySurvivesRestart(t *testing.T) {
	t.Parallel()
	const topic, group = "E2E.LAG", "e2e-lag"
	e, _ := topicWithRecords(t, topic, "partitions=2,replicas=2", 20)
	idleGroup(t, e, group, topic, 1)
	path := filepath.Join(t.TempDir(), history.FileName("e2e"))

	st, warn, err := history.Open(path, history.Options{})
	if err != nil || warn != nil {
		t.Fatalf("open: %v %v", err, warn)
	}
	d := startDash(t, e, dashOpts{lag: st})
	d.keys("3")
	d.waitFor(group+" with lag 18", func(s string) bool {
		f := groupRow(s, group)
		return f != nil && f[4] == "18"
	})
	var pts []history.Point
	if !ilinktest.Poll(deadline, func() bool {
		pts, _ = st.Query(history.GroupLag(group), time.Hour)
		return len(pts) > 0 && pts[len(pts)-1].V == 18
	}) {
		t.Fatalf("lag 18 not recorded: %v", pts)
	}
	d.quit()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	// The group catches up while no dashboard runs.
	_, ends := e.TopicOffsets(topic)
	next := map[int32]int64{}
	for p, end := range ends {
		next[int32(p)] = end
	}
	commitEach(t, e, group, topic, next)

	st, warn, err = history.Open(path, history.Options{})
	if err != nil || warn != nil {
		t.Fatalf("reopen: %v %v", err, warn)
	}
	defer st.Close()
	d = startDash(t, e, dashOpts{lag: st})
	d.keys("3")
	d.waitFor(group+" caught up", func(s string) bool {
		f := groupRow(s, group)
		return f != nil && f[4] == "0"
	})
	d.openRow(group)
	chart := func(span string) func(string) bool {
		return func(s string) bool {
			return strings.Contains(s, "lag 0") && strings.Contains(s, "Lag · last "+span) &&
				strings.Contains(s, "20 ┤") && strings.ContainsAny(s, "⠁⠂⠄⡀⠈⠐⠠⢀⣀⠉⠒⠤") && strings.Contains(s, "now")
		}
	}
	d.waitFor("the 1 h chart with the lag from before the restart", chart("1h"))
	d.press("w")
	d.waitFor("the 6 h chart with it too", chart("6h"))
	if s := d.waitText("w: 15m 1h [6h] 24h"); !strings.Contains(s, "-6h") {
		t.Errorf("the 6 h chart's time axis: %s", s)
	}
}
