// Package fakes implements tab.Sources with deterministic, in-memory demo
// data: a 3-node cluster with topics, queues and consumer groups of every
// health (caught up, lagging, stalled, rebalancing, empty). Nothing moves
// until Advance is called, so tests and golden screens are reproducible;
// Advance(d) simulates d of production and consumption. It also injects
// faults (Fail, Block) and records calls, and Big builds the large data
// sets of the benchmarks.
package fakes

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"ilinkdash/ilink/admin"
	"ilinkdash/ui/common"
	"ilinkdash/ui/views/tab"
)

type partition struct {
	start, end float64
	leader     int
	replicas   []int
	inSync     []int
	epoch      int32
}

type topic struct {
	info  admin.TopicInfo
	parts []*partition
	rate  float64 // records in per second, spread over partitions
	out   float64
}

type group struct {
	name       string
	state      admin.GroupState
	members    []admin.GroupMember
	topics     []string
	committed  map[string][]float64 // topic → per partition; -1 = none
	rate       float64              // consumption per second (whole group)
	durable    bool
	generation int32
}

type queue struct {
	info admin.QueueInfo
	// msgs are what browse shows (the first messages of the queue); put,
	// take and moves change them, and the listed depth follows.
	msgs   []admin.QueueMessage
	seeded int
}

// Source is the fake. Its zero value is not usable; use NewDemo or Big.
type Source struct {
	mu sync.Mutex

	now     time.Time
	cluster admin.ClusterProperty
	nodes   []admin.NodeInfo
	leader  int
	topics  map[string]*topic
	groups  map[string]*group
	queues  []*queue
	leads   []admin.LeadRow
	quar    []admin.QuarantineEntry
	seq     uint64 // next queue message position
	elapsed time.Duration

	stored map[common.ResID]map[string]any // plain-data lists by key (lists.go)

	fail  map[string]error
	block map[string]chan struct{}
	calls map[string]int

	// SetPropErrs are returned, in order, by SetClusterProperty before it
	// starts applying changes (scripting NOT_COMMITTED outcomes).
	SetPropErrs []error
	// AddNodeErrs likewise for AddNode.
	AddNodeErrs []error
}

// Epoch is the fixed "now" of NewDemo (UTC).
var Epoch = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

// NewDemo returns the demo data set at Epoch.
func NewDemo() *Source {
	s := &Source{
		now:    Epoch,
		topics: map[string]*topic{},
		groups: map[string]*group{},
		fail:   map[string]error{},
		block:  map[string]chan struct{}{},
		calls:  map[string]int{},
		leader: 1,
	}
	s.cluster = admin.ClusterProperty{
		Name: "DEMO", IlccPort: 7000, Version: 7, Replicas: 3, MinSync: 2, Placement: true, AutoStart: true,
	}
	for i := 1; i <= 3; i++ {
		s.cluster.Nodes = append(s.cluster.Nodes, admin.ClusterNode{Number: i, QueueManager: fmt.Sprintf("QM%d", i), Host: "127.0.0.1", Port: 5000 + i, IlccPort: 7000})
		s.nodes = append(s.nodes, admin.NodeInfo{ID: i, QueueManager: fmt.Sprintf("QM%d", i), DataAddr: fmt.Sprintf("127.0.0.1:%d", 5000+i), AdminAddr: "127.0.0.1:9998", Role: admin.RoleFollower, State: admin.NodeRunning})
	}
	s.nodes[0].Role = admin.RoleLeader
	s.nodes[2].LagRecords, s.nodes[2].Lag = 120, 800*time.Millisecond

	day := int64(24 * time.Hour / time.Millisecond)
	s.addTopic("ORDER.EVENT", 6, 120, 118, 7*day, 0, 250_000)
	s.addTopic("PAYMENT.RESULT", 3, 40, 30, 7*day, 0, 80_000)
	s.addTopic("AUDIT.LOG", 12, 800, 0, 30*day, 1<<30, 4_000_000)
	s.addTopic("INVENTORY.DELTA", 4, 15, 0, 3*day, 0, 30_000)
	s.addTopic("SHIPMENT.STATUS", 2, 0, 0, 0, 0, 1_200)
	s.addTopic("SYSTEM.GROUPS", 1, 2, 0, 0, 0, 9_000)
	s.topics["SYSTEM.GROUPS"].info.Internal = true
	// One under-replicated partition: node 3 fell out of the in-sync set.
	p := s.topics["PAYMENT.RESULT"].parts[1]
	p.inSync = slices.DeleteFunc(slices.Clone(p.inSync), func(n int) bool { return n == 3 })

	s.addGroup("order-processor", admin.GroupStable, 3, []string{"ORDER.EVENT"}, 120, 40)
	s.addGroup("payment-audit", admin.GroupStable, 1, []string{"PAYMENT.RESULT"}, 30, 1_500)
	s.addGroup("audit-archiver", admin.GroupStable, 2, []string{"AUDIT.LOG"}, 0, 52_000)
	s.addGroup("inventory-sync", admin.GroupPreparingRebalance, 2, []string{"INVENTORY.DELTA"}, 15, 300)
	s.addGroup("reporting-batch", admin.GroupEmpty, 0, []string{"ORDER.EVENT", "PAYMENT.RESULT"}, 0, 9_000)
	s.addGroup("shipment-tracker", admin.GroupStable, 1, []string{"SHIPMENT.STATUS"}, 0, 0)

	s.queues = []*queue{
		{info: admin.QueueInfo{Name: "ORDERS.IN", Depth: 42, InFlight: 3, PutRate: 25, GetRate: 25,
			Property: admin.QueueProperty{Name: "ORDERS.IN", Description: "incoming orders", MaxDepth: 100_000, MaxMsgSize: 4 << 20, PutEnabled: true, GetEnabled: true, Persistent: true, Created: Epoch.Add(-90 * 24 * time.Hour)}}},
		{info: admin.QueueInfo{Name: "PAYMENTS.IN", Depth: 8, PutRate: 6, GetRate: 6,
			Property: admin.QueueProperty{Name: "PAYMENTS.IN", Description: "payments to settle", MaxDepth: 5_000, MaxMsgSize: 1 << 20, PutEnabled: true, GetEnabled: true, Persistent: true, Created: Epoch.Add(-60 * 24 * time.Hour),
				DeadLetterQueue: "PAYMENTS.DLQ", MaxRedeliveries: 3}}},
		{info: admin.QueueInfo{Name: "PAYMENTS.DLQ", Depth: 3, PutRate: 0.1,
			Property: admin.QueueProperty{Name: "PAYMENTS.DLQ", Description: "dead letters of payments", MaxDepth: 10_000, MaxMsgSize: 1 << 20, PutEnabled: true, GetEnabled: false, Persistent: true, Created: Epoch.Add(-30 * 24 * time.Hour)}}},
		{info: admin.QueueInfo{Name: "AUDIT.ARCHIVE", Depth: 9_200, PutRate: 12, GetRate: 2,
			Property: admin.QueueProperty{Name: "AUDIT.ARCHIVE", Description: "audit records waiting for the archiver", MaxDepth: 10_000, MaxMsgSize: 1 << 20, PutEnabled: true, GetEnabled: true, Persistent: true, Created: Epoch.Add(-400 * 24 * time.Hour)}}},
	}
	s.seedQueues()
	// One partition away from its preferred leader (a failover that was
	// never rebalanced).
	if p := s.topics["ORDER.EVENT"].parts[2]; len(p.replicas) > 1 {
		p.leader = p.replicas[1]
	}
	s.leads = []admin.LeadRow{
		{Kind: "node", Node: 1, Epoch: 4, Detail: "cluster leader since 09:12:07"},
		{Kind: "bundle", Node: 2, Bundle: "SYSTEM.GROUPS", Epoch: 3, Detail: "group coordinator"},
		{Kind: "election", Node: 1, Epoch: 4, Detail: "forced election at 09:12:04 (operator)"},
	}
	return s
}

func (s *Source) addTopic(name string, parts int, in, out float64, retMs, retBytes int64, endTotal int64) {
	t := &topic{rate: in, out: out}
	t.info = admin.TopicInfo{Name: name, Partitions: parts, Replicas: 3, MinSync: 2, RetentionMs: retMs, RetentionBytes: retBytes, Epoch: 1}
	for i := 0; i < parts; i++ {
		leader := i%3 + 1
		reps := []int{leader, leader%3 + 1, (leader+1)%3 + 1}
		end := float64(endTotal/int64(parts)) + float64(i*17)
		t.parts = append(t.parts, &partition{start: math.Floor(end / 10), end: end, leader: leader, replicas: reps, inSync: slices.Clone(reps), epoch: 3})
	}
	s.topics[name] = t
}

func (s *Source) addGroup(name string, state admin.GroupState, members int, topics []string, rate float64, lag int64) {
	g := &group{name: name, state: state, topics: topics, committed: map[string][]float64{}, rate: rate, durable: true, generation: 12}
	var all [][2]any
	for _, tn := range topics {
		t := s.topics[tn]
		cs := make([]float64, len(t.parts))
		per := float64(lag) / float64(len(topics)*len(t.parts))
		for i, p := range t.parts {
			cs[i] = math.Max(p.start, p.end-math.Round(per))
			all = append(all, [2]any{tn, int32(i)})
		}
		g.committed[tn] = cs
	}
	for i := 0; i < members; i++ {
		m := admin.GroupMember{
			MemberID:   fmt.Sprintf("%s-%d", name, i+1),
			ClientName: "svc-" + strings.Split(name, "-")[0],
			Host:       fmt.Sprintf("app-%d.example", 10+i),
			LastSeen:   Epoch.Add(-time.Duration(i+1) * time.Second),
		}
		byTopic := map[string][]int32{}
		for j, tp := range all {
			if j%members == i {
				byTopic[tp[0].(string)] = append(byTopic[tp[0].(string)], tp[1].(int32))
			}
		}
		for _, tn := range topics {
			if ps := byTopic[tn]; len(ps) > 0 {
				m.Assignment = append(m.Assignment, admin.TopicPartitions{Topic: tn, Partitions: ps})
			}
		}
		g.members = append(g.members, m)
	}
	s.groups[name] = g
}

// Advance simulates d: producers append at their rate, consumers commit at
// theirs, and the clock moves on.
func (s *Source) Advance(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sec := d.Seconds()
	s.now = s.now.Add(d)
	s.elapsed += d
	for _, t := range s.topics {
		for _, p := range t.parts {
			p.end += math.Round(t.rate * sec / float64(len(t.parts)))
		}
	}
	for _, g := range s.groups {
		n := 0
		for _, tn := range g.topics {
			n += len(s.topics[tn].parts)
		}
		if n == 0 || g.rate == 0 || len(g.members) == 0 {
			continue
		}
		for _, tn := range g.topics {
			t := s.topics[tn]
			for i, p := range t.parts {
				c := g.committed[tn][i]
				if c < 0 {
					continue // never committed there (DropCommit)
				}
				g.committed[tn][i] = math.Min(p.end, c+math.Round(g.rate*sec/float64(n)))
			}
		}
	}
}

// Now returns the fake's clock.
func (s *Source) Now() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.now
}

// Fail makes method (e.g. "ListTopics") return err until Fail(method, nil).
func (s *Source) Fail(method string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil {
		delete(s.fail, method)
		return
	}
	s.fail[method] = err
}

// Block makes method wait until the returned release function is called
// (or its context ends): a slow engine.
func (s *Source) Block(method string) (release func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := make(chan struct{})
	s.block[method] = ch
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			if s.block[method] == ch {
				delete(s.block, method)
			}
			s.mu.Unlock()
			close(ch)
		})
	}
}

// Calls returns how many times method was called.
func (s *Source) Calls(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[method]
}

// enter records a call, honours Block, and returns an injected failure.
// It returns with s.mu held when err is nil.
func (s *Source) enter(ctx context.Context, method string) error {
	s.mu.Lock()
	s.calls[method]++
	ch := s.block[method]
	s.mu.Unlock()
	if ch != nil {
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	s.mu.Lock()
	if err := s.fail[method]; err != nil {
		s.mu.Unlock()
		return err
	}
	return nil
}

func (s *Source) topicInfo(t *topic) admin.TopicInfo {
	info := t.info
	info.StartOffsetSum, info.EndOffsetSum, info.UnderReplicated, info.Offline = 0, 0, 0, 0
	for _, p := range t.parts {
		info.StartOffsetSum += int64(p.start)
		info.EndOffsetSum += int64(p.end)
		if len(p.inSync) < len(p.replicas) {
			info.UnderReplicated++
		}
		if p.leader == 0 {
			info.Offline++
		}
	}
	// A gentle deterministic wobble so sparklines have a shape.
	w := 1 + 0.25*math.Sin(s.elapsed.Seconds()/7+float64(len(info.Name)))
	info.RecordsInPerSec = t.rate * w
	info.RecordsOutPerSec = t.out * w
	info.BytesInPerSec = info.RecordsInPerSec * 512
	info.BytesOutPerSec = info.RecordsOutPerSec * 512
	return info
}

// byName is m's values in the order of their names: the fake's lists
// come sorted, as the engine's do.
func byName[V any](m map[string]V) []V {
	names := slices.Sorted(maps.Keys(m))
	out := make([]V, len(names))
	for i, n := range names {
		out[i] = m[n]
	}
	return out
}

// ---- tab.Sources ----

// ClusterSummary implements tab.SummarySource.
func (s *Source) ClusterSummary(ctx context.Context) (tab.ClusterSummary, error) {
	if err := s.enter(ctx, "ClusterSummary"); err != nil {
		return tab.ClusterSummary{}, err
	}
	defer s.mu.Unlock()
	nodes := slices.Clone(s.nodes)
	for i := range nodes {
		nodes[i].Partitions = 0
	}
	for _, t := range s.topics {
		for _, p := range t.parts {
			for i := range nodes {
				if nodes[i].ID == p.leader {
					nodes[i].Partitions++
				}
			}
		}
	}
	return tab.ClusterSummary{Cluster: s.cluster.Name, QueueManager: "QM1", EngineVersion: "7.0.1.3552 (ilinkdash engine)", Leader: s.leader, Nodes: nodes}, nil
}

// StatSeries implements tab.StatsSource: 15 minutes at 1 s, oldest first.
func (s *Source) StatSeries(ctx context.Context, scope string) (admin.StatSeries, error) {
	if err := s.enter(ctx, "StatSeries"); err != nil {
		return admin.StatSeries{}, err
	}
	defer s.mu.Unlock()
	var in, out float64
	if scope == "" {
		for _, t := range s.topics {
			in += t.rate
			out += t.out
		}
	} else if t, ok := s.topics[scope]; ok {
		in, out = t.rate, t.out
	} else {
		return admin.StatSeries{}, fmt.Errorf("MIMQE_UNKNOWN_TOPIC (%s)", scope)
	}
	const n = 900
	ser := admin.StatSeries{Scope: scope, Resolution: time.Second, Points: make([]admin.StatPoint, n)}
	for i := 0; i < n; i++ {
		t := s.now.Add(-time.Duration(n-1-i) * time.Second)
		x := float64(t.Unix())
		w := 1 + 0.3*math.Sin(x/60) + 0.1*math.Sin(x/7)
		ser.Points[i] = admin.StatPoint{Time: t, RecordsIn: in * w, RecordsOut: out * w * 0.97, BytesIn: in * w * 512, BytesOut: out * w * 500}
	}
	return ser, nil
}

// ListTopics implements tab.TopicLister.
func (s *Source) ListTopics(ctx context.Context) ([]admin.TopicInfo, error) {
	if err := s.enter(ctx, "ListTopics"); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	ts := byName(s.topics)
	out := make([]admin.TopicInfo, len(ts))
	for i, t := range ts {
		out[i] = s.topicInfo(t)
	}
	return out, nil
}

// DescribeTopic implements tab.TopicAdmin.
func (s *Source) DescribeTopic(ctx context.Context, name string) (admin.TopicDescription, error) {
	t, err := s.enterTopic(ctx, "DescribeTopic", name)
	if err != nil {
		return admin.TopicDescription{}, err
	}
	defer s.mu.Unlock()
	d := admin.TopicDescription{TopicInfo: s.topicInfo(t)}
	for i, p := range t.parts {
		d.PartitionList = append(d.PartitionList, admin.PartitionInfo{
			Partition: int32(i), Leader: p.leader, LeaderEpoch: p.epoch, Replicas: slices.Clone(p.replicas), InSync: slices.Clone(p.inSync),
			StartOffset: int64(p.start), EndOffset: int64(p.end), HighWatermark: int64(p.end) - int64(i%2),
		})
	}
	return d, nil
}

// SubscriptionList implements tab.TopicAdmin.
func (s *Source) SubscriptionList(ctx context.Context, name string) ([]admin.SubscriptionLine, error) {
	t, err := s.enterTopic(ctx, "SubscriptionList", name)
	if err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	var out []admin.SubscriptionLine
	for _, g := range byName(s.groups) {
		cs, ok := g.committed[name]
		if !ok {
			continue
		}
		for i, c := range cs {
			line := admin.SubscriptionLine{Group: g.name, State: g.state, Partition: int32(i), Commit: int64(c), Lag: int64(t.parts[i].end - c), Members: len(g.members)}
			if c < 0 {
				line.Commit, line.Lag = -1, -1
			}
			out = append(out, line)
		}
	}
	return out, nil
}

// CreateTopic implements tab.TopicAdmin.
func (s *Source) CreateTopic(ctx context.Context, spec tab.TopicSpec) error {
	if err := s.enter(ctx, "CreateTopic"); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if _, ok := s.topics[spec.Name]; ok {
		return fmt.Errorf("MIMQE_TOPIC_EXISTS (%s)", spec.Name)
	}
	if spec.Replicas > len(s.nodes) {
		return fmt.Errorf("MIMQE_INVALID_PROPERTY (REPLICAS %d exceeds %d data nodes)", spec.Replicas, len(s.nodes))
	}
	var ret int64 // the default here: kept forever
	if spec.RetentionMs != nil {
		ret = *spec.RetentionMs
	}
	s.addTopic(spec.Name, spec.Partitions, 0, 0, ret, spec.RetentionBytes, 0)
	return nil
}

// DeleteTopic implements tab.TopicAdmin; it wipes the commits on it.
func (s *Source) DeleteTopic(ctx context.Context, name string) error {
	if _, err := s.enterTopic(ctx, "DeleteTopic", name); err != nil {
		return err
	}
	defer s.mu.Unlock()
	delete(s.topics, name)
	for _, g := range s.groups {
		delete(g.committed, name)
		g.topics = slices.DeleteFunc(g.topics, func(t string) bool { return t == name })
	}
	return nil
}

// FlushTopic implements tab.TopicAdmin: every record goes, commits too.
func (s *Source) FlushTopic(ctx context.Context, name string) error {
	t, err := s.enterTopic(ctx, "FlushTopic", name)
	if err != nil {
		return err
	}
	defer s.mu.Unlock()
	for _, p := range t.parts {
		p.start = p.end
	}
	t.info.Epoch++
	for _, g := range s.groups {
		if cs, ok := g.committed[name]; ok {
			for i := range cs {
				cs[i] = -1
			}
		}
	}
	return nil
}

// groupOffsets lists every partition of the group's topics with its
// commit, log start and end, as the engine's GROUP LIST does.
func (s *Source) groupOffsets(g *group) []admin.PartitionOffsets {
	var out []admin.PartitionOffsets
	for _, tn := range g.topics {
		t := s.topics[tn]
		if t == nil {
			continue
		}
		cs := g.committed[tn]
		for i, p := range t.parts {
			c := int64(-1)
			if i < len(cs) && cs[i] >= 0 {
				c = int64(cs[i])
			}
			out = append(out, admin.PartitionOffsets{Topic: tn, Partition: int32(i), Committed: c, LogStart: int64(p.start), End: int64(p.end)})
		}
	}
	return out
}

// ListGroups implements tab.GroupLister.
func (s *Source) ListGroups(ctx context.Context) ([]admin.GroupInfo, error) {
	if err := s.enter(ctx, "ListGroups"); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	var out []admin.GroupInfo
	for _, g := range byName(s.groups) {
		out = append(out, admin.GroupInfo{Name: g.name, State: g.state, Members: len(g.members), Topics: slices.Clone(g.topics),
			Durable: g.durable, Generation: g.generation, Partitions: s.groupOffsets(g)})
	}
	return out, nil
}

// DescribeGroup implements tab.GroupAdmin (unknown → Dead, no error).
func (s *Source) DescribeGroup(ctx context.Context, name string) (admin.GroupDescription, error) {
	if err := s.enter(ctx, "DescribeGroup"); err != nil {
		return admin.GroupDescription{}, err
	}
	defer s.mu.Unlock()
	g, ok := s.groups[name]
	if !ok {
		return admin.GroupDescription{Name: name, State: admin.GroupDead}, nil
	}
	d := admin.GroupDescription{Name: name, State: g.state, Generation: g.generation, Coordinator: 2, Durable: g.durable, Members: slices.Clone(g.members)}
	owner := map[string]string{}
	for _, m := range g.members {
		for _, tp := range m.Assignment {
			for _, p := range tp.Partitions {
				owner[fmt.Sprintf("%s/%d", tp.Topic, p)] = m.MemberID
			}
		}
	}
	for _, po := range s.groupOffsets(g) {
		d.Offsets = append(d.Offsets, admin.GroupOffset{PartitionOffsets: po, MemberID: owner[fmt.Sprintf("%s/%d", po.Topic, po.Partition)]})
	}
	return d, nil
}

// seek moves the group's partitions on topicName ("" = all) to target;
// a partition target says false for is left alone (like the engine's
// one-partition and planned seeks).
func (s *Source) seek(ctx context.Context, method, name, topicName string, apply bool, target func(topic string, i int, p *partition) (float64, bool)) ([]admin.OffsetChange, error) {
	g, err := s.enterGroup(ctx, method, name)
	if err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	if apply && len(g.members) > 0 {
		return nil, fmt.Errorf("MIMQE_GROUP_NOT_EMPTY (%d active members)", len(g.members))
	}
	var out []admin.OffsetChange
	for _, tn := range g.topics {
		if topicName != "" && tn != topicName {
			continue
		}
		t := s.topics[tn]
		for i, p := range t.parts {
			old := g.committed[tn][i]
			to, ok := target(tn, i, p)
			if !ok {
				continue
			}
			nw := math.Max(p.start, math.Min(p.end, to))
			c := admin.OffsetChange{Topic: tn, Partition: int32(i), Old: int64(old), New: int64(nw), LogStart: int64(p.start), End: int64(p.end)}
			if old < 0 {
				c.Old = -1
			}
			if c.Old == c.New {
				continue
			}
			out = append(out, c)
			if apply {
				g.committed[tn][i] = nw
			}
		}
	}
	return out, nil
}

// SeekGroup implements tab.GroupAdmin.
func (s *Source) SeekGroup(ctx context.Context, name, topicName string, to admin.SeekTarget, apply bool) ([]admin.OffsetChange, error) {
	planned := map[string]int64{}
	for _, c := range to.Planned {
		planned[fmt.Sprintf("%s/%d", c.Topic, c.Partition)] = c.New
	}
	return s.seek(ctx, "SeekGroup", name, topicName, apply, func(tn string, i int, p *partition) (float64, bool) {
		if len(to.Planned) > 0 {
			n, ok := planned[fmt.Sprintf("%s/%d", tn, i)]
			return float64(n), ok
		}
		if len(to.Partitions) > 0 && !slices.Contains(to.Partitions, int32(i)) {
			return 0, false
		}
		switch {
		case to.Earliest:
			return p.start, true
		case to.Latest:
			return p.end, true
		case !to.Time.IsZero():
			return math.Round(p.end - s.now.Sub(to.Time).Seconds()*10), true
		}
		return float64(to.Offset), true
	})
}

// SeekGroupToTime implements tab.GroupAdmin: records are spread evenly
// in time at the topic's rate.
func (s *Source) SeekGroupToTime(ctx context.Context, name, topicName string, at time.Time, apply bool) ([]admin.OffsetChange, error) {
	s.mu.Lock()
	now := s.now
	s.mu.Unlock()
	return s.seek(ctx, "SeekGroupToTime", name, topicName, apply, func(_ string, _ int, p *partition) (float64, bool) {
		back := now.Sub(at).Seconds()
		return math.Round(p.end - back*10), true
	})
}

// DeleteGroup implements tab.GroupAdmin.
func (s *Source) DeleteGroup(ctx context.Context, name string) error {
	g, err := s.enterGroup(ctx, "DeleteGroup", name)
	if err != nil {
		return err
	}
	defer s.mu.Unlock()
	if len(g.members) > 0 {
		return fmt.Errorf("MIMQE_GROUP_NOT_EMPTY (%d active members)", len(g.members))
	}
	delete(s.groups, name)
	return nil
}

// SetMembers changes a group's member count (tests: let a seek through).
func (s *Source) SetMembers(name string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if g, ok := s.groups[name]; ok {
		if n < len(g.members) {
			g.members = g.members[:n]
		}
		if n == 0 && g.state == admin.GroupStable {
			g.state = admin.GroupEmpty
		}
	}
}

// SetNodeState changes a node's state (and makes another node leader when
// the leader goes down).
func (s *Source) SetNodeState(id int, st admin.NodeState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.nodes {
		if s.nodes[i].ID != id {
			continue
		}
		s.nodes[i].State = st
		if st != admin.NodeRunning && s.leader == id {
			s.nodes[i].Role = admin.RoleNone
			s.leader = 0
			for j := range s.nodes {
				if s.nodes[j].State == admin.NodeRunning {
					s.nodes[j].Role = admin.RoleLeader
					s.leader = s.nodes[j].ID
					break
				}
			}
		}
	}
}

// ClusterProperty implements tab.ClusterAdmin.
func (s *Source) ClusterProperty(ctx context.Context) (admin.ClusterProperty, error) {
	if err := s.enter(ctx, "ClusterProperty"); err != nil {
		return admin.ClusterProperty{}, err
	}
	defer s.mu.Unlock()
	c := s.cluster
	c.Nodes = slices.Clone(c.Nodes)
	return c, nil
}

// ErrNotCommitted is the "may still commit" outcome.
var ErrNotCommitted = errors.New("MIMQE_CLUSTER_NOT_COMMITTED (not committed - retry)")

// SetClusterProperty implements tab.ClusterAdmin with the optimistic
// version check of ilink-spec §3.8.
func (s *Source) SetClusterProperty(ctx context.Context, ch admin.ClusterPropertyChange) error {
	if err := s.enter(ctx, "SetClusterProperty"); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if err := nextErr(&s.SetPropErrs); err != nil {
		return err
	}
	if ch.BaseVersion != s.cluster.Version {
		return errors.New("MIMQE_CLUSTER_DEF_MOVED")
	}
	if ch.Replicas != nil && *ch.Replicas > len(s.cluster.Nodes) {
		return fmt.Errorf("MIMQE_INVALID_PROPERTY (REPLICAS %d exceeds %d data nodes)", *ch.Replicas, len(s.cluster.Nodes))
	}
	if ch.Replicas != nil {
		s.cluster.Replicas = *ch.Replicas
	}
	if ch.MinSync != nil {
		s.cluster.MinSync = *ch.MinSync
	}
	if ch.Placement != nil {
		s.cluster.Placement = *ch.Placement
	}
	if ch.AutoStart != nil {
		s.cluster.AutoStart = *ch.AutoStart
	}
	s.cluster.Version++
	return nil
}

// nextErr takes the first of the scripted errors (nil when none is left).
func nextErr(errs *[]error) error {
	if len(*errs) == 0 {
		return nil
	}
	err := (*errs)[0]
	*errs = (*errs)[1:]
	return err
}

// AddNode implements tab.ClusterAdmin.
func (s *Source) AddNode(ctx context.Context, n admin.ClusterNode) error {
	if err := s.enter(ctx, "AddNode"); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if err := nextErr(&s.AddNodeErrs); err != nil {
		return err
	}
	for _, x := range s.cluster.Nodes {
		if x.QueueManager == n.QueueManager || (x.Host == n.Host && x.Port == n.Port) {
			return fmt.Errorf("MIMQE_INVALID_ARGUMENT (qmgr or address is node %d's)", x.Number)
		}
	}
	n.Number = len(s.cluster.Nodes) + 1
	s.cluster.Nodes = append(s.cluster.Nodes, n)
	if !s.cluster.Placement && s.cluster.Replicas > 0 {
		s.cluster.Replicas++
	}
	s.cluster.Version++
	return nil
}

// RemoveNode implements tab.ClusterAdmin.
func (s *Source) RemoveNode(ctx context.Context, num int) error {
	if err := s.enter(ctx, "RemoveNode"); err != nil {
		return err
	}
	defer s.mu.Unlock()
	i := slices.IndexFunc(s.cluster.Nodes, func(n admin.ClusterNode) bool { return n.Number == num })
	if i < 0 {
		return fmt.Errorf("MIMQE_INVALID_ARGUMENT (no node %d)", num)
	}
	s.cluster.Nodes = slices.Delete(s.cluster.Nodes, i, i+1)
	if s.cluster.Placement {
		s.cluster.Replicas = min(s.cluster.Replicas, len(s.cluster.Nodes))
	} else if s.cluster.Replicas > 0 {
		s.cluster.Replicas--
	}
	s.cluster.Version++
	return nil
}

// ReplicationStatus implements tab.ClusterAdmin.
func (s *Source) ReplicationStatus(ctx context.Context) (admin.ReplicationStatus, error) {
	if err := s.enter(ctx, "ReplicationStatus"); err != nil {
		return admin.ReplicationStatus{}, err
	}
	defer s.mu.Unlock()
	r := admin.ReplicationStatus{Cluster: s.cluster.Name, Leader: s.leader}
	for _, n := range s.nodes {
		r.Nodes = append(r.Nodes, admin.NodeReplication{ID: n.ID, QueueManager: n.QueueManager, Role: n.Role, State: n.State, LagRecords: n.LagRecords, Lag: n.Lag})
	}
	for _, t := range byName(s.topics) {
		for i, p := range t.parts {
			pr := admin.PartitionReplication{Topic: t.info.Name, Partition: int32(i), Leader: p.leader, InSync: slices.Clone(p.inSync)}
			for _, n := range p.replicas {
				if n == p.leader {
					continue
				}
				in := slices.Contains(p.inSync, n)
				f := admin.FollowerLag{Node: n, InSync: in}
				if !in {
					f.LagRecords, f.Lag = 4_200, 12*time.Second
				} else if n == 3 {
					f.LagRecords, f.Lag = int64(i%3), time.Duration(i%3)*100*time.Millisecond
				}
				pr.Followers = append(pr.Followers, f)
			}
			r.Partitions = append(r.Partitions, pr)
		}
	}
	return r, nil
}

// ClusterLeadTable implements tab.ClusterAdmin.
func (s *Source) ClusterLeadTable(ctx context.Context) (admin.ClusterLeadTable, error) {
	if err := s.enter(ctx, "ClusterLeadTable"); err != nil {
		return admin.ClusterLeadTable{}, err
	}
	defer s.mu.Unlock()
	rows := slices.Clone(s.leads)
	for _, t := range byName(s.topics) {
		for i, p := range t.parts {
			rows = append(rows, admin.LeadRow{Kind: "partition", Node: p.leader, Topic: t.info.Name, Partition: int32(i), Epoch: p.epoch,
				Replicas: slices.Clone(p.replicas), InSync: slices.Clone(p.inSync)})
		}
	}
	return admin.ClusterLeadTable{Format: "ILLT1", Rows: rows}, nil
}

// ListQueues implements tab.QueueLister.
func (s *Source) ListQueues(ctx context.Context) ([]admin.QueueInfo, error) {
	if err := s.enter(ctx, "ListQueues"); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	out := make([]admin.QueueInfo, len(s.queues))
	for i, q := range s.queues {
		out[i] = q.info
		out[i].Depth += int64(s.elapsed.Seconds()*(q.info.PutRate-q.info.GetRate)) + int64(3*math.Sin(s.elapsed.Seconds()/5))
		out[i].Depth += int64(len(q.msgs) - q.seeded)
		out[i].Depth = max(out[i].Depth, int64(len(q.msgs)))
	}
	return out, nil
}

// DropCommit removes a group's commit on one partition, as if it never
// committed there (its lag then counts from the log start).
func (s *Source) DropCommit(group, topic string, p int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if g := s.groups[group]; g != nil && p < len(g.committed[topic]) {
		g.committed[topic][p] = -1
	}
}

// AddHostileTopic adds a topic and a group whose names carry terminal
// escape sequences, C1 controls and bidi overrides (sanitizer tests).
func (s *Source) AddHostileTopic(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.addTopic(name, 1, 1, 1, 0, 0, 10)
	s.addGroup(name+"-grp", admin.GroupStable, 1, []string{name}, 1, 5)
}

var _ tab.Sources = (*Source)(nil)

// Run advances the demo in real time (every `every`, by the time that
// passed) until ctx ends, so a dashboard on the fake moves like a live
// cluster (screenshots, demos without the engine).
func (s *Source) Run(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			s.Advance(now.Sub(last))
			last = now
		}
	}
}
