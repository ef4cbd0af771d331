package groups

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/admin/health"
	"ilinkdash/ilink/position"
	"ilinkdash/ui/common"
	"ilinkdash/ui/components"
	"ilinkdash/ui/sanitize"
	"ilinkdash/ui/views/listdetail"
	"ilinkdash/ui/views/tab"
)

// View is the consumer groups tab: every group with its lag, a lag-trend
// sparkline and a health word computed from the history the view keeps;
// Enter opens members and per-partition offsets with a time-to-drain
// estimate; seek (with a preview) and delete are offered when writable.
type View struct {
	listdetail.List[*tab.GroupRow]
	listdetail.Shown[groupDetail, *groupDetail]
	src tab.GroupAdmin

	tracker    *tab.HealthTracker
	ownTracker bool // made here (no shared one): fed here, not by the root
	loaded     bool
	counts     map[health.Word]int

	flow       groupFlow
	flowTopics []string // raw topic names of the seek form's choices
}

// groupFlow is the multi-step dialog in progress.
type groupFlow struct {
	stage   int // flowNone...
	group   string
	members int
	topic   string // "" = all
	target  admin.SeekTarget
	byTime  bool
	at      time.Time
	desc    string // "earliest", "offset 42", "time 10:00:00"
	// planned is the preview's changes: the apply sends them
	// (SeekTarget.Planned), so it moves exactly what the preview showed.
	planned []admin.OffsetChange
}

const (
	flowNone = iota
	flowSeekForm
	flowSeekPreview
	flowDelete
	flowResult
)

type offRow struct {
	o     admin.GroupOffset
	rate  float64 // consumption, records/s; -1 unknown
	prod  float64 // production, records/s; -1 unknown
	drain string
}

type partSample struct {
	at        time.Time
	committed int64
	end       int64
	rate      float64 // EWMA consumption
	prod      float64 // EWMA production
	n         int     // consumption samples (commits on both sides)
	pn        int     // production samples
}

type groupDetail struct {
	listdetail.PaneDetail // panes: offsets, members
	desc                  admin.GroupDescription
	offs                  *components.Table[offRow]
	mems                  *components.Table[admin.GroupMember]
	prev                  map[string]*partSample
	focus                 string // listdetail.OffKey of the row a drill-down asked for, until the rows arrive
	rate                  float64
	prod                  float64
	chart                 lagChart // the lag history's latest read
}

type (
	groupDetailMsg struct {
		desc admin.GroupDescription
		err  error
		at   time.Time
	}
	seekPlanMsg struct {
		changes []admin.OffsetChange
		planned []admin.OffsetChange // an apply's preview
		err     error
		apply   bool
		dlgGen  uint64
		group   string
	}
	groupDeleteMsg struct {
		group  string
		err    error
		dlgGen uint64
	}
)

// New returns the groups view. tracker is the dashboard's one health
// tracker, shared with the overview (nil: a tracker of its own).
func New(ctx *common.Context, src tab.GroupAdmin, tracker *tab.HealthTracker) *View {
	own := tracker == nil
	if own {
		tracker = tab.NewHealthTracker(health.Config(ctx.Config.Health))
	}
	v := &View{src: src, tracker: tracker, ownTracker: own}
	type C = components.Column[*tab.GroupRow]
	// The declared columns of the group list (tab.GroupList); the name is
	// the row's, sanitized once per group, and the state says when the
	// group is missing from the latest list.
	col := func(title string) C { return tab.Column(tab.GroupList, title, groupInfo) }
	name, state := col("NAME"), col("STATE")
	name.Text = func(r *tab.GroupRow) string { return r.Name }
	stateText := state.Text
	state.Text = func(r *tab.GroupRow) string {
		if !r.St.Unlisted.IsZero() {
			return "unlisted" // missing from the latest list: its state is not known now
		}
		return stateText(r)
	}
	v.Setup(ctx, common.ViewGroups, v, components.NewTable(ctx, tab.RowKey(tab.GroupList, groupInfo),
		name, state, col("MEMBERS"),
		C{Title: "TOPICS", Width: 16, Min: 8, Drop: 6,
			Text: func(r *tab.GroupRow) string { return r.Topics }},
		C{Title: "LAG", Width: 7, Right: true, SortKey: 'A', // L moves a leader
			Text: func(r *tab.GroupRow) string { return lagText(r.St.Lag) },
			Cmp:  func(a, b *tab.GroupRow) int { return cmp.Compare(lagKey(a.St.Lag), lagKey(b.St.Lag)) }},
		C{Title: "LAG TREND", Width: 12, Min: 8, Drop: 4, NoFilter: true,
			Text:  func(r *tab.GroupRow) string { return r.Spark },
			Paint: func(r *tab.GroupRow, st *common.Styles) common.Style { return st.Spark }},
		C{Title: "RATE/s", Width: 6, Right: true, Drop: 2,
			Text: func(r *tab.GroupRow) string {
				if r.St.Rate < 0 {
					return "-"
				}
				return common.Rate(r.St.Rate)
			},
			Cmp: func(a, b *tab.GroupRow) int { return cmp.Compare(a.St.Rate, b.St.Rate) }},
		C{Title: "HEALTH", Width: 11, Min: 7,
			Text:  func(r *tab.GroupRow) string { return r.St.Word.String() },
			Cmp:   func(a, b *tab.GroupRow) int { return cmp.Compare(a.St.Word, b.St.Word) },
			Paint: func(r *tab.GroupRow, st *common.Styles) common.Style { return healthStyle(st, r.St.Word) }},
	))
	v.Table.Empty = "no consumer group yet"
	v.Table.SetSort(0, false)
	return v
}

func (v *View) Title() string         { return "Groups" }
func (v *View) Primary() common.ResID { return common.ResGroups }

// ShortHelp implements common.View.
func (v *View) ShortHelp() []key.Binding {
	k := v.Ctx.Keys
	if v.Detail != nil {
		keys := []key.Binding{k.Back, k.Pane, k.Seek, k.DeleteGroup}
		if v.tailable() {
			keys = append(keys, k.TailPartition) // said once it would do something
		}
		return v.spanKey(append(keys, k.Filter))
	}
	return []key.Binding{k.Open, k.Filter, k.Sort, k.Seek, k.DeleteGroup}
}

// FullHelp implements common.View.
func (v *View) FullHelp() [][]key.Binding {
	k := v.Ctx.Keys
	return [][]key.Binding{k.TableHelp(), v.spanKey([]key.Binding{k.Open, k.Pane, k.TailPartition, k.Seek, k.DeleteGroup})}
}

// spanKey adds the chart's span key to help when there is a history
// (the chart is drawn only then).
func (v *View) spanKey(keys []key.Binding) []key.Binding {
	if v.Ctx.History == nil {
		return keys
	}
	return append(keys[:2:2], append([]key.Binding{v.Ctx.Keys.ChartSpan}, keys[2:]...)...)
}

// groupInfo is the listed group of a row.
func groupInfo(r *tab.GroupRow) *admin.GroupInfo { return &r.St.Info }

// CloseDetail goes back to the list.
func (v *View) CloseDetail() {
	v.Gen++
	v.Detail = nil
}

// Update implements common.View.
func (v *View) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case common.DataMsg:
		switch msg.Res {
		case common.ResTopics, common.ResSummary, common.ResQueues:
			if v.ownTracker {
				v.tracker.Observe(msg)
			}
		case common.ResGroups:
			if _, ok := msg.Data.([]admin.GroupInfo); ok {
				if v.ownTracker {
					v.tracker.Observe(msg)
				}
				v.setGroups(v.tracker.Groups())
				return v.readLag() // the chart follows the polls
			}
		}
		return nil
	case common.ViewMsg:
		return v.handleViewMsg(msg)
	}
	return v.Input(msg)
}

func (v *View) setGroups(rows []*tab.GroupRow) {
	v.counts = map[health.Word]int{}
	for _, r := range rows {
		v.counts[r.St.Word]++
	}
	v.loaded = true
	v.Table.SetItems(rows)
}

func (v *View) OpenRow(r *tab.GroupRow) tea.Cmd { return v.openDetail(r.St.Info.Name) }

func (v *View) ListKey(msg tea.KeyPressMsg, r *tab.GroupRow, ok bool) (tea.Cmd, bool) {
	k := v.Ctx.Keys
	switch {
	case key.Matches(msg, k.Seek):
		if ok {
			v.openSeek(r.St.Info.Name)
		}
		return nil, true
	case key.Matches(msg, k.DeleteGroup):
		if ok {
			v.openDelete(r.St.Info.Name)
		}
		return nil, true
	}
	return nil, false
}

func (v *View) DetailKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := v.Ctx.Keys
	switch {
	case key.Matches(msg, k.Seek):
		v.openSeek(v.Detail.Name)
	case key.Matches(msg, k.DeleteGroup):
		v.openDelete(v.Detail.Name)
	case key.Matches(msg, k.ChartSpan) && v.Ctx.History != nil:
		v.Ctx.NextSpan()
		return v.readLag(), true
	case key.Matches(msg, k.TailPartition) && v.tailable():
		r, _ := v.Detail.offs.Selected()
		return common.Open(tailTarget(r.o)), true
	default:
		return nil, false
	}
	return nil, true
}

// tailable reports whether t tails a partition now: the detail's offsets
// pane is shown and its cursor is on a row (the offsets have arrived).
func (v *View) tailable() bool {
	if v.Detail == nil || v.Detail.Panes.Cur != 0 {
		return false
	}
	_, ok := v.Detail.offs.Selected()
	return ok
}

// detailHeader is the detail's title block (before the lag line).
func (v *View) detailHeader(st *common.Styles) []string {
	d := v.Detail
	title := st.Title.Render("Group " + common.S(d.Name))
	if !d.Loaded {
		return []string{title}
	}
	durable := "temporary"
	if d.desc.Durable {
		durable = "durable"
	}
	return tab.Titled(title, common.Pairs(st, v.W,
		"", tab.GroupStateStyle(st, d.desc.State).Render(common.S(string(d.desc.State))),
		"generation", tab.Itoa(int64(d.desc.Generation)),
		"coordinator", "node "+tab.Itoa(int64(d.desc.Coordinator)),
		"", durable,
		"", common.Plural(len(d.desc.Members), "member")), v.W)
}

func (v *View) DetailTableTop() int {
	n := len(v.detailHeader(v.Ctx.Styles))
	return n + 2 + v.chartHeight(n)
}

func (v *View) SizeDetail() {
	h := max(v.H-v.DetailTableTop(), 0)
	v.Detail.Panes.SetSize(v.W, h)
}

// tailTarget is the drill-down of a partition row: a tail of it from the
// group's committed offset (from the log start without a commit, which is
// where the group would start reading it too).
func tailTarget(o admin.GroupOffset) common.Target {
	from := o.Committed
	if from < 0 {
		from = max(o.LogStart, 0)
	}
	return common.Target{Kind: common.TargetTail, Topic: o.Topic, Partition: o.Partition, Offset: from}
}

// Reveal implements common.Revealer: a drill-down opens a group's detail
// (the one shown, if it is that group's) with the cursor on the partition
// named, once the offsets arrive.
func (v *View) Reveal(t common.Target) tea.Cmd {
	if t.Kind != common.TargetGroup {
		return nil
	}
	v.Table.SelectKey(t.Name) // esc on the detail lands on its row
	var cmd tea.Cmd
	if v.Detail == nil || v.Detail.Name != t.Name {
		cmd = v.openDetail(t.Name)
	}
	d := v.Detail
	d.Panes.Cur = 0
	d.focus = ""
	if t.Topic != "" && t.Partition >= 0 {
		d.focus = listdetail.OffKey(t.Topic, t.Partition)
		if d.offs.SelectKey(d.focus) {
			d.focus = ""
		}
	}
	return cmd
}

func (v *View) openDetail(name string) tea.Cmd {
	v.Gen++
	d := &groupDetail{PaneDetail: listdetail.PaneDetail{Kind: "group", Name: name, Fetch: v.fetchGroup(name)}, prev: map[string]*partSample{}}
	type O = components.Column[offRow]
	d.offs = listdetail.NewPartitionTable(v.Ctx, 16, func(r offRow) (string, int32) { return r.o.Topic, r.o.Partition },
		O{Title: "COMMITTED", Width: 10, Min: 6, Right: true, Drop: 3,
			Text: func(r offRow) string {
				if r.o.Committed < 0 {
					return "no commit"
				}
				return tab.Itoa(r.o.Committed)
			},
			Paint: func(r offRow, st *common.Styles) common.Style {
				if r.o.Committed < 0 {
					return st.Warn
				}
				return common.Style{}
			}},
		O{Title: "START", Width: 10, Min: 6, Right: true, Drop: 6,
			Text: func(r offRow) string { return offsetText(r.o.LogStart) }},
		O{Title: "END", Width: 10, Min: 6, Right: true, Drop: 2,
			Text: func(r offRow) string { return offsetText(r.o.End) }},
		O{Title: "LAG", Width: 8, Min: 5, Right: true,
			Text: func(r offRow) string { return tab.PartLagText(r.o.Lag()) },
			Cmp:  func(a, b offRow) int { return cmp.Compare(tab.PartLagKey(a.o.Lag()), tab.PartLagKey(b.o.Lag())) }},
		O{Title: "RATE/s", Width: 6, Right: true, Drop: 4,
			Text: func(r offRow) string {
				if r.rate < 0 {
					return "-"
				}
				return common.Rate(r.rate)
			}},
		O{Title: "HEALTH", Width: 8, Min: 6, Drop: 7,
			Text:  func(r offRow) string { return v.partWord(d, r).String() },
			Paint: func(r offRow, st *common.Styles) common.Style { return healthStyle(st, v.partWord(d, r)) }},
		O{Title: "DRAIN", Width: 14, Min: 8,
			Text: func(r offRow) string { return r.drain },
			Paint: func(r offRow, st *common.Styles) common.Style {
				switch r.drain {
				case "not draining", "falling behind":
					return st.Warn
				case "caught up":
					return st.OK
				}
				return common.Style{}
			}},
		O{Title: "MEMBER", Width: 14, Min: 6, Drop: 5,
			Text: func(r offRow) string { return common.S(r.o.MemberID) }},
	)
	d.offs.Empty = "loading offsets…"
	d.offs.SetSort(0, false)
	type M = components.Column[admin.GroupMember]
	d.mems = components.NewTable(v.Ctx, func(m admin.GroupMember) string { return m.MemberID },
		M{Title: "MEMBER", Width: 18, Min: 8, Flex: true, Max: 40,
			Text: func(m admin.GroupMember) string { return common.S(m.MemberID) },
			Cmp:  func(a, b admin.GroupMember) int { return strings.Compare(a.MemberID, b.MemberID) }},
		M{Title: "CLIENT", Width: 14, Min: 6, Drop: 2,
			Text: func(m admin.GroupMember) string { return common.S(m.ClientName) }},
		M{Title: "HOST", Width: 15, Min: 6, Drop: 3,
			Text: func(m admin.GroupMember) string { return common.S(m.Host) }},
		M{Title: "ASSIGNMENT", Width: 24, Min: 10, Flex: true,
			Text: func(m admin.GroupMember) string { return assignment(m.Assignment) }},
		M{Title: "SEEN", Width: 8, Right: true, Drop: 1,
			Text: func(m admin.GroupMember) string {
				if m.LastSeen.IsZero() {
					return "-"
				}
				return common.Dur(v.Ctx.Now().Sub(m.LastSeen))
			}},
	)
	d.mems.Empty = "no active member"
	d.mems.SetSort(0, false)
	d.Panes.Add("offsets", listdetail.TableOps(d.offs))
	d.Panes.Add("members", listdetail.TableOps(d.mems))
	v.Detail = d
	v.SizeDetail()
	return tea.Batch(v.ReadDetail(&v.Base), v.readLag())
}

func assignment(tps []admin.TopicPartitions) string {
	var parts []string
	for _, tp := range tps {
		ps := make([]string, len(tp.Partitions))
		for i, p := range tp.Partitions {
			ps[i] = strconv.Itoa(int(p))
		}
		parts = append(parts, common.S(tp.Topic)+":"+strings.Join(ps, ","))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " ")
}

// fetchGroup reads a group's describe.
func (v *View) fetchGroup(name string) func(context.Context) any {
	src, now := v.src, v.Ctx.Now
	return func(ctx context.Context) any {
		desc, err := src.DescribeGroup(ctx, name)
		return groupDetailMsg{desc: desc, err: err, at: now()}
	}
}

// applyDescribe stores a describe and updates the per-partition rate
// estimates (EWMA of committed and end-offset progress between two
// describes) that give the time to drain.
func (d *groupDetail) applyDescribe(desc admin.GroupDescription, at time.Time) {
	d.desc = desc
	rows := make([]offRow, 0, len(desc.Offsets))
	d.rate, d.prod = 0, 0
	rateKnown := false
	seen := map[string]bool{}
	for _, o := range desc.Offsets {
		k := listdetail.OffKey(o.Topic, o.Partition)
		seen[k] = true
		r := offRow{o: o, rate: -1, prod: -1}
		p := d.prev[k]
		if p != nil && at.After(p.at) && o.End >= 0 && p.end >= 0 {
			dt := at.Sub(p.at).Seconds()
			// Production is known from the end offsets alone: a
			// partition the group never committed on grows its lag too.
			p.prod = smoothed(p.prod, p.pn, max(float64(o.End-p.end)/dt, 0))
			p.pn++
			r.prod = p.prod
			d.prod += p.prod
			if o.Committed >= 0 && p.committed >= 0 {
				c := float64(o.Committed-p.committed) / dt
				if c < 0 { // rewound (a seek): restart the estimate
					p.n = 0
					c = 0
				}
				p.rate = smoothed(p.rate, p.n, c)
				p.n++
				r.rate = p.rate
				d.rate += p.rate
				rateKnown = true
			}
		}
		if p == nil {
			p = &partSample{}
			d.prev[k] = p
		}
		p.at, p.committed, p.end = at, o.Committed, o.End
		r.drain = drainText(o.Lag(), r.rate, r.prod)
		rows = append(rows, r)
	}
	for k := range d.prev {
		if !seen[k] {
			delete(d.prev, k)
		}
	}
	if !rateKnown {
		d.rate, d.prod = -1, -1
	}
	d.offs.SetItems(rows)
	d.mems.SetItems(desc.Members)
}

// drainText estimates the time to drain a lag at the net rate
// (consumption minus production).
func drainText(l admin.PartLag, rate, prod float64) string {
	lag := l.Records
	switch {
	case l.Unknown:
		return "-"
	case lag == 0:
		return "caught up"
	case rate < 0:
		return "…"
	case rate == 0:
		return "not draining" // not "stalled": that is a health word, judged over the window
	}
	net := rate - prod
	switch {
	case rate > 0 && net > -0.05*rate && net < 0.05*rate:
		return "steady" // keeping pace: the lag neither grows nor drains
	case net <= 0:
		return "falling behind"
	}
	secs := float64(lag) / net
	if secs > 30*24*3600 || math.IsInf(secs, 0) {
		return "> 30d"
	}
	return "≈ " + common.Dur(time.Duration(secs*float64(time.Second)).Round(time.Second))
}

func (v *View) handleViewMsg(msg common.ViewMsg) tea.Cmd {
	switch m := msg.Msg.(type) {
	case seekPlanMsg:
		return v.seekReply(m)
	case groupDeleteMsg:
		return v.deleteReply(m)
	case lagHistMsg:
		v.lagReply(msg.Gen, m)
		return nil
	}
	return listdetail.DetailReply(&v.Shown, &v.Base, msg, func(d *groupDetail, m groupDetailMsg) tea.Cmd {
		return d.Done(&v.Base, common.ResGroups, m.err, m.at, func() {
			d.applyDescribe(m.desc, m.at)
			v.SizeDetail()
			if d.focus != "" {
				d.offs.SelectKey(d.focus)
				d.focus = "" // once: later reads keep the operator's cursor
			}
		})
	})
}

// partWord is a detail row's health word: the partition's own verdict
// from the tracker's latest group list.
func (v *View) partWord(d *groupDetail, r offRow) health.Word {
	row := v.tracker.Row(d.Name)
	if row == nil {
		return health.Unknown
	}
	for i, p := range row.St.Info.Partitions {
		if p.Topic == r.o.Topic && p.Partition == r.o.Partition && i < len(row.St.Partitions) {
			return row.St.Partitions[i].Word
		}
	}
	return health.Unknown
}

// lagKey sorts lags, unknown first.
func lagKey(t admin.LagTotal) int64 {
	if !t.Known() {
		return -1
	}
	return t.Records
}

// ---- seek and delete ----

func (v *View) groupInfo(name string) (admin.GroupInfo, bool) {
	if r := v.tracker.Row(name); r != nil {
		return r.St.Info, true
	}
	return admin.GroupInfo{}, false
}

func (v *View) activeMembers(name string) int {
	if v.Detail != nil && v.Detail.Name == name && v.Detail.Loaded {
		return len(v.Detail.desc.Members)
	}
	if g, ok := v.groupInfo(name); ok {
		return g.Members
	}
	return 0
}

func (v *View) membersWarning(name string) string {
	n := v.activeMembers(name)
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("⚠ %s has %s. The engine moves or deletes a group's offsets only when it has no active member, and will refuse with MIMQE_GROUP_NOT_EMPTY until its consumers stop.", common.S(name), common.Plural(n, "active member"))
}

func (v *View) openSeek(name string) {
	topics := []string{"all topics"}
	if g, ok := v.groupInfo(name); ok {
		topics = append(topics, g.Topics...)
	}
	disp := make([]string, len(topics))
	for i, t := range topics {
		disp[i] = common.S(t)
	}
	body := []string{"Moves the committed offsets of " + common.S(name) + ". You will see every change before it is applied."}
	if w := v.membersWarning(name); w != "" {
		body = append(body, "", v.Ctx.Styles.Warn.Render(w))
	}
	d := &components.Dialog{
		Title:       "Seek group " + common.S(name),
		Body:        body,
		SubmitLabel: "preview",
		Fields: []*components.Field{
			components.ChoiceField("Topic", disp...),
			components.TextField("To", "earliest", "earliest · latest · 1234 · 2@1234 (one partition) · 2026-11-30 10:00 · -15m"),
		},
	}
	d.Fields[0].Hint = "←/→"
	d.Focus(1)
	v.OpenDialog(d)
	v.flow = groupFlow{stage: flowSeekForm, group: name, members: v.activeMembers(name)}
	v.flowTopics = topics
}

func (v *View) openDelete(name string) {
	disp := common.S(name)
	confirm := disp
	if disp != name || strings.Contains(name, " ") {
		confirm = "DELETE"
	}
	body := []string{"Deletes " + disp + " and all its committed offsets. Its consumers would start over from their reset policy."}
	if w := v.membersWarning(name); w != "" {
		body = append(body, "", v.Ctx.Styles.Warn.Render(w))
	}
	v.OpenDialog(&components.Dialog{
		Title: "Delete group " + disp, Danger: true, Body: body,
		ConfirmText: confirm, SubmitLabel: "delete",
	})
	v.flow = groupFlow{stage: flowDelete, group: name}
}

func (v *View) DialogKey(msg tea.KeyPressMsg) tea.Cmd {
	return v.DialogFlow(msg, func() { v.flow = groupFlow{} }, func(end func()) tea.Cmd {
		switch v.flow.stage {
		case flowSeekForm:
			return v.submitSeekForm()
		case flowSeekPreview:
			return v.runSeek(true)
		case flowDelete:
			return v.runDelete()
		case flowResult:
			end()
		}
		return nil
	}, nil)
}

func (v *View) submitSeekForm() tea.Cmd {
	f := v.Dlg.Fields
	fl := &v.flow
	fl.topic = ""
	if f[0].Choice > 0 && f[0].Choice < len(v.flowTopics) {
		fl.topic = v.flowTopics[f[0].Choice]
	}
	fl.byTime = false
	fl.target = admin.SeekTarget{}
	fl.planned = nil
	to, err := position.Parse(f[1].Value(), v.Ctx.Now())
	if err != nil {
		v.Dlg.Err = err.Error()
		return nil
	}
	switch to.Kind {
	case position.Earliest:
		fl.target.Earliest = true
		fl.desc = "earliest"
	case position.Latest:
		fl.target.Latest = true
		fl.desc = "latest"
	case position.Offset:
		fl.target.Offset = to.Offset
		fl.desc = "offset " + tab.Itoa(to.Offset)
		if to.OnePartition() {
			// One partition of one topic: the chosen topic, or the one
			// TOPIC:P@OFFSET names.
			switch {
			case to.Topic != "" && fl.topic != "" && to.Topic != fl.topic:
				v.Dlg.Err = "To: " + common.S(to.String()) + " names topic " + common.S(to.Topic) + ", but the topic chosen is " + common.S(fl.topic)
				return nil
			case to.Topic != "":
				fl.topic = to.Topic
			case fl.topic == "":
				v.Dlg.Err = "To: " + common.S(to.String()) + " moves one partition: choose its topic above (←/→) or write TOPIC:" + common.S(to.String())
				return nil
			}
			fl.target.Partitions = []int32{to.Partition}
			fl.desc = "offset " + tab.Itoa(to.Offset) + " of partition " + strconv.Itoa(int(to.Partition))
		}
	case position.Time:
		fl.byTime, fl.at = true, to.Time
		fl.desc = "time " + to.Time.In(v.Ctx.Now().Location()).Format("2006-01-02 15:04:05")
	}
	v.Dlg.Err = ""
	v.Dlg.Busy = "planning…"
	return v.runSeek(false)
}

func (v *View) runSeek(apply bool) tea.Cmd {
	fl := v.flow
	if apply {
		v.Dlg.Busy = "applying…"
	}
	src, gen := v.src, v.DlgGen
	return v.Call(func(ctx context.Context) any {
		var ch []admin.OffsetChange
		var err error
		switch {
		case apply: // exactly the previewed offsets, not the target resolved again
			to := fl.target
			if fl.byTime {
				to = admin.SeekTarget{Time: fl.at}
			}
			to.Planned = fl.planned
			ch, err = src.SeekGroup(ctx, fl.group, fl.topic, to, true)
		case fl.byTime:
			ch, err = src.SeekGroupToTime(ctx, fl.group, fl.topic, fl.at, false)
		default:
			ch, err = src.SeekGroup(ctx, fl.group, fl.topic, fl.target, false)
		}
		return seekPlanMsg{changes: ch, planned: fl.planned, err: err, apply: apply, dlgGen: gen, group: fl.group}
	})
}

// explainRefusal turns an engine refusal of a group operation into words.
func explainRefusal(err error, group string) []string {
	text := memberCount(sanitize.Error(err))
	if strings.Contains(text, "MIMQE_GROUP_NOT_EMPTY") {
		return []string{
			"The engine refused: " + text,
			"",
			"A group's offsets can be moved or deleted only while the group has no active member (ilink-spec §3.7). Stop the consumers of " + common.S(group) + ", or wait until their sessions expire, then retry.",
		}
	}
	return []string{"The engine refused: " + text}
}

func (v *View) seekReply(m seekPlanMsg) tea.Cmd {
	current := v.DialogOpen(m.dlgGen)
	if m.err != nil {
		if !current {
			return common.Flash(common.LevelError, "seek "+common.S(m.group)+" failed: "+memberCount(sanitize.Error(m.err)))
		}
		v.OpenDialog(&components.Dialog{Title: "Seek " + common.S(m.group) + " failed", Danger: true, Body: explainRefusal(m.err, m.group)})
		v.flow.stage = flowResult
		return nil
	}
	if m.apply {
		// The result is reported against the preview it applied.
		diffs := admin.SeekDifferences(m.planned, m.changes)
		done := common.Flash(common.LevelOK, common.S(m.group)+": "+common.Plural(len(m.changes), "offset")+" moved as previewed")
		if len(diffs) > 0 {
			done = common.Flash(common.LevelWarn, common.S(m.group)+": "+common.Plural(len(m.changes), "offset")+" moved; "+common.Plural(len(diffs), "partition")+" differ from the preview")
		}
		if current {
			v.CloseDialog()
			v.flow = groupFlow{}
			if len(diffs) > 0 {
				v.OpenDialog(components.AppliedWithDifferences("Seek "+common.S(m.group), "seek", diffs))
				v.flow.stage = flowResult
			}
		}
		cmds := []tea.Cmd{done, common.Refresh(common.ResGroups)}
		if v.Detail != nil && v.Detail.Name == m.group {
			cmds = append(cmds, v.ReadDetail(&v.Base)) // (owed, if a read is out)
		}
		return tea.Batch(cmds...)
	}
	if !current {
		return nil
	}
	// Preview.
	st := v.Ctx.Styles
	scope := "all topics"
	if v.flow.topic != "" {
		scope = common.S(v.flow.topic)
	}
	body := []string{fmt.Sprintf("Seek %s on %s to %s. Planned changes (nothing is applied yet):", common.S(m.group), scope, v.flow.desc), ""}
	if len(m.changes) == 0 {
		body = append(body, st.Muted.Render("No offset would change."))
	}
	// The records skipped are counted by the lag rule itself
	// (admin.OffsetChange.Skip): a seek to the latest offset skips exactly
	// the LAG the table shows.
	var delta int64
	unknown := 0
	for _, c := range m.changes {
		n, ok := c.Skip()
		old := tab.Itoa(c.Old)
		if c.Old < 0 {
			old = "no commit (log start " + offsetText(c.LogStart) + ")"
		}
		what := "unknown"
		switch {
		case !ok:
			unknown++
		case n >= 0:
			what = "skip " + common.Thousands(n)
		default:
			what = "re-read " + common.Thousands(-n)
		}
		delta += n
		body = append(body, fmt.Sprintf("%s [%d]  %s → %s  (%s)", common.S(c.Topic), c.Partition, old, tab.Itoa(c.New), what))
	}
	if len(m.changes) > 0 {
		var sum string
		switch {
		case delta > 0:
			sum = fmt.Sprintf("%s; the group will skip %s.", common.Plural(len(m.changes), "partition"), common.Plural(delta, "record"))
		case delta < 0:
			sum = fmt.Sprintf("%s; the group will re-read %s.", common.Plural(len(m.changes), "partition"), common.Plural(-delta, "record"))
		default:
			sum = common.Plural(len(m.changes), "partition") + "; no net change in records to read."
		}
		if unknown > 0 {
			sum += fmt.Sprintf(" (%s without a known log start or end not counted)", common.Plural(unknown, "partition"))
		}
		body = append(body, "", sum)
	}
	if w := v.membersWarning(m.group); w != "" {
		body = append(body, "", st.Warn.Render(w))
	}
	d := &components.Dialog{Title: "Seek " + common.S(m.group) + " — preview", Body: body}
	if len(m.changes) > 0 {
		d.SubmitLabel = "apply"
	}
	v.OpenDialog(d)
	v.flow.stage = flowSeekPreview
	v.flow.planned = m.changes
	return nil
}

func (v *View) runDelete() tea.Cmd {
	v.Dlg.Busy = "deleting…"
	src, gen, name := v.src, v.DlgGen, v.flow.group
	return v.Call(func(ctx context.Context) any {
		return groupDeleteMsg{group: name, err: src.DeleteGroup(ctx, name), dlgGen: gen}
	})
}

func (v *View) deleteReply(m groupDeleteMsg) tea.Cmd {
	current := v.DialogOpen(m.dlgGen)
	if m.err != nil {
		if !current {
			return common.Flash(common.LevelError, "delete "+common.S(m.group)+" failed: "+sanitize.Error(m.err))
		}
		v.OpenDialog(&components.Dialog{Title: "Delete " + common.S(m.group) + " failed", Danger: true, Body: explainRefusal(m.err, m.group)})
		v.flow.stage = flowResult
		return nil
	}
	v.tracker.Forget(m.group)
	if current {
		v.CloseDialog()
		v.flow = groupFlow{}
	}
	if v.Detail != nil && v.Detail.Name == m.group {
		v.Gen++
		v.Detail = nil
	}
	return tea.Batch(common.Flash(common.LevelOK, "group "+common.S(m.group)+" deleted"), common.Refresh(common.ResGroups))
}

// ---- rendering ----

// ListSummary is the line above the list: how many groups, and how many
// show each health word that needs a look.
func (v *View) ListSummary(st *common.Styles) string {
	if !v.loaded {
		return st.Muted.Render("loading groups…")
	}
	// The count is the tracker's, the overview's too: the same rows, the
	// temporary ones and those missing from the list said.
	parts := []string{v.tracker.Counts().Text()}
	for _, h := range []health.Word{health.Stopped, health.Stalled, health.Rewound, health.Lagging, health.Rebalancing,
		health.Dead, health.Empty, health.Unknown} {
		if n := v.counts[h]; n > 0 {
			parts = append(parts, healthStyle(st, h).Render(tab.Itoa(int64(n))+" "+h.String()))
		}
	}
	return strings.Join(parts, st.Faint.Render(" · "))
}

func (v *View) DetailView(st *common.Styles) string {
	d := v.Detail
	header := v.detailHeader(st)
	lines := append(make([]string, 0, v.H), header...)
	switch {
	case d.Err != nil:
		lines = append(lines, st.Err.Render("⚠ "+sanitize.Error(d.Err))+st.Muted.Render(" ("+common.Ago(v.Ctx.Now(), d.ErrAt)+")"))
	case !d.Loaded:
		lines = append(lines, st.Muted.Render("loading…"))
	default:
		ps := make([]admin.PartitionOffsets, len(d.desc.Offsets))
		for i, o := range d.desc.Offsets {
			ps[i] = o.PartitionOffsets
		}
		lt := admin.GroupLag(ps)
		parts := []string{"lag " + lagText(lt)}
		if lt.Known() {
			parts[0] = "lag " + common.Thousands(lt.Records)
		}
		if lt.NoCommit > 0 {
			parts = append(parts, st.Warn.Render(common.Plural(lt.NoCommit, "partition")+" without a commit"))
		}
		if d.rate >= 0 {
			l := admin.PartLag{Records: lt.Records, Unknown: !lt.Known()}
			parts = append(parts, "consuming "+common.Rate(d.rate)+"/s", "producing "+common.Rate(d.prod)+"/s")
			parts = append(parts, "drain "+drainText(l, d.rate, d.prod))
		}
		if r := v.tracker.Row(d.Name); r != nil {
			parts = append(parts, healthStyle(st, r.St.Word).Render(r.St.Word.String())+" "+st.Muted.Render(common.S(r.St.Reason)))
		}
		// Wrapped at the pairs, not cut: the health reason is the point.
		pairs := make([]string, 0, 2*len(parts))
		for _, p := range parts {
			pairs = append(pairs, "", p)
		}
		lines = append(lines, common.Pairs(st, v.W, pairs...)...)
	}
	lines = append(lines, v.chartLines(st, v.chartHeight(len(header)))...)
	lines = append(lines, listdetail.PaneTabs(st, []string{" Offsets (" + tab.Itoa(int64(len(d.desc.Offsets))) + ") ", " Members (" + tab.Itoa(int64(len(d.desc.Members))) + ") "}, d.Panes.Cur))
	lines = append(lines, d.Panes.Active().Lines()...)
	return common.Frame(lines, v.W, v.H)
}

// activeMembers is the count of the engine's MIMQE_GROUP_NOT_EMPTY text,
// which the wire spells "(N active members)" whatever N is.
var activeMembers = regexp.MustCompile(`\((\d+) active members\)`)

// memberCount puts "(1 active members)" of an engine refusal in agreement.
func memberCount(text string) string {
	return activeMembers.ReplaceAllStringFunc(text, func(m string) string {
		n, err := strconv.Atoi(activeMembers.FindStringSubmatch(m)[1])
		if err != nil {
			return m
		}
		return "(" + common.Plural(n, "active member") + ")"
	})
}

// smoothed is a rate estimate after its sample x: x itself when no sample
// came before (n == 0), else an exponential average (alpha 0.5) with the
// estimate so far.
func smoothed(prev float64, n int, x float64) float64 {
	if n == 0 {
		return x
	}
	const alpha = 0.5
	return alpha*x + (1-alpha)*prev
}
