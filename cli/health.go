package cli

import (
	"context"
	"fmt"
	"path"
	"strings"
	"time"

	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/admin/health"
)

// The health rules of the CLI are the dashboard's: `get groups`,
// `describe group` and `check` feed a health.Monitor (docs/HEALTH.md).

// groupJSON is one group of `get groups` (docs/CLI.md). Lag is null when
// unknown, never -1.
type groupJSON struct {
	Name                    string   `json:"name"`
	State                   string   `json:"state"`
	Members                 int      `json:"members"`
	Topics                  []string `json:"topics"`
	Durable                 bool     `json:"durable"`
	Generation              int32    `json:"generation"`
	Health                  string   `json:"health"`
	HealthReason            string   `json:"health_reason"`
	Lag                     *int64   `json:"lag"`
	RatePerSec              *float64 `json:"rate_per_sec"`
	StalledSince            *string  `json:"stalled_since"`
	PartitionsWithoutCommit int      `json:"partitions_without_commit"`
	PartitionsLagUnknown    int      `json:"partitions_lag_unknown"`
	RebalancesInWindow      int      `json:"rebalances_in_window"`
}

func jsonTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func groupStatusJSON(g health.GroupStatus) groupJSON {
	topics := g.Info.Topics
	if topics == nil {
		topics = []string{}
	}
	out := groupJSON{Name: g.Info.Name, State: string(g.Info.State), Members: g.Info.Members, Topics: topics,
		Durable: g.Info.Durable, Generation: g.Info.Generation, Health: g.Word.String(), HealthReason: g.Reason,
		PartitionsWithoutCommit: g.Lag.NoCommit, PartitionsLagUnknown: g.Lag.Unknown, RebalancesInWindow: g.Rebalances}
	if g.Lag.Known() {
		n := g.Lag.Records
		out.Lag = &n
	}
	if g.Rate >= 0 {
		r := g.Rate
		out.RatePerSec = &r
	}
	if !g.StalledSince.IsZero() {
		s := jsonTime(g.StalledSince)
		out.StalledSince = &s
	}
	return out
}

// lagCell is a lag in a table: "-" when unknown.
func lagCell(known bool, n int64) string {
	if !known {
		return "-"
	}
	return fmt.Sprint(n)
}

// groupFilter selects groups by a comma-separated list of glob patterns
// (path.Match syntax). A pattern without glob characters names a group:
// one the cluster does not know is reported as state Dead.
type groupFilter struct {
	patterns []string
}

func parseGroupFilter(s string) (groupFilter, error) {
	var f groupFilter
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if _, err := path.Match(p, ""); err != nil {
			return f, fmt.Errorf("--groups %q: bad pattern %q: %v", s, p, err)
		}
		f.patterns = append(f.patterns, p)
	}
	return f, nil
}

func literal(p string) bool { return !strings.ContainsAny(p, `*?[\`) }

func (f groupFilter) all() bool { return len(f.patterns) == 0 }

func (f groupFilter) match(name string) bool {
	if f.all() {
		return true
	}
	for _, p := range f.patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// apply keeps the matching groups and adds a Dead one for every named
// group the list lacks, unless known (seen listed earlier in the run: the
// list omits the groups of a moving coordinator, and the monitor says so).
// unmatched are the glob patterns no group matched.
func (f groupFilter) apply(gs []admin.GroupInfo, known func(string) bool) (out []admin.GroupInfo, unmatched []string) {
	for _, g := range gs {
		if f.match(g.Name) {
			out = append(out, g)
		}
	}
	for _, p := range f.patterns {
		found := false
		for _, g := range gs {
			if ok, _ := path.Match(p, g.Name); ok {
				found = true
				break
			}
		}
		switch {
		case found, literal(p) && known(p):
		case literal(p):
			out = append(out, admin.GroupInfo{Name: p, State: admin.GroupDead})
		default:
			unmatched = append(unmatched, p)
		}
	}
	return out, unmatched
}

// sampler polls the cluster for the health rules: every list at the start
// and at the end of the span, and the group list every step between (the
// rules judge a group on its commits within the window, so it must see
// them as the dashboard does).
type sampler struct {
	qm     *admin.Qmgr
	mon    *health.Monitor
	filter groupFilter
	// definition reads the cluster definition (check: node-absent and
	// node-removed, as the dashboard judges them); nil skips it.
	definition func(context.Context) (admin.ClusterProperty, error)

	nodes, topics, groups, queues int // counts of the last lists
	unmatched                     []string
}

// pollGroups observes the group list; call names what failed.
func (s *sampler) pollGroups(ctx context.Context) (call string, err error) {
	gs, err := s.qm.GroupList(ctx)
	if err != nil {
		return "group list", err
	}
	gs, s.unmatched = s.filter.apply(gs, func(name string) bool {
		g, ok := s.mon.Group(name)
		return ok && g.Info.State != admin.GroupDead
	})
	s.groups = len(gs)
	s.mon.ObserveGroups(gs, time.Now())
	return "", nil
}

func (s *sampler) pollAll(ctx context.Context) (string, error) {
	ns, err := s.qm.Nodes(ctx)
	if err != nil {
		return "node list", err
	}
	s.mon.ObserveNodes(ns, time.Now())
	if s.definition != nil {
		def, err := s.definition(ctx)
		if err != nil {
			return "cluster definition", err
		}
		s.mon.ObserveDefinition(def, time.Now())
	}
	ts, err := s.qm.Topics(ctx)
	if err != nil {
		return "topic list", err
	}
	s.mon.ObserveTopics(ts, time.Now())
	qs, err := s.qm.Queues(ctx)
	if err != nil {
		return "queue list", err
	}
	s.mon.ObserveQueues(qs, time.Now())
	s.nodes, s.queues, s.topics = len(ns), len(qs), 0
	for _, t := range ts {
		if !t.Internal {
			s.topics++
		}
	}
	return s.pollGroups(ctx)
}

// run samples over span: everything now, the groups every step, and
// everything again once span has passed since the first group list.
func (s *sampler) run(ctx context.Context, span, step time.Duration) (string, error) {
	if call, err := s.pollAll(ctx); err != nil {
		return call, err
	}
	start := time.Now()
	for next := start.Add(step); next.Before(start.Add(span)); next = next.Add(step) {
		if err := sleepUntil(ctx, next); err != nil {
			return "", err
		}
		if call, err := s.pollGroups(ctx); err != nil {
			return call, err
		}
	}
	if err := sleepUntil(ctx, start.Add(span)); err != nil {
		return "", err
	}
	return s.pollAll(ctx)
}

func sleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return nil
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-tm.C:
		return nil
	}
}

// sampleStep is the time between two group lists of a sampled window: a
// fifth of the window, at most the dashboard's groups refresh interval,
// at least 100 ms.
func sampleStep(window, refresh time.Duration) time.Duration {
	step := window / 5
	if refresh > 0 {
		step = min(step, refresh)
	}
	return max(step, 100*time.Millisecond)
}
