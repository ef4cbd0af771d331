package overview_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
	"ilinkdash/ui/internal/viewtest"
	"ilinkdash/ui/views/overview"
)

// inOutHistory answers the cluster's in/out: 100/s in, 40/s out, a point
// a minute over the span asked for.
type inOutHistory struct {
	mu    sync.Mutex
	now   func() time.Time
	since time.Time // no point before (zero: the whole span)
	spans []time.Duration
}

func (h *inOutHistory) GroupLag(string, time.Duration) ([]common.HistPoint, error) { return nil, nil }

func (h *inOutHistory) ClusterInOut(span time.Duration) (in, out []common.HistPoint, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.spans = append(h.spans, span)
	for at := h.now().Add(-span); !at.After(h.now()); at = at.Add(time.Minute) {
		if at.Before(h.since) {
			continue
		}
		in = append(in, common.HistPoint{At: at, V: 100})
		out = append(out, common.HistPoint{At: at, V: 40})
	}
	return in, out, nil
}

func (h *inOutHistory) Step(time.Duration) time.Duration { return time.Minute }

// historyRig is the Overview reading its in/out from h on the rig's
// clock; setup, when set, is given the clock's start before the view is
// made.
func historyRig(t *testing.T, h *inOutHistory, setup func(now time.Time)) *viewtest.Rig {
	return viewtest.Polled(t, false, func(ctx *common.Context, _ *fakes.Source) common.View {
		h.now = ctx.Now
		if setup != nil {
			setup(ctx.Now())
		}
		ctx.History = h
		return overview.New(ctx, nil)
	})
}

// With a history the Overview's in/out lines show the cluster's history
// over the span chosen, and w changes the span.
func TestOverviewInOutFromHistory(t *testing.T) {
	h := &inOutHistory{}
	r := historyRig(t, h, nil)
	r.MustShow("records in", "100/s", "peak 100/s", "records out", "40/s", "last 1h from the history", "w: 15m [1h] 6h 24h")
	r.Key("w")
	r.MustShow("last 6h from the history", "w: 15m 1h [6h] 24h")
	h.mu.Lock()
	defer h.mu.Unlock()
	if n := len(h.spans); n < 2 || h.spans[0] != time.Hour || h.spans[n-1] != 6*time.Hour {
		t.Fatalf("spans read: %v", h.spans)
	}
}

// A history that holds less than two minutes (a first run: one or two
// points, a column at the right edge of an hour) does not replace the live
// statistics' last minute; the caption says since when the history
// records and that w chooses its span, and once it covers two minutes the
// history is drawn.
func TestOverviewLiveUntilTheHistoryCovers(t *testing.T) {
	h := &inOutHistory{}
	r := historyRig(t, h, func(now time.Time) { h.since = now.Add(-30 * time.Second).Truncate(time.Minute).Add(time.Minute) })
	r.MustShow("records in", "oldest left", "history since", "w: 15m [1h] 6h 24h")
	r.MustNotShow("from the history")
	h.mu.Lock()
	h.since = h.now().Add(-3 * time.Minute)
	h.mu.Unlock()
	r.Key("w") // a new span reads the history again
	r.MustShow("last 6h from the history", "100/s", "w: 15m 1h [6h] 24h")
}

// From the history too the in and out sparklines are as wide ("peak
// 100/s" and "peak 40/s"), a column the same minutes in both.
func TestOverviewHistorySparklinesLineUp(t *testing.T) {
	h := &inOutHistory{}
	r := historyRig(t, h, nil)
	r.MustShow("last 1h from the history")
	peakAt := map[string]int{}
	for _, l := range strings.Split(r.Screen(), "\n") {
		for _, label := range []string{"records in ", "records out "} {
			if i := strings.Index(l, " peak "); i >= 0 && strings.HasPrefix(l, label) {
				peakAt[label] = len([]rune(l[:i]))
			}
		}
	}
	if len(peakAt) != 2 || peakAt["records in "] != peakAt["records out "] {
		t.Fatalf("the in and out sparklines end in different columns (%v):\n%s", peakAt, r.Screen())
	}
}
