package cluster

import (
	"cmp"
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"ilinkdash/ilink/admin"
	"ilinkdash/ui/common"
	"ilinkdash/ui/components"
	"ilinkdash/ui/sanitize"
	"ilinkdash/ui/views/listdetail"
	"ilinkdash/ui/views/tab"
)

// View is the cluster tab: the cluster definition with its version
// (editable, with confirmation), node add/remove, replication status per
// node and per partition, and the leadership table. Definition changes
// that end in MIMQE_CLUSTER_NOT_COMMITTED are explained in words and
// followed by the re-read ilink-spec §3.8 prescribes.
type View struct {
	tab.Base
	src tab.ClusterAdmin

	prop      admin.ClusterProperty
	propOK    bool
	propAt    time.Time
	repl      admin.ReplicationStatus
	replOK    bool
	leads     admin.ClusterLeadTable
	leadsOK   bool
	summary   tab.ClusterSummary
	summaryOK bool
	feed      tab.NodeFeed // the node list's freshness
	stale     bool         // the rows were built stale

	panes listdetail.Panes // nodes, partitions, leadership, balance
	nodes *components.Table[nodeRow]
	parts *components.Table[admin.PartitionReplication]
	lead  *components.Table[leadRow]
	bal   *components.Table[balanceRow]

	balance admin.LeaderBalance // preferred vs current leaders (clusterbalance.go)

	flow  clusterFlow
	lflow leaderFlow

	focusNode int // a drill-down's node not listed yet (0: none)
}

// nodeRow is one row of the nodes pane: the node as every tab shows it
// (tab.NodeView, from the node list and the definition) and the definition's
// ILCC port.
type nodeRow struct {
	v tab.NodeView
}

func (r nodeRow) id() int { return r.v.ID }

type leadRow struct {
	i int
	r admin.LeadRow
}

// Definition-change operations.
const (
	opSet = iota + 1
	opAdd
	opRemove
)

type clusterOp struct {
	kind   int
	change admin.ClusterPropertyChange
	node   admin.ClusterNode
	remove int
	base   int64    // definition version the operation was prepared at
	what   []string // the change in words
}

// defOutcome classifies a definition-change reply.
type defOutcome int

const (
	outOK           defOutcome = iota
	outNotCommitted            // (not committed - retry)
	outUnknown                 // (outcome unknown - check VIEW CLUSTER)
	outPending                 // (earlier change still pending - retry)
	outMoved                   // MIMQE_CLUSTER_DEF_MOVED
	outNodeExists              // (qmgr or address is node N's)
	outInvalid                 // MIMQE_INVALID_PROPERTY
	outOther
)

// classifyDefErr reads the error's "NAME (tail)" text (spec E-01).
func classifyDefErr(err error) defOutcome {
	if err == nil {
		return outOK
	}
	s := err.Error()
	switch {
	case strings.Contains(s, "MIMQE_CLUSTER_NOT_COMMITTED") && strings.Contains(s, "outcome unknown"):
		return outUnknown
	case strings.Contains(s, "MIMQE_CLUSTER_NOT_COMMITTED") && strings.Contains(s, "earlier change still pending"):
		return outPending
	case strings.Contains(s, "MIMQE_CLUSTER_NOT_COMMITTED"):
		return outNotCommitted
	case strings.Contains(s, "MIMQE_CLUSTER_DEF_MOVED"):
		return outMoved
	case strings.Contains(s, "qmgr or address is node"):
		return outNodeExists
	case strings.Contains(s, "MIMQE_INVALID_PROPERTY"):
		return outInvalid
	}
	return outOther
}

type clusterFlow struct {
	stage   int
	op      clusterOp
	outcome defOutcome
	err     string // sanitized error text
	// reread is set once the re-read after a NOT_COMMITTED / DEF_MOVED
	// outcome arrived; version is what it read.
	awaiting bool
	since    time.Time // when the refusal arrived: the re-read must be sent after it
	reread   bool
	version  int64
}

const (
	cflowNone = iota
	cflowEdit
	cflowAdd
	cflowRemove
	cflowConfirm
	cflowOutcome
)

type clusterOpMsg struct {
	op     clusterOp
	err    error
	dlgGen uint64
}

const actResend = 1

// New returns the cluster view.
func New(ctx *common.Context, src tab.ClusterAdmin) *View {
	v := &View{Base: tab.New(ctx, common.ViewCluster), src: src}
	v.nodes = newNodeTable(ctx)
	v.parts = newReplicationTable(ctx)
	v.lead = newLeadTable(ctx)
	v.bal = newBalanceTable(ctx)
	v.panes.Add("nodes", listdetail.TableOps(v.nodes))
	v.panes.Add("partitions", listdetail.TableOps(v.parts))
	v.panes.Add("leadership", listdetail.TableOps(v.lead))
	v.panes.Add("balance", listdetail.TableOps(v.bal))
	return v
}

// newNodeTable is the nodes pane: the definition's nodes with their state.
func newNodeTable(ctx *common.Context) *components.Table[nodeRow] {
	type N = components.Column[nodeRow]
	t := components.NewTable(ctx, func(r nodeRow) string { return strconv.Itoa(r.id()) },
		N{Title: "NODE", Width: 5, Right: true,
			Text: func(r nodeRow) string { return strconv.Itoa(r.id()) },
			Cmp:  func(a, b nodeRow) int { return cmp.Compare(a.id(), b.id()) }},
		N{Title: "QMGR", Width: 10, Min: 5, Flex: true, Max: 16,
			Text:  func(r nodeRow) string { return r.v.QM },
			Paint: func(r nodeRow, st *common.Styles) common.Style { return r.v.Paint(st, common.Style{}) }},
		N{Title: "ADDRESS", Width: 21, Min: 10, Drop: 3,
			Text:  func(r nodeRow) string { return r.v.Addr },
			Paint: func(r nodeRow, st *common.Styles) common.Style { return r.v.Paint(st, common.Style{}) }},
		N{Title: "ILCC", Width: 5, Right: true, Drop: 5,
			Text: func(r nodeRow) string {
				if !r.v.Defined || r.v.Def.IlccPort == 0 {
					return "-"
				}
				return strconv.Itoa(r.v.Def.IlccPort)
			}},
		N{Title: "ROLE", Width: 8,
			Text: func(r nodeRow) string { return r.v.Role() },
			Paint: func(r nodeRow, st *common.Styles) common.Style {
				if r.v.Info.Role == admin.RoleLeader {
					return r.v.Paint(st, st.Accent)
				}
				return r.v.Paint(st, common.Style{})
			}},
		N{Title: "STATE", Width: 8, Min: 7,
			Text:  func(r nodeRow) string { return r.v.State() },
			Paint: func(r nodeRow, st *common.Styles) common.Style { return r.v.StateStyle(st) }},
		N{Title: "LAG REC", Width: 8, Right: true, Drop: 2,
			Text: func(r nodeRow) string { return common.Count(r.v.Info.LagRecords) },
			Cmp:  func(a, b nodeRow) int { return cmp.Compare(a.v.Info.LagRecords, b.v.Info.LagRecords) }},
		N{Title: "LAG", Width: 7, Right: true, Drop: 1,
			Text: func(r nodeRow) string { return common.Dur(r.v.Info.Lag) }},
	)
	t.Empty = "no node in the definition"
	t.SetSort(0, false)
	return t
}

// newReplicationTable is the partitions pane: leader, in-sync set and the
// followers' lag of every replicated partition.
func newReplicationTable(ctx *common.Context) *components.Table[admin.PartitionReplication] {
	type P = components.Column[admin.PartitionReplication]
	t := listdetail.NewPartitionTable(ctx, 18, func(p admin.PartitionReplication) (string, int32) { return p.Topic, p.Partition },
		P{Title: "LEADER", Width: 6, Right: true,
			Text: func(p admin.PartitionReplication) string {
				if p.Leader == 0 {
					return "none"
				}
				return tab.Itoa(int64(p.Leader))
			},
			Paint: func(p admin.PartitionReplication, st *common.Styles) common.Style {
				if p.Leader == 0 {
					return st.Err
				}
				return common.Style{}
			}},
		P{Title: "IN-SYNC", Width: 8, Min: 5,
			Text: func(p admin.PartitionReplication) string { return tab.Ints(p.InSync) },
			Cmp:  func(a, b admin.PartitionReplication) int { return cmp.Compare(len(a.InSync), len(b.InSync)) },
			Paint: func(p admin.PartitionReplication, st *common.Styles) common.Style {
				if len(p.InSync) < len(p.Followers)+1 {
					return st.Warn
				}
				return st.OK
			}},
		P{Title: "FOLLOWERS", Width: 26, Min: 10, Drop: 2,
			Text: func(p admin.PartitionReplication) string { return followersText(p.Followers) }},
		P{Title: "MAX LAG", Width: 8, Right: true, Drop: 1,
			Text: func(p admin.PartitionReplication) string { return common.Count(maxFollowerLag(p)) },
			Cmp: func(a, b admin.PartitionReplication) int {
				return cmp.Compare(maxFollowerLag(a), maxFollowerLag(b))
			}},
	)
	t.Empty = "no replicated partition"
	t.SetSort(0, false)
	return t
}

// newLeadTable is the leadership pane: the engine's lead table rows.
func newLeadTable(ctx *common.Context) *components.Table[leadRow] {
	type L = components.Column[leadRow]
	t := components.NewTable(ctx, func(r leadRow) string { return strconv.Itoa(r.i) },
		L{Title: "KIND", Width: 9,
			Text: func(r leadRow) string { return common.S(r.r.Kind) },
			Cmp:  func(a, b leadRow) int { return strings.Compare(a.r.Kind, b.r.Kind) },
			Paint: func(r leadRow, st *common.Styles) common.Style {
				switch r.r.Kind {
				case "offline":
					return st.Err
				case "election":
					return st.Warn
				}
				return common.Style{}
			}},
		L{Title: "NODE", Width: 4, Right: true,
			Text: func(r leadRow) string { return tab.Itoa(int64(r.r.Node)) },
			Cmp:  func(a, b leadRow) int { return cmp.Compare(a.r.Node, b.r.Node) }},
		L{Title: "TOPIC/BUNDLE", Width: 20, Min: 8, Flex: true,
			Text: func(r leadRow) string {
				switch {
				case r.r.Topic != "":
					return common.S(r.r.Topic) + "[" + tab.Itoa(int64(r.r.Partition)) + "]"
				case r.r.Bundle != "":
					return common.S(r.r.Bundle)
				}
				return "-"
			}},
		L{Title: "EPOCH", Width: 5, Right: true, Drop: 2,
			Text: func(r leadRow) string {
				if r.r.Epoch == 0 && r.r.Kind == "election" {
					return "-" // an election has no epoch
				}
				return tab.Itoa(int64(r.r.Epoch))
			}},
		L{Title: "DETAIL", Width: 24, Min: 8, Flex: true, Drop: 1,
			Text: func(r leadRow) string { return common.S(r.r.Detail) }},
	)
	t.Empty = "no leadership row"
	return t
}

func followersText(fs []admin.FollowerLag) string {
	var parts []string
	for _, f := range fs {
		s := tab.Itoa(int64(f.Node)) + ":"
		if f.InSync && f.LagRecords == 0 {
			s += "ok"
		} else {
			s += common.Count(f.LagRecords)
			if !f.InSync {
				s += "!"
			}
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " ")
}

func maxFollowerLag(p admin.PartitionReplication) int64 {
	var m int64
	for _, f := range p.Followers {
		m = max(m, f.LagRecords)
	}
	return m
}

func (v *View) Title() string         { return "Cluster" }
func (v *View) Primary() common.ResID { return common.ResCluster }
func (v *View) Wants() []common.ResID {
	return []common.ResID{common.ResCluster, common.ResReplication, common.ResLeaders}
}
func (v *View) Capturing() bool { return v.Dlg != nil || v.active().Filtering() }

func (v *View) active() listdetail.PaneTable { return v.panes.Active() }

// headerLines renders the definition block above the panes.
func (v *View) headerLines(st *common.Styles) []string {
	var lines []string
	name := v.summary.Cluster
	if v.propOK {
		name = v.prop.Name
	}
	title := st.Title.Render("Cluster " + common.S(name))
	if !v.propOK {
		return []string{title + st.Muted.Render("  loading the definition…")}
	}
	p := v.prop
	unset := func(n int) string {
		if n == 0 {
			return "unset"
		}
		return strconv.Itoa(n)
	}
	onoff := func(b bool) string {
		if b {
			return "on"
		}
		return "off"
	}
	// The leader of the node list, as the overview says it (the
	// replication status only before the first node list).
	leader := "none"
	if v.summaryOK {
		if v.summary.Leader != 0 {
			leader = "node " + strconv.Itoa(v.summary.Leader)
		}
		if v.stale {
			leader += " (stale)"
		}
	} else if v.replOK && v.repl.Leader != 0 {
		leader = "node " + strconv.Itoa(v.repl.Leader)
	}
	pairs := common.Pairs(st, v.W,
		"definition version", tab.Itoa(p.Version),
		"replicas", unset(p.Replicas),
		"minSync", unset(p.MinSync),
		"PLACEMENT", onoff(p.Placement),
		"auto-start", onoff(p.AutoStart),
		"ilcc port", strconv.Itoa(p.IlccPort),
		"leader", leader,
		"leaders", v.balanceText(st))
	// The title leads the first line when it fits, else has its own.
	if len(pairs) > 0 {
		if common.Width(title)+2+common.Width(pairs[0]) <= v.W {
			pairs[0] = title + "  " + pairs[0]
		} else {
			lines = append(lines, title)
		}
	}
	return append(lines, pairs...)
}

func (v *View) paneTop() int {
	return len(v.headerLines(v.Ctx.Styles)) + 1
}

// SetSize implements common.View.
func (v *View) SetSize(w, h int) {
	v.W, v.H = w, h
	v.resizeTables()
}

func (v *View) resizeTables() {
	th := max(v.H-v.paneTop(), 0)
	if v.stale {
		v.nodes.SetSize(v.W, max(th-1, 0)) // one line for the stale marker
	} else {
		v.nodes.SetSize(v.W, th)
	}
	v.parts.SetSize(v.W, th)
	v.lead.SetSize(v.W, th)
	v.bal.SetSize(v.W, max(th-1, 0)) // one line for the per-node leader counts
}

func (v *View) Status() string {
	return tab.Words(v.panes.Name(), v.active().Position())
}

// ShortHelp implements common.View.
func (v *View) ShortHelp() []key.Binding {
	k := v.Ctx.Keys
	return []key.Binding{k.Pane, k.EditCluster, k.AddNode, k.RemoveNode, k.Rebalance, k.MoveLeader, k.Filter}
}

// FullHelp implements common.View.
func (v *View) FullHelp() [][]key.Binding {
	k := v.Ctx.Keys
	// r (resend) is a key of the not-committed dialog only, which shows
	// it in its own footer; pressed on the tab it does nothing.
	return [][]key.Binding{k.TableHelp(), {k.Pane, k.EditCluster, k.AddNode, k.RemoveNode, k.Rebalance, k.MoveLeader}}
}

// Back implements common.View.
func (v *View) Back() bool { return v.active().ClearFilter() }

// Reveal implements common.Revealer: a drill-down (a node row or a node
// alert) shows the nodes pane with the cursor on the node, as soon as the
// node is listed.
func (v *View) Reveal(t common.Target) tea.Cmd {
	if t.Kind != common.TargetNode {
		return nil
	}
	v.panes.Cur = 0
	v.focusNode = 0
	if t.Node != 0 && !v.nodes.SelectKey(strconv.Itoa(t.Node)) {
		v.focusNode = t.Node
	}
	return nil
}

// Update implements common.View.
func (v *View) Update(msg tea.Msg) tea.Cmd {
	if v.DialogInput(msg) {
		return nil
	}
	switch msg := msg.(type) {
	case common.DataMsg:
		return v.setData(msg)
	case common.PollErrMsg:
		v.feed.Update(msg)
		if msg.Res == common.ResSummary {
			v.rebuildNodes()
			v.resizeTables()
		}
	case common.ViewMsg:
		switch m := msg.Msg.(type) {
		case clusterOpMsg:
			return v.opReply(m)
		case rebalanceMsg:
			return v.rebalanceReply(m)
		case moveLeaderMsg:
			return v.moveLeaderReply(m)
		}
	case tea.KeyPressMsg:
		return v.handleKey(msg)
	case tea.PasteMsg, tea.MouseWheelMsg:
		v.active().Update(msg)
	case tea.MouseClickMsg:
		if msg.Button == tea.MouseLeft {
			v.active().Click(msg.Y - v.paneTop())
		}
	}
	return nil
}

func (v *View) setData(msg common.DataMsg) tea.Cmd {
	defer v.resizeTables() // the header's height depends on the data
	v.feed.Update(msg)
	switch d := msg.Data.(type) {
	case admin.ClusterProperty:
		v.prop, v.propOK, v.propAt = d, true, msg.At
		v.rebuildNodes()
		if msg.Sent.Before(v.flow.since) {
			return nil // a read that started before the refusal proves nothing
		}
		return v.reread()
	case admin.ReplicationStatus:
		v.repl, v.replOK = d, true
		v.rebuildNodes()
		v.parts.SetItems(d.Partitions)
	case admin.ClusterLeadTable:
		v.leads, v.leadsOK = d, true
		rows := make([]leadRow, len(d.Rows))
		for i, r := range d.Rows {
			rows[i] = leadRow{i: i, r: r}
		}
		v.lead.SetItems(rows)
		v.setBalance(d)
	case tab.ClusterSummary:
		v.summary, v.summaryOK = d, true
		v.rebuildNodes()
	}
	return nil
}

// rebuildNodes makes the nodes pane from the node list (the summary poll,
// the overview's too) and the definition: the same rows the overview
// shows. Before the first node list the replication status stands in.
func (v *View) rebuildNodes() {
	list, listOK := v.summary.Nodes, v.summaryOK
	if !listOK && v.replOK {
		list, listOK = make([]admin.NodeInfo, len(v.repl.Nodes)), true
		for i, n := range v.repl.Nodes {
			list[i] = admin.NodeInfo{ID: n.ID, QueueManager: n.QueueManager, Role: n.Role, State: n.State, LagRecords: n.LagRecords, Lag: n.Lag}
		}
	}
	v.stale = v.feed.Stale(v.Ctx, v.Ctx.Now())
	ns := tab.MergeNodes(list, listOK, v.prop, v.propOK, v.stale)
	rows := make([]nodeRow, len(ns))
	for i, n := range ns {
		rows[i] = nodeRow{v: n}
	}
	v.nodes.SetItems(rows)
	if v.focusNode != 0 && v.nodes.SelectKey(strconv.Itoa(v.focusNode)) {
		v.focusNode = 0
	}
}

func (v *View) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := v.Ctx.Keys
	if v.Dlg != nil && v.lflow.stage != lflowNone {
		return v.leaderDialogKey(msg)
	}
	if v.Dlg != nil {
		return v.dialogKey(msg)
	}
	at := v.active()
	if at.Filtering() {
		at.Update(msg)
		return nil
	}
	switch {
	case key.Matches(msg, k.Pane):
		v.panes.Next()
		return nil
	case key.Matches(msg, k.Rebalance):
		return v.openRebalance()
	case key.Matches(msg, k.MoveLeader):
		if v.panes.Cur != 1 && v.panes.Cur != 3 {
			return common.Refuse("L moves a partition's leader: open the partitions or balance pane first (v)")
		}
		v.openMoveLeader()
		return nil
	case key.Matches(msg, k.EditCluster):
		v.openEdit()
		return nil
	case key.Matches(msg, k.AddNode):
		v.openAdd()
		return nil
	case key.Matches(msg, k.RemoveNode):
		if v.panes.Cur != 0 {
			return common.Refuse("D removes a node: open the nodes pane first (v)")
		}
		if v.panes.Cur == 0 {
			if r, ok := v.nodes.Selected(); ok {
				v.openRemove(r)
			}
		}
		return nil
	}
	at.Update(msg)
	return nil
}

// ---- definition changes ----

func (v *View) openEdit() {
	if !v.propOK {
		return
	}
	p := v.prop
	now := func(n int) string {
		if n == 0 {
			return "blank = leave (unset); 0 = clear"
		}
		return "blank = leave (" + strconv.Itoa(n) + "); 0 = clear"
	}
	leave := func(b bool) string {
		if b {
			return "leave (on)"
		}
		return "leave (off)"
	}
	d := &components.Dialog{
		Title: "Edit cluster " + common.S(p.Name),
		Body: []string{
			"Definition version " + tab.Itoa(p.Version) + ". The change is sent with this version; if the definition moved meanwhile the engine refuses it with MIMQE_CLUSTER_DEF_MOVED.",
		},
		SubmitLabel: "review",
		Fields: []*components.Field{
			components.TextField("Replicas", "", now(p.Replicas)),
			components.TextField("MinSync", "", now(p.MinSync)),
			components.ChoiceField("PLACEMENT", leave(p.Placement), "on", "off"),
			components.ChoiceField("Auto-start", leave(p.AutoStart), "on", "off"),
		},
	}
	v.OpenDialog(d)
	v.flow = clusterFlow{stage: cflowEdit, op: clusterOp{kind: opSet, base: p.Version}}
}

func (v *View) submitEdit() {
	f := v.Dlg.Fields
	p := v.prop
	ch := admin.ClusterPropertyChange{BaseVersion: v.flow.op.base}
	var what []string
	unset := func(n int) string {
		if n == 0 {
			return "unset"
		}
		return strconv.Itoa(n)
	}
	for i, label := range []string{"replicas", "minSync"} {
		val, err := tab.ParseOptInt(label, f[i].Value(), 0, 64)
		if err != nil {
			v.Dlg.Err = err.Error()
			v.Dlg.Focus(i)
			return
		}
		if val == nil {
			continue
		}
		cur := p.Replicas
		if i == 1 {
			cur = p.MinSync
		}
		to := strconv.Itoa(*val)
		if *val == 0 {
			to = "cleared (unset)"
		}
		what = append(what, label+": "+unset(cur)+" → "+to)
		if i == 0 {
			ch.Replicas = val
		} else {
			ch.MinSync = val
		}
	}
	for i, label := range []string{"PLACEMENT", "auto-start"} {
		c := f[2+i].Choice
		if c == 0 {
			continue
		}
		on := c == 1
		cur := p.Placement
		if i == 1 {
			cur = p.AutoStart
		}
		what = append(what, fmt.Sprintf("%s: %s → %s", label, map[bool]string{true: "on", false: "off"}[cur], map[bool]string{true: "on", false: "off"}[on]))
		if i == 0 {
			ch.Placement = &on
		} else {
			ch.AutoStart = &on
		}
	}
	if len(what) == 0 {
		v.Dlg.Err = "nothing to change: every field is blank"
		return
	}
	body := append([]string{"Sent with base version " + tab.Itoa(v.flow.op.base) + ":"}, what...)
	if ch.Replicas != nil && *ch.Replicas > 0 && len(p.Nodes) > 0 && *ch.Replicas > len(p.Nodes) {
		body = append(body, "", v.Ctx.Styles.Warn.Render(fmt.Sprintf("replicas %d exceeds the %s: the engine will refuse it (MIMQE_INVALID_PROPERTY).", *ch.Replicas, common.Plural(len(p.Nodes), "data node"))))
	}
	v.flow.op.change = ch
	v.flow.op.what = what
	v.confirmOp("Change cluster definition", body)
}

func (v *View) placementEffect(adding bool) string {
	p := v.prop
	if p.Placement {
		if adding {
			return "PLACEMENT is on: replicas (" + unsetStr(p.Replicas) + ") is a per-partition count and does not change."
		}
		return "PLACEMENT is on: replicas (" + unsetStr(p.Replicas) + ") does not change, except that it is lowered to the number of brokers if it would exceed it."
	}
	if adding {
		return "PLACEMENT is off: replicas goes from " + unsetStr(p.Replicas) + " to one more."
	}
	return "PLACEMENT is off: replicas goes from " + unsetStr(p.Replicas) + " to one less."
}

func unsetStr(n int) string {
	if n == 0 {
		return "unset"
	}
	return strconv.Itoa(n)
}

func (v *View) openAdd() {
	if !v.propOK {
		return
	}
	d := &components.Dialog{
		Title:       "Add node to " + common.S(v.prop.Name),
		Body:        []string{v.placementEffect(true)},
		SubmitLabel: "review",
		Fields: []*components.Field{
			components.TextField("Queue manager", "", "e.g. QM4"),
			components.TextField("Host", "", "host or IP"),
			components.TextField("Port", "", "listener port"),
			components.TextField("ILCC port", strconv.Itoa(v.prop.IlccPort), ""),
		},
	}
	v.OpenDialog(d)
	v.flow = clusterFlow{stage: cflowAdd, op: clusterOp{kind: opAdd, base: v.prop.Version}}
}

func (v *View) submitAdd() {
	f := v.Dlg.Fields
	n := admin.ClusterNode{QueueManager: f[0].Value(), Host: f[1].Value()}
	if n.QueueManager == "" || n.Host == "" || sanitize.String(n.QueueManager) != n.QueueManager || sanitize.String(n.Host) != n.Host {
		v.Dlg.Err = "give the queue manager name and the host"
		return
	}
	port, err := tab.ParseOptInt("port", f[2].Value(), 1, 65535)
	if err != nil || port == nil {
		v.Dlg.Err = "port must be a number from 1 to 65535"
		v.Dlg.Focus(2)
		return
	}
	ilcc, err := tab.ParseOptInt("ILCC port", f[3].Value(), 1, 65535)
	if err != nil {
		v.Dlg.Err = err.Error()
		v.Dlg.Focus(3)
		return
	}
	n.Port = *port
	if ilcc != nil {
		n.IlccPort = *ilcc
	}
	v.flow.op.node = n
	v.flow.op.what = []string{fmt.Sprintf("add node %s at %s:%d (ilcc %d)", n.QueueManager, n.Host, n.Port, n.IlccPort)}
	v.confirmOp("Add node", append(v.flow.op.what, "", v.placementEffect(true)))
}

func (v *View) openRemove(r nodeRow) {
	if !v.propOK {
		return
	}
	id := r.id()
	qm := r.v.QM
	body := []string{fmt.Sprintf("Remove node %d (%s) from the cluster definition.", id, qm), "", v.placementEffect(false)}
	if r.v.Info.Role == admin.RoleLeader {
		body = append(body, "", v.Ctx.Styles.Warn.Render("This node is the cluster leader: removing it forces an election; no node accepts sessions until a new leader is promoted."))
	}
	v.OpenDialog(&components.Dialog{
		Title: fmt.Sprintf("Remove node %d", id), Danger: true, Body: body,
		ConfirmText: strconv.Itoa(id), SubmitLabel: "remove",
	})
	v.flow = clusterFlow{stage: cflowRemove, op: clusterOp{kind: opRemove, remove: id, base: v.prop.Version,
		what: []string{fmt.Sprintf("remove node %d (%s)", id, qm)}}}
}

func (v *View) confirmOp(title string, body []string) {
	op := v.flow.op
	v.OpenDialog(&components.Dialog{Title: title, Body: body, SubmitLabel: "send"})
	v.flow = clusterFlow{stage: cflowConfirm, op: op}
}

func (v *View) dialogKey(msg tea.KeyPressMsg) tea.Cmd {
	return v.DialogFlow(msg, func() { v.flow = clusterFlow{} }, func(end func()) tea.Cmd {
		switch v.flow.stage {
		case cflowEdit:
			v.submitEdit()
		case cflowAdd:
			v.submitAdd()
		case cflowConfirm, cflowRemove:
			return v.send()
		case cflowOutcome:
			end()
		}
		return nil
	}, func(act int) tea.Cmd {
		if act == actResend {
			return v.send()
		}
		return nil
	})
}

// send runs the prepared operation (again, for a resend: the same change
// with the same base version).
func (v *View) send() tea.Cmd {
	op := v.flow.op
	if v.Dlg != nil {
		v.Dlg.Busy = "sending…"
		v.Dlg.Err = ""
	}
	src, gen := v.src, v.DlgGen
	return v.Call(func(ctx context.Context) any {
		var err error
		switch op.kind {
		case opSet:
			err = src.SetClusterProperty(ctx, op.change)
		case opAdd:
			err = src.AddNode(ctx, op.node)
		case opRemove:
			err = src.RemoveNode(ctx, op.remove)
		}
		return clusterOpMsg{op: op, err: err, dlgGen: gen}
	})
}

var rereadRes = []common.ResID{common.ResCluster, common.ResReplication, common.ResLeaders}

func (v *View) opReply(m clusterOpMsg) tea.Cmd {
	current := v.DialogOpen(m.dlgGen)
	out := classifyDefErr(m.err)
	if out == outOK {
		if current {
			v.CloseDialog()
			v.flow = clusterFlow{}
		}
		return tea.Batch(
			common.Flash(common.LevelOK, "cluster definition changed: "+strings.Join(m.op.what, "; ")),
			common.Refresh(rereadRes...))
	}
	if !current {
		return common.Flash(common.LevelError, "cluster change failed: "+sanitize.Error(m.err))
	}
	v.flow = clusterFlow{stage: cflowOutcome, op: m.op, outcome: out, err: sanitize.Error(m.err), since: v.Ctx.Now()}
	switch out {
	case outNotCommitted, outUnknown, outPending, outMoved, outNodeExists:
		// ilink-spec §3.8: re-read with getClusterProperty before deciding.
		v.flow.awaiting = true
	}
	v.showOutcome()
	if v.flow.awaiting {
		return common.Refresh(rereadRes...)
	}
	return nil
}

// reread completes an outcome dialog waiting for the definition re-read.
func (v *View) reread() tea.Cmd {
	if v.flow.stage != cflowOutcome || !v.flow.awaiting || v.Dlg == nil {
		return nil
	}
	v.flow.awaiting = false
	v.flow.reread = true
	v.flow.version = v.prop.Version
	v.showOutcome()
	return nil
}

// showOutcome (re)builds the dialog explaining a definition-change
// refusal, in the words of ilink-spec §3.8.
func (v *View) showOutcome() {
	f := v.flow
	st := v.Ctx.Styles
	base := tab.Itoa(f.op.base)
	title := "Cluster change not confirmed"
	var body []string
	body = append(body, "Asked: "+strings.Join(f.op.what, "; "), "", "The engine answered: "+f.err, "")
	resendOK := false
	redo := "Resending it with version " + base + " is safe"
	if f.op.kind != opSet {
		redo = "Sending it again is safe: if the first attempt committed, the engine refuses with \"qmgr or address is node N's\", never a duplicate"
	}
	switch f.outcome {
	case outNotCommitted:
		body = append(body, "Not committed yet. This does not mean \"not applied\": the controller may still commit the change later.")
	case outUnknown:
		body = append(body, "The outcome is unknown: the reply was lost after the change was sent. It may or may not have committed.")
	case outPending:
		body = append(body, "This change was NOT submitted: an earlier change is still waiting to commit. Sending it unchanged again is safe.")
	case outMoved:
		title = "Definition moved"
		body = append(body, "The definition version moved since it was read at version "+base+". If this was a resend after NOT_COMMITTED, the first attempt committed. Otherwise someone else changed the definition: review the values and edit again.")
	case outNodeExists:
		title = "Node already in the definition"
		body = append(body, "A node with this queue manager or address already exists. If you are retrying after NOT_COMMITTED, the first attempt committed.")
	case outInvalid:
		title = "Value refused"
		body = append(body, "The engine rejected a value. replicas cannot exceed the number of data nodes; 0 clears replicas or minSync.")
	default:
		title = "Cluster change refused"
	}
	switch {
	case f.awaiting:
		body = append(body, "", st.Muted.Render("Re-reading the definition (getClusterProperty)…"))
	case f.reread:
		now := tab.Itoa(f.version)
		switch {
		case f.outcome == outMoved || f.outcome == outNodeExists:
			body = append(body, "", "Re-read: the definition is at version "+now+" now.")
		case f.version == f.op.base:
			body = append(body, "", "Re-read: the definition is still at version "+base+": the change has not committed (yet). "+redo+"; if the first attempt commits in the meantime, the resend fails with MIMQE_CLUSTER_DEF_MOVED and changes nothing.")
			resendOK = true
		default:
			body = append(body, "", "Re-read: the definition moved from version "+base+" to "+now+": the change (or another one) committed. Check the values above; do not resend.")
		}
	}
	d := &components.Dialog{Title: title, Danger: f.outcome == outOther || f.outcome == outInvalid, Body: body, SubmitLabel: "", CancelLabel: "close"}
	if resendOK {
		d.Actions = []components.Action{{Key: v.Ctx.Keys.Resend, ID: actResend}}
	}
	if v.Dlg != nil && v.flow.stage == cflowOutcome {
		// keep the dialog generation: a reply to a resend must find it
		d.Busy = ""
	}
	v.Dlg = d
}

// ---- rendering ----

// View implements common.View.
func (v *View) View() string {
	if v.Dlg != nil {
		return v.DialogView()
	}
	st := v.Ctx.Styles
	if v.feed.Stale(v.Ctx, v.Ctx.Now()) != v.stale {
		v.rebuildNodes() // the node list turned stale (or fresh) since the rows were made
		v.resizeTables()
	}
	lines := v.headerLines(st)
	names := []string{" Nodes (" + tab.Itoa(int64(v.nodes.Total())) + ") ", " Partitions (" + tab.Itoa(int64(v.parts.Total())) + ") ",
		" Leadership (" + tab.Itoa(int64(v.lead.Total())) + ") ", " Balance (" + tab.Itoa(int64(v.balance.Partitions-v.balance.OnPreferred)) + " off) "}
	lines = append(lines, listdetail.PaneTabs(st, names, v.panes.Cur))
	switch v.panes.Cur {
	case 0:
		if v.stale {
			lines = append(lines, v.feed.Marker(st, v.W))
		}
		lines = append(lines, v.nodes.Lines()...)
	case 1:
		lines = append(lines, v.parts.Lines()...)
	case 2:
		lines = append(lines, v.lead.Lines()...)
	case 3:
		lines = append(lines, st.Muted.Render(common.Trunc("b rebalance · L move a leader · "+v.nodeLeadsText(), v.W)))
		lines = append(lines, v.bal.Lines()...)
	}
	return common.Frame(lines, v.W, v.H)
}
