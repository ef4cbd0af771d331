package consumer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"ilinkdash/ilink"
	"ilinkdash/ilink/numfmt"
	"ilinkdash/ilink/wire"
)

// Record is one consumed record. Topic is set for every record, pattern
// subscriptions included (spec T-12, C-52). Key, Value and header values
// share one buffer: the decompressed batch, or for an uncompressed batch
// the fetch reply it came in (so a kept record keeps up to that reply's
// bytes). They stay valid as long as the application keeps them and must
// not be modified.
type Record struct {
	Topic     string
	Partition int32
	Offset    int64
	Timestamp time.Time
	Key       []byte
	Value     []byte
	Headers   []wire.RecordHeader
}

// recordOverhead is what a buffered record costs beyond its bytes.
const recordOverhead = int(unsafe.Sizeof(Record{}))

// maxPendingErrors bounds the background errors kept for Read.
const maxPendingErrors = 16

// cursor is the consumer's state for one assigned partition. Fields are
// guarded by Consumer.mu.
type cursor struct {
	tp
	offset    int64   // next offset to fetch
	epoch     uint32  // bumped by seeks and resets; stale fetches and chunks are dropped
	src       *source // leader's fetch loop; nil while the leader is unknown
	inflight  bool    // a fetch covering it is on the wire
	removed   bool    // revoked, left or closed
	pos       int64   // next offset for the application (after the last record handed over)
	committed int64   // last committed next-offset known (-1 = none)
}

// Consumer reads topics as a member of a group (Subscribe) or from fixed
// partitions (Assign). Positions are held by the client (spec C-02); one
// fetch loop per leader node fetches ahead of the application, bounded by
// Prefetch and MaxBufferedBytes; a group goroutine joins, heartbeats,
// commits and rebalances. Methods are safe for concurrent use.
type Consumer struct {
	opt     Options
	cl      *cluster
	co      *coordinator // nil without a group
	g       *groupMgr    // nil for Assign
	pattern string       // pattern subscription; "" otherwise
	manual  bool         // Assign

	// preexisting names every topic the metadata listed when a pattern
	// subscription began (those in error too). A topic the pattern
	// matches later that is not here was created after the subscribe, so
	// StartLatest reads it from its start: all it holds came after.
	// Written before the loops start, then only read.
	preexisting map[string]bool

	ctx    context.Context // ends at Close
	cancel context.CancelFunc
	wg     sync.WaitGroup // sources, metadata loop, assign loop

	mu          sync.Mutex
	cursors     map[tp]*cursor
	sources     map[uint16]*source
	notify      chan struct{} // closed when data or state changes; nil when nobody waits
	fetchDone   chan struct{} // closed after a fetch reply was processed; nil when nobody waits
	roomBlocked bool          // a source waits for MaxBufferedBytes room
	state       consumerState // running, rebalancing, expired, rejoining, closed (state.go)
	fetchPaused bool          // PauseFetching: no fetch is sent, in any state
	errs        []error
	reading     int       // reads in progress
	reads       uint64    // reads ended, for the expiry watch (no clock read per record)
	seenReads   uint64    // reads at the expiry watch's last look
	lastRead    time.Time // when the expiry watch last saw reads change
	member      string
	generation  int32

	readMu sync.Mutex // one reader at a time (Read, ReadBatch, the listener)
	one    [1]*Record // Read's result slot, under readMu

	metaWake chan struct{}

	lmu    sync.Mutex
	listen *listener

	health fetchHealth // FetchHealth

	buf chunkBuf // fetched records not handed over yet (its own lock, taken inside mu)
}

// Subscribe joins group opt.Group for one topic or, when topicOrPattern
// holds '*' or '?', for every topic matching the pattern (spec T-12; see
// MatchPattern). It returns after the first join: the group's commits
// are read (their failure fails Subscribe, spec C-15) and the assigned
// partitions start at their commit or at opt.Start (C-13, C-14). A second
// member may start with no partition; it gets its share once the holders
// rejoin (C-26).
func Subscribe(ctx context.Context, addrs string, topicOrPattern string, opt Options) (*Consumer, error) {
	c, err := newConsumer(addrs, opt, false)
	if err != nil {
		return nil, err
	}
	ok := false
	defer c.discardUnless(&ok)
	c.co = newCoordinator(c.cl, &c.opt)
	var topics []string
	if IsPattern(topicOrPattern) {
		c.pattern = topicOrPattern
		md, err := c.cl.metadata(ctx, nil)
		if err != nil {
			return nil, err
		}
		topics = matchTopics(c.pattern, topicNames(md))
		c.preexisting = make(map[string]bool, len(md.Topics))
		for i := range md.Topics {
			c.preexisting[md.Topics[i].Name] = true
		}
	} else {
		md, err := c.cl.metadata(ctx, []string{topicOrPattern})
		if err != nil {
			return nil, err
		}
		if _, err := topicPartitions(md, topicOrPattern); err != nil {
			return nil, err
		}
		topics = []string{topicOrPattern}
	}
	c.g = newGroupMgr(c, topics)
	// An interrupted Subscribe gets abortLeaveTimeout past ctx's end for
	// both the join's reply (joinWait) and the LEAVE: one budget, so that
	// a command stops within its own.
	abort, cancelAbort := afterEnd(ctx, abortLeaveTimeout)
	defer cancelAbort()
	c.g.grace.Store(&abort)
	assignment, err := c.g.join(ctx)
	if err == nil {
		err = c.g.apply(ctx, assignment)
	}
	if err != nil {
		// Leave, if the join made a member (even one whose reply came
		// after ctx ended). Best effort, and bounded: an unanswered LEAVE
		// must not hold the caller for a request timeout; the member
		// expires by its session timeout.
		lctx, cancel := context.WithTimeout(abort, abortLeaveTimeout)
		c.g.leave(lctx)
		cancel()
		return nil, err
	}
	c.startLoops()
	c.g.start()
	ok = true
	return c, nil
}

// afterEnd is a context that ends d after ctx does (d from now when ctx
// has already ended): a wait that may outlive its caller's context, by a
// bound.
func afterEnd(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	c, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() { time.AfterFunc(d, cancel) })
	return c, func() { stop(); cancel() }
}

// abortLeaveTimeout bounds the LEAVE GROUP of a Subscribe that failed
// after joining, and, past the end of an interrupted Subscribe's ctx, the
// wait for its join's reply and its LEAVE together.
const abortLeaveTimeout = time.Second

// Assign reads the listed partitions of topic (nil = every partition) with
// no group membership: only those partitions are read (spec C-55). With
// opt.Group set, partitions start at the group's commits and commits are
// stored for the group outside membership (the engine accepts them only
// while the group has no active member).
func Assign(ctx context.Context, addrs string, topic string, partitions []int32, opt Options) (*Consumer, error) {
	c, err := newConsumer(addrs, opt, true)
	if err != nil {
		return nil, err
	}
	ok := false
	defer c.discardUnless(&ok)
	c.manual = true
	c.generation = -1
	if c.opt.Group != "" {
		c.co = newCoordinator(c.cl, &c.opt)
	}
	md, err := c.cl.metadata(ctx, []string{topic})
	if err != nil {
		return nil, err
	}
	all, err := topicPartitions(md, topic)
	if err != nil {
		return nil, err
	}
	if partitions == nil {
		partitions = all
	}
	tps := make([]tp, 0, len(partitions))
	for _, p := range partitions {
		if !slices.Contains(all, p) {
			return nil, &ilink.Error{Name: wire.ErrInvalidArgument, Tail: fmt.Sprintf("%s has no partition %d (its %s: 0-%d)", topic, p, numfmt.Plural(len(all), "partition"), len(all)-1), Kind: ilink.KindRejected}
		}
		if !slices.Contains(tps, tp{topic, p}) {
			tps = append(tps, tp{topic, p})
		}
	}
	starts, commits, err := c.startPositions(ctx, tps)
	if err != nil {
		return nil, err
	}
	c.addCursors(starts, commits)
	c.startLoops()
	if c.co != nil && c.opt.Commit == CommitAuto {
		c.wg.Add(1)
		go c.assignLoop()
	}
	ok = true
	return c, nil
}

// Resolve returns the topics that match pattern now, sorted, without
// subscribing: no group member is created (spec T-11).
func Resolve(ctx context.Context, addrs string, pattern string) ([]string, error) {
	return ResolveWith(ctx, addrs, pattern, NewOptions())
}

// ResolveWith is Resolve with options: the client name, a spoke's hub
// route (Options.Hub).
func ResolveWith(ctx context.Context, addrs string, pattern string, opt Options) ([]string, error) {
	opt, seeds, err := opt.withSeeds(addrs)
	if err != nil {
		return nil, err
	}
	cl := newCluster(&opt, seeds)
	defer cl.close()
	md, err := cl.metadata(ctx, nil)
	if err != nil {
		return nil, err
	}
	return matchTopics(pattern, topicNames(md)), nil
}

// withSeeds is opt with its defaults and addrs parsed: what a consumer
// and a Resolve start from.
func (opt Options) withSeeds(addrs string) (Options, []string, error) {
	opt, err := opt.withDefaults()
	if err != nil {
		return opt, nil, err
	}
	seeds, err := ilink.ParseAddrs(addrs)
	return opt, seeds, err
}

// newConsumer refuses what ReadOnly forbids for a Subscribe (assigned
// false) or an Assign, then builds the consumer both start from.
func newConsumer(addrs string, opt Options, assigned bool) (*Consumer, error) {
	if err := opt.readOnlyRefusal(assigned); err != nil {
		return nil, err
	}
	opt, seeds, err := opt.withSeeds(addrs)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Consumer{
		opt:      opt,
		ctx:      ctx,
		cancel:   cancel,
		cursors:  map[tp]*cursor{},
		sources:  map[uint16]*source{},
		metaWake: make(chan struct{}, 1),
	}
	c.cl = newCluster(&c.opt, seeds)
	c.lastRead = c.opt.now()
	return c, nil
}

// discardUnless closes and tears down a consumer whose Subscribe or Assign
// did not get to *ok = true, so a failed start leaves nothing running.
func (c *Consumer) discardUnless(ok *bool) {
	if !*ok {
		c.markClosed()
		c.teardown()
	}
}

func (c *Consumer) startLoops() {
	c.wg.Add(1)
	go c.metaLoop()
	c.wakeMeta()
}

// hostName is sent in JOIN.
var hostName = func() string {
	h, err := os.Hostname()
	if err != nil {
		return "unknown"
	}
	return h
}()

// ---- positions -------------------------------------------------------------

// startPositions returns where each partition starts: the group's commit
// when there is one (spec C-14), else the start mode (C-13). A failure to
// read the commits is returned as is (C-15: no fallback to the start mode).
func (c *Consumer) startPositions(ctx context.Context, tps []tp) (starts, commits map[tp]int64, err error) {
	out := make(map[tp]int64, len(tps))
	committed := map[tp]int64{}
	if c.co != nil && len(tps) > 0 {
		req := &wire.OffsetFetchRequest{Group: c.opt.Group, Topics: groupTPs(tps)}
		var rep wire.OffsetsReply
		if err := c.co.do(ctx, wire.CodeOffsetFetch, 0, req, &rep); err != nil {
			return nil, nil, err
		}
		for _, e := range rep.Offsets {
			if pe := partError(e.Err); pe != nil {
				return nil, nil, pe
			}
			if e.Offset >= 0 {
				committed[tp{e.Topic, e.Partition}] = e.Offset
			}
		}
	}
	lookup := map[tp]int64{}
	for _, t := range tps {
		if o, ok := committed[t]; ok {
			out[t] = o
			continue
		}
		switch c.opt.Start {
		case StartEarliest:
			lookup[t] = wire.ListEarliest
		case StartLatest:
			lookup[t] = wire.ListLatest
			if c.pattern != "" && !c.preexisting[t.topic] {
				lookup[t] = wire.ListEarliest // created after the subscribe
			}
		case StartTime:
			lookup[t] = c.opt.StartTime.UnixMilli()
		case StartOffset:
			out[t] = c.opt.StartOffset
		}
	}
	if len(lookup) > 0 {
		res, err := c.cl.listOffsets(ctx, lookup)
		if err != nil {
			return nil, nil, err
		}
		for t, o := range res {
			out[t] = o
		}
	}
	return out, committed, nil
}

// groupTPs groups partitions by topic, in order.
func groupTPs(tps []tp) []wire.TopicPartitions {
	var out []wire.TopicPartitions
	for _, t := range tps {
		i := slices.IndexFunc(out, func(x wire.TopicPartitions) bool { return x.Topic == t.topic })
		if i < 0 {
			out = append(out, wire.TopicPartitions{Topic: t.topic})
			i = len(out) - 1
		}
		out[i].Partitions = append(out[i].Partitions, t.partition)
	}
	for i := range out {
		slices.Sort(out[i].Partitions)
	}
	slices.SortFunc(out, func(a, b wire.TopicPartitions) int {
		switch {
		case a.Topic < b.Topic:
			return -1
		case a.Topic > b.Topic:
			return 1
		}
		return 0
	})
	return out
}

// addCursors creates cursors at the given start offsets and homes them;
// commits are the group's commits read with them.
func (c *Consumer) addCursors(starts, commits map[tp]int64) {
	c.mu.Lock()
	for t, o := range starts {
		if old := c.cursors[t]; old != nil {
			continue
		}
		cur := &cursor{tp: t, offset: o, pos: o, committed: -1}
		if v, ok := commits[t]; ok {
			cur.committed = v
		}
		c.cursors[t] = cur
		c.homeLocked(cur)
	}
	c.mu.Unlock()
	c.wakeMeta()
}

// removeCursorLocked revokes a cursor: its buffered records are dropped.
func (c *Consumer) removeCursorLocked(cur *cursor) {
	cur.removed = true
	cur.epoch++
	delete(c.cursors, cur.tp)
	if cur.src != nil {
		cur.src.drop(cur)
		cur.src = nil
	}
	c.dropChunksLocked(cur)
}

// dropChunksLocked removes the buffered records of cur.
func (c *Consumer) dropChunksLocked(cur *cursor) {
	c.buf.drop(cur)
	c.wakeSourcesLocked()
}

// homeLocked attaches cur to the fetch loop of its partition's leader,
// when known.
func (c *Consumer) homeLocked(cur *cursor) {
	id := c.cl.leaderOf(cur.tp)
	if id == 0 || cur.removed {
		return
	}
	c.sourceLocked(id).add(cur)
}

// unhomeLocked detaches cur from its source; the metadata loop finds the
// new leader (spec C-29).
func (c *Consumer) unhomeLocked(cur *cursor) {
	if cur.src != nil {
		cur.src.drop(cur)
		cur.src = nil
	}
}

// sourceLocked returns the fetch loop of node id, starting it if needed.
func (c *Consumer) sourceLocked(id uint16) *source {
	if s := c.sources[id]; s != nil {
		return s
	}
	s := newSource(c, id)
	c.sources[id] = s
	if c.state != stateClosed {
		c.wg.Add(1)
		go s.run()
	}
	return s
}

func (c *Consumer) wakeMeta() {
	select {
	case c.metaWake <- struct{}{}:
	default:
	}
}

// metaLoop finds leaders for cursors that have none: at start, after a
// connection to a leader died, after FOLLOWER_NODE without a hint, after
// an unknown-topic answer (spec C-29, C-49).
func (c *Consumer) metaLoop() {
	defer c.wg.Done()
	backoff := 100 * time.Millisecond
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-c.metaWake:
		}
		for {
			topics := c.unhomedTopics()
			if len(topics) == 0 {
				backoff = 100 * time.Millisecond
				break
			}
			if _, err := c.cl.metadata(c.ctx, topics); err != nil {
				if c.ctx.Err() != nil {
					return
				}
				c.opt.Logf("consumer: metadata: %v", err)
				c.health.failed(err, time.Now())
			} else {
				c.mu.Lock()
				for _, cur := range c.cursors {
					if cur.src == nil && !cur.inflight {
						c.homeLocked(cur)
					}
				}
				c.mu.Unlock()
			}
			if len(c.unhomedTopics()) == 0 {
				backoff = 100 * time.Millisecond
				break
			}
			if c.opt.sleep(c.ctx, backoff) != nil {
				return
			}
			backoff = min(2*backoff, time.Second)
		}
	}
}

func (c *Consumer) unhomedTopics() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, cur := range c.cursors {
		if cur.src == nil && !slices.Contains(out, cur.topic) {
			out = append(out, cur.topic)
		}
	}
	slices.Sort(out)
	return out
}

// resetOffset moves a cursor whose offset fell out of the log back into it
// according to the start mode (spec C-30): earliest → log start, latest →
// high watermark, offset / time → the nearest end of the log.
func (c *Consumer) resetOffset(off, logStart, hw int64) int64 {
	switch c.opt.Start {
	case StartEarliest:
		return logStart
	case StartLatest:
		return hw
	}
	if off < logStart {
		return logStart
	}
	return hw
}

// ---- reading ---------------------------------------------------------------

// Read returns the next record, waiting up to timeout (negative: until ctx
// ends; 0: no wait). With nothing to return it fails with the no-message
// error (ilink.IsNoMessage, spec C-50). A background failure the
// application must know of (the engine refusing a rejoin or the commits of
// a newly assigned partition) is returned once by the next read; an
// unreachable coordinator is not: it is retried while the partitions held
// are still read (spec C-49).
func (c *Consumer) Read(ctx context.Context, timeout time.Duration) (*Record, error) {
	c.readMu.Lock()
	defer c.readMu.Unlock()
	out, err := c.take(ctx, 1, timeout, c.one[:0], nil)
	if err != nil {
		return nil, err
	}
	r := out[0]
	c.one[0] = nil
	return r, nil
}

// ReadBatch returns at least one and at most max records (spec C-51),
// waiting up to timeout like Read. The slice is the caller's.
func (c *Consumer) ReadBatch(ctx context.Context, max int, timeout time.Duration) ([]*Record, error) {
	if max <= 0 {
		return nil, configError("ReadBatch: max %d must be positive", max)
	}
	c.readMu.Lock()
	defer c.readMu.Unlock()
	return c.take(ctx, max, timeout, nil, nil)
}

var errStopped = errors.New("consumer: listener stopped")

// take hands over up to max records. Called with readMu held. stop, when
// closed, makes it return errStopped before taking anything.
func (c *Consumer) take(ctx context.Context, max int, timeout time.Duration, dst []*Record, stop <-chan struct{}) ([]*Record, error) {
	var timer *time.Timer
	var timeC <-chan time.Time
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	c.mu.Lock()
	c.reading++
	defer func() {
		c.reading--
		c.reads++
		c.mu.Unlock()
	}()
	for {
		if stop != nil {
			select {
			case <-stop:
				return dst, errStopped
			default:
			}
		}
		if c.state == stateClosed {
			return dst, closedError()
		}
		if len(c.errs) > 0 {
			err := c.errs[0]
			c.errs = c.errs[1:]
			return dst, err
		}
		if c.state.outOfGroup() && c.g != nil {
			c.g.requestRejoin()
		}
		if c.state.handsOver() {
			if c.opt.Commit == CommitImmediate && c.co != nil {
				offs, chunks := c.uncommittedLocked(max)
				if len(offs) > 0 {
					c.mu.Unlock()
					err := c.commitOffsets(ctx, offs)
					c.mu.Lock()
					if err != nil {
						if ctx.Err() != nil {
							return dst, ctx.Err()
						}
						if (isRebalanceErr(err) || isGenerationErr(err)) && c.g != nil {
							// Hidden (spec C-32): the partition may have
							// moved; rejoin before handing anything over.
							c.setStateLocked(c.state.rebalanceStarted())
							c.g.requestRejoin()
							continue
						}
						return dst, err
					}
					c.buf.markCommitted(chunks)
					continue
				}
			}
			dst = c.takeLocked(max, dst)
			if len(dst) > 0 {
				return dst, nil
			}
		}
		if timeout == 0 {
			return dst, noMessageError(0)
		}
		if timeout > 0 && timer == nil {
			timer = time.NewTimer(timeout)
			timeC = timer.C
		}
		if c.notify == nil {
			c.notify = make(chan struct{})
		}
		ch := c.notify
		c.mu.Unlock()
		var err error
		select {
		case <-ch:
		case <-timeC:
			err = noMessageError(timeout)
		case <-ctx.Done():
			err = ctx.Err()
		case <-stop:
		}
		c.mu.Lock()
		if err != nil {
			// One last look: a record that arrived with the deadline wins.
			if c.state.handsOver() && c.opt.Commit != CommitImmediate {
				if dst = c.takeLocked(max, dst); len(dst) > 0 {
					return dst, nil
				}
			}
			return dst, err
		}
	}
}

// takeLocked moves up to max-len(dst) records from the buffer to dst and
// advances the positions of their partitions.
func (c *Consumer) takeLocked(max int, dst []*Record) []*Record {
	dst = c.buf.take(max, dst, c.opt.Commit == CommitImmediate && c.co != nil, c.tookLocked)
	if c.roomBlocked && c.buf.bytes() < c.opt.MaxBufferedBytes {
		c.wakeSourcesLocked()
	}
	return dst
}

// tookLocked moves cur past the records handed over; left are its
// records still buffered.
func (c *Consumer) tookLocked(cur *cursor, next int64, left int) {
	cur.pos = next
	if s := cur.src; s != nil && s.blocked && left < c.opt.Prefetch {
		s.blocked = false // wake only the fetch loop this partition waits in
		s.signal()
	}
}

// uncommittedLocked returns, for CommitImmediate, the next-offsets of the
// chunks that taking max records would touch and are not committed yet.
func (c *Consumer) uncommittedLocked(max int) (map[tp]int64, []*chunk) {
	chunks := c.buf.uncommitted(max)
	if len(chunks) == 0 {
		return nil, nil
	}
	offs := map[tp]int64{}
	for _, ch := range chunks {
		last := ch.recs[len(ch.recs)-1].Offset + 1
		if last > offs[ch.cur.tp] {
			offs[ch.cur.tp] = last
		}
	}
	return offs, chunks
}

// wakeSourcesLocked lets every blocked fetch loop look at the buffer
// again (room was freed, or a partition's records were dropped).
func (c *Consumer) wakeSourcesLocked() {
	c.roomBlocked = false
	for _, s := range c.sources {
		if s.blocked {
			s.blocked = false
			s.signal()
		}
	}
}

// notifyLocked wakes readers.
func (c *Consumer) notifyLocked() {
	if c.notify != nil {
		close(c.notify)
		c.notify = nil
	}
}

// fetchDoneLocked wakes whoever waits for in-flight fetches to return.
func (c *Consumer) fetchDoneLocked() {
	if c.fetchDone != nil {
		close(c.fetchDone)
		c.fetchDone = nil
	}
}

// pushErr queues a background error for the next read.
func (c *Consumer) pushErr(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.errs) < maxPendingErrors {
		c.errs = append(c.errs, err)
	}
	c.notifyLocked()
}

// ---- commits ---------------------------------------------------------------

// Commit stores r.Offset+1, the next offset to read, as the group's
// commit for r's partition (spec C-05). After the partition was
// reassigned (REPORT 4161) or the member's generation went stale (4178)
// it fails with MIMQE_TOPIC_REBALANCED (spec C-31).
func (c *Consumer) Commit(ctx context.Context, r *Record) error {
	if r == nil {
		return configError("Commit: nil record")
	}
	return c.CommitOffset(ctx, r.Topic, r.Partition, r.Offset)
}

// CommitOffset stores o+1 for (topic, p): committing offset 50 stores 51
// (spec C-04). Errors as for Commit.
func (c *Consumer) CommitOffset(ctx context.Context, topic string, p int32, o int64) error {
	if c.co == nil {
		return configError("CommitOffset: the consumer has no group (Options.Group)")
	}
	if o < -1 {
		return configError("CommitOffset: offset %d", o)
	}
	if c.isClosed() {
		return closedError()
	}
	t := tp{topic, p}
	member, _ := c.MemberID()
	err := c.commitOffsets(ctx, map[tp]int64{t: o + 1})
	if err != nil && c.g != nil && (isUnknownMember(err) || isGenerationErr(err)) {
		// The coordinator forgot the member (it moved, spec C-27) or the
		// generation moved on: rejoin, and commit again if the partition
		// is still ours.
		kind := needRejoin
		if isUnknownMember(err) {
			kind = needNewMember
		}
		if rerr := c.g.ask(ctx, kind, member); rerr == nil && c.owns(t) {
			err = c.commitOffsets(ctx, map[tp]int64{t: o + 1})
		} else if rerr == nil {
			err = &ilink.Error{Report: wire.ReportRebalanced, Name: wire.ErrRebalanceInProgress}
		}
	}
	if err == nil {
		return nil
	}
	switch {
	case isRebalanceErr(err):
		if c.g != nil {
			c.g.requestRejoin()
		}
		return rebalancedError(wire.ReportRebalanced, fmt.Sprintf("partition %d of %s is not owned by this member", p, topic))
	case isGenerationErr(err) || isUnknownMember(err):
		c.mu.Lock()
		gen := c.generation
		c.mu.Unlock()
		if c.g != nil {
			c.g.requestRejoin()
		}
		return rebalancedError(wire.ReportGenerationMismatch, fmt.Sprintf("generation %d of group %s is stale", gen, c.opt.Group))
	}
	return err
}

// owns reports whether t is assigned now.
func (c *Consumer) owns(t tp) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cursors[t] != nil
}

// commitOffsets stores next-offsets for the group as the current member
// (or outside membership for Assign) and records them on the cursors. It
// returns the first per-partition error.
func (c *Consumer) commitOffsets(ctx context.Context, offs map[tp]int64) error {
	if len(offs) == 0 {
		return nil
	}
	c.mu.Lock()
	member, gen := c.member, c.generation
	c.mu.Unlock()
	if c.manual {
		member, gen = "", -1
	}
	keys := make([]tp, 0, len(offs))
	for t := range offs {
		keys = append(keys, t)
	}
	slices.SortFunc(keys, func(a, b tp) int {
		if a.topic != b.topic {
			if a.topic < b.topic {
				return -1
			}
			return 1
		}
		return int(a.partition - b.partition)
	})
	req := &wire.OffsetCommitRequest{Group: c.opt.Group, MemberID: member, Generation: gen, Offsets: make([]wire.OffsetEntry, len(keys))}
	for i, t := range keys {
		req.Offsets[i] = wire.OffsetEntry{Topic: t.topic, Partition: t.partition, Offset: offs[t]}
	}
	var rep wire.OffsetsReply
	if err := c.co.do(ctx, wire.CodeOffsetCommit, 0, req, &rep); err != nil {
		return err
	}
	var first error
	failed := map[tp]bool{}
	for _, e := range rep.Offsets {
		if pe := partError(e.Err); pe != nil {
			failed[tp{e.Topic, e.Partition}] = true
			if first == nil {
				first = pe
			}
		}
	}
	c.mu.Lock()
	for _, t := range keys {
		if failed[t] {
			continue
		}
		if cur := c.cursors[t]; cur != nil {
			cur.committed = offs[t]
		}
	}
	c.mu.Unlock()
	return first
}

// positionsLocked returns the positions that differ from the last commit,
// for the partitions keep accepts (nil = all).
func (c *Consumer) positionsLocked(keep func(tp) bool) map[tp]int64 {
	var out map[tp]int64
	for t, cur := range c.cursors {
		if cur.pos < 0 || cur.pos == cur.committed || (keep != nil && !keep(t)) {
			continue
		}
		if out == nil {
			out = map[tp]int64{}
		}
		out[t] = cur.pos
	}
	return out
}

// commitPositions commits the positions of the records handed over
// (CommitAuto).
func (c *Consumer) commitPositions(ctx context.Context, keep func(tp) bool) error {
	if c.co == nil {
		return nil
	}
	c.mu.Lock()
	offs := c.positionsLocked(keep)
	c.mu.Unlock()
	return c.commitOffsets(ctx, offs)
}

// assignLoop commits periodically for an Assign consumer with a group.
func (c *Consumer) assignLoop() {
	defer c.wg.Done()
	t := time.NewTicker(c.opt.AutoCommitInterval)
	defer t.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-t.C:
			if err := c.commitPositions(c.ctx, nil); err != nil && c.ctx.Err() == nil {
				c.opt.Logf("consumer: auto commit: %v", err)
			}
		}
	}
}

// ---- seeking ---------------------------------------------------------------

// SeekToOffset moves the position of one assigned partition to o: the
// next record read from it has offset o (spec C-22). Nothing is sent to
// the engine (C-21); buffered records of the partition are dropped.
func (c *Consumer) SeekToOffset(topic string, p int32, o int64) error {
	if o < 0 {
		return configError("SeekToOffset: negative offset %d", o)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state == stateClosed {
		return closedError()
	}
	cur := c.cursors[tp{topic, p}]
	if cur == nil {
		return notAssignedError(topic, p)
	}
	c.seekLocked(cur, o)
	return nil
}

func (c *Consumer) seekLocked(cur *cursor, o int64) {
	c.dropChunksLocked(cur)
	cur.epoch++
	cur.offset = o
	cur.pos = o
	if cur.src != nil {
		cur.src.signal()
	}
}

// SeekToTime moves every assigned partition to the first record at or
// after t, resolved with LIST_OFFSETS at the partitions' leaders (spec
// C-23); a partition with no such record moves to its end.
func (c *Consumer) SeekToTime(ctx context.Context, t time.Time) error {
	c.mu.Lock()
	if c.state == stateClosed {
		c.mu.Unlock()
		return closedError()
	}
	want := make(map[tp]int64, len(c.cursors))
	for k := range c.cursors {
		want[k] = t.UnixMilli()
	}
	c.mu.Unlock()
	if len(want) == 0 {
		return nil
	}
	res, err := c.cl.listOffsets(ctx, want)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, o := range res {
		if cur := c.cursors[k]; cur != nil {
			c.seekLocked(cur, o)
		}
	}
	return nil
}

// ---- state -----------------------------------------------------------------

// Assignment returns the partitions the consumer reads now, sorted.
func (c *Consumer) Assignment() []wire.TopicPartitions {
	c.mu.Lock()
	tps := make([]tp, 0, len(c.cursors))
	for k := range c.cursors {
		tps = append(tps, k)
	}
	c.mu.Unlock()
	return groupTPs(tps)
}

// Position returns the next offset the application will get from a
// partition (-1 when it is not assigned).
func (c *Consumer) Position(topic string, p int32) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cur := c.cursors[tp{topic, p}]; cur != nil {
		return cur.pos
	}
	return -1
}

// PartitionOffset is one partition's offset.
type PartitionOffset struct {
	Topic     string
	Partition int32
	Offset    int64
}

// OffsetsAt asks the leaders, for every assigned partition, the offset
// LIST_OFFSETS gives for stamp: wire.ListEarliest (the log start),
// wire.ListLatest (the end: the next offset to be written) or a time in
// Unix ms (the first offset at or after it; the end when nothing is that
// recent). It moves nothing. Sorted by topic and partition.
func (c *Consumer) OffsetsAt(ctx context.Context, stamp int64) ([]PartitionOffset, error) {
	want := map[tp]int64{}
	for _, a := range c.Assignment() {
		for _, p := range a.Partitions {
			want[tp{a.Topic, p}] = stamp
		}
	}
	got, err := c.cl.listOffsets(ctx, want)
	if err != nil {
		return nil, err
	}
	out := make([]PartitionOffset, 0, len(got))
	for t, o := range got {
		out = append(out, PartitionOffset{t.topic, t.partition, o})
	}
	slices.SortFunc(out, func(a, b PartitionOffset) int {
		if a.Topic != b.Topic {
			return strings.Compare(a.Topic, b.Topic)
		}
		return int(a.Partition - b.Partition)
	})
	return out, nil
}

// Topics returns the topics subscribed now (a pattern's current matches).
func (c *Consumer) Topics() []string {
	if c.g != nil {
		return c.g.currentTopics()
	}
	a := c.Assignment()
	out := make([]string, 0, len(a))
	for _, t := range a {
		out = append(out, t.Topic)
	}
	return out
}

// MemberID returns the member id and generation of the last join ("" and
// -1 for Assign).
func (c *Consumer) MemberID() (string, int32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.member, c.generation
}

// RefreshNow re-evaluates a pattern subscription at once: topics that now
// match are added (spec T-17), topics that no longer match are left with
// MIMQ_TOPIC_LEAVE (T-19). It returns once the new topic set is in effect.
// It does nothing for a single-topic or Assign consumer.
func (c *Consumer) RefreshNow(ctx context.Context) error {
	if c.g == nil || c.pattern == "" {
		return nil
	}
	if c.isClosed() {
		return closedError()
	}
	return c.g.refreshNow(ctx)
}

func (c *Consumer) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state == stateClosed
}

// Unsubscribe deletes the group with its commits and closes the consumer
// (spec C-24). While other members are active the engine refuses with
// MIMQE_GROUP_NOT_EMPTY (N active members) and the consumer stays as it was
// (C-25).
func (c *Consumer) Unsubscribe(ctx context.Context) error {
	return c.unsubscribeFrom(ctx, Inside{})
}

// unsubscribeFrom is Unsubscribe called from self (a callback, or
// outside).
func (c *Consumer) unsubscribeFrom(ctx context.Context, self Inside) error {
	if c.co == nil {
		return configError("Unsubscribe: the consumer has no group (Options.Group)")
	}
	if c.isClosed() {
		return closedError()
	}
	if c.g != nil {
		c.g.stop(self) // no heartbeat may recreate the group behind the delete
	}
	c.mu.Lock()
	member := c.member
	c.mu.Unlock()
	err := c.co.do(ctx, wire.CodeDeleteGroup, 0, &wire.DeleteGroupRequest{Group: c.opt.Group, MemberID: member}, nil)
	if err != nil {
		if c.g != nil {
			c.g.start()
		}
		return err
	}
	c.stopListening(self)
	if c.markClosed() {
		c.teardownFrom(self)
	}
	return nil
}

// Close stops reading; with CommitAuto it commits the positions of the
// records handed over (spec C-09), then leaves the group (a temporary
// group is deleted by the engine with its last member, C-16). Close is
// idempotent.
func (c *Consumer) Close() error {
	return c.CloseContext(context.Background())
}

// CloseContext is Close with the final commit and the leave bounded by
// ctx as well (Close allows them the coordinator budget plus 5 s): a
// command that must stop promptly gives them a short deadline; when ctx
// ends first, the consumer closes anyway and a member that could not
// leave expires by its session timeout.
func (c *Consumer) CloseContext(ctx context.Context) error {
	return c.closeFrom(ctx, Inside{})
}

// closeFrom is CloseContext called from self (a callback, or outside): it
// does not wait for the goroutine self runs on.
func (c *Consumer) closeFrom(ctx context.Context, self Inside) error {
	c.stopListening(self)
	if !c.markClosed() {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, c.opt.coordBudget+5*time.Second)
	defer cancel()
	if c.g != nil {
		c.g.stopWithin(self, ctx) // a join in flight is answered first, so that its member can leave
	}
	if c.opt.Commit == CommitAuto {
		if err := c.commitPositions(ctx, nil); err != nil {
			c.opt.Logf("consumer: commit at close: %v", err)
		}
	}
	if c.g != nil {
		c.g.leave(ctx)
	}
	c.teardownFrom(self)
	return nil
}

// markClosed makes every read fail from now on; it reports whether the
// consumer was open.
func (c *Consumer) markClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state == stateClosed {
		return false
	}
	return c.setStateLocked(stateClosed)
}

// teardown ends every goroutine and connection.
func (c *Consumer) teardown() { c.teardownFrom(Inside{}) }

// teardownFrom is teardown from self, which it does not wait for.
func (c *Consumer) teardownFrom(self Inside) {
	c.cancel()
	if c.g != nil {
		c.g.stop(self)
	}
	c.wg.Wait()
	c.cl.close()
	c.mu.Lock()
	c.buf.clear()
	c.mu.Unlock()
}
