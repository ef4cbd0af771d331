package views

import (
	"strings"
	"time"

	"ilinkdash/ilink/admin"
	"ilinkdash/ui/common"
)

// groupRow is one group with the lag history a view keeps for it.
type groupRow struct {
	info   admin.GroupInfo
	name   string // sanitized
	topics string // sanitized, joined
	hist   []lagSample
	lag    *common.Ring // lag per sample (-1: no commit), for the sparkline
	health Health
	rate   float64 // estimated consumption, records/s; -1 unknown
	spark  string  // precomputed sparkline
}

type topicEnd struct {
	end    int64
	rateIn float64
}

// groupTracker turns successive group (and topic) lists into per-group
// histories and health words. The groups view and the overview each keep
// one.
type groupTracker struct {
	rows     map[string]*groupRow
	ends     map[string]topicEnd
	topicsAt time.Time
	sparkW   int
}

func newGroupTracker() *groupTracker {
	return &groupTracker{rows: map[string]*groupRow{}, ends: map[string]topicEnd{}, sparkW: 12}
}

// observeTopics records the topics' end offsets and inbound rates, used to
// estimate how far each group has consumed.
func (t *groupTracker) observeTopics(ts []admin.TopicInfo, at time.Time) {
	clear(t.ends)
	for _, ti := range ts {
		t.ends[ti.Name] = topicEnd{end: ti.EndOffsetSum, rateIn: ti.RecordsInPerSec}
	}
	t.topicsAt = at
}

// consumed estimates Σ committed over the group's topics (see lagSample).
func (t *groupTracker) consumed(g admin.GroupInfo, at time.Time) (float64, bool) {
	if g.TotalLag < 0 || len(g.Topics) == 0 || t.topicsAt.IsZero() {
		return 0, false
	}
	dt := at.Sub(t.topicsAt).Seconds()
	var sum float64
	for _, name := range g.Topics {
		e, ok := t.ends[name]
		if !ok {
			return 0, false
		}
		sum += float64(e.end) + e.rateIn*dt
	}
	return sum - float64(g.TotalLag), true
}

// observe records a group list taken at `at` and returns the rows in the
// list's order, with health and rate evaluated.
func (t *groupTracker) observe(gs []admin.GroupInfo, at time.Time) []*groupRow {
	out := make([]*groupRow, 0, len(gs))
	seen := make(map[string]struct{}, len(gs))
	for _, g := range gs {
		r := t.rows[g.Name]
		if r == nil {
			r = &groupRow{lag: common.NewRing(lagHistory)}
			t.rows[g.Name] = r
		}
		r.info = g
		r.name = common.S(g.Name)
		names := make([]string, len(g.Topics))
		for i, n := range g.Topics {
			names[i] = common.S(n)
		}
		r.topics = strings.Join(names, ",")
		s := lagSample{At: at, Lag: g.TotalLag}
		s.Consumed, s.HasConsumed = t.consumed(g, at)
		r.hist = append(r.hist, s)
		if len(r.hist) > lagHistory {
			r.hist = append(r.hist[:0], r.hist[len(r.hist)-lagHistory:]...)
		}
		r.lag.Push(float64(g.TotalLag))
		r.health = EvaluateHealth(g.State, g.Members, r.hist, at)
		r.rate = consumptionRate(r.hist, at)
		r.spark = sparkLag(r.lag, t.sparkW)
		seen[g.Name] = struct{}{}
		out = append(out, r)
	}
	for name := range t.rows {
		if _, ok := seen[name]; !ok {
			delete(t.rows, name)
		}
	}
	return out
}

func sparkLag(r *common.Ring, w int) string {
	vals := r.Values(make([]float64, 0, w), w)
	return sparkline(vals, w)
}

// consumptionRate is the committed-offset progress per second over the
// health window; -1 when it cannot be estimated.
func consumptionRate(hist []lagSample, now time.Time) float64 {
	start := len(hist)
	for start > 0 && now.Sub(hist[start-1].At) <= healthWindow {
		start--
	}
	win := hist[start:]
	if len(win) < 2 {
		return -1
	}
	first, last := win[0], win[len(win)-1]
	span := last.At.Sub(first.At).Seconds()
	if !first.HasConsumed || !last.HasConsumed || span < 1 {
		return -1
	}
	return max(0, (last.Consumed-first.Consumed)/span)
}
