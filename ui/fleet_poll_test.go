package ui

import (
	"context"
	"slices"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"ilinkdash/ui/common"
	"ilinkdash/ui/views/fleet"
	"ilinkdash/ui/views/overview"
)

// A Fleet's cluster polls, while its tabs are hidden, what a single
// dashboard on its Overview polls (issue 27 point 3), whichever tab it was
// left on: opened on its Cluster tab it reads the replication status and
// the leadership table; back on the Fleet tab those go idle at their next
// tick; opened again they are read at once.
func TestFleetHiddenClusterPollsWhatItsOverviewDoes(t *testing.T) {
	var now time.Time
	f := fleetOf(t, 2, -1, &now)
	f.started = true // as after Init (whose polls fleetOf makes by hand)
	overviewPolls := func(id common.ResID) bool {
		return id == common.ResStats || slices.Contains(overview.AlwaysPolled, id)
	}
	hiddenLikeOverview := func(when string) {
		t.Helper()
		for i, c := range f.clusters {
			for id := common.ResID(0); id < common.NumRes; id++ {
				if c.m.wanted(id) != overviewPolls(id) {
					t.Errorf("%s: cluster %d wants %v: %v, its Overview's would: %v", when, i, id, c.m.wanted(id), overviewPolls(id))
				}
			}
		}
	}
	hiddenLikeOverview("never opened")

	m := f.clusters[0].m
	extra := []common.ResID{common.ResReplication, common.ResLeaders}
	f.Update(fleet.OpenMsg{Index: 0})
	f.Update(tea.KeyPressMsg{Code: '4', Text: "4"})
	if m.active != common.ViewCluster {
		t.Fatalf("4 on cluster 0's tabs shows view %v, not the Cluster tab", m.active)
	}
	for _, id := range extra {
		s := m.poll.res[id]
		if !s.inFlight {
			t.Fatalf("cluster 0 on its Cluster tab does not read %v", id)
		}
		data, err := s.fetch(context.Background())
		f.Update(clusterMsg{i: 0, msg: pollResultMsg{res: id, gen: s.gen, data: data, err: err, sent: now, at: now}})
		if !s.armed {
			t.Fatalf("cluster 0 on its Cluster tab does not poll %v again", id)
		}
	}

	f.Update(tea.KeyPressMsg{Code: '0', Text: "0"})
	if f.Shown() != -1 {
		t.Fatal("0 did not return to the Fleet tab")
	}
	hiddenLikeOverview("cluster 0 left on its Cluster tab")
	for _, id := range extra {
		s := m.poll.res[id]
		f.Update(clusterMsg{i: 0, msg: pollTickMsg{res: id, gen: s.gen}})
		if !s.idle() {
			t.Errorf("behind the Fleet tab cluster 0's %v tick read it again (in flight %v, armed %v)", id, s.inFlight, s.armed)
		}
	}

	_, cmd := f.Update(fleet.OpenMsg{Index: 0})
	for _, id := range extra {
		if !m.poll.res[id].inFlight || cmd == nil {
			t.Errorf("cluster 0 opened again on its Cluster tab does not read %v at once", id)
		}
	}
}
