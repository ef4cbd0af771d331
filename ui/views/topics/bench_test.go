package topics_test

import (
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
	"ilinkdash/ui/internal/viewtest"
	. "ilinkdash/ui/views/topics"
)

// BenchmarkTopicsView10k is the cost of one frame of the topics table with
// 10,000 topics (colours on): View only; sorting and filtering happen when
// data arrives.
func BenchmarkTopicsView10k(b *testing.B) {
	ctx := viewtest.BenchContext(common.FullColor)
	topics, _ := fakes.Big(10_000, 1)
	v := New(ctx, fakes.NewDemo())
	v.SetSize(120, 37)
	for i := 0; i < 5; i++ {
		v.Update(common.DataMsg{Res: common.ResTopics, At: fakes.Epoch.Add(time.Duration(i) * 2 * time.Second), Data: topics})
	}
	for i := 0; i < 150; i++ { // move the cursor to the middle
		v.Update(tea.KeyPressMsg{Code: tea.KeyPgDown})
	}
	viewtest.BenchFrames(b, v)
}

// BenchmarkTopicsArrival10k is the per-poll cost of taking in a list of
// 10,000 topics (histories, cells, sort, filter).
func BenchmarkTopicsArrival10k(b *testing.B) {
	ctx := viewtest.BenchContext(common.FullColor)
	topics, _ := fakes.Big(10_000, 1)
	v := New(ctx, fakes.NewDemo())
	v.SetSize(120, 37)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		v.Update(common.DataMsg{Res: common.ResTopics, At: fakes.Epoch.Add(time.Duration(i) * time.Second), Data: topics})
	}
}
