package consumer

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/wire"
)

// need is what the group loop must do next.
type need int

const (
	needNone         need = iota // steady: heartbeat, auto-commit, refresh
	needRejoin                   // rejoin without committing (4178, a reader's request)
	needRejoinCommit             // commit (CommitAuto) then rejoin: 4161, topic set changed (spec C-08)
	needNewMember                // the coordinator forgot the member: join afresh
	needExpire                   // Expiry passed between reads: leave (spec C-18)
	needStop
)

// groupMgr is the manage loop of a group member (franz-go's "manage"):
// join → heartbeat every HeartbeatIntervalMs of the join reply → on 4161
// commit (CommitAuto) and rejoin → revoke and assign cursors. The engine
// hands a partition to a new owner only after its holder rejoined, so the
// holder commits before rejoining and nothing is lost (spec C-08, C-26).
type groupMgr struct {
	c    *Consumer
	co   *coordinator
	wake chan struct{} // a rejoin was requested (expired read, 4161 on a commit)
	reqs chan *loopReq // RefreshNow, synchronous rejoins

	tmu    sync.Mutex
	topics []string // subscribed topics, sorted (a pattern's current matches)

	hb      time.Duration // heartbeat interval from the last join
	pending []*loopReq    // answered after the next rejoin (loop-owned)

	runMu  sync.Mutex
	cancel context.CancelFunc
	done   chan struct{} // of the current run; its ctx carries it (groupMgr.inside)

	// grace bounds the wait for a join's reply once its ctx has ended
	// (stopWithin: a close's deadline; Subscribe: its abort budget; nil:
	// abortLeaveTimeout). See joinWait.
	grace atomic.Pointer[context.Context]
}

// loopReq is a request to the loop, answered with its outcome.
type loopReq struct {
	kind   need   // needRejoinCommit = re-resolve the pattern; needRejoin / needNewMember = rejoin
	member string // needNewMember: the member id the coordinator forgot
	done   chan error
}

func newGroupMgr(c *Consumer, topics []string) *groupMgr {
	return &groupMgr{
		c:      c,
		co:     c.co,
		wake:   make(chan struct{}, 1),
		reqs:   make(chan *loopReq),
		topics: topics,
		hb:     time.Second,
	}
}

func (g *groupMgr) currentTopics() []string {
	g.tmu.Lock()
	defer g.tmu.Unlock()
	return slices.Clone(g.topics)
}

func (g *groupMgr) setTopics(ts []string) {
	g.tmu.Lock()
	g.topics = ts
	g.tmu.Unlock()
}

// requestRejoin asks the loop to rejoin (non-blocking).
func (g *groupMgr) requestRejoin() {
	select {
	case g.wake <- struct{}{}:
	default:
	}
}

// start runs the loop (again).
func (g *groupMgr) start() {
	g.runMu.Lock()
	defer g.runMu.Unlock()
	if g.cancel != nil || g.c.ctx.Err() != nil {
		return
	}
	ctx, cancel := context.WithCancel(g.c.ctx)
	g.cancel = cancel
	g.grace.Store(nil)
	g.done = make(chan struct{})
	go g.run(context.WithValue(ctx, runKey{}, g.done), g.done)
}

// runKey marks the ctx of a run of the loop with the run's done channel,
// so the callbacks it calls get an Inside that does not wait for it.
type runKey struct{}

// inside returns the Inside for a callback called with ctx: of the run of
// the loop ctx belongs to, or outside every callback (Subscribe's first
// assignment).
func (g *groupMgr) inside(ctx context.Context) Inside {
	done, _ := ctx.Value(runKey{}).(chan struct{})
	return Inside{c: g.c, loop: done}
}

// stop ends the loop and waits for it, unless self is a callback of this
// run, which then ends when the callback returns.
func (g *groupMgr) stop(self Inside) { g.stopWithin(self, nil) }

// stopWithin is stop letting a join whose request is out wait for its
// reply while grace lasts (joinWait): a close leaves then.
func (g *groupMgr) stopWithin(self Inside, grace context.Context) {
	g.runMu.Lock()
	defer g.runMu.Unlock()
	if g.cancel == nil {
		return
	}
	if grace != nil {
		g.grace.Store(&grace)
	}
	g.cancel()
	g.cancel = nil
	if self.loop != g.done {
		<-g.done
	}
}

func (g *groupMgr) run(ctx context.Context, done chan struct{}) {
	defer close(done)
	c := g.c
	n := needNone
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		switch n {
		case needNone:
			n = g.steady(ctx)
		case needStop:
			return
		case needExpire:
			g.expire(ctx)
			n = g.waitExpired(ctx)
		default:
			err := g.rejoin(ctx, n)
			g.answerRefresh(err)
			if err == nil {
				backoff = 100 * time.Millisecond
				n = needNone
				continue
			}
			if ctx.Err() != nil {
				return
			}
			c.opt.Logf("consumer: group %s: rejoin: %v", c.opt.Group, err)
			switch {
			case isUnknownMember(err):
				n = needNewMember
			case isRebalanceErr(err) || isGenerationErr(err):
				// hidden (spec C-32)
			case isCoordinatorRetry(err):
				// The coordinator is unreachable (a failover): keep
				// trying; reads of the partitions held go on (spec C-49).
			default:
				c.pushErr(err) // e.g. the engine refused the group
			}
			if c.opt.sleep(ctx, backoff) != nil {
				return
			}
			backoff = min(2*backoff, 5*time.Second)
		}
	}
}

// steady heartbeats, auto-commits, refreshes the pattern and watches the
// read expiry until something calls for a rejoin.
func (g *groupMgr) steady(ctx context.Context) need {
	c := g.c
	hb := time.NewTimer(g.hb)
	defer hb.Stop()
	var autoC, patC <-chan time.Time
	if c.opt.Commit == CommitAuto {
		t := time.NewTicker(c.opt.AutoCommitInterval)
		defer t.Stop()
		autoC = t.C
	}
	if c.pattern != "" {
		t := time.NewTicker(c.opt.PatternRefresh)
		defer t.Stop()
		patC = t.C
	}
	ex := time.NewTicker(min(max(c.opt.Expiry/4, 10*time.Millisecond), time.Second))
	defer ex.Stop()
	for {
		select {
		case <-ctx.Done():
			return needStop
		case <-g.wake:
			return needRejoin
		case r := <-g.reqs:
			if r.kind == needNewMember {
				c.mu.Lock()
				current := c.member
				c.mu.Unlock()
				if current != r.member {
					r.done <- nil // already joined afresh
					continue
				}
			}
			if r.kind != needRejoinCommit {
				g.pending = append(g.pending, r)
				return r.kind
			}
			changed, err := g.refreshTopics(ctx)
			if err != nil || !changed {
				r.done <- err
				continue
			}
			g.pending = append(g.pending, r)
			return needRejoinCommit
		case <-patC:
			changed, err := g.refreshTopics(ctx)
			if err != nil {
				c.opt.Logf("consumer: pattern %s: %v", c.pattern, err)
			}
			if changed {
				return needRejoinCommit
			}
		case <-autoC:
			if err := c.commitPositions(ctx, nil); err != nil {
				switch {
				case ctx.Err() != nil:
					return needStop
				case isRebalanceErr(err), isGenerationErr(err):
					return needRejoin // hidden (spec C-32)
				case isUnknownMember(err):
					return needNewMember
				default:
					c.opt.Logf("consumer: group %s: auto commit: %v", c.opt.Group, err)
				}
			}
		case <-ex.C:
			if c.expiredNow() {
				return needExpire
			}
		case <-hb.C:
			err := g.heartbeat(ctx)
			switch {
			case err == nil:
				hb.Reset(g.hb)
			case ctx.Err() != nil:
				return needStop
			case isRebalanceErr(err):
				return needRejoinCommit
			case isGenerationErr(err):
				return needRejoin
			case isUnknownMember(err):
				return needNewMember
			case ilink.HasName(err, wire.ErrNotAvailable):
				// No coordinator within the budget: find it again and
				// rejoin; the partitions held are still read (spec C-49).
				c.opt.Logf("consumer: group %s: heartbeat: %v", c.opt.Group, err)
				return needRejoin
			default:
				c.opt.Logf("consumer: group %s: heartbeat: %v", c.opt.Group, err)
				hb.Reset(g.hb)
			}
		}
	}
}

func (g *groupMgr) answerRefresh(err error) {
	for _, r := range g.pending {
		r.done <- err
	}
	g.pending = nil
}

func (g *groupMgr) heartbeat(ctx context.Context) error {
	c := g.c
	c.mu.Lock()
	req := &wire.MemberRequest{Group: c.opt.Group, MemberID: c.member, Generation: c.generation}
	c.mu.Unlock()
	return g.co.do(ctx, wire.CodeHeartbeat, 0, req, nil)
}

// join joins (or rejoins with the member id) and records the member id and
// generation. It returns the assignment.
func (g *groupMgr) join(ctx context.Context) ([]wire.TopicPartitions, error) {
	c := g.c
	for attempt := 0; ; attempt++ {
		c.mu.Lock()
		member := c.member
		c.mu.Unlock()
		req := &wire.JoinGroupRequest{
			Group:      c.opt.Group,
			MemberID:   member,
			ClientName: c.opt.ClientName,
			Host:       hostName,
			Topics:     g.currentTopics(),
			Durable:    c.opt.Durable,
		}
		var rep wire.JoinGroupReply
		err := g.co.doWait(ctx, wire.CodeJoinGroup, 0, req, &rep, g.joinWait)
		if err != nil {
			if member != "" && attempt == 0 && (isUnknownMember(err) || isGenerationErr(err)) {
				c.mu.Lock()
				c.member = ""
				c.mu.Unlock()
				continue
			}
			return nil, err
		}
		c.mu.Lock()
		c.member, c.generation = rep.MemberID, rep.Generation
		c.setStateLocked(c.state.joined())
		c.mu.Unlock()
		if ctx.Err() != nil {
			return nil, ctx.Err() // stopped while the reply came (joinWait): named for the leave, nothing applied
		}
		g.hb = time.Second
		if rep.HeartbeatIntervalMs > 0 {
			g.hb = time.Duration(rep.HeartbeatIntervalMs) * time.Millisecond
		}
		c.opt.Logf("consumer: group %s: member %s generation %d assigned %v", c.opt.Group, rep.MemberID, rep.Generation, rep.Assignment)
		return rep.Assignment, nil
	}
}

// joinWait waits for the reply to a JoinGroup that was sent. When ctx
// ends meanwhile, it goes on waiting within a close's grace, else for
// abortLeaveTimeout: the engine has made the member and only the reply
// names it, so that the close (or the failed Subscribe) can leave.
// Unnamed, the member would stay until its session timed out, and a
// temporary group with it.
func (g *groupMgr) joinWait(call *ilink.Call, ctx context.Context) error {
	select {
	case <-call.Done():
		return call.Err()
	case <-ctx.Done():
	}
	if grace := g.grace.Load(); grace != nil {
		return call.Wait(*grace)
	}
	wctx, cancel := afterEnd(ctx, abortLeaveTimeout)
	defer cancel()
	return call.Wait(wctx)
}

// rejoin commits first when asked (CommitAuto, spec C-08), rejoins and
// applies the new assignment. Nothing is handed over between the commit
// and the revocation.
func (g *groupMgr) rejoin(ctx context.Context, n need) error {
	c := g.c
	c.setState(consumerState.rebalanceStarted)
	defer c.setState(consumerState.rebalanceOver)
	if n == needRejoinCommit && c.opt.Commit == CommitAuto {
		if err := c.commitPositions(ctx, nil); err != nil {
			c.opt.Logf("consumer: group %s: commit before rejoin: %v", c.opt.Group, err)
		}
	}
	if n == needNewMember {
		c.mu.Lock()
		c.member = ""
		c.mu.Unlock()
	}
	assignment, err := g.join(ctx)
	if err != nil {
		return err
	}
	if err := g.apply(ctx, assignment); err != nil {
		return err
	}
	if c.opt.Commit == CommitAuto {
		// Positions of partitions kept across a rejoin that could not be
		// committed before it (a new member, a stale generation).
		if err := c.commitPositions(ctx, nil); err != nil {
			c.opt.Logf("consumer: group %s: commit after rejoin: %v", c.opt.Group, err)
		}
	}
	return nil
}

// apply revokes the partitions not in assignment, lets readers go on, then
// starts the new partitions at their commits or start positions.
func (g *groupMgr) apply(ctx context.Context, assignment []wire.TopicPartitions) error {
	c := g.c
	want := map[tp]bool{}
	for _, t := range assignment {
		for _, p := range t.Partitions {
			want[tp{t.Topic, p}] = true
		}
	}
	var revoked, added []tp
	c.mu.Lock()
	for t, cur := range c.cursors {
		if !want[t] {
			revoked = append(revoked, t)
			c.removeCursorLocked(cur)
		}
	}
	for t := range want {
		if c.cursors[t] == nil {
			added = append(added, t)
		}
	}
	c.setStateLocked(c.state.rebalanceOver()) // readers go on with what is kept
	c.notifyLocked()
	c.mu.Unlock()
	var err error
	if len(added) > 0 {
		var starts, commits map[tp]int64
		starts, commits, err = c.startPositions(ctx, added)
		if err == nil {
			c.addCursors(starts, commits)
		} else {
			added = nil
		}
	}
	if cb := c.opt.OnRebalance; cb != nil && (len(added) > 0 || len(revoked) > 0) {
		cb(g.inside(ctx), groupTPs(added), groupTPs(revoked))
	}
	return err
}

// leave sends LEAVE GROUP for the current member, best-effort.
func (g *groupMgr) leave(ctx context.Context) {
	c := g.c
	c.mu.Lock()
	req := &wire.MemberRequest{Group: c.opt.Group, MemberID: c.member, Generation: c.generation}
	c.mu.Unlock()
	if req.MemberID == "" {
		return
	}
	if err := g.co.do(ctx, wire.CodeLeaveGroup, 0, req, nil); err != nil {
		c.opt.Logf("consumer: group %s: leave: %v", c.opt.Group, err)
	}
}

// expire leaves the group after Expiry passed between reads (spec C-18):
// commit (CommitAuto), revoke every partition, LEAVE.
func (g *groupMgr) expire(ctx context.Context) {
	c := g.c
	c.opt.Logf("consumer: group %s: no read for %v: leaving the group", c.opt.Group, c.opt.Expiry)
	if c.opt.Commit == CommitAuto {
		if err := c.commitPositions(ctx, nil); err != nil {
			c.opt.Logf("consumer: group %s: commit before expiry leave: %v", c.opt.Group, err)
		}
	}
	// Revoke, then leave: once the engine no longer counts the member, the
	// consumer holds nothing either (Assignment is empty).
	c.mu.Lock()
	var revoked []tp
	for t, cur := range c.cursors {
		revoked = append(revoked, t)
		c.removeCursorLocked(cur)
	}
	c.setStateLocked(c.state.expired())
	c.mu.Unlock()
	if cb := c.opt.OnRebalance; cb != nil && len(revoked) > 0 {
		cb(g.inside(ctx), nil, groupTPs(revoked))
	}
	g.leave(ctx)
	c.mu.Lock()
	c.member = ""
	c.mu.Unlock()
}

// waitExpired waits, out of the group, for a read (spec C-19).
func (g *groupMgr) waitExpired(ctx context.Context) need {
	for {
		select {
		case <-ctx.Done():
			return needStop
		case <-g.wake:
			return needNewMember
		case r := <-g.reqs:
			if r.kind != needRejoinCommit {
				g.pending = append(g.pending, r)
				return needNewMember
			}
			_, err := g.refreshTopics(ctx)
			r.done <- err
		}
	}
}

// expiredNow reports whether Expiry passed since the last read, with no
// read in progress. It is called every Expiry/4 (at most 1 s), so reads
// need not read the clock: a change of the read count since the last call
// counts as a read now.
func (c *Consumer) expiredNow() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.opt.now()
	if c.reading > 0 || c.reads != c.seenReads {
		c.seenReads = c.reads
		c.lastRead = now
		return false
	}
	return c.state.mayExpire() && now.Sub(c.lastRead) > c.opt.Expiry
}

// setState moves the consumer to the state event gives from the current
// one.
func (c *Consumer) setState(event func(consumerState) consumerState) {
	c.mu.Lock()
	c.setStateLocked(event(c.state))
	c.mu.Unlock()
}

// refreshNow asks the loop to re-resolve the pattern and waits for the
// outcome.
func (g *groupMgr) refreshNow(ctx context.Context) error {
	return g.ask(ctx, needRejoinCommit, "")
}

// ask sends a request to the loop and waits for its outcome.
func (g *groupMgr) ask(ctx context.Context, kind need, member string) error {
	r := &loopReq{kind: kind, member: member, done: make(chan error, 1)}
	select {
	case g.reqs <- r:
	case <-ctx.Done():
		return ctx.Err()
	case <-g.c.ctx.Done():
		return closedError()
	}
	select {
	case err := <-r.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// refreshTopics re-resolves the pattern (spec T-17, T-18). Topics that no
// longer match are left first (T-19..T-21). It reports whether the topic
// set changed; the caller then rejoins with the new set.
func (g *groupMgr) refreshTopics(ctx context.Context) (bool, error) {
	c := g.c
	md, err := c.cl.metadata(ctx, nil)
	if err != nil {
		return false, err
	}
	matched := matchTopics(c.pattern, topicNames(md))
	old := g.currentTopics()
	if slices.Equal(old, matched) {
		return false, nil
	}
	var removed []string
	for _, t := range old {
		if !slices.Contains(matched, t) {
			removed = append(removed, t)
		}
	}
	if len(removed) > 0 {
		g.leaveTopics(ctx, removed)
	}
	g.setTopics(matched)
	c.opt.Logf("consumer: pattern %s: topics %v (were %v)", c.pattern, matched, old)
	return true, nil
}

// leaveTopics drops topics from the subscription: their positions are
// committed (CommitAuto), their cursors revoked, and MIMQ_TOPIC_LEAVE
// (3401) is sent for each once no fetch covering it is in flight (spec
// T-21). The LEAVE is best-effort: failures are logged, never returned
// (T-20).
func (g *groupMgr) leaveTopics(ctx context.Context, removed []string) {
	c := g.c
	if c.opt.Commit == CommitAuto {
		keep := func(t tp) bool { return slices.Contains(removed, t.topic) }
		if err := c.commitPositions(ctx, keep); err != nil {
			c.opt.Logf("consumer: group %s: commit before topic leave: %v", c.opt.Group, err)
		}
	}
	c.mu.Lock()
	var revoked []tp
	var busy []*cursor
	for t, cur := range c.cursors {
		if !slices.Contains(removed, t.topic) {
			continue
		}
		revoked = append(revoked, t)
		if cur.inflight {
			busy = append(busy, cur)
		}
		c.removeCursorLocked(cur)
	}
	deadline := time.NewTimer(4*c.opt.fetchMaxWait + 2*time.Second)
	for slices.ContainsFunc(busy, func(cur *cursor) bool { return cur.inflight }) {
		if c.fetchDone == nil {
			c.fetchDone = make(chan struct{})
		}
		ch := c.fetchDone
		c.mu.Unlock()
		timedOut := false
		select {
		case <-ch:
		case <-ctx.Done():
			timedOut = true
		case <-deadline.C:
			timedOut = true
		}
		c.mu.Lock()
		if timedOut {
			break
		}
	}
	deadline.Stop()
	member := c.member
	c.mu.Unlock()
	for _, topic := range removed {
		req := &wire.TopicLeaveRequest{Group: c.opt.Group, MemberID: member, Topic: topic}
		err := g.co.do(ctx, wire.CodeTopicLeave, 0, req, nil)
		if ilink.HasName(err, wire.ErrReadInProgress) {
			if c.opt.sleep(ctx, 50*time.Millisecond) == nil {
				err = g.co.do(ctx, wire.CodeTopicLeave, 0, req, nil)
			}
		}
		if err != nil {
			c.opt.Logf("consumer: group %s: leave topic %s: %v (ignored)", c.opt.Group, topic, err)
		}
	}
	if cb := c.opt.OnRebalance; cb != nil && len(revoked) > 0 {
		cb(g.inside(ctx), nil, groupTPs(revoked))
	}
}
