package groups_test

import (
	"testing"
	"time"

	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
	"ilinkdash/ui/internal/viewtest"
	. "ilinkdash/ui/views/groups"
)

// BenchmarkGroupsView2k: one frame of the groups table with 2,000 groups.
func BenchmarkGroupsView2k(b *testing.B) {
	ctx := viewtest.BenchContext(common.FullColor)
	topics, groups := fakes.Big(10_000, 2_000)
	v := New(ctx, fakes.NewDemo(), nil)
	v.SetSize(120, 37)
	for i := 0; i < 5; i++ {
		at := fakes.Epoch.Add(time.Duration(i) * 2 * time.Second)
		v.Update(common.DataMsg{Res: common.ResTopics, At: at, Data: topics})
		v.Update(common.DataMsg{Res: common.ResGroups, At: at, Data: groups})
	}
	viewtest.BenchFrames(b, v)
}

// BenchmarkGroupsArrival2k is the per-poll cost of 2,000 groups (health
// evaluation included).
func BenchmarkGroupsArrival2k(b *testing.B) {
	ctx := viewtest.BenchContext(common.FullColor)
	topics, groups := fakes.Big(10_000, 2_000)
	v := New(ctx, fakes.NewDemo(), nil)
	v.SetSize(120, 37)
	v.Update(common.DataMsg{Res: common.ResTopics, At: fakes.Epoch, Data: topics})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		v.Update(common.DataMsg{Res: common.ResGroups, At: fakes.Epoch.Add(time.Duration(i) * time.Second), Data: groups})
	}
}
