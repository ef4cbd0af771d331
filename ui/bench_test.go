package ui

import (
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
)

// BenchmarkRootFrame10k is a whole frame (tab bar, topics table with
// 10,000 topics, hint line, status bar) with colours on.
func BenchmarkRootFrame10k(b *testing.B) {
	h := newHarness(b, 120, 40)
	h.setMode(common.FullColor)
	topics, groups := fakes.Big(10_000, 2_000)
	for i := 0; i < 3; i++ {
		at := h.Now.Add(time.Duration(i) * 2 * time.Second)
		h.m.fanOut(common.DataMsg{Res: common.ResTopics, At: at, Data: topics})
		h.m.fanOut(common.DataMsg{Res: common.ResGroups, At: at, Data: groups})
	}
	h.key("2")
	for i := 0; i < 100; i++ {
		h.send(tea.KeyPressMsg{Code: tea.KeyPgDown})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = h.m.View()
	}
}
