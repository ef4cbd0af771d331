package topics

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/topicrules"
	"ilinkdash/ilink/wire"
	"ilinkdash/ui/common"
	"ilinkdash/ui/components"
	"ilinkdash/ui/sanitize"
	"ilinkdash/ui/views/listdetail"
	"ilinkdash/ui/views/tab"
)

// rateHistory is how many rate samples a topic keeps for its sparkline.
const rateHistory = 30

// topicRow is one topic with the history the view keeps for it.
type topicRow struct {
	info     admin.TopicInfo
	name     string // sanitized
	rin      *common.Ring
	rout     *common.Ring
	internal bool

	retention      string // cached: formatted when the retention changes
	retMs, retByte int64
}

// View is the topics tab: a sortable, filterable table of every topic
// with its rates and a rate sparkline; Enter opens a detail with the
// partitions and the groups consuming the topic.
type View struct {
	listdetail.List[*topicRow]
	listdetail.Shown[topicDetail, *topicDetail]
	src tab.TopicAdmin

	rows         map[string]*topicRow
	showInternal bool
	at           time.Time
	loaded       bool
	hiddenInt    int
	underRepl    int
	offline      int
	sumIn        float64
	sumOut       float64

	pending pendingAction
	nodes   int          // the cluster's nodes, from the summary poll: the create form's replicas bound
	cfg     topicCfgFlow // the configuration pane (topicconfig.go)
	scratch []float64
}

type topicDetail struct {
	listdetail.PaneDetail // panes: partitions, consumers
	desc                  admin.TopicDescription
	subs                  []admin.SubscriptionLine
	series                admin.StatSeries
	parts                 *components.Table[admin.PartitionInfo]
	cons                  *components.Table[admin.SubscriptionLine]
}

// Messages private to the topics view (carried in common.ViewMsg).
type (
	topicDetailMsg struct {
		desc   admin.TopicDescription
		subs   []admin.SubscriptionLine
		series admin.StatSeries
		err    error
		at     time.Time
	}
	topicActionMsg struct {
		verb, name string
		props      string // create: the property text sent (the review's)
		err        error
		dlgGen     uint64
		before     *admin.TopicInfo // delete, flush: what the preview showed
		after      *admin.TopicInfo // flush: the topic read back after it
		gone       bool             // delete: the read back says no such topic
		checkErr   error            // the read back failed otherwise
	}
)

// New returns the topics view.
func New(ctx *common.Context, src tab.TopicAdmin) *View {
	v := &View{src: src, rows: map[string]*topicRow{}}
	// The declared columns of the topic list (tab.TopicList); the name
	// is the row's, sanitized once per topic.
	col := func(title string) components.Column[*topicRow] { return tab.Column(tab.TopicList, title, topicInfo) }
	name := col("NAME")
	name.Text = func(r *topicRow) string { return r.name }
	v.Setup(ctx, common.ViewTopics, v, components.NewTable(ctx, tab.RowKey(tab.TopicList, topicInfo),
		name, col("PART"), col("REPL"), col("IN-SYNC"), col("END OFFSETS"), col("IN/s"), col("OUT/s"),
		components.Column[*topicRow]{Title: "IN TREND", Width: 12, Min: 8, Drop: 5, NoFilter: true,
			Text: func(r *topicRow) string {
				v.scratch = r.rin.Values(v.scratch[:0], 12)
				return components.Sparkline(v.scratch, 12)
			},
			Paint: func(_ *topicRow, st *common.Styles) common.Style { return st.Spark }},
		components.Column[*topicRow]{Title: "RETENTION", Width: 10, Drop: 7,
			Text: func(r *topicRow) string { return r.retention },
			Cmp:  func(a, b *topicRow) int { return cmp.Compare(a.info.RetentionMs, b.info.RetentionMs) }},
	))
	v.Table.Empty = "no topic yet"
	v.Table.SetSort(0, false)
	return v
}

// topicInfo is the listed topic of a row.
func topicInfo(r *topicRow) *admin.TopicInfo { return &r.info }

func (v *View) Title() string         { return "Topics" }
func (v *View) Primary() common.ResID { return common.ResTopics }

// ShortHelp implements common.View.
func (v *View) ShortHelp() []key.Binding {
	k := v.Ctx.Keys
	if v.Detail != nil {
		if v.Detail.Panes.Cur == 1 {
			return []key.Binding{k.Back, k.Open, k.Pane, k.Tail, k.Publish, k.TopicConfig, k.Filter}
		}
		return []key.Binding{k.Back, k.Pane, k.Tail, k.Publish, k.TopicConfig, k.Filter}
	}
	return []key.Binding{k.Open, k.Filter, k.Sort, k.Tail, k.Publish, k.TopicConfig, k.CreateTopic, k.DeleteTopic}
}

// FullHelp implements common.View.
func (v *View) FullHelp() [][]key.Binding {
	k := v.Ctx.Keys
	return [][]key.Binding{
		k.TableHelp(),
		{k.Open, k.Pane, k.Tail, k.Publish, k.TopicConfig, k.CreateTopic, k.DeleteTopic, k.FlushTopic, k.Internal},
	}
}

// Update implements common.View.
func (v *View) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case common.DataMsg:
		switch msg.Res {
		case common.ResTopics:
			if ts, ok := msg.Data.([]admin.TopicInfo); ok {
				v.setTopics(ts, msg.At)
			}
		case common.ResSummary:
			if sum, ok := msg.Data.(tab.ClusterSummary); ok {
				v.nodes = len(sum.Nodes)
			}
		}
		return nil
	case common.ViewMsg:
		return v.handleViewMsg(msg)
	}
	return v.Input(msg)
}

// setTopics takes a fresh topic list: pushes rates into each topic's
// history, forgets deleted topics, and rebuilds the table (sort and filter
// are applied here, once per poll, not per frame).
func (v *View) setTopics(ts []admin.TopicInfo, at time.Time) {
	v.at, v.loaded = at, true
	seen := make(map[string]struct{}, len(ts))
	items := make([]*topicRow, 0, len(ts))
	v.hiddenInt, v.underRepl, v.offline, v.sumIn, v.sumOut = 0, 0, 0, 0, 0
	for _, t := range ts {
		r := v.rows[t.Name]
		if r == nil {
			r = &topicRow{rin: common.NewRing(rateHistory), rout: common.NewRing(rateHistory)}
			v.rows[t.Name] = r
		}
		if r.retention == "" || r.retMs != t.RetentionMs || r.retByte != t.RetentionBytes {
			r.retention, r.retMs, r.retByte = tab.Retention(t.RetentionMs, t.RetentionBytes), t.RetentionMs, t.RetentionBytes
		}
		if r.info.Name != t.Name {
			r.name = common.S(t.Name)
		}
		r.info = t
		r.internal = t.Internal || strings.HasPrefix(t.Name, "SYSTEM.")
		r.rin.Push(t.RecordsInPerSec)
		r.rout.Push(t.RecordsOutPerSec)
		seen[t.Name] = struct{}{}
		v.underRepl += t.UnderReplicated
		v.offline += t.Offline
		if r.internal && !v.showInternal {
			v.hiddenInt++
			continue
		}
		// The summary's rates are the listed topics' (not the hidden).
		v.sumIn += t.RecordsInPerSec
		v.sumOut += t.RecordsOutPerSec
		items = append(items, r)
	}
	for name := range v.rows {
		if _, ok := seen[name]; !ok {
			delete(v.rows, name)
		}
	}
	v.Table.SetItems(items)
}

func (v *View) rebuildItems() {
	items := make([]*topicRow, 0, len(v.rows))
	v.hiddenInt, v.sumIn, v.sumOut = 0, 0, 0
	for _, r := range v.rows {
		if r.internal && !v.showInternal {
			v.hiddenInt++
			continue
		}
		v.sumIn += r.info.RecordsInPerSec
		v.sumOut += r.info.RecordsOutPerSec
		items = append(items, r)
	}
	// Map iteration order is random; the table sorts, and ties break on
	// the row key, so the display is deterministic.
	v.Table.SetItems(items)
}

func (v *View) selectedName() (string, bool) {
	if v.Detail != nil {
		return v.Detail.Name, true
	}
	r, ok := v.Table.Selected()
	if !ok {
		return "", false
	}
	return r.info.Name, true
}

func (v *View) OpenRow(r *topicRow) tea.Cmd { return v.openDetail(r.info.Name) }

func (v *View) ListKey(msg tea.KeyPressMsg, _ *topicRow, _ bool) (tea.Cmd, bool) {
	k := v.Ctx.Keys
	switch {
	case key.Matches(msg, k.Internal):
		v.showInternal = !v.showInternal
		v.rebuildItems()
		return nil, true
	case key.Matches(msg, k.Tail, k.Publish, k.DeleteTopic, k.FlushTopic, k.CreateTopic, k.TopicConfig):
		return v.action(msg), true
	}
	return nil, false
}

func (v *View) DetailKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := v.Ctx.Keys
	switch {
	case key.Matches(msg, k.Open) && v.Detail.Panes.Cur == 1:
		// A consumer row opens its group, at this topic's partition.
		if s, ok := v.Detail.cons.Selected(); ok {
			return common.Open(common.Target{Kind: common.TargetGroup, Name: s.Group, Topic: v.Detail.Name, Partition: s.Partition}), true
		}
		return nil, true
	case key.Matches(msg, k.Tail, k.Publish, k.DeleteTopic, k.FlushTopic, k.CreateTopic, k.TopicConfig):
		return v.action(msg), true
	}
	return nil, false
}

// action handles the topic action keys (list and detail alike).
func (v *View) action(msg tea.KeyPressMsg) tea.Cmd {
	k := v.Ctx.Keys
	name, ok := v.selectedName()
	switch {
	case key.Matches(msg, k.CreateTopic):
		v.openCreate()
		return nil
	case !ok:
		return nil
	case key.Matches(msg, k.Tail):
		return common.Send(common.OpenTailMsg{Pattern: name})
	case key.Matches(msg, k.Publish):
		return common.Send(common.OpenPublishMsg{Topic: name})
	case key.Matches(msg, k.DeleteTopic):
		v.openDelete(name)
	case key.Matches(msg, k.FlushTopic):
		v.openFlush(name)
	case key.Matches(msg, k.TopicConfig):
		return v.openConfig(name)
	}
	return nil
}

// ---- detail ----

// detailHeader is the detail's title block (before the rate line).
func (v *View) detailHeader(st *common.Styles) []string {
	d := v.Detail
	title := st.Title.Render("Topic " + common.S(d.Name))
	if !d.Loaded {
		return []string{title}
	}
	t := d.desc.TopicInfo
	return tab.Titled(title, common.Pairs(st, v.W,
		"", common.Plural(t.Partitions, "partition"),
		"replicas", tab.Itoa(int64(t.Replicas)),
		"minSync", tab.Itoa(int64(t.MinSync)),
		"retention", tab.Retention(t.RetentionMs, t.RetentionBytes),
		"epoch", tab.Itoa(int64(t.Epoch))), v.W)
}

// DetailTableTop is the first line of the detail's pane table: the
// header, the rate line and the pane selector come first.
func (v *View) DetailTableTop() int { return len(v.detailHeader(v.Ctx.Styles)) + 2 }

func (v *View) SizeDetail() {
	h := max(v.H-v.DetailTableTop(), 0)
	v.Detail.Panes.SetSize(v.W, h)
}

func (v *View) openDetail(name string) tea.Cmd {
	v.Gen++
	d := &topicDetail{PaneDetail: listdetail.PaneDetail{Kind: "topic", Name: name, Fetch: v.fetchTopic(name)}}
	d.parts = components.NewTable(v.Ctx, func(p admin.PartitionInfo) string { return tab.Itoa(int64(p.Partition)) },
		components.Column[admin.PartitionInfo]{Title: "P", Width: 4, Right: true,
			Text: func(p admin.PartitionInfo) string { return tab.Itoa(int64(p.Partition)) },
			Cmp:  func(a, b admin.PartitionInfo) int { return cmp.Compare(a.Partition, b.Partition) }},
		components.Column[admin.PartitionInfo]{Title: "LEADER", Width: 6, Right: true,
			Text: func(p admin.PartitionInfo) string {
				if p.Leader == 0 {
					return "none"
				}
				return tab.Itoa(int64(p.Leader))
			},
			Cmp: func(a, b admin.PartitionInfo) int { return cmp.Compare(a.Leader, b.Leader) },
			Paint: func(p admin.PartitionInfo, st *common.Styles) common.Style {
				if p.Leader == 0 {
					return st.Err
				}
				return common.Style{}
			}},
		components.Column[admin.PartitionInfo]{Title: "EPOCH", Width: 5, Right: true, Drop: 4,
			Text: func(p admin.PartitionInfo) string { return tab.Itoa(int64(p.LeaderEpoch)) }},
		components.Column[admin.PartitionInfo]{Title: "REPLICAS", Width: 8, Min: 5, Drop: 2,
			Text: func(p admin.PartitionInfo) string { return tab.Ints(p.Replicas) }},
		components.Column[admin.PartitionInfo]{Title: "IN-SYNC", Width: 8, Min: 5,
			Text: func(p admin.PartitionInfo) string { return tab.Ints(p.InSync) },
			Cmp:  func(a, b admin.PartitionInfo) int { return cmp.Compare(len(a.InSync), len(b.InSync)) },
			Paint: func(p admin.PartitionInfo, st *common.Styles) common.Style {
				if len(p.InSync) < len(p.Replicas) {
					return st.Warn
				}
				return st.OK
			}},
		components.Column[admin.PartitionInfo]{Title: "START", Width: 10, Min: 6, Right: true, Drop: 3,
			Text: func(p admin.PartitionInfo) string { return tab.Itoa(p.StartOffset) }},
		components.Column[admin.PartitionInfo]{Title: "END", Width: 10, Min: 6, Right: true,
			Text: func(p admin.PartitionInfo) string { return tab.Itoa(p.EndOffset) },
			Cmp:  func(a, b admin.PartitionInfo) int { return cmp.Compare(a.EndOffset, b.EndOffset) }},
		components.Column[admin.PartitionInfo]{Title: "HW", Width: 10, Min: 6, Right: true, Drop: 1,
			Text: func(p admin.PartitionInfo) string { return tab.Itoa(p.HighWatermark) }},
		components.Column[admin.PartitionInfo]{Title: "RECORDS", Width: 10, Min: 7, Right: true, Drop: 5,
			Text: func(p admin.PartitionInfo) string { return common.Count(p.EndOffset - p.StartOffset) },
			Cmp: func(a, b admin.PartitionInfo) int {
				return cmp.Compare(a.EndOffset-a.StartOffset, b.EndOffset-b.StartOffset)
			}},
	)
	d.parts.Empty = "loading partitions…"
	d.parts.SetSort(0, false)
	d.cons = components.NewTable(v.Ctx, func(s admin.SubscriptionLine) string {
		return s.Group + "\x00" + tab.Itoa(int64(s.Partition))
	},
		components.Column[admin.SubscriptionLine]{Title: "GROUP", Width: 20, Min: 10, Flex: true, Max: 40,
			Text: func(s admin.SubscriptionLine) string { return common.S(s.Group) },
			Cmp: func(a, b admin.SubscriptionLine) int {
				if c := strings.Compare(a.Group, b.Group); c != 0 {
					return c
				}
				return cmp.Compare(a.Partition, b.Partition)
			}},
		components.Column[admin.SubscriptionLine]{Title: "STATE", Width: 11, Min: 6, Drop: 2,
			Text: func(s admin.SubscriptionLine) string { return common.S(string(s.State)) },
			Paint: func(s admin.SubscriptionLine, st *common.Styles) common.Style {
				return tab.GroupStateStyle(st, s.State)
			}},
		components.Column[admin.SubscriptionLine]{Title: "P", Width: 4, Right: true,
			Text: func(s admin.SubscriptionLine) string { return tab.Itoa(int64(s.Partition)) },
			Cmp:  func(a, b admin.SubscriptionLine) int { return cmp.Compare(a.Partition, b.Partition) }},
		components.Column[admin.SubscriptionLine]{Title: "COMMIT", Width: 10, Min: 6, Right: true, Drop: 1,
			Text: func(s admin.SubscriptionLine) string {
				if s.Commit < 0 {
					return "no commit"
				}
				return tab.Itoa(s.Commit)
			}},
		// The lag by the one rule (admin.PartitionLag) over the partition's
		// bounds from the same describe, not the subscription list's
		// committed-only figure: a partition without a commit counts from
		// its log start, as in the groups tab.
		components.Column[admin.SubscriptionLine]{Title: "LAG", Width: 9, Min: 5, Right: true,
			Text: func(s admin.SubscriptionLine) string { return tab.PartLagText(d.subLag(s)) },
			Cmp: func(a, b admin.SubscriptionLine) int {
				return cmp.Compare(tab.PartLagKey(d.subLag(a)), tab.PartLagKey(d.subLag(b)))
			}},
		components.Column[admin.SubscriptionLine]{Title: "MEMBERS", Width: 7, Right: true, Drop: 3,
			Text: func(s admin.SubscriptionLine) string { return tab.Itoa(int64(s.Members)) }},
	)
	d.cons.Empty = "no group consumes this topic"
	d.cons.SetSort(0, false)
	d.Panes.Add("partitions", listdetail.TableOps(d.parts))
	d.Panes.Add("consumers", listdetail.TableOps(d.cons))
	v.Detail = d
	v.SizeDetail()
	return v.ReadDetail(&v.Base)
}

// subLag is a subscription line's lag: its commit against the partition's
// log start and high watermark from the same describe.
func (d *topicDetail) subLag(s admin.SubscriptionLine) admin.PartLag {
	for _, p := range d.desc.PartitionList {
		if p.Partition == s.Partition {
			start := p.StartOffset
			if p.Leader == 0 {
				start = -1 // "on the leader": none
			}
			return admin.PartitionLag(s.Commit, start, p.HighWatermark)
		}
	}
	return admin.PartLag{Unknown: true}
}

// Reveal implements common.Revealer: a drill-down opens a topic's detail.
func (v *View) Reveal(t common.Target) tea.Cmd {
	if t.Kind != common.TargetTopic {
		return nil
	}
	v.Table.SelectKey(t.Name)
	if v.Detail != nil && v.Detail.Name == t.Name {
		v.Detail.Panes.Cur = 0
		return nil
	}
	return v.openDetail(t.Name)
}

func (v *View) CloseDetail() {
	v.Gen++ // drops the in-flight reply and the pending tick
	v.Detail = nil
}

// fetchTopic reads a topic's detail: the describe, the subscription list
// and the rate series.
func (v *View) fetchTopic(name string) func(context.Context) any {
	src, now := v.src, v.Ctx.Now
	return func(ctx context.Context) any {
		var m topicDetailMsg
		m.desc, m.err = src.DescribeTopic(ctx, name)
		if m.err == nil {
			m.subs, m.err = src.SubscriptionList(ctx, name)
		}
		if m.err == nil {
			// The series is decoration: its failure does not fail the detail.
			m.series, _ = src.StatSeries(ctx, name)
		}
		m.at = now()
		return m
	}
}

func (v *View) handleViewMsg(msg common.ViewMsg) tea.Cmd {
	switch m := msg.Msg.(type) {
	case topicActionMsg:
		return v.actionDone(m)
	case topicConfigMsg:
		return v.configReply(m)
	}
	return listdetail.DetailReply(&v.Shown, &v.Base, msg, func(d *topicDetail, m topicDetailMsg) tea.Cmd {
		return d.Done(&v.Base, common.ResTopics, m.err, m.at, func() {
			d.desc, d.subs, d.series = m.desc, m.subs, m.series
			d.parts.SetItems(m.desc.PartitionList)
			d.cons.SetItems(m.subs)
			v.SizeDetail() // the header's height may have changed
		})
	})
}

// ---- dialogs ----

func (v *View) openCreate() {
	d := &components.Dialog{
		Title:       "Create topic",
		Body:        []string{"Blank fields take the cluster's defaults. Enter shows what will be created; enter again creates it."},
		SubmitLabel: "create",
		Fields: []*components.Field{
			components.TextField("Name", "", "e.g. ORDER.EVENT"),
			components.TextField("Partitions", "3", ""),
			components.TextField("Replicas", "", "cluster default"),
			components.TextField("Retention", "", "default; 7d, 12h, forever (at most 36500d)"),
			components.TextField("Retention bytes", "", "per partition; 1g = 1GiB, 512m (binary)"),
		},
	}
	v.OpenDialog(d)
	v.pending = pendingAction{verb: "create"}
}

func (v *View) openDelete(name string) {
	disp := common.S(name)
	confirm := disp
	if disp != name || strings.ContainsAny(name, " ") {
		confirm = "DELETE"
	}
	body := []string{
		"Deletes every record of " + disp + " and every group commit on it. This cannot be undone.",
	}
	if v.Detail != nil && v.Detail.Name == name && v.Detail.Loaded {
		groups := map[string]bool{}
		for _, s := range v.Detail.subs {
			groups[s.Group] = true
		}
		if len(groups) > 0 {
			body = append(body, "", fmt.Sprintf("%s %s it and will lose %s offsets.", common.Plural(len(groups), "group"), common.Agree(len(groups), "consumes", "consume"), common.Agree(len(groups), "its", "their")))
		}
	}
	body = append(body, v.previewFigures(name)...)
	v.OpenDialog(&components.Dialog{
		Title: "Delete topic " + disp, Danger: true, Body: body,
		ConfirmText: confirm, SubmitLabel: "delete",
	})
	v.pending = pendingAction{verb: "delete", name: name, before: v.topicNow(name)}
}

func (v *View) openFlush(name string) {
	disp := common.S(name)
	confirm := disp
	if disp != name || strings.ContainsAny(name, " ") {
		confirm = "FLUSH"
	}
	v.OpenDialog(&components.Dialog{
		Title: "Flush topic " + disp, Danger: true,
		Body: append([]string{
			"Removes every record of " + disp + " and wipes the group commits on it (ilink-spec §3.7). This cannot be undone.",
			"", "Producers and consumers stay connected; consumers restart from the new start.",
		}, v.previewFigures(name)...),
		ConfirmText: confirm, SubmitLabel: "flush",
	})
	v.pending = pendingAction{verb: "flush", name: name, before: v.topicNow(name)}
}

// pendingAction is what the open confirmation dialog will do; before is
// the topic as its preview showed it (nil: not in the last list).
type pendingAction struct {
	verb, name string
	before     *admin.TopicInfo
}

// topicNow is name's row of the last topic list, copied (nil: not in it).
func (v *View) topicNow(name string) *admin.TopicInfo {
	r := v.rows[name]
	if r == nil {
		return nil
	}
	info := r.info
	return &info
}

// previewFigures are the lines of a delete or flush preview that say what
// it takes, from the last topic list: the result is reported against them.
func (v *View) previewFigures(name string) []string {
	t := v.topicNow(name)
	if t == nil {
		return nil
	}
	when := "Now (the list of " + common.Clock(v.at) + ")"
	if age := v.Ctx.Now().Sub(v.at); age > v.Ctx.StaleAfter(common.ResTopics) {
		// No fresh list: the figures are what was last known, said so.
		when = "Last known (the list of " + common.Clock(v.at) + ", " + common.Dur(age) + " ago; none fresh since)"
	}
	return []string{"", fmt.Sprintf("%s: %s in %s.", when,
		common.Plural(t.EndOffsetSum-t.StartOffsetSum, "record"), common.Plural(t.Partitions, "partition"))}
}

func (v *View) DialogKey(msg tea.KeyPressMsg) tea.Cmd {
	if v.cfg.stage != cfgNone {
		return v.configDialogKey(msg)
	}
	return v.DialogFlow(msg, nil, func(func()) tea.Cmd {
		if v.pending.verb == "create" {
			return v.submitCreate()
		}
		return v.submitPending()
	}, nil)
}

// submitCreate checks every field with the engine's rules
// (ilink/topicrules, via TopicSpec.Check) before the review: the review
// only ever shows what the engine accepts, and an error names the field.
func (v *View) submitCreate() tea.Cmd {
	f := v.Dlg.Fields
	spec := tab.TopicSpec{Name: f[0].Value()}
	err := topicrules.InField(topicrules.CheckName(spec.Name, false), "Name")
	if err == nil {
		err = spec.ParseSize(f[1].Value(), f[2].Value(), v.nodes)
	}
	if err == nil {
		spec.RetentionMs, err = parseRetention(f[3].Value())
	}
	if err == nil {
		spec.RetentionBytes, err = parseBytes(f[4].Value())
	}
	if err == nil {
		err = spec.Check(v.nodes)
	}
	if err != nil {
		v.Dlg.Err, v.Dlg.Review = sanitize.String(err.Error()), ""
		return nil
	}
	v.Dlg.Err = ""
	if v.Dlg.Review == "" {
		v.Dlg.Review = spec.Review()
		return nil
	}
	name, props := spec.Name, spec.Props()
	v.Dlg.Busy = "creating " + name + "…"
	src, gen := v.src, v.DlgGen
	return v.Call(func(ctx context.Context) any {
		return topicActionMsg{verb: "create", name: name, props: props, err: src.CreateTopic(ctx, spec), dlgGen: gen}
	})
}

func (v *View) submitPending() tea.Cmd {
	p := v.pending
	v.Dlg.Busy = map[string]string{"delete": "deleting ", "flush": "flushing "}[p.verb] + common.S(p.name) + "…"
	src, gen := v.src, v.DlgGen
	return v.Call(func(ctx context.Context) any {
		m := topicActionMsg{verb: p.verb, name: p.name, dlgGen: gen, before: p.before}
		switch p.verb {
		case "delete":
			m.err = src.DeleteTopic(ctx, p.name)
		case "flush":
			m.err = src.FlushTopic(ctx, p.name)
		}
		if m.err == nil {
			// Read the topic back, so the result says what was done
			// against what the preview showed.
			d, err := src.DescribeTopic(ctx, p.name)
			switch {
			case p.verb == "delete":
				m.gone = err != nil && strings.Contains(err.Error(), wire.ErrUnknownTopic)
				if !m.gone {
					m.checkErr = err
				}
			case err != nil:
				m.checkErr = err
			default:
				m.after = &d.TopicInfo
			}
		}
		return m
	})
}

// actionDone reports an action's outcome. It is never dropped as stale:
// the action happened whether or not its dialog is still open.
func (v *View) actionDone(m topicActionMsg) tea.Cmd {
	past := map[string]string{"create": "created", "delete": "deleted", "flush": "flushed", "alter": "altered"}[m.verb]
	if m.err != nil {
		return v.ActionFailed(m.dlgGen, m.err, m.verb+" failed: ", m.verb+" "+common.S(m.name)+" failed: ")
	}
	if v.DialogOpen(m.dlgGen) {
		v.CloseDialog()
		v.cfg = topicCfgFlow{}
	}
	done := "topic " + common.S(m.name) + " " + past
	if m.props != "" {
		done += " (" + m.props + ")" // the properties the review showed
	}
	level := common.LevelOK
	if d, warn := actionAgainstPreview(m); d != "" {
		done += ": " + d
		if warn {
			level = common.LevelWarn
		}
	}
	cmds := []tea.Cmd{common.Flash(level, done), common.Refresh(common.ResTopics)}
	if m.verb == "delete" && v.Detail != nil && v.Detail.Name == m.name {
		v.CloseDetail()
	} else if v.Detail != nil && v.Detail.Name == m.name {
		v.Detail.Reading = tab.Fetch{} // the read out is dropped with the generation
		v.Gen++
		cmds = append(cmds, v.ReadDetail(&v.Base))
	}
	return tea.Batch(cmds...)
}

// actionAgainstPreview says what a delete or a flush did against what
// its preview showed (m.before), from the topic read back after it; warn
// when the read back disagrees or failed.
func actionAgainstPreview(m topicActionMsg) (text string, warn bool) {
	if m.verb != "delete" && m.verb != "flush" {
		return "", false
	}
	if m.checkErr != nil {
		return "reading it back failed: " + sanitize.Error(m.checkErr), true
	}
	shown := ""
	if b := m.before; b != nil {
		shown = "the preview showed " + common.Plural(b.EndOffsetSum-b.StartOffsetSum, "record") + " in " + common.Plural(b.Partitions, "partition")
	}
	switch {
	case m.verb == "delete" && m.gone && shown != "":
		return shown + "; no such topic now", false
	case m.verb == "delete" && m.gone:
		return "no such topic now", false
	case m.verb == "delete":
		return "the engine still describes it", true
	case m.after == nil:
		return shown, false
	}
	a := m.after
	var parts []string
	if b := m.before; b != nil {
		removed, previewed := a.StartOffsetSum-b.StartOffsetSum, b.EndOffsetSum-b.StartOffsetSum
		note := shown
		if removed > previewed {
			note += ", " + common.Count(removed-previewed) + " more arrived after it"
		}
		parts = append(parts, common.Plural(removed, "record")+" removed ("+note+")")
	}
	parts = append(parts, common.Plural(a.EndOffsetSum-a.StartOffsetSum, "record")+" left")
	return strings.Join(parts, "; "), false
}

// ---- rendering ----

// ListSummary is the line above the list: counts, what is hidden or
// unhealthy, and the total rates of the topics it counts (a hidden
// internal topic's are not in them; i shows it, and they are).
func (v *View) ListSummary(st *common.Styles) string {
	if !v.loaded {
		return st.Muted.Render("loading topics…")
	}
	parts := []string{common.Plural(v.Table.Total(), "topic")}
	if v.hiddenInt > 0 {
		parts = append(parts, st.Muted.Render(tab.Itoa(int64(v.hiddenInt))+" internal hidden (i)"))
	}
	if v.offline > 0 {
		parts = append(parts, st.Err.Render(common.Plural(v.offline, "partition")+" offline"))
	}
	if v.underRepl > 0 {
		parts = append(parts, st.Warn.Render(tab.Itoa(int64(v.underRepl))+" under-replicated"))
	}
	parts = append(parts, "in "+common.Rate(v.sumIn)+"/s", "out "+common.Rate(v.sumOut)+"/s")
	return strings.Join(parts, st.Faint.Render(" · "))
}

func (v *View) DetailView(st *common.Styles) string {
	d := v.Detail
	lines := append(make([]string, 0, v.H), v.detailHeader(st)...)
	// Line 2: rates with sparklines, or the error.
	switch {
	case d.Err != nil:
		lines = append(lines, st.Err.Render("⚠ "+sanitize.Error(d.Err))+st.Muted.Render(" ("+common.Ago(v.Ctx.Now(), d.ErrAt)+"; showing data from "+common.Ago(v.Ctx.Now(), d.At)+")"))
	case !d.Loaded:
		lines = append(lines, st.Muted.Render("loading…"))
	default:
		lines = append(lines, v.rateLine(st, d))
	}
	// Line 3: pane selector.
	groups := map[string]bool{}
	for _, s := range d.subs {
		groups[s.Group] = true
	}
	lines = append(lines, listdetail.PaneTabs(st, []string{" Partitions (" + tab.Itoa(int64(len(d.desc.PartitionList))) + ") ", " Consumers (" + common.Plural(len(groups), "group") + ") "}, d.Panes.Cur))
	lines = append(lines, d.Panes.Active().Lines()...)
	return common.Frame(lines, v.W, v.H)
}

func (v *View) rateLine(st *common.Styles, d *topicDetail) string {
	// The complete seconds': the last point is the current one, still
	// counting (PROTOCOL.md, STAT SERIES).
	var in, out []float64
	for _, p := range tab.CompleteSeconds(d.series.Points) {
		in = append(in, p.RecordsIn)
		out = append(out, p.RecordsOut)
	}
	t := d.desc.TopicInfo
	label := func(name string, rate float64) string { return name + " " + common.Rate(rate) + "/s " }
	li, lo := label("in", t.RecordsInPerSec), label("out", t.RecordsOutPerSec)
	sw := (v.W - common.Width(li) - common.Width(lo) - 3) / 2
	if sw < 4 || len(in) == 0 {
		return li + st.Faint.Render("·") + " " + lo
	}
	return li + st.Spark.Render(components.Sparkline(in, sw)) + "   " + lo + st.SparkOut.Render(components.Sparkline(out, sw))
}
