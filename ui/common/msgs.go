package common

import (
	"strconv"
	"time"

	tea "charm.land/bubbletea/v2"

	"ilinkdash/config"
)

// ViewID names a tab. Async results are addressed to a view by its ID, so a
// reply for a view that is not on screen still lands in it.
type ViewID int

// The tabs, in tab order.
const (
	ViewOverview ViewID = iota
	ViewTopics
	ViewGroups
	ViewCluster
	ViewQueues
	ViewTail
	ViewPublish
	NumViews
)

func (v ViewID) String() string {
	switch v {
	case ViewOverview:
		return "overview"
	case ViewTopics:
		return "topics"
	case ViewGroups:
		return "groups"
	case ViewCluster:
		return "cluster"
	case ViewQueues:
		return "queues"
	case ViewTail:
		return "tail"
	case ViewPublish:
		return "publish"
	}
	return "view?"
}

// ResID names a polled admin resource. The root polls each with its own
// tick, re-armed only when its reply arrives, and fans the data out to every
// view (a view ignores what it does not use), so a resource shown by two
// views is still fetched once per interval.
type ResID int

// The polled resources.
const (
	ResSummary     ResID = iota // cluster name, engine version, nodes, leader
	ResStats                    // queue-manager-wide StatSeries
	ResTopics                   // topic list
	ResGroups                   // group list
	ResQueues                   // queue list
	ResCluster                  // cluster definition (ClusterProperty)
	ResReplication              // replication status
	ResLeaders                  // leadership table
	NumRes
)

// resources is each polled resource's name (String) and the refresh
// setting that paces it (Context.Interval): a new resource is a constant
// above, a row here and its declaration (ui/views/tab.Polled);
// TestEveryResourceHasARow holds the rows to the constants.
var resources = [NumRes]struct {
	name  string
	every func(config.Refresh) time.Duration
}{
	ResSummary:     {"nodes", func(r config.Refresh) time.Duration { return r.Overview }},
	ResStats:       {"stats", func(r config.Refresh) time.Duration { return r.Overview }},
	ResTopics:      {"topics", func(r config.Refresh) time.Duration { return r.Topics }},
	ResGroups:      {"groups", func(r config.Refresh) time.Duration { return r.Groups }},
	ResQueues:      {"queues", func(r config.Refresh) time.Duration { return r.Queues }},
	ResCluster:     {"cluster", func(r config.Refresh) time.Duration { return r.Cluster }},
	ResReplication: {"replication", func(r config.Refresh) time.Duration { return r.Replication }},
	ResLeaders:     {"leaders", func(r config.Refresh) time.Duration { return r.Cluster }},
}

func (r ResID) String() string {
	if r >= 0 && r < NumRes && resources[r].name != "" {
		return resources[r].name
	}
	return "resource?"
}

// DataMsg is a fresh, non-stale reply of a polled resource, fanned out to
// every view. Data's type is fixed per resource (see the views' sources).
type DataMsg struct {
	Res ResID
	// Sent is when the request went out, At when its reply arrived. A view
	// waiting for a read made after some event (the re-read after
	// MIMQE_CLUSTER_NOT_COMMITTED) compares Sent with the event's time.
	Sent time.Time
	At   time.Time
	Data any
}

// PollErrMsg is a failed poll, fanned out like DataMsg; views keep their
// last good data.
type PollErrMsg struct {
	Res ResID
	At  time.Time
	Err error
}

// ViewMsg is an asynchronous result addressed to one view (gh-dash's
// section envelope). Gen is the view's own generation counter at the time
// the command started: the view drops replies whose Gen is not current
// (it left the detail, or opened another one meanwhile).
type ViewMsg struct {
	To  ViewID
	Gen uint64
	Msg any
}

// Address runs fn in a command and delivers its result to view `to`.
func Address(to ViewID, gen uint64, fn func() any) tea.Cmd {
	return func() tea.Msg { return ViewMsg{To: to, Gen: gen, Msg: fn()} }
}

// RefreshMsg asks the root to poll resources now (after a mutation, or
// for the re-read after MIMQE_CLUSTER_NOT_COMMITTED).
type RefreshMsg struct{ Res []ResID }

// Refresh returns a command asking for an immediate poll of res.
func Refresh(res ...ResID) tea.Cmd {
	return func() tea.Msg { return RefreshMsg{Res: res} }
}

// OpenTailMsg asks the root to open the tail view on a topic or pattern.
type OpenTailMsg struct{ Pattern string }

// OpenPublishMsg asks the root to open the publish view (Topic may be "").
type OpenPublishMsg struct{ Topic string }

// SwitchViewMsg asks the root to show a tab.
type SwitchViewMsg struct{ To ViewID }

// Level grades a flash message.
type Level int

// Flash levels.
const (
	LevelInfo Level = iota
	LevelOK
	LevelWarn
	LevelError
)

// FlashMsg shows a transient message on the hint line.
type FlashMsg struct {
	Text  string // already sanitized
	Level Level
}

// Flash returns a command that shows a transient message.
func Flash(level Level, text string) tea.Cmd {
	return func() tea.Msg { return FlashMsg{Text: text, Level: level} }
}

// Send wraps a message in a command.
func Send(msg tea.Msg) tea.Cmd { return func() tea.Msg { return msg } }

// TargetKind says what an OpenMsg opens.
type TargetKind int

// The things a drill-down opens.
const (
	TargetGroup TargetKind = iota // the Groups tab's detail of Name (at Topic's Partition, if any)
	TargetTopic                   // the Topics tab's detail of Name
	TargetQueue                   // the Queues tab's detail of Name
	TargetNode                    // the Cluster tab's nodes pane, on Node (0: the pane alone)
	TargetTail                    // a tail of Topic's Partition from Offset
)

// Target is what a drill-down opens: names are raw (the views sanitize to
// display).
type Target struct {
	Kind      TargetKind
	Name      string // group, topic or queue
	Topic     string // TargetGroup: the topic of the partition to put the cursor on; TargetTail: the topic
	Partition int32  // with Topic; -1 none
	Offset    int64  // TargetTail: the first offset read (the group's commit)
	Node      int    // TargetNode
}

// View is the tab that shows t.
func (t Target) View() ViewID {
	switch t.Kind {
	case TargetGroup:
		return ViewGroups
	case TargetTopic:
		return ViewTopics
	case TargetQueue:
		return ViewQueues
	case TargetNode:
		return ViewCluster
	}
	return ViewTail
}

// Crumb is t's step in the breadcrumb ("group analytics", "partition 3"),
// sanitized.
func (t Target) Crumb() string {
	switch t.Kind {
	case TargetGroup:
		return "group " + S(t.Name)
	case TargetTopic:
		return "topic " + S(t.Name)
	case TargetQueue:
		return "queue " + S(t.Name)
	case TargetNode:
		if t.Node == 0 {
			return "nodes"
		}
		return "node " + strconv.Itoa(t.Node)
	}
	return "partition " + strconv.Itoa(int(t.Partition))
}

// OpenMsg is a drill-down (gh-dash's and soft-serve's navigation
// message): a view emits it, the root pushes where the user was on its
// navigation stack (esc walks back), switches to t's tab and asks that
// view to show t (Revealer). No view reaches into another.
type OpenMsg struct{ Target Target }

// Open returns the command of a drill-down to t.
func Open(t Target) tea.Cmd { return Send(OpenMsg{Target: t}) }

// Revealer is implemented by the views an OpenMsg lands in: Reveal shows
// t (opens its detail, puts the cursor on it) once the root has made the
// view the active tab.
type Revealer interface {
	Reveal(t Target) tea.Cmd
}
