package metrics

import (
	"bufio"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"

	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/admin/health"
	"ilinkdash/ilink/admin/watch"
)

// The snapshot's series are built by one function (build) into a sink:
// the prometheus.Collector (Collector: the registry's path, which the tests
// gather, compare and lint with client_golang's testutil) or the text
// writer the /metrics handler serves with (textSink: the registry's path
// costs about 4 µs a series — half a second for the 126,000 series of a
// 10,000-topic, 2,000-group cluster — where the writer takes well under
// a tenth of it; TestTextMatchesCollector keeps the two outputs equal).

// family is one metric family of the snapshot: a gauge whose variable
// labels follow the constant `context` label, in name order (the order
// the text format is written and the registry sorts them in).
type family struct {
	name, help string
	labels     []string
	desc       *prometheus.Desc
	prefix     []byte // `name{context="…"`
	idx        int    // its place in families.all, the same for every cluster's
}

// sink receives the series.
type sink interface {
	series(f *family, v float64, l labelValues)
}

// labelValues are a series' variable label values, in its family's
// labels' order; a value, so that sending a series allocates nothing.
type labelValues struct {
	n int
	v [3]string
}

func labels(values ...string) labelValues {
	var l labelValues
	l.n = copy(l.v[:], values)
	return l
}

type families struct {
	reachable, fresh, age, alerts                              family
	groupLag, groupTotal, groupHealth, groupRate, groupMembers family
	endOffset, underRepl, offline, nodeUp, nodeLag, queueDepth family
	all                                                        []*family // in name order
}

func newFamilies(ctxName string) *families {
	fs := &families{}
	def := func(f *family, name, help string, labels ...string) {
		*f = family{name: name, help: help, labels: labels,
			desc:   prometheus.NewDesc(name, help, labels, prometheus.Labels{"context": ctxName}),
			prefix: appendLabel([]byte(name+"{"), "context", ctxName), idx: len(fs.all)}
		fs.all = append(fs.all, f)
	}
	// In name order (the text is written in this order).
	def(&fs.alerts, "ilinkdash_alerts", "Alerts now, by kind and level (docs/HEALTH.md, Alerts); a kind whose list is not fresh is absent.", "kind", "level")
	def(&fs.reachable, "ilinkdash_cluster_reachable", "1 when the latest polls reached the cluster, 0 when one could not (or none answered yet).")
	def(&fs.age, "ilinkdash_data_age_seconds", "Seconds since the list's latest good answer.", "list")
	def(&fs.fresh, "ilinkdash_data_fresh", "1 while the list's latest poll answered and is younger than three polling intervals; its series are exported only then.", "list")
	def(&fs.groupRate, "ilinkdash_group_commit_rate", "Records per second the group's commits advanced over the health window (RATE/s); absent when unknown.", "group")
	def(&fs.groupHealth, "ilinkdash_group_health", "1 for the group's health word now, 0 for the others (docs/HEALTH.md, Health words).", "group", "health")
	def(&fs.groupLag, "ilinkdash_group_lag", "Records of the partition the group has not consumed (docs/HEALTH.md, Lag); absent when unknown.", "group", "partition", "topic")
	def(&fs.groupMembers, "ilinkdash_group_members", "Members of the group.", "group")
	def(&fs.groupTotal, "ilinkdash_group_total_lag", "The group's lag: the sum over its partitions with a known lag (LAG of the Groups tab, describe group); absent when unknown.", "group")
	def(&fs.nodeLag, "ilinkdash_node_replication_lag_records", "Records the node's follower replicas are behind their leaders, summed.", "node")
	def(&fs.nodeUp, "ilinkdash_node_up", "1 unless the node is down, stopped, or defined but not in the node list (absent).", "node", "queue_manager")
	def(&fs.queueDepth, "ilinkdash_queue_depth", "Messages in the queue.", "queue")
	def(&fs.endOffset, "ilinkdash_topic_partition_end_offset", "High watermark of a partition some group consumes (the end its lag is counted to).", "partition", "topic")
	def(&fs.offline, "ilinkdash_topic_partitions_offline", "Partitions of the topic without a leader.", "topic")
	def(&fs.underRepl, "ilinkdash_topic_partitions_under_replicated", "Partitions of the topic whose in-sync set is smaller than their replica set.", "topic")
	return fs
}

// kinds is every alert kind, so that ilinkdash_alerts has a 0 series for
// each (an alert that ends goes to 0, not away).
var kinds = []health.Kind{health.KindUnreachable, health.KindNoLeader, health.KindNodeDown, health.KindNodeSyncing,
	health.KindNodeAbsent, health.KindNodeRemoved, health.KindOffline, health.KindUnderReplicated, health.KindQueueFull,
	health.KindQueueDepth, health.KindDLQGrowing, health.KindGroupDead, health.KindGroupStopped, health.KindGroupStalled,
	health.KindGroupRewound, health.KindGroupLagging, health.KindGroupUnlisted, health.KindGroupChurn}

// levels are the alert levels as label values.
var levels = []health.Level{health.LevelWarning, health.LevelCritical}

func levelLabel(l health.Level) string {
	if l == health.LevelCritical {
		return "critical"
	}
	return "warning"
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// valid is a label value as both sinks write it: names from the cluster
// that are not UTF-8 get U+FFFD (the registry would drop the series).
func valid(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// builder builds the series of one snapshot.
type builder struct {
	f            *families
	perPartition bool
	words        []string // health.Words as label values
	partLabel    []string // "0", "1", …
}

func newBuilder(f *families, perPartition bool) *builder {
	b := &builder{f: f, perPartition: perPartition}
	for _, w := range health.Words {
		b.words = append(b.words, w.String())
	}
	for p := range 256 {
		b.partLabel = append(b.partLabel, strconv.Itoa(p))
	}
	return b
}

func (b *builder) part(p int32) string {
	if p >= 0 && int(p) < len(b.partLabel) {
		return b.partLabel[p]
	}
	return strconv.Itoa(int(p))
}

// build sends every series of s, as of now, to out, family by family in
// name order (the text sink writes each family's series as they come).
func (b *builder) build(s *watch.Snapshot, now time.Time, out sink) {
	for _, f := range b.f.all {
		b.family(f, s, now, out)
	}
}

// family sends the series of one of b's families: f is one of b.f's, or
// the family of the same place of another cluster's builder (Fleet).
func (b *builder) family(f *family, s *watch.Snapshot, now time.Time, out sink) {
	fs := b.f
	switch f = fs.all[f.idx]; f {
	case &fs.reachable:
		out.series(f, b2f(s.Reachable()), labels())
	case &fs.fresh, &fs.age:
		b.lists(f, s, now, out)
	case &fs.alerts:
		b.alerts(s, now, out)
	case &fs.groupHealth, &fs.groupMembers, &fs.groupTotal, &fs.groupRate:
		if s.Fresh(watch.Groups, now) {
			b.groups(f, s, out)
		}
	case &fs.groupLag:
		if b.perPartition && s.Fresh(watch.Groups, now) {
			b.partitionLags(s, out)
		}
	case &fs.endOffset:
		if b.perPartition && s.Fresh(watch.Groups, now) {
			b.endOffsets(s, out)
		}
	case &fs.underRepl, &fs.offline:
		if s.Fresh(watch.Topics, now) {
			b.topics(f, s, out)
		}
	case &fs.nodeUp, &fs.nodeLag:
		if s.Fresh(watch.Nodes, now) {
			b.nodes(f, s, now, out)
		}
	case &fs.queueDepth:
		if s.Fresh(watch.Queues, now) {
			for i := range s.Queues {
				out.series(f, float64(s.Queues[i].Depth), labels(valid(s.Queues[i].Name)))
			}
		}
	}
}

// lists sends ilinkdash_data_fresh or _age_seconds of every polled list.
func (b *builder) lists(f *family, s *watch.Snapshot, now time.Time, out sink) {
	for l := range watch.NumLists {
		st := s.Lists[l]
		switch {
		case !st.Polled:
		case f == &b.f.fresh:
			out.series(f, b2f(s.Fresh(l, now)), labels(l.String()))
		case !st.OKAt.IsZero():
			out.series(f, now.Sub(st.OKAt).Seconds(), labels(l.String()))
		}
	}
}

func (b *builder) topics(f *family, s *watch.Snapshot, out sink) {
	for i := range s.Topics {
		t := &s.Topics[i]
		n := t.Offline
		if f == &b.f.underRepl {
			n = t.UnderReplicated
		}
		out.series(f, float64(n), labels(valid(t.Name)))
	}
}

// alerts counts the alerts by kind and level, leaving out the kinds whose
// list is not fresh (their series go: unknown, not 0).
func (b *builder) alerts(s *watch.Snapshot, now time.Time, out sink) {
	type key struct {
		k health.Kind
		l health.Level
	}
	n := map[key]int{}
	all := kinds[:len(kinds):len(kinds)]
	for _, a := range s.Alerts {
		if !containsKind(all, a.Kind) {
			all = append(all, a.Kind) // a kind this list does not know yet
		}
		n[key{a.Kind, a.Level}]++
	}
	for _, k := range all {
		if l, ok := watch.AlertList(k); ok && !s.Fresh(l, now) {
			continue
		}
		for _, lv := range levels {
			out.series(&b.f.alerts, float64(n[key{k, lv}]), labels(valid(string(k)), levelLabel(lv)))
		}
	}
}

func containsKind(ks []health.Kind, k health.Kind) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

// groups sends one per-group family: health (every group's), members,
// total lag, rate (the listed groups').
func (b *builder) groups(f *family, s *watch.Snapshot, out sink) {
	fs := b.f
	for i := range s.Groups {
		g := &s.Groups[i]
		name := valid(g.Info.Name)
		switch {
		case f == &fs.groupHealth:
			word := g.Word
			if !g.Unlisted.IsZero() {
				word = health.Unknown // missing from the list: its figures are the last list's, not now's
			}
			for j, w := range health.Words {
				out.series(f, b2f(w == word), labels(name, b.words[j]))
			}
		case !g.Unlisted.IsZero():
		case f == &fs.groupMembers:
			out.series(f, float64(g.Info.Members), labels(name))
		case f == &fs.groupTotal && g.Lag.Known():
			out.series(f, float64(g.Lag.Records), labels(name))
		case f == &fs.groupRate && g.Rate >= 0:
			out.series(f, g.Rate, labels(name))
		}
	}
}

// partitionLags sends ilinkdash_group_lag: every listed group's
// partitions of a known lag (from the list's offsets: a watcher's statuses
// carry no partition statuses).
func (b *builder) partitionLags(s *watch.Snapshot, out sink) {
	for i := range s.Groups {
		g := &s.Groups[i]
		if !g.Unlisted.IsZero() {
			continue
		}
		name := valid(g.Info.Name)
		for k := range g.Info.Partitions {
			p := &g.Info.Partitions[k]
			if l := p.Lag(); !l.Unknown {
				out.series(&b.f.groupLag, float64(l.Records), labels(name, b.part(p.Partition), valid(p.Topic)))
			}
		}
	}
}

// topicRun is one group's partitions of a topic: s.Groups[group]'s
// Info.Partitions[lo:hi] (a group lists every partition of its topics,
// sorted by topic and partition).
type topicRun struct{ group, lo, hi int32 }

// endOffsets sends ilinkdash_topic_partition_end_offset: each partition
// a listed group consumes, once, with the end the last group listing its
// topic has (topics in the order they first come). Keyed by topic, not by
// partition: a map of 40,000 partitions was 3 MB of every scrape's garbage
// (issue 26), one of 10,000 topics is a sixth of it.
func (b *builder) endOffsets(s *watch.Snapshot, out sink) {
	last := make(map[string]topicRun, len(s.Topics))
	var order []string
	for i := range s.Groups {
		g := &s.Groups[i]
		if !g.Unlisted.IsZero() {
			continue
		}
		ps := g.Info.Partitions
		for lo := 0; lo < len(ps); {
			hi := lo + 1
			for hi < len(ps) && ps[hi].Topic == ps[lo].Topic {
				hi++
			}
			if _, ok := last[ps[lo].Topic]; !ok {
				order = append(order, ps[lo].Topic)
			}
			last[ps[lo].Topic] = topicRun{int32(i), int32(lo), int32(hi)}
			lo = hi
		}
	}
	for _, t := range order {
		r := last[t]
		for _, p := range s.Groups[r.group].Info.Partitions[r.lo:r.hi] {
			if p.End >= 0 {
				out.series(&b.f.endOffset, float64(p.End), labels(b.part(p.Partition), valid(p.Topic)))
			}
		}
	}
}

// nodes sends ilinkdash_node_up or _replication_lag_records: the node
// list's nodes, then (node_up 0) the defined nodes it lacks.
func (b *builder) nodes(f *family, s *watch.Snapshot, now time.Time, out sink) {
	up := f == &b.f.nodeUp
	listed := make(map[int]bool, len(s.Nodes))
	for _, n := range s.Nodes {
		listed[n.ID] = true
		id := strconv.Itoa(n.ID)
		if !up {
			out.series(f, float64(n.LagRecords), labels(id))
			continue
		}
		out.series(f, b2f(n.State != admin.NodeDown && n.State != admin.NodeStopped), labels(id, valid(n.QueueManager)))
	}
	if !up || !s.Fresh(watch.Definition, now) {
		return
	}
	for _, n := range s.Definition.Nodes {
		if !listed[n.Number] {
			listed[n.Number] = true
			out.series(f, 0, labels(strconv.Itoa(n.Number), valid(n.QueueManager))) // absent: defined, not listed
		}
	}
}

// ---- the sinks ----

// Collector is the snapshot's series as a prometheus.Collector (built at
// every Collect from the latest snapshot).
type Collector struct {
	f    *families
	b    *builder
	snap func() *watch.Snapshot
	now  func() time.Time
}

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, f := range c.f.all {
		ch <- f.desc
	}
}

// Collect implements prometheus.Collector.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	c.b.build(c.snap(), c.now(), chanSink(ch))
}

type chanSink chan<- prometheus.Metric

func (ch chanSink) series(f *family, v float64, l labelValues) {
	ch <- prometheus.MustNewConstMetric(f.desc, prometheus.GaugeValue, v, l.v[:l.n]...)
}

// textSink writes the text exposition format (version 0.0.4) to w as the
// series come, each family's HELP and TYPE before its first series. The
// series must come family by family (build's order); several clusters'
// builders may write one family after the other (Fleet): the family of
// the same place is written once, with every cluster's series.
type textSink struct {
	w    *bufio.Writer
	head int    // the place (family.idx) of the family being written; -1 before the first
	line []byte // the series being formatted (reused: bounded by the longest line)
}

func newTextSink(w *bufio.Writer) *textSink { return &textSink{w: w, head: -1} }

func (t *textSink) series(f *family, v float64, l labelValues) {
	b := t.line[:0]
	if f.idx != t.head {
		t.head = f.idx
		b = append(b, "# HELP "...)
		b = append(b, f.name...)
		b = append(b, ' ')
		b = appendEscaped(b, f.help, false)
		b = append(b, "\n# TYPE "...)
		b = append(b, f.name...)
		b = append(b, " gauge\n"...)
	}
	b = append(b, f.prefix...)
	for i, val := range l.v[:l.n] {
		b = append(b, ',')
		b = appendLabel(b, f.labels[i], val)
	}
	b = append(b, '}', ' ')
	b = appendFloat(b, v)
	b = append(b, '\n')
	_, _ = t.w.Write(b) // an error stays in w: Flush returns it
	t.line = b
}

func appendLabel(b []byte, name, value string) []byte {
	b = append(b, name...)
	b = append(b, '=', '"')
	b = appendEscaped(b, value, true)
	return append(b, '"')
}

// appendEscaped escapes as expfmt does: \ and newline, and " in a label
// value.
func appendEscaped(b []byte, s string, quote bool) []byte {
	if !strings.ContainsAny(s, "\\\n\"") {
		return append(b, s...)
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			b = append(b, '\\', '\\')
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '"' && quote:
			b = append(b, '\\', '"')
		default:
			b = append(b, c)
		}
	}
	return b
}

// appendFloat writes a value as expfmt does.
func appendFloat(b []byte, v float64) []byte {
	switch v {
	case 0:
		return append(b, '0')
	case 1:
		return append(b, '1')
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}
