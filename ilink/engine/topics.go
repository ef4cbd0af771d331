package engine

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"ilinkdash/ilink/topicrules"
	"ilinkdash/ilink/wire"
)

// Topics (docs/DESIGN.md §3.1, §3.4 and §3.5).
//
// A topic has partitions; partition p is replicated on the nodes
// (p+k) mod N, k = 0..replicas-1 (PLACEMENT on: leaders spread round-robin),
// and every replica node holds its own log of it (partition_log.go). The
// leader appends produced batches; each other replica node runs one
// follower goroutine that pulls from the leaders' logs in-process
// (replication_topics.go). The in-sync set is the replicas whose log
// reached the leader's end within Config.ReplicaLagMax; the high watermark
// is the smallest log end in it, and consumers only see records below it.
//
// When a node dies (KillNode: its logs are lost; StopNode: kept but
// frozen) its partitions lose their leader; after ElectionDelay the first
// running replica, in placement order, that held every committed record
// leads (leader epoch + 1). Partition leadership is independent of the
// cluster leadership that queue sessions follow.

// ---- errors ----

// Error is an engine refusal with an iLink error name, e.g.
// MIMQE_TOPIC_EXISTS (ORDER.EVENT). The Go API returns it (use errors.As);
// the wire handlers send it as an error body.
type Error struct {
	Name string
	Tail string
}

func (e *Error) Error() string {
	if e.Tail == "" {
		return e.Name
	}
	return e.Name + " (" + e.Tail + ")"
}

func (e *Error) body() *wire.ErrorBody { return &wire.ErrorBody{Name: e.Name, Tail: e.Tail} }

func errorf(name, format string, args ...any) *Error {
	return &Error{Name: name, Tail: fmt.Sprintf(format, args...)}
}

// wireError turns an error from the topic code into an error body.
func wireError(err error) *wire.ErrorBody {
	var te *Error
	if errors.As(err, &te) {
		return te.body()
	}
	return &wire.ErrorBody{Name: wire.ErrInternal, Tail: err.Error()}
}

func errUnknownTopic(name string) *Error { return &Error{Name: wire.ErrUnknownTopic, Tail: name} }

// internalTopicRefusal is the tail of a client's PRODUCE or PUBLISH to an
// internal topic: SYSTEM.GROUPS is written by the group coordinators only
// (a client record there would be read as group state at the next load).
func internalTopicRefusal(name string) string {
	return fmt.Sprintf("topic %s is internal: only the engine writes it", name)
}

// ---- configuration ----

// Topic property limits and defaults.
const (
	maxPartitions       = topicrules.MaxPartitions
	maxTopicName        = topicrules.MaxNameLen
	defaultRetentionMs  = 7 * 24 * 3600 * 1000
	systemTopicPrefix   = topicrules.SystemPrefix
	defaultMaxReplicas  = 3
	defaultProduceWait  = 30 * time.Second // acks=all with timeout_ms 0
	minHousekeepingTick = 5 * time.Millisecond
)

// topicConfig holds a topic's properties.
type topicConfig struct {
	partitions     int
	replicas       int
	minSync        int
	retentionMs    int64 // 0 = forever
	retentionBytes int64 // per partition; 0 = unlimited
}

func (c topicConfig) String() string {
	return fmt.Sprintf("partitions=%d,replicas=%d,minSync=%d,retention.ms=%d,retention.bytes=%d",
		c.partitions, c.replicas, c.minSync, c.retentionMs, c.retentionBytes)
}

// parseTopicProps parses "key=value,..." (spec W-13). Keys are matched
// without regard to case; spaces around keys and values are ignored.
func parseTopicProps(props string, nodes int) (topicConfig, error) {
	cfg := topicConfig{partitions: 1, minSync: 1, retentionMs: defaultRetentionMs}
	var replicasSet, minSyncSet bool
	err := eachTopicProp(props, &cfg, func(key, k string, n int64) error {
		switch key {
		case "partitions":
			cfg.partitions = int(n)
		case "replicas":
			if err := topicrules.CheckReplicas(n, nodes); err != nil {
				return invalid(err)
			}
			cfg.replicas, replicasSet = int(n), true
		case "minsync": // checked against the replicas below
			cfg.minSync, minSyncSet = int(min(max(n, -1), 1<<30)), true
		}
		return nil
	})
	if err != nil {
		return cfg, err
	}
	if !replicasSet {
		// The cluster property replicas would come first; the engine has no
		// cluster definition yet, so the default is min(3, nodes).
		cfg.replicas = min(defaultMaxReplicas, nodes)
	}
	if minSyncSet {
		if err := topicrules.CheckMinSync(int64(cfg.minSync), int64(cfg.replicas)); err != nil {
			return cfg, invalid(err)
		}
	}
	cfg.minSync = min(cfg.minSync, cfg.replicas)
	return cfg, nil
}

// eachTopicProp splits topic properties (spec W-13) and calls fn with each
// lower-cased key, the key as given and its integer value, in order. It
// refuses what is wrong whatever the topic: not key=value, a key given
// twice, an unknown key, a value that is not an integer, partitions outside
// 1..1024 and a negative retention. The retention keys mean the same on
// create and alter, so it sets them in cfg; what partitions, replicas and
// minSync may be depends on the caller (CreateTopic: the data nodes;
// AlterTopic: the topic's current properties), so fn checks and sets them.
func eachTopicProp(props string, cfg *topicConfig, fn func(key, k string, n int64) error) error {
	if strings.TrimSpace(props) == "" {
		return nil
	}
	seen := map[string]bool{}
	for _, kv := range strings.Split(props, ",") {
		k, v, ok := strings.Cut(kv, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" {
			return errorf(wire.ErrInvalidArgument, "topic property %q is not key=value", strings.TrimSpace(kv))
		}
		key := strings.ToLower(k)
		if seen[key] {
			return errorf(wire.ErrInvalidArgument, "topic property %s given twice", k)
		}
		seen[key] = true
		switch key {
		case "partitions", "replicas", "minsync", "retention.ms", "retention.bytes":
		default:
			return errorf(wire.ErrInvalidArgument, "unknown topic property %s (known: partitions, replicas, minSync, retention.ms, retention.bytes)", k)
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return errorf(wire.ErrInvalidArgument, "topic property %s: %q is not an integer", k, v)
		}
		var bad error
		switch key {
		case "partitions":
			bad = topicrules.CheckPartitions(n)
		case "retention.ms":
			bad = topicrules.CheckRetentionMs(n)
		case "retention.bytes":
			bad = topicrules.CheckRetentionBytes(n)
		}
		if bad != nil {
			return invalid(bad)
		}
		switch key {
		case "retention.ms":
			cfg.retentionMs = n
		case "retention.bytes":
			cfg.retentionBytes = n
		}
		if err := fn(key, k, n); err != nil {
			return err
		}
	}
	return nil
}

// validTopicName checks a name with the one rule the client and the
// forms check too (topicrules.CheckName: 1..249 characters of
// [A-Za-z0-9._-], the SYSTEM. prefix reserved for the engine).
func validTopicName(name string, internal bool) error {
	if err := topicrules.CheckName(name, internal); err != nil {
		return invalid(err)
	}
	return nil
}

// invalid is a topicrules refusal as the engine sends it:
// MIMQE_INVALID_ARGUMENT (<field>: <what is wrong>).
func invalid(err error) *Error {
	return &Error{Name: wire.ErrInvalidArgument, Tail: err.Error()}
}

// ---- state ----

// topicStore owns the topics. Lookups on the hot paths (names, an
// immutable sorted list) take no store lock.
type topicStore struct {
	e *Engine

	mu     sync.Mutex
	byName map[string]*topic
	// deadEpoch is the highest epoch a deleted topic had. A new topic starts
	// above it, so a recreated name's epoch exceeds every epoch it had before
	// (old commits stay wiped) with one number instead of one entry per name
	// ever created, which grew without bound under temporary topics.
	deadEpoch int32
	closed    bool
	timers    map[*electionTimer]struct{} // pending partition elections

	names   sync.Map // name → *topic, for lock-free lookups; written under mu
	snap    atomic.Pointer[topicSnap]
	running []atomic.Bool // per node (id-1): queue manager running; written under mu
	nextPID atomic.Int64
	qmStats *statRing // whole queue manager

	followers []*follower // per node (id-1): its replication goroutine
	done      chan struct{}
	wg        sync.WaitGroup
	t0        time.Time // monotonic base of mono()
}

// topicSnap is an immutable view of the topic set. A new one is published
// whenever the set changes, and when AlterTopic grows a topic: group
// coordinators compare snapshots to notice that assignments are stale.
type topicSnap struct {
	list []*topic // sorted by name
}

type topic struct {
	name     string
	internal bool
	lay      atomic.Pointer[topicLayout] // properties and partitions; see topicLayout
	epoch    atomic.Int32                // written under topicStore.mu; each partition keeps a copy under its own mutex
	// wipeEpoch is the topic epoch of its creation or latest FLUSH: group
	// commits made at an older epoch are void (groups.go).
	wipeEpoch atomic.Int32
	rr        atomic.Uint32
	stats     *statRing
	created   time.Time
}

// topicLayout is the alterable part of a topic: its properties and its
// partitions, as one immutable value. AlterTopic (topics_alter.go) builds a
// new layout under topicStore.mu and publishes it with one atomic store;
// everything else (produce, fetch, retention, replication, metadata, admin)
// reads it with one atomic load and no lock, so a reader never sees a torn
// or half-grown topic and never contends with an alter. Partitions are only
// ever appended: every partition of an older layout is at the same index
// in every newer one, so an index checked against one load stays valid in
// a later load. Code that sizes something by the partition count and then
// walks the partitions takes a single load (t.partitions() once, or
// t.layout()). A reader holding an older layout is only a moment behind:
// retention uses the new bounds at its next sweep, acks=all re-reads
// minSync at each check, metadata reports the new partition count at the
// next request.
type topicLayout struct {
	cfg   topicConfig
	parts []*partition // len(parts) == cfg.partitions
}

// layout is the topic's current layout (never nil once published).
func (t *topic) layout() *topicLayout { return t.lay.Load() }

// partitions is the topic's current partition list (do not modify).
func (t *topic) partitions() []*partition { return t.lay.Load().parts }

// config is the topic's current properties.
func (t *topic) config() topicConfig { return t.lay.Load().cfg }

// partition is one partition with all its replicas.
type partition struct {
	t    *topic
	id   int32
	reps []*replicaState // placement order; fixed
	mask uint64          // bit (id-1) of every replica node; fixed

	// needSync has the bit of every follower node that should pull; set
	// atomically by whoever changes the partition, cleared by the follower.
	needSync atomic.Uint64

	mu          sync.Mutex
	leader      int // node id; 0 = offline
	leaderEpoch int32
	isr         uint64 // in-sync replicas (bit id-1)
	lastISR     uint64 // while offline: replicas known to hold every committed record
	lostAt      time.Time
	hw          int64
	tEpoch      int32 // topic epoch (copy)
	flushEpoch  int32 // topic epoch set by the latest FLUSH; 0 = never flushed
	deleted     bool
	waiters     []*pwaiter // acks=all produces and long-poll fetches
}

// replicaState is one replica node's log of a partition plus what the
// leader knows about it.
type replicaState struct {
	node     int
	log      *partLog
	caughtUp time.Duration // mono() when its log last matched the leader's end
}

// pwaiter is a goroutine waiting for a partition change (high watermark,
// in-sync set, leader, flush, delete). Notifications coalesce.
type pwaiter struct{ ch chan struct{} }

func newPWaiter() *pwaiter { return &pwaiter{ch: make(chan struct{}, 1)} }

func (w *pwaiter) wake() {
	select {
	case w.ch <- struct{}{}:
	default:
	}
}

func bit(node int) uint64 { return 1 << uint(node-1) }

func newTopicStore(e *Engine) *topicStore {
	ts := &topicStore{
		e:       e,
		byName:  map[string]*topic{},
		timers:  map[*electionTimer]struct{}{},
		running: make([]atomic.Bool, e.cfg.Nodes),
		qmStats: newStatRing(),
		done:    make(chan struct{}),
		t0:      time.Now(),
	}
	for i := range ts.running {
		ts.running[i].Store(true)
	}
	ts.nextPID.Store(1000)
	ts.snap.Store(&topicSnap{})
	return ts
}

// mono is a monotonic clock reading.
func (ts *topicStore) mono() time.Duration { return time.Since(ts.t0) }

func (ts *topicStore) isRunning(node int) bool {
	return node >= 1 && node <= len(ts.running) && ts.running[node-1].Load()
}

func (ts *topicStore) runningMask() uint64 {
	var m uint64
	for i := range ts.running {
		if ts.running[i].Load() {
			m |= bit(i + 1)
		}
	}
	return m
}

// start launches the follower goroutines and the housekeeping loop.
func (ts *topicStore) start() {
	ts.followers = make([]*follower, len(ts.running))
	for i := range ts.followers {
		f := &follower{ts: ts, node: i + 1, kick: make(chan struct{}, 1)}
		ts.followers[i] = f
		ts.wg.Add(1)
		go f.run()
	}
	ts.wg.Add(1)
	go ts.housekeeping()
}

// shutdown stops every goroutine and timer of the topic side.
func (ts *topicStore) shutdown() {
	ts.mu.Lock()
	if ts.closed {
		ts.mu.Unlock()
		return
	}
	ts.closed = true
	for tok := range ts.timers {
		tok.t.Stop()
	}
	ts.timers = nil
	ts.mu.Unlock()
	close(ts.done)
	ts.wg.Wait()
}

// addLocked and removeLocked publish a create or a delete: the name map,
// and a new sorted list (copy on write, O(n) per change, so thousands of
// topics are created quickly).
func (ts *topicStore) addLocked(t *topic) {
	ts.byName[t.name] = t
	ts.names.Store(t.name, t)
	old := ts.snap.Load().list
	i := sort.Search(len(old), func(i int) bool { return old[i].name >= t.name })
	list := make([]*topic, 0, len(old)+1)
	list = append(append(append(list, old[:i]...), t), old[i:]...)
	ts.snap.Store(&topicSnap{list: list})
}

func (ts *topicStore) removeLocked(t *topic) {
	ts.deadEpoch = max(ts.deadEpoch, t.epoch.Load())
	delete(ts.byName, t.name)
	ts.names.Delete(t.name)
	old := ts.snap.Load().list
	list := make([]*topic, 0, len(old))
	for _, o := range old {
		if o != t {
			list = append(list, o)
		}
	}
	ts.snap.Store(&topicSnap{list: list})
}

func (ts *topicStore) lookup(name string) *topic {
	if v, ok := ts.names.Load(name); ok {
		return v.(*topic)
	}
	return nil
}

// partitionOf is partition part of t, the topic a per-partition request
// names (nil when there is no such topic), or the entry's error: a missing
// topic or partition is MIMQE_UNKNOWN_TOPIC, naming what is missing.
// Partitions only grow, so the partition stays valid once found.
func partitionOf(t *topic, name string, part int32) (*partition, wire.PartError) {
	if t == nil {
		return nil, wire.PartError{Name: wire.ErrUnknownTopic, Tail: name}
	}
	parts := t.partitions()
	if part < 0 || int(part) >= len(parts) {
		return nil, wire.PartError{Name: wire.ErrUnknownTopic, Tail: fmt.Sprintf("%s has no partition %d", name, part)}
	}
	return parts[part], wire.PartError{}
}

// rep returns node's replica state, or nil if node holds no replica.
func (p *partition) rep(node int) *replicaState {
	for _, r := range p.reps {
		if r.node == node {
			return r
		}
	}
	return nil
}

// leaderLogLocked is the leader's log, or nil while offline.
func (p *partition) leaderLogLocked() *partLog {
	if p.leader == 0 {
		return nil
	}
	return p.rep(p.leader).log
}

// notifyLocked wakes every waiter; they re-check and re-register.
func (p *partition) notifyLocked() {
	for _, w := range p.waiters {
		w.wake()
	}
	p.waiters = p.waiters[:0]
}

func (p *partition) addWaiterLocked(w *pwaiter) {
	if !slices.Contains(p.waiters, w) {
		p.waiters = append(p.waiters, w)
	}
}

func (p *partition) removeWaiter(w *pwaiter) {
	p.mu.Lock()
	if i := slices.Index(p.waiters, w); i >= 0 {
		p.waiters = slices.Delete(p.waiters, i, i+1)
	}
	p.mu.Unlock()
}

// followerMaskLocked is the replica nodes other than the leader.
func (p *partition) followerMaskLocked() uint64 {
	if p.leader == 0 {
		return 0
	}
	return p.mask &^ bit(p.leader)
}

// ---- Go API ----

// CreateTopic creates a topic from properties such as
// "partitions=3,replicas=2,minSync=2,retention.ms=3600000,retention.bytes=1073741824"
// (spec T-01). Errors are *Error: MIMQE_INVALID_ARGUMENT for a bad name or
// property, MIMQE_TOPIC_EXISTS for an existing topic.
func (e *Engine) CreateTopic(name, props string) error {
	return e.topics.create(name, props, false)
}

// createInternal creates a SYSTEM. topic (engine use).
func (e *Engine) createInternal(name, props string) error {
	return e.topics.create(name, props, true)
}

func (ts *topicStore) create(name, props string, internal bool) error {
	if err := validTopicName(name, internal); err != nil {
		return err
	}
	cfg, err := parseTopicProps(props, len(ts.running))
	if err != nil {
		return err
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.closed {
		return errClosed
	}
	if ts.byName[name] != nil {
		return &Error{Name: wire.ErrTopicExists, Tail: name}
	}
	epoch := ts.deadEpoch + 1
	t := &topic{name: name, internal: strings.HasPrefix(name, systemTopicPrefix), stats: newStatRing(), created: time.Now()}
	t.epoch.Store(epoch)
	t.wipeEpoch.Store(epoch)
	running := ts.runningMask()
	now := ts.mono()
	parts := make([]*partition, cfg.partitions)
	for i := range parts {
		parts[i] = ts.newPartitionLocked(t, i, cfg.replicas, epoch, running, now)
	}
	t.lay.Store(&topicLayout{cfg: cfg, parts: parts})
	ts.addLocked(t)
	ts.e.logf("engine: topic %s created (%s, epoch %d)", name, cfg, epoch)
	return nil
}

// newPartitionLocked builds partition i of t, empty (its logs start at
// offset 0) and at topic epoch epoch. It is placed on the nodes (i+k) mod
// N, k = 0..replicas-1, and its first running replica leads (leader epoch
// 1); every running replica starts in sync (all logs are empty). With no
// running replica it starts offline, and the next node that comes back
// triggers its election. CreateTopic and AlterTopic (growth) place
// partitions with it, under topicStore.mu.
func (ts *topicStore) newPartitionLocked(t *topic, i, replicas int, epoch int32, running uint64, now time.Duration) *partition {
	n := len(ts.running)
	p := &partition{t: t, id: int32(i), tEpoch: epoch}
	for k := 0; k < replicas; k++ {
		node := (i+k)%n + 1
		p.reps = append(p.reps, &replicaState{node: node, log: newPartLog(0), caughtUp: now})
		p.mask |= bit(node)
	}
	p.isr = p.mask & running
	for _, r := range p.reps {
		if running&bit(r.node) != 0 {
			p.leader = r.node
			break
		}
	}
	if p.leader == 0 {
		p.lostAt = time.Now()
	} else {
		p.leaderEpoch = 1
	}
	return p
}

// DeleteTopic deletes a topic and its data. Recreating the name bumps the
// topic epoch, so producers still sending at the old epoch are refused
// with MIMQE_TOPIC_EPOCH_MISMATCH.
func (e *Engine) DeleteTopic(name string) error {
	if err := e.deleteTopic(name); err != nil {
		return err
	}
	// Every group's commits on it go too (spec T-08, T-09); outside
	// topicStore.mu, which the coordinator never takes.
	e.groups.topicWiped(name)
	return nil
}

func (e *Engine) deleteTopic(name string) error {
	ts := e.topics
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t := ts.byName[name]
	if t == nil {
		return errUnknownTopic(name)
	}
	if t.internal {
		return errorf(wire.ErrInvalidArgument, "topic %s is internal", name)
	}
	ts.removeLocked(t)
	for _, p := range t.partitions() {
		p.mu.Lock()
		p.deleted = true
		p.leader = 0
		for _, r := range p.reps {
			r.log = newPartLog(0)
		}
		p.notifyLocked()
		p.mu.Unlock()
	}
	e.logf("engine: topic %s deleted", name)
	return nil
}

// FlushTopic empties a topic on every replica and bumps its epoch (spec
// T-07): producers at the older epoch get MIMQE_TOPIC_FLUSHED. Offsets are
// not reused: every partition's log restarts empty at its old end.
func (e *Engine) FlushTopic(name string) error {
	if err := e.topics.bumpEpoch(name, true); err != nil {
		return err
	}
	e.groups.topicWiped(name) // spec T-08
	return nil
}

// BumpTopicEpoch bumps a topic's epoch without flushing it: producers at
// the older epoch get MIMQE_TOPIC_EPOCH_MISMATCH.
func (e *Engine) BumpTopicEpoch(name string) error { return e.topics.bumpEpoch(name, false) }

func (ts *topicStore) bumpEpoch(name string, flush bool) error {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t := ts.byName[name]
	if t == nil {
		return errUnknownTopic(name)
	}
	epoch := t.epoch.Load() + 1
	t.epoch.Store(epoch)
	if flush {
		t.wipeEpoch.Store(epoch)
	}
	for _, p := range t.partitions() {
		p.mu.Lock()
		p.tEpoch = epoch
		if flush {
			p.flushEpoch = epoch
			end := p.hw
			if l := p.leaderLogLocked(); l != nil {
				end = l.end
			} else {
				for _, r := range p.reps {
					end = max(end, r.log.end)
				}
			}
			for _, r := range p.reps {
				r.log.reset(end)
				r.log.syncedEpoch = p.leaderEpoch
			}
			p.hw = end
		}
		p.notifyLocked()
		p.mu.Unlock()
	}
	what := "epoch bumped"
	if flush {
		what = "flushed"
	}
	ts.e.logf("engine: topic %s %s (epoch %d)", name, what, epoch)
	return nil
}

// MovePartitionLeader makes node lead partition p of topic now (leader
// epoch + 1). The node must be a running replica in the in-sync set; it
// first takes whatever the old leader has that it lacks, so a planned move
// loses nothing.
func (e *Engine) MovePartitionLeader(topicName string, p int, node int) error {
	ts := e.topics
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t := ts.byName[topicName]
	if t == nil {
		return errUnknownTopic(topicName)
	}
	parts := t.partitions()
	if p < 0 || p >= len(parts) {
		return errorf(wire.ErrInvalidArgument, "topic %s has no partition %d", topicName, p)
	}
	part := parts[p]
	part.mu.Lock()
	defer part.mu.Unlock()
	r := part.rep(node)
	switch {
	case r == nil:
		return errorf(wire.ErrInvalidArgument, "node %d holds no replica of %s/%d", node, topicName, p)
	case !ts.isRunning(node):
		return errorf(wire.ErrInvalidArgument, "node %d is not running", node)
	case part.leader == node:
		return nil
	case part.leader != 0 && part.isr&bit(node) == 0:
		return errorf(wire.ErrInvalidArgument, "node %d is not in sync for %s/%d", node, topicName, p)
	case part.leader == 0 && part.lastISR&bit(node) == 0:
		return errorf(wire.ErrInvalidArgument, "node %d does not hold every committed record of %s/%d", node, topicName, p)
	}
	if part.leader != 0 {
		ts.pullLocked(part, node, 0) // catch up with the old leader first
	}
	ts.becomeLeaderLocked(part, node, part.leader != 0)
	e.logf("engine: %s/%d leader moved to node %d (leader epoch %d)", topicName, p, node, part.leaderEpoch)
	return nil
}

// PartitionLeader returns the node leading partition p of topic, or 0 if
// the partition is offline or unknown.
func (e *Engine) PartitionLeader(topicName string, p int) int {
	t := e.topics.lookup(topicName)
	if t == nil {
		return 0
	}
	parts := t.partitions()
	if p < 0 || p >= len(parts) {
		return 0
	}
	part := parts[p]
	part.mu.Lock()
	defer part.mu.Unlock()
	return part.leader
}

// TopicOffsets returns every partition's log start and log end offset on
// its leader (for an offline partition: the largest log end among its
// replicas); nil slices for an unknown topic.
func (e *Engine) TopicOffsets(topicName string) (start, end []int64) {
	t := e.topics.lookup(topicName)
	if t == nil {
		return nil, nil
	}
	parts := t.partitions()
	start = make([]int64, len(parts))
	end = make([]int64, len(parts))
	for i, p := range parts {
		p.mu.Lock()
		l := p.leaderLogLocked()
		if l == nil {
			l = p.reps[0].log
			for _, r := range p.reps {
				if r.log.end > l.end {
					l = r.log
				}
			}
		}
		start[i], end[i] = l.start, l.end
		p.mu.Unlock()
	}
	return start, end
}

// ReadPartition decodes up to max records (max <= 0: all) of partition p
// from offset from on, read from the leader and only below the high
// watermark. from below the log start or above the log end is
// MIMQE_OFFSET_OUT_OF_RANGE.
func (e *Engine) ReadPartition(topicName string, p int, from int64, max int) ([]wire.Record, error) {
	t := e.topics.lookup(topicName)
	if t == nil {
		return nil, errUnknownTopic(topicName)
	}
	parts := t.partitions()
	if p < 0 || p >= len(parts) {
		return nil, errorf(wire.ErrInvalidArgument, "topic %s has no partition %d", topicName, p)
	}
	part := parts[p]
	part.mu.Lock()
	l := part.leaderLogLocked()
	if l == nil {
		part.mu.Unlock()
		return nil, errorf(wire.ErrNoLeader, "%s/%d is offline", topicName, p)
	}
	if from < l.start || from > l.end {
		err := errorf(wire.ErrOffsetOutOfRange, "offset %d outside %d..%d", from, l.start, part.hw)
		part.mu.Unlock()
		return nil, err
	}
	var batches [][]byte
	if i := l.find(from); i >= 0 {
		for _, en := range l.live()[i:] {
			if en.next > part.hw {
				break
			}
			batches = append(batches, en.b)
		}
	}
	part.mu.Unlock()
	var out []wire.Record
	for _, b := range batches {
		recs, err := wire.DecodeBatch(b, e.cfg.MaxFrame, nil)
		if err != nil {
			return out, err
		}
		for _, r := range recs {
			if r.Offset < from {
				continue
			}
			if max > 0 && len(out) >= max {
				return out, nil
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// TopicInfo describes a topic (Engine.Topics).
type TopicInfo struct {
	Name             string
	Internal         bool // SYSTEM.*
	Epoch            int32
	Partitions       int
	Replicas         int
	MinSync          int
	RetentionMs      int64 // 0 = forever
	RetentionBytes   int64 // per partition; 0 = unlimited
	UnderReplicated  int   // partitions whose in-sync set is smaller than their replica set
	Offline          int   // partitions without a leader
	StartOffsetSum   int64 // log start offsets on the leaders
	EndOffsetSum     int64 // log end offsets on the leaders
	HighWatermarkSum int64
	Bytes            int64 // bytes held by the leaders
	Created          time.Time
}

// PartitionInfo describes one partition (Engine.TopicPartitions).
type PartitionInfo struct {
	Partition     int32
	Leader        int // 0 = offline
	LeaderEpoch   int32
	Replicas      []int
	InSync        []int
	StartOffset   int64 // on the leader
	EndOffset     int64 // log end on the leader
	HighWatermark int64
	Bytes         int64
	ReplicaEnds   []int64 // log end of each replica (Replicas order); -1 when its node is not running
}

// Topics lists every topic, sorted by name.
func (e *Engine) Topics() []TopicInfo {
	snap := e.topics.snap.Load()
	out := make([]TopicInfo, 0, len(snap.list))
	for _, t := range snap.list {
		lay := t.layout() // one load: the properties and partitions agree
		ti := TopicInfo{
			Name: t.name, Internal: t.internal, Epoch: t.epoch.Load(),
			Partitions: len(lay.parts), Replicas: lay.cfg.replicas, MinSync: lay.cfg.minSync,
			RetentionMs: lay.cfg.retentionMs, RetentionBytes: lay.cfg.retentionBytes, Created: t.created,
		}
		for _, pi := range e.topics.partitionInfos(lay.parts) {
			if pi.Leader == 0 {
				ti.Offline++
			}
			if len(pi.InSync) < len(pi.Replicas) {
				ti.UnderReplicated++
			}
			ti.StartOffsetSum += pi.StartOffset
			ti.EndOffsetSum += pi.EndOffset
			ti.HighWatermarkSum += pi.HighWatermark
			ti.Bytes += pi.Bytes
		}
		out = append(out, ti)
	}
	return out
}

// TopicPartitions describes every partition of a topic.
func (e *Engine) TopicPartitions(topicName string) ([]PartitionInfo, error) {
	t := e.topics.lookup(topicName)
	if t == nil {
		return nil, errUnknownTopic(topicName)
	}
	return e.topics.partitionInfos(t.partitions()), nil
}

// partitionInfos describes parts (one layout's partitions of a topic).
func (ts *topicStore) partitionInfos(parts []*partition) []PartitionInfo {
	out := make([]PartitionInfo, len(parts))
	for i, p := range parts {
		p.mu.Lock()
		pi := PartitionInfo{Partition: p.id, Leader: p.leader, LeaderEpoch: p.leaderEpoch, HighWatermark: p.hw}
		for _, r := range p.reps {
			pi.Replicas = append(pi.Replicas, r.node)
			if p.isr&bit(r.node) != 0 {
				pi.InSync = append(pi.InSync, r.node)
			}
			end := int64(-1)
			if ts.isRunning(r.node) {
				end = r.log.end
			}
			pi.ReplicaEnds = append(pi.ReplicaEnds, end)
		}
		if l := p.leaderLogLocked(); l != nil {
			pi.StartOffset, pi.EndOffset, pi.Bytes = l.start, l.end, l.bytes
		}
		p.mu.Unlock()
		out[i] = pi
	}
	return out
}

// ---- node hooks (called by cluster under cluster.mu) ----

// nodeLost handles a killed (logs lost) or stopped (logs kept, frozen)
// node: it leaves every in-sync set at once, and the partitions it led go
// offline until an election after ElectionDelay.
func (ts *topicStore) nodeLost(id int, killed bool) {
	b := bit(id)
	ts.nodeChanged(id, false, func(p *partition) bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		r := p.rep(id)
		if killed {
			r.log = newPartLog(0)
			p.lastISR &^= b
		}
		wasISR := p.isr&b != 0
		p.isr &^= b
		orphan := p.leader == id
		if orphan {
			p.lastISR = p.isr
			if wasISR && !killed {
				p.lastISR |= b // its log is intact
			}
			p.leader = 0
			p.lostAt = time.Now()
		} else if p.leader != 0 {
			ts.advanceHWLocked(p)
		}
		p.notifyLocked()
		return orphan
	})
}

// nodeBack handles a restarted (empty logs) or started node: its follower
// goroutine catches up, and offline partitions get an election.
func (ts *topicStore) nodeBack(id int) {
	ts.nodeChanged(id, true, func(p *partition) bool {
		p.mu.Lock()
		orphan := p.leader == 0 && !p.deleted
		p.mu.Unlock()
		ts.markSync(p, id)
		return orphan
	})
}

// nextLeaderLocked is the first running in-sync replica of p after its
// leader in replica order (from the first replica while p has no
// leader), or 0 when there is none: where a forced election or a
// coordinator move sends the leadership.
func (ts *topicStore) nextLeaderLocked(p *partition) int {
	n := len(p.reps)
	start := 0
	for i, rs := range p.reps {
		if rs.node == p.leader {
			start = i + 1
		}
	}
	for k := range n {
		rs := p.reps[(start+k)%n]
		if rs.node != p.leader && p.isr&bit(rs.node) != 0 && ts.isRunning(rs.node) {
			return rs.node
		}
	}
	return 0
}

// nodeChanged records node id as running or not and runs fn, under ts.mu,
// on every partition with a replica on it; fn reports whether the
// partition is without a leader, and an election is scheduled when one is.
func (ts *topicStore) nodeChanged(id int, running bool, fn func(p *partition) (orphan bool)) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.running[id-1].Store(running)
	orphans := false
	for _, t := range ts.byName {
		for _, p := range t.partitions() {
			if p.mask&bit(id) != 0 && fn(p) {
				orphans = true
			}
		}
	}
	if orphans {
		ts.scheduleElectionLocked()
	}
}

func (ts *topicStore) scheduleElectionLocked() {
	if ts.closed {
		return
	}
	tok := &electionTimer{}
	ts.timers[tok] = struct{}{}
	tok.t = time.AfterFunc(ts.e.cfg.ElectionDelay, func() { ts.elect(tok) })
}

// electionTimer identifies one pending election; t is set under
// topicStore.mu right after the timer starts, and read only under it.
type electionTimer struct{ t *time.Timer }

// elect gives every offline partition that has been offline for
// ElectionDelay a leader: the first running replica (placement order)
// that held every committed record. If none of those is running but one
// is merely stopped, the partition waits for it; if all of them lost their
// logs, the running replica with the longest log leads (nothing better is
// left).
func (ts *topicStore) elect(tok *electionTimer) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.closed {
		return
	}
	delete(ts.timers, tok)
	delay := ts.e.cfg.ElectionDelay
	running := ts.runningMask()
	for _, t := range ts.byName {
		for _, p := range t.partitions() {
			p.mu.Lock()
			if p.leader == 0 && !p.deleted && time.Since(p.lostAt) >= delay {
				if node := p.candidateLocked(running); node != 0 {
					unclean := p.lastISR&bit(node) == 0
					ts.becomeLeaderLocked(p, node, false)
					ts.e.logf("engine: %s/%d: node %d elected leader (leader epoch %d, unclean %v)", t.name, p.id, node, p.leaderEpoch, unclean)
				}
			}
			p.mu.Unlock()
		}
	}
}

func (p *partition) candidateLocked(running uint64) int {
	for _, r := range p.reps {
		if running&p.lastISR&bit(r.node) != 0 {
			return r.node
		}
	}
	if p.lastISR != 0 {
		return 0 // a stopped replica holds the committed records: wait for it
	}
	best := 0
	var bestEnd int64
	for _, r := range p.reps {
		if running&bit(r.node) != 0 && (best == 0 || r.log.end > bestEnd) {
			best, bestEnd = r.node, r.log.end
		}
	}
	return best
}

// becomeLeaderLocked makes node the leader (leader epoch + 1). keepISR
// (planned move, logs already reconciled) keeps the in-sync set; after a
// failure only the replicas whose log is a prefix of the new leader's stay
// in it, the others rejoin once they have reconciled and caught up.
func (ts *topicStore) becomeLeaderLocked(p *partition, node int, keepISR bool) {
	p.leader = node
	p.leaderEpoch++
	L := p.rep(node).log
	L.syncedEpoch = p.leaderEpoch
	if !keepISR {
		isr := bit(node)
		for _, r := range p.reps {
			if r.node != node && ts.isRunning(r.node) && p.lastISR&bit(r.node) != 0 && isPrefix(r.log, L) {
				isr |= bit(r.node)
			}
		}
		p.isr = isr
		p.hw = min(p.hw, L.end)
		if p.hw < L.start {
			p.hw = L.start
		}
	}
	p.isr |= bit(node)
	p.lastISR = 0
	now := ts.mono()
	for _, r := range p.reps {
		if p.isr&bit(r.node) != 0 {
			r.caughtUp = now
		}
	}
	ts.advanceHWLocked(p)
	p.notifyLocked()
	ts.kickFollowersLocked(p)
}

// isPrefix reports whether log f is a prefix of log l: its last batch is
// the very same stored batch as l's at that offset (replicas share batch
// bytes, so identity means the same append by the same leader).
func isPrefix(f, l *partLog) bool {
	if f.end > l.end {
		return false
	}
	fe := f.live()
	if len(fe) == 0 {
		return f.end < l.start || l.boundary(f.end) >= 0
	}
	last := &fe[len(fe)-1]
	i := l.find(last.base)
	return i >= 0 && sameBatch(&l.live()[i], last)
}

func sameBatch(a, b *logEntry) bool {
	return a.base == b.base && len(a.b) == len(b.b) && &a.b[0] == &b.b[0]
}
