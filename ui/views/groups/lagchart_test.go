package groups_test

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
	"ilinkdash/ui/internal/viewtest"
	"ilinkdash/ui/views/groups"
)

// fakeHistory answers every group's lag with a ramp over the span asked
// for, and remembers the spans.
type fakeHistory struct {
	mu    sync.Mutex
	now   func() time.Time
	spans []time.Duration
	err   error
}

func (h *fakeHistory) GroupLag(_ string, span time.Duration) ([]common.HistPoint, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.spans = append(h.spans, span)
	if h.err != nil {
		return nil, h.err
	}
	var pts []common.HistPoint
	for i := range 90 {
		pts = append(pts, common.HistPoint{At: h.now().Add(-span + span*time.Duration(i)/90), V: float64(i * 100)})
	}
	return pts, nil
}

func (h *fakeHistory) ClusterInOut(time.Duration) (in, out []common.HistPoint, err error) {
	return nil, nil, nil
}

func (h *fakeHistory) Step(span time.Duration) time.Duration {
	if span <= time.Hour {
		return 10 * time.Second
	}
	return time.Minute
}

func withHistory(h *fakeHistory) func(*common.Context, *fakes.Source) common.View {
	return func(ctx *common.Context, s *fakes.Source) common.View {
		h.now = ctx.Now
		ctx.History = h
		return groups.New(ctx, s, nil)
	}
}

// The group detail draws the group's lag chart from the history over
// 1 h; w asks the history for 6 h (then 24 h, 15 m) and redraws, and is
// in help; a failed read is said in the chart.
func TestGroupDetailLagChart(t *testing.T) {
	h := &fakeHistory{}
	r := viewtest.Polled(t, false, withHistory(h))
	r.OpenRow("payment-audit")
	r.MustShow("Group payment-audit", "Lag · last 1h · w: 15m [1h] 6h 24h", "-45m", "now", "10k ┤", "COMMITTED")
	if !strings.ContainsAny(r.Screen(), "⠁⠂⠄⡀⠈⠐⠠⢀⣀⠉⠒⠤") {
		t.Fatalf("no line drawn:\n%s", r.Screen())
	}
	r.Key("w")
	r.MustShow("Lag · last 6h · w: 15m 1h [6h] 24h", "-6h", "-3h")
	r.Key("w", "w")
	r.MustShow("[15m]", "-10m")
	h.mu.Lock()
	spans := append([]time.Duration(nil), h.spans...)
	h.err = errors.New("disk full")
	h.mu.Unlock()
	if len(spans) < 4 || spans[0] != time.Hour || spans[len(spans)-3] != 6*time.Hour || spans[len(spans)-1] != 15*time.Minute {
		t.Fatalf("spans read: %v", spans)
	}
	var help []string
	for _, b := range r.V.ShortHelp() {
		help = append(help, b.Help().Key)
	}
	if !strings.Contains(strings.Join(help, " "), "w") {
		t.Errorf("w not in the hint line: %v", help)
	}
	r.Poll() // the chart follows the group polls
	r.MustShow("history: disk full")
}

// Without a history there is no chart, and w is not offered.
func TestGroupDetailWithoutHistory(t *testing.T) {
	r := viewtest.Polled(t, false, groupsView)
	r.OpenRow("payment-audit")
	r.MustShow("Group payment-audit", "COMMITTED")
	r.MustNotShow("Lag ·")
	for _, b := range r.V.ShortHelp() {
		if b.Help().Key == "w" {
			t.Errorf("w offered without a history")
		}
	}
}
