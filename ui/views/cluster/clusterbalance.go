package cluster

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"ilinkdash/ilink/admin"
	"ilinkdash/ui/common"
	"ilinkdash/ui/components"
	"ilinkdash/ui/sanitize"
	"ilinkdash/ui/views/listdetail"
	"ilinkdash/ui/views/tab"
)

// The Cluster view's leadership balance: the Balance pane lists every
// partition of a non-SYSTEM topic with its leader and its preferred leader
// (the first replica of its placement), the header shows the imbalance, `b`
// rebalances (the engine's plan first, in a preview), and `L` moves one
// partition's leader (a forced election) to a chosen in-sync replica.

// balanceRow is one partition of the Balance pane.
type balanceRow struct {
	r    admin.LeadRow
	pref int
}

func (b balanceRow) onPreferred() bool { return b.r.Node != 0 && b.r.Node == b.pref }

// leaderFlow is the state of a rebalance or a leader move.
type leaderFlow struct {
	stage     int
	plan      admin.LeaderRebalance
	topic     string
	partition int32
	from      int
	targets   []int // the move dialog's choices
}

const (
	lflowNone = iota
	lflowPlanning
	lflowPreview
	lflowMoveForm
	lflowMoveConfirm
	lflowResult
)

type rebalanceMsg struct {
	res    admin.LeaderRebalance
	apply  bool
	err    error
	dlgGen uint64
	// plan is the preview an apply was confirmed on; replanned, the ways
	// the engine's plan at the confirmation differed from it (then
	// nothing was moved and res is the new plan, shown again).
	plan      admin.LeaderRebalance
	replanned []string
}

type moveLeaderMsg struct {
	topic     string
	partition int32
	to        int
	err       error
	dlgGen    uint64
	// leads is the partition's leader read at the confirmation when it
	// was no longer the preview's (then nothing was moved); 0: it was.
	leads int
	from  int
}

func newBalanceTable(ctx *common.Context) *components.Table[balanceRow] {
	type B = components.Column[balanceRow]
	t := listdetail.NewPartitionTable(ctx, 18, func(b balanceRow) (string, int32) { return b.r.Topic, b.r.Partition },
		B{Title: "LEADER", Width: 6, Right: true,
			Text: func(b balanceRow) string {
				if b.r.Node == 0 {
					return "none"
				}
				return tab.Itoa(int64(b.r.Node))
			},
			Paint: func(b balanceRow, st *common.Styles) common.Style {
				switch {
				case b.r.Node == 0:
					return st.Err
				case !b.onPreferred():
					return st.Warn
				}
				return common.Style{}
			}},
		B{Title: "PREFERRED", Width: 9, Right: true,
			Text: func(b balanceRow) string { return tab.Itoa(int64(b.pref)) }},
		B{Title: "REPLICAS", Width: 9, Min: 5, Drop: 2,
			Text: func(b balanceRow) string { return tab.Ints(b.r.Replicas) }},
		B{Title: "IN-SYNC", Width: 8, Min: 5, Drop: 1,
			Text: func(b balanceRow) string { return tab.Ints(b.r.InSync) }},
		B{Title: "BALANCE", Width: 13, Min: 4,
			Text: func(b balanceRow) string {
				switch {
				case b.r.Node == 0:
					return "offline"
				case b.onPreferred():
					return "preferred"
				}
				return "not preferred"
			},
			Cmp: func(a, b balanceRow) int {
				rank := func(x balanceRow) int {
					switch {
					case x.r.Node == 0:
						return 0
					case !x.onPreferred():
						return 1
					}
					return 2
				}
				return cmp.Compare(rank(a), rank(b))
			},
			Paint: func(b balanceRow, st *common.Styles) common.Style {
				if b.onPreferred() {
					return st.OK
				}
				return st.Warn
			}},
	)
	t.Empty = "no partition of a non-SYSTEM topic"
	t.SetSort(0, false)
	return t
}

// setBalance rebuilds the Balance pane from the lead table.
func (v *View) setBalance(t admin.ClusterLeadTable) {
	v.balance = admin.ComputeLeaderBalance(t.Rows)
	var rows []balanceRow
	for _, r := range t.Rows {
		if r.Kind != "partition" || len(r.Replicas) == 0 || strings.HasPrefix(r.Topic, "SYSTEM.") {
			continue
		}
		rows = append(rows, balanceRow{r: r, pref: r.Replicas[0]})
	}
	v.bal.SetItems(rows)
}

// balanceText is the header's figure: "leaders 5/6 on preferred (imbalance 17%)".
func (v *View) balanceText(st *common.Styles) string {
	b := v.balance
	if !v.leadsOK || b.Partitions == 0 {
		return ""
	}
	pct := (b.Partitions - b.OnPreferred) * 100 / b.Partitions
	s := fmt.Sprintf("%d/%d on preferred (imbalance %d%%)", b.OnPreferred, b.Partitions, pct)
	if b.OnPreferred < b.Partitions {
		return st.Warn.Render(s)
	}
	return s
}

// nodeLeadsText is "node 1 leads 3 (prefers 2) · node 2 leads 0 (prefers 2)".
func (v *View) nodeLeadsText() string {
	var parts []string
	for _, n := range v.balance.Nodes {
		parts = append(parts, fmt.Sprintf("node %d leads %d (preferred for %d)", n.Node, n.Leads, n.Preferred))
	}
	return strings.Join(parts, " · ")
}

// openRebalance asks the engine for the plan; the preview follows.
func (v *View) openRebalance() tea.Cmd {
	v.OpenDialog(&components.Dialog{Title: "Rebalance leaders", Busy: "asking the engine for the plan…",
		Body: []string{"Moves every partition back to its preferred leader (the first replica of its placement). You will see the plan first."}})
	v.lflow = leaderFlow{stage: lflowPlanning}
	return v.runRebalance(false)
}

// runRebalance plans (apply false) or rebalances. The engine rebalances
// every partition off its preferred leader at the time, so an apply first
// asks for the plan again: when it is not the preview's, nothing moves and
// the new plan is shown to confirm instead (a leader moved meanwhile must
// not make the rebalance move what the preview did not show).
func (v *View) runRebalance(apply bool) tea.Cmd {
	src, gen, plan := v.src, v.DlgGen, v.lflow.plan
	return v.Call(func(ctx context.Context) any {
		if apply {
			now, err := src.RebalanceLeaders(ctx, false)
			if err != nil {
				return rebalanceMsg{apply: true, err: err, dlgGen: gen}
			}
			if d := rebalanceDifferences(plan, now); len(d) > 0 {
				return rebalanceMsg{res: now, dlgGen: gen, replanned: d}
			}
		}
		res, err := src.RebalanceLeaders(ctx, apply)
		return rebalanceMsg{res: res, apply: apply, err: err, dlgGen: gen, plan: plan}
	})
}

// rebalanceDifferences compares a rebalance (or a later plan) with the
// plan its preview showed: one line per partition that moves, or would,
// other than the preview said; none when it is the preview's.
func rebalanceDifferences(planned, got admin.LeaderRebalance) []string {
	type tp struct {
		topic string
		part  int32
	}
	move := func(m admin.LeaderMove) string {
		from := "none"
		if m.From != 0 {
			from = "node " + strconv.Itoa(m.From)
		}
		return from + " → node " + strconv.Itoa(m.To)
	}
	plan := make(map[tp]admin.LeaderMove, len(planned.Moves))
	for _, m := range planned.Moves {
		plan[tp{m.Topic, m.Partition}] = m
	}
	var out []string
	for _, g := range got.Moves {
		k := tp{g.Topic, g.Partition}
		p, ok := plan[k]
		delete(plan, k)
		name := fmt.Sprintf("%s [%d]", g.Topic, g.Partition)
		switch {
		case g.Skipped == "" && !ok:
			out = append(out, name+": "+move(g)+", not in the preview")
		case g.Skipped == "" && p.Skipped != "":
			out = append(out, name+": "+move(g)+", the preview said it stays ("+p.Skipped+")")
		case g.Skipped == "" && (p.From != g.From || p.To != g.To):
			out = append(out, name+": "+move(g)+", the preview said "+move(p))
		case g.Skipped != "" && ok && p.Skipped == "":
			out = append(out, name+": in the preview ("+move(p)+"), not moved: "+g.Skipped)
		}
	}
	for _, p := range planned.Moves {
		if _, left := plan[tp{p.Topic, p.Partition}]; left && p.Skipped == "" {
			out = append(out, fmt.Sprintf("%s [%d]: in the preview (%s), not moved: led by its preferred replica already", p.Topic, p.Partition, move(p)))
		}
	}
	return out
}

func (v *View) rebalanceReply(m rebalanceMsg) tea.Cmd {
	current := v.DialogOpen(m.dlgGen)
	if m.err != nil {
		if !current {
			return common.Flash(common.LevelError, "rebalance failed: "+sanitize.Error(m.err))
		}
		v.OpenDialog(&components.Dialog{Title: "Rebalance failed", Danger: true, Body: []string{"The engine refused: " + sanitize.Error(m.err)}, SubmitLabel: "close"})
		v.lflow.stage = lflowResult
		return nil
	}
	if m.apply {
		// The result is reported against the preview it was confirmed on.
		diffs := rebalanceDifferences(m.plan, m.res)
		text := fmt.Sprintf("rebalance: %s moved to their preferred leader", common.Plural(m.res.Movable(), "partition"))
		level := common.LevelOK
		if len(diffs) > 0 {
			text += "; " + common.Plural(len(diffs), "partition") + " differ from the preview"
			level = common.LevelWarn
		}
		if current {
			v.CloseDialog()
			v.lflow = leaderFlow{}
			if len(diffs) > 0 {
				v.OpenDialog(components.AppliedWithDifferences("Rebalance leaders", "rebalance", diffs))
				v.lflow.stage = lflowResult
			}
		}
		return tea.Batch(common.Flash(level, text), common.Refresh(rereadRes...))
	}
	if !current {
		return nil
	}
	st := v.Ctx.Styles
	p := m.res
	imb := func(on int) int {
		if p.Partitions == 0 {
			return 0
		}
		return (p.Partitions - on) * 100 / p.Partitions
	}
	var body []string
	if len(m.replanned) > 0 {
		body = append(body, st.Warn.Render("⚠ Nothing was moved: the plan changed since the preview. Review it again:"))
		for _, d := range m.replanned {
			body = append(body, st.Warn.Render("  "+common.S(d)))
		}
		body = append(body, "")
	}
	body = append(body, fmt.Sprintf("%d of %d partitions are led by their preferred replica (imbalance %d%%). Planned (nothing is moved yet):", p.Preferred, p.Partitions, imb(p.Preferred)), "")
	if len(p.Moves) == 0 {
		body = append(body, st.OK.Render("Every partition is on its preferred leader: nothing to move."))
	}
	for _, mv := range p.Moves {
		from := "none"
		if mv.From != 0 {
			from = "node " + strconv.Itoa(mv.From)
		}
		line := fmt.Sprintf("%s [%d]  %s → node %d", common.S(mv.Topic), mv.Partition, from, mv.To)
		if mv.Skipped != "" {
			line = st.Muted.Render(line + "  stays: " + common.S(mv.Skipped))
		}
		body = append(body, line)
	}
	if n := p.Movable(); n > 0 {
		body = append(body, "", fmt.Sprintf("%s move; imbalance after: %d%%. Each move is a forced election: the new leader first takes what it lacks, so nothing is lost.",
			common.Plural(n, "partition"), imb(p.Preferred+n)))
	}
	d := &components.Dialog{Title: "Rebalance leaders — preview", Body: body}
	if p.Movable() > 0 {
		d.SubmitLabel = "rebalance"
	}
	v.OpenDialog(d)
	v.lflow = leaderFlow{stage: lflowPreview, plan: p}
	return nil
}

// openMoveLeader offers the in-sync replicas of the selected partition.
func (v *View) openMoveLeader() {
	var r admin.LeadRow
	var ok bool
	switch v.panes.Cur {
	case 3:
		var b balanceRow
		if b, ok = v.bal.Selected(); ok {
			r = b.r
		}
	case 1:
		var p admin.PartitionReplication
		if p, ok = v.parts.Selected(); ok {
			r = admin.LeadRow{Topic: p.Topic, Partition: p.Partition, Node: p.Leader, InSync: p.InSync}
			for _, lr := range v.leads.Rows { // the placement comes from the lead table
				if lr.Kind == "partition" && lr.Topic == p.Topic && lr.Partition == p.Partition {
					r.Replicas = lr.Replicas
				}
			}
		}
	}
	if !ok {
		return
	}
	var targets []int
	var choices []string
	for _, n := range r.InSync {
		if n != r.Node {
			targets = append(targets, n)
			label := "node " + strconv.Itoa(n)
			if len(r.Replicas) > 0 && r.Replicas[0] == n {
				label += " (preferred)"
			}
			choices = append(choices, label)
		}
	}
	title := "Move the leader of " + common.S(r.Topic) + " [" + tab.Itoa(int64(r.Partition)) + "]"
	if len(targets) == 0 {
		v.OpenDialog(&components.Dialog{Title: title, SubmitLabel: "close",
			Body: []string{"No other replica is in sync (in-sync set " + tab.Ints(r.InSync) + "): the leader cannot move without losing records."}})
		v.lflow = leaderFlow{stage: lflowResult}
		return
	}
	body := []string{fmt.Sprintf("The leader is node %d; placement %s, in sync %s. Choose the new leader (a forced election).", r.Node, tab.Ints(r.Replicas), tab.Ints(r.InSync))}
	d := &components.Dialog{Title: title, Body: body, SubmitLabel: "preview", Fields: []*components.Field{components.ChoiceField("New leader", choices...)}}
	d.Fields[0].Hint = "←/→"
	if i := slices.Index(targets, firstOr(r.Replicas)); i >= 0 {
		d.Fields[0].Choice = i // the preferred replica first, when it can take it
	}
	v.OpenDialog(d)
	v.lflow = leaderFlow{stage: lflowMoveForm, topic: r.Topic, partition: r.Partition, from: r.Node, targets: targets}
}

func firstOr(xs []int) int {
	if len(xs) == 0 {
		return 0
	}
	return xs[0]
}

func (v *View) moveLeaderConfirm() {
	f := v.lflow
	to := f.targets[v.Dlg.Fields[0].Choice]
	v.OpenDialog(&components.Dialog{Title: "Move leader — preview", SubmitLabel: "move",
		Body: []string{fmt.Sprintf("%s [%d]: leader node %d → node %d.", common.S(f.topic), f.partition, f.from, to), "",
			"Producers and consumers of this partition follow the new leader after a metadata refresh; records are not lost (node " + strconv.Itoa(to) + " first takes what it lacks)."}})
	v.lflow.stage = lflowMoveConfirm
	v.lflow.targets = []int{to}
}

func (v *View) runMoveLeader() tea.Cmd {
	f := v.lflow
	v.Dlg.Busy = "moving…"
	src, gen := v.src, v.DlgGen
	return v.Call(func(ctx context.Context) any {
		m := moveLeaderMsg{topic: f.topic, partition: f.partition, to: f.targets[0], from: f.from, dlgGen: gen}
		// The move is a forced election from whoever leads now: one that
		// is not the preview's "from" is said, and nothing moved.
		leads, err := partitionLeader(ctx, src, f.topic, f.partition)
		switch {
		case err != nil:
			m.err = fmt.Errorf("reading the leader again before the move: %w; nothing was moved", err)
		case leads != f.from:
			m.leads = leads
		default:
			m.err = src.MovePartitionLeader(ctx, f.topic, f.partition, f.targets[0])
		}
		return m
	})
}

// partitionLeader is the node that leads topic's partition now (0: none).
func partitionLeader(ctx context.Context, src tab.ClusterAdmin, topic string, partition int32) (int, error) {
	lt, err := src.ClusterLeadTable(ctx)
	if err != nil {
		return 0, err
	}
	for _, r := range lt.Rows {
		if r.Kind == "partition" && r.Topic == topic && r.Partition == partition {
			return r.Node, nil
		}
	}
	return 0, fmt.Errorf("%s [%d] is not in the leadership table", topic, partition)
}

func (v *View) moveLeaderReply(m moveLeaderMsg) tea.Cmd {
	current := v.DialogOpen(m.dlgGen)
	if m.leads != 0 {
		text := fmt.Sprintf("Nothing was moved: %s [%d] is led by node %d now, not node %d as the preview showed.", common.S(m.topic), m.partition, m.leads, m.from)
		if m.leads == m.to {
			text += fmt.Sprintf(" Node %d leads it already.", m.to)
		}
		if !current {
			return tea.Batch(common.Flash(common.LevelWarn, text), common.Refresh(rereadRes...))
		}
		v.OpenDialog(&components.Dialog{Title: "Leader changed since the preview", SubmitLabel: "close", Body: []string{"⚠ " + text, "", "Open the move again (L) to choose from the leader as it is."}})
		v.lflow.stage = lflowResult
		return common.Refresh(rereadRes...)
	}
	if m.err != nil {
		if !current {
			return common.Flash(common.LevelError, "leader move failed: "+sanitize.Error(m.err))
		}
		v.OpenDialog(&components.Dialog{Title: "Leader move failed", Danger: true, SubmitLabel: "close", Body: []string{"The engine refused: " + sanitize.Error(m.err)}})
		v.lflow.stage = lflowResult
		return nil
	}
	if current {
		v.CloseDialog()
		v.lflow = leaderFlow{}
	}
	return tea.Batch(common.Flash(common.LevelOK, fmt.Sprintf("%s [%d]: node %d leads", common.S(m.topic), m.partition, m.to)), common.Refresh(rereadRes...))
}

// leaderDialogKey drives the rebalance and leader-move dialogs.
func (v *View) leaderDialogKey(msg tea.KeyPressMsg) tea.Cmd {
	return v.DialogFlow(msg, func() { v.lflow = leaderFlow{} }, func(end func()) tea.Cmd {
		switch v.lflow.stage {
		case lflowPreview:
			if v.lflow.plan.Movable() > 0 {
				v.Dlg.Busy = "rebalancing…"
				return v.runRebalance(true)
			}
			end()
		case lflowMoveForm:
			v.moveLeaderConfirm()
		case lflowMoveConfirm:
			return v.runMoveLeader()
		case lflowResult:
			end()
		}
		return nil
	}, nil)
}
