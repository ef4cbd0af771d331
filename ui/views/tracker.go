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
	// from and lag0 are the first sample of the window the health was
	// judged on (healthWindowOf): when it was taken and the lag then. A
	// LAGGING group's lag grew by info.TotalLag - lag0 since from.
	from time.Time
	lag0 int64
}

type topicEnd struct {
	end    int64
	rateIn float64
}

// GroupHealth turns successive group (and topic) lists into per-group
// histories and health words (EvaluateHealth). It is the one source of
// truth for group health: the root model makes one and gives it to the
// groups view and the overview, so the overview's group alerts are the
// groups table's verdicts, never a second evaluation that could disagree.
//
// Every view that receives a polled list passes it on (observeTopics,
// observe); the same list (the same fanned-out common.DataMsg) is taken in
// once, whichever view sees it first, and the others get the rows it made.
type GroupHealth struct {
	rows     map[string]*groupRow
	ends     map[string]topicEnd
	topicsAt time.Time
	sparkW   int

	// What was observed last, to take a fanned-out list in only once.
	topicsSeen listStamp
	groupsSeen listStamp
	last       []*groupRow
}

// listStamp identifies one polled list: its reply time and its backing
// array (the fanned-out message carries the same slice to every view).
type listStamp struct {
	at    time.Time
	first any // pointer to the first element; nil for an empty list
	n     int
	ok    bool
}

func stampOf[T any](xs []T, at time.Time) listStamp {
	s := listStamp{at: at, n: len(xs), ok: true}
	if len(xs) > 0 {
		s.first = &xs[0]
	}
	return s
}

func (s listStamp) same(o listStamp) bool {
	return s.ok && o.ok && s.at.Equal(o.at) && s.n == o.n && s.first == o.first
}

// NewGroupHealth returns an empty group health tracker.
func NewGroupHealth() *GroupHealth {
	return &GroupHealth{rows: map[string]*groupRow{}, ends: map[string]topicEnd{}, sparkW: 12}
}

// observeTopics records the topics' end offsets and inbound rates, used to
// estimate how far each group has consumed.
func (t *GroupHealth) observeTopics(ts []admin.TopicInfo, at time.Time) {
	st := stampOf(ts, at)
	if st.same(t.topicsSeen) {
		return
	}
	t.topicsSeen = st
	clear(t.ends)
	for _, ti := range ts {
		t.ends[ti.Name] = topicEnd{end: ti.EndOffsetSum, rateIn: ti.RecordsInPerSec}
	}
	t.topicsAt = at
}

// consumed estimates Σ committed over the group's topics (see lagSample).
func (t *GroupHealth) consumed(g admin.GroupInfo, at time.Time) (float64, bool) {
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
// list's order, with health and rate evaluated. The same list observed
// again (another view's copy of the same message) returns the same rows
// without adding a sample. The returned slice is shared: read only.
func (t *GroupHealth) observe(gs []admin.GroupInfo, at time.Time) []*groupRow {
	st := stampOf(gs, at)
	if st.same(t.groupsSeen) {
		return t.last
	}
	t.groupsSeen = st
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
		if win := healthWindowOf(r.hist, at); len(win) > 0 {
			r.from, r.lag0 = win[0].At, win[0].Lag
		}
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
	t.last = out
	return out
}

// row returns the tracked row of a group (nil when the last list did not
// have it).
func (t *GroupHealth) row(name string) *groupRow { return t.rows[name] }

func sparkLag(r *common.Ring, w int) string {
	vals := r.Values(make([]float64, 0, w), w)
	return sparkline(vals, w)
}

// consumptionRate is the committed-offset progress per second over the
// health window; -1 when it cannot be estimated.
func consumptionRate(hist []lagSample, now time.Time) float64 {
	win := healthWindowOf(hist, now)
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
