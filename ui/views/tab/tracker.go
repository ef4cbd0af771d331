package tab

import (
	"strconv"
	"strings"
	"time"

	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/admin/health"
	"ilinkdash/ui/common"
	"ilinkdash/ui/components"
)

// lagHistory is how many lag samples a group keeps for its sparkline.
const lagHistory = 60

// GroupRow is one group of the groups table: its health status and what
// the table shows of it, sanitized once per poll.
type GroupRow struct {
	St     health.GroupStatus
	Name   string // sanitized
	Topics string // sanitized, joined
	lag    *common.Ring
	Spark  string
}

// HealthTracker is the dashboard's one health evaluation: a health.Monitor
// fed with every polled list (groups, nodes, topics, queues). The root
// model makes one and gives it to the overview and the groups view, so the
// overview's alerts and the groups table's words are one judgement, the
// same one `ilinkdash check` makes.
//
// The root model feeds it every polled list once (Observe, as it fans the
// list out); the views only read it. A view made without one (a test of
// that view alone) owns a tracker and feeds it itself.
type HealthTracker struct {
	mon    *health.Monitor
	rows   map[string]*GroupRow
	sparkW int

	last   []*GroupRow
	alerts []health.Alert
	lists  int // polled lists taken in
}

// NewHealthTracker returns a tracker judging by cfg.
func NewHealthTracker(cfg health.Config) *HealthTracker {
	return &HealthTracker{mon: health.New(cfg), rows: map[string]*GroupRow{}, sparkW: 12}
}

// Config returns the thresholds in use.
func (t *HealthTracker) Config() health.Config { return t.mon.Config() }

// Observe takes in a polled list (other messages are ignored).
func (t *HealthTracker) Observe(msg common.DataMsg) {
	switch d := msg.Data.(type) {
	case []admin.GroupInfo:
		t.observeGroups(d, msg.At)
	case []admin.TopicInfo:
		t.mon.ObserveTopics(d, msg.At)
	case []admin.QueueInfo:
		t.mon.ObserveQueues(d, msg.At)
	case ClusterSummary:
		t.mon.ObserveNodes(d.Nodes, msg.At)
	case admin.ClusterProperty:
		t.mon.ObserveDefinition(d, msg.At)
	default:
		return
	}
	t.lists++
	t.alerts = t.mon.Alerts()
}

// Lists is how many polled lists the tracker has taken in: one a poll of
// each, as the root feeds it once (TestTrackerFedOncePerList).
func (t *HealthTracker) Lists() int { return t.lists }

// GroupCounts is what every tab says about the groups, from the one
// tracker: the rows of the groups table (the latest list, plus the durable
// groups missing from it that the monitor still tracks), how many are
// temporary, how many need attention (distinct groups with an alert), how
// many are not judged yet.
type GroupCounts struct {
	total, temporary, unlisted, Attention, Judging int
}

func (t *HealthTracker) Counts() GroupCounts {
	var c GroupCounts
	for _, r := range t.last {
		c.total++
		if !r.St.Info.Durable {
			c.temporary++
		}
		if !r.St.Unlisted.IsZero() {
			c.unlisted++
		}
		if r.St.Word == health.Unknown {
			c.Judging++
		}
	}
	seen := map[string]bool{}
	for _, a := range t.alerts {
		if strings.HasPrefix(string(a.Kind), "group-") && !seen[a.Subject] {
			seen[a.Subject] = true
			c.Attention++
		}
	}
	return c
}

// Text is the count in words: "7 groups (2 temporary, 1 missing from the
// list)".
func (c GroupCounts) Text() string {
	s := common.Plural(c.total, "group")
	var notes []string
	if c.temporary > 0 {
		notes = append(notes, strconv.Itoa(c.temporary)+" temporary")
	}
	if c.unlisted > 0 {
		notes = append(notes, strconv.Itoa(c.unlisted)+" missing from the list")
	}
	if len(notes) > 0 {
		s += " (" + strings.Join(notes, ", ") + ")"
	}
	return s
}

func (t *HealthTracker) observeGroups(gs []admin.GroupInfo, at time.Time) {
	sts := t.mon.ObserveGroups(gs, at)
	out := make([]*GroupRow, 0, len(sts))
	seen := make(map[string]struct{}, len(sts))
	for _, s := range sts {
		name := s.Info.Name
		r := t.rows[name]
		if r == nil {
			r = &GroupRow{lag: common.NewRing(lagHistory)}
			t.rows[name] = r
		}
		r.St = s
		r.Name = common.S(name)
		names := make([]string, len(s.Info.Topics))
		for i, n := range s.Info.Topics {
			names[i] = common.S(n)
		}
		r.Topics = strings.Join(names, ",")
		if s.Lag.Known() {
			r.lag.Push(float64(s.Lag.Records))
		}
		r.Spark = sparkLag(r.lag, t.sparkW)
		seen[name] = struct{}{}
		out = append(out, r)
	}
	// The durable groups missing from this list that the monitor still
	// tracks (their coordinator may be moving) stay rows, marked: the
	// overview counts and alerts on them, so the groups tab shows them.
	for _, s := range t.mon.Groups() {
		if s.Unlisted.IsZero() {
			continue
		}
		r := t.rows[s.Info.Name]
		if r == nil {
			continue
		}
		r.St = s
		seen[s.Info.Name] = struct{}{}
		out = append(out, r)
	}
	for name := range t.rows {
		if _, ok := seen[name]; !ok {
			delete(t.rows, name)
		}
	}
	t.last = out
}

// Alerts returns the alerts of the latest lists (shared: read only).
func (t *HealthTracker) Alerts() []health.Alert { return t.alerts }

// Forget drops a group the operator deleted: its absence from the next
// list is no "missing from the group list" warning.
func (t *HealthTracker) Forget(name string) {
	t.mon.Forget(name)
	t.alerts = t.mon.Alerts()
}

// Groups returns the rows of the latest group list, in its order (shared:
// read only).
func (t *HealthTracker) Groups() []*GroupRow { return t.last }

// Row returns a group's Row (nil when the latest list did not have it).
func (t *HealthTracker) Row(name string) *GroupRow { return t.rows[name] }

func sparkLag(r *common.Ring, w int) string {
	vals := r.Values(make([]float64, 0, w), w)
	return components.Sparkline(vals, w)
}
