package tab

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/admin/health"
	"ilinkdash/ui/common"
)

// NodeView is one node as the overview and the cluster tab show it: the
// node list (the summary poll) set against the cluster definition (the
// definition poll), by node number. Both tabs build their rows with
// MergeNodes from the same two polls, so they list the same nodes with the
// same words and addresses.
type NodeView struct {
	ID      int
	QM      string // sanitized
	Addr    string // sanitized: the definition's host:port, else the node list's data address
	Info    admin.NodeInfo
	Def     admin.ClusterNode
	listed  bool // in the node list
	Defined bool // in the definition
	// absent: defined, not in the node list; removed: in the node list,
	// not defined (only when the definition has nodes: a standalone queue
	// manager has none).
	absent, removed bool
	// Stale: the node list is not fresh (its poll fails, or its data is
	// older than three intervals): the role and state are the last known,
	// greyed, and the state reads "Stale".
	Stale bool
}

// Role is the ROLE cell: the node list's word, "-" when it does not list
// the node.
func (n NodeView) Role() string {
	if !n.listed {
		return "-"
	}
	return common.S(string(n.Info.Role))
}

// State is the STATE cell: absent and removed before the node list's own
// word, "stale" instead of a word that is not fresh.
func (n NodeView) State() string {
	switch {
	case n.absent:
		return "absent"
	case n.removed:
		return "removed"
	case n.Stale:
		return "stale"
	}
	return common.S(string(n.Info.State))
}

func (n NodeView) Paint(st *common.Styles, s common.Style) common.Style {
	if n.Stale {
		return st.Faint
	}
	return s
}

func (n NodeView) StateStyle(st *common.Styles) common.Style {
	switch {
	case n.Stale:
		return st.Faint
	case n.absent || n.removed:
		return st.Warn
	}
	return nodeStateStyle(st, n.Info.State)
}

// MergeNodes sets the node list against the definition (either may be
// missing: ok false), ordered by node number.
func MergeNodes(list []admin.NodeInfo, listOK bool, def admin.ClusterProperty, defOK bool, stale bool) []NodeView {
	byID := map[int]*NodeView{}
	var order []int
	get := func(id int) *NodeView {
		if n, ok := byID[id]; ok {
			return n
		}
		n := &NodeView{ID: id}
		byID[id] = n
		order = append(order, id)
		return n
	}
	if defOK {
		for _, d := range def.Nodes {
			n := get(d.Number)
			n.Def, n.Defined = d, true
			n.QM = common.S(d.QueueManager)
			n.Addr = common.S(d.Host) + ":" + strconv.Itoa(d.Port)
		}
	}
	if listOK {
		for _, i := range list {
			n := get(i.ID)
			n.Info, n.listed, n.Stale = i, true, stale
			if !n.Defined {
				n.QM, n.Addr = common.S(i.QueueManager), common.S(i.DataAddr)
			}
		}
	}
	judge := listOK && defOK && len(def.Nodes) > 0
	out := make([]NodeView, 0, len(order))
	for _, id := range order {
		n := byID[id]
		n.absent = judge && n.Defined && !n.listed
		n.removed = judge && n.listed && !n.Defined
		out = append(out, *n)
	}
	slices.SortFunc(out, func(a, b NodeView) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// NodeCounts is the node count in words, the same in every tab: "4 nodes
// (1 down, 1 absent)".
func NodeCounts(st *common.Styles, ns []NodeView) string {
	var down, absent, removed int
	for _, n := range ns {
		switch {
		case n.absent:
			absent++
		case n.removed:
			removed++
		case n.listed && (n.Info.State == admin.NodeDown || n.Info.State == admin.NodeStopped):
			down++
		}
	}
	s := common.Plural(len(ns), "node")
	var notes []string
	for _, c := range []struct {
		n    int
		what string
	}{{down, "down"}, {absent, "absent"}, {removed, "removed"}} {
		if c.n > 0 {
			notes = append(notes, strconv.Itoa(c.n)+" "+c.what)
		}
	}
	if len(notes) > 0 {
		s += " " + st.Err.Render("("+strings.Join(notes, ", ")+")")
	}
	return s
}

// NodeFeed is what a tab knows of the node list's freshness: when it was
// last good, and since when its poll fails (zero while it answers).
type NodeFeed struct {
	OKAt     time.Time
	errSince time.Time
}

func (f *NodeFeed) Update(msg tea.Msg) {
	switch m := msg.(type) {
	case common.DataMsg:
		if m.Res == common.ResSummary {
			f.OKAt, f.errSince = m.At, time.Time{}
		}
	case common.PollErrMsg:
		// Its own poll failed, or another list's found no node serving
		// it since the node list last answered: either way the rows are
		// no longer the nodes' state now (a node that died after the
		// last node poll must not go on saying "running").
		lost := m.Res == common.ResSummary || (health.NotServing(m.Err) && m.At.After(f.OKAt))
		if lost && f.errSince.IsZero() {
			f.errSince = m.At
		}
	}
}

// Stale reports whether the node list is not fresh at now: its latest
// poll failed, or its data is older than three polling intervals.
func (f *NodeFeed) Stale(ctx *common.Context, now time.Time) bool {
	if f.OKAt.IsZero() {
		return false // nothing shown yet
	}
	return !f.errSince.IsZero() || now.Sub(f.OKAt) > ctx.StaleAfter(common.ResSummary)
}

// Marker is the line above a stale node table: "node list stale since
// 10:02:03 (…)": the rows are the last known, greyed.
func (f *NodeFeed) Marker(st *common.Styles, w int) string {
	return st.Warn.Render(common.Trunc("▲ node list stale since "+common.Clock(f.OKAt)+": the rows below are the last known (greyed), not the nodes' state now", w))
}

func nodeStateStyle(st *common.Styles, s admin.NodeState) common.Style {
	switch s {
	case admin.NodeRunning:
		return st.OK
	case admin.NodeSyncing:
		return st.Warn
	case admin.NodeDown, admin.NodeStopped:
		return st.Err
	}
	return st.Muted
}
