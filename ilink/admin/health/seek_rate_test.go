package health

import (
	"testing"

	"ilinkdash/ilink/admin"
)

// TestSeekIsNotConsumption: an operator's seek moves the commits of a group
// without a member; the group's RATE/s is the consumption it measured, so
// the move adds nothing to it, while the same advance made by a member (or
// by a member that joined and left between two lists: its generation
// moved) counts.
func TestSeekIsNotConsumption(t *testing.T) {
	m := New(DefaultConfig())
	// legacy-export: no member, commit 100 of 1,905 for three lists, then
	// seeked to the end (1,905), then listed twice more.
	commit := []int64{100, 100, 100, 1905, 1905, 1905}
	var st GroupStatus
	for i, c := range commit {
		g := group("legacy-export", admin.GroupEmpty, 0, part("INVENTORY.UPDATE", 0, c, 0, 1905))
		g.Generation = 4
		st = m.ObserveGroups([]admin.GroupInfo{g}, at(float64(i)))[0]
	}
	if st.Rate != 0 {
		t.Errorf("seeked group: rate %.1f/s, want 0 (a seek is not consumption)", st.Rate)
	}
	if st.Word != Empty {
		t.Errorf("seeked group: %v, want EMPTY", st.Word)
	}

	// The same advance by a member: 1,805 records in the 5 s window.
	m = New(DefaultConfig())
	for i, c := range commit {
		g := group("billing", admin.GroupStable, 1, part("ORDER.EVENT", 0, c, 0, 1905))
		g.Generation = 4
		st = m.ObserveGroups([]admin.GroupInfo{g}, at(float64(i)))[0]
	}
	if want := 1805.0 / 5; st.Rate != want {
		t.Errorf("consuming group: rate %.1f/s, want %.1f", st.Rate, want)
	}

	// A member that joined, committed and left between two lists: both
	// lists without a member, but the generation moved: consumption.
	m = New(DefaultConfig())
	for i, c := range commit {
		g := group("batch", admin.GroupEmpty, 0, part("T", 0, c, 0, 1905))
		g.Generation = 4
		if i >= 3 {
			g.Generation = 5
		}
		st = m.ObserveGroups([]admin.GroupInfo{g}, at(float64(i)))[0]
	}
	if want := 1805.0 / 5; st.Rate != want {
		t.Errorf("batch consumer between two lists: rate %.1f/s, want %.1f", st.Rate, want)
	}
}
