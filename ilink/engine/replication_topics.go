package engine

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Topic replication: followers pull. Every node runs one follower
// goroutine for the engine's life; while its node runs, it pulls every
// partition it replicates but does not lead from that partition's leader
// log, in-process. A leader that appends marks the partition for each
// follower (markSync: the follower's bit in partition.needSync, and the
// partition queued on the follower's dirty list when the bit was clear)
// and kicks its goroutine (a coalescing channel). So a follower long-polls
// all its leaders at once, wakes only when one of them has something for
// it, and visits only those partitions, however many topics exist.
//
// follower.mu guards the dirty list only; it is a leaf taken under
// partition.mu.
//
// Pulling copies log entries (the batch bytes are shared and immutable),
// rebuilds the follower's idempotence window from the batch headers, marks
// the follower caught up and, if it was out of the in-sync set, puts it
// back. The high watermark (smallest log end in the in-sync set) moves
// forward and wakes acks=all produces and long-poll fetches.
//
// A follower whose partition got a new leader (leader epoch changed) first
// reconciles: it keeps the longest prefix of its log whose batches are the
// very batches the new leader holds and drops the rest, like Kafka's
// leader-epoch truncation.

// follower is one node's replication goroutine.
type follower struct {
	ts    *topicStore
	node  int
	kick  chan struct{}
	delay atomic.Int64 // SetReplicaDelay, nanoseconds

	mu    sync.Mutex
	dirty []*partition // partitions marked for this node since the last round
}

// markSync asks node's follower to pull p.
func (ts *topicStore) markSync(p *partition, node int) {
	f := ts.follower(node)
	if f == nil {
		return
	}
	if p.needSync.Or(bit(node))&bit(node) == 0 {
		f.mu.Lock()
		f.dirty = append(f.dirty, p)
		f.mu.Unlock()
	}
	f.wake()
}

func (ts *topicStore) follower(node int) *follower {
	if node < 1 || node > len(ts.followers) {
		return nil
	}
	return ts.followers[node-1]
}

func (f *follower) wake() {
	select {
	case f.kick <- struct{}{}:
	default:
	}
}

func (f *follower) run() {
	defer f.ts.wg.Done()
	b := bit(f.node)
	var tick *time.Timer // only while a delay is set
	defer func() {
		if tick != nil {
			tick.Stop()
		}
	}()
	for {
		d := time.Duration(f.delay.Load())
		var tickC <-chan time.Time
		if d > 0 {
			// A delayed follower polls: what it may take depends on time.
			if tick == nil {
				tick = time.NewTimer(0)
			}
			tick.Reset(min(max(d/4, minHousekeepingTick), 100*time.Millisecond))
			tickC = tick.C
		}
		select {
		case <-f.kick:
		case <-tickC:
		case <-f.ts.done:
			return
		}
		if !f.ts.isRunning(f.node) {
			continue
		}
		f.mu.Lock()
		dirty := f.dirty
		f.dirty = nil
		f.mu.Unlock()
		// Clear each bit before pulling: a mark that lands after the
		// clear queues the partition again, so nothing is missed.
		for _, p := range dirty {
			p.needSync.And(^b)
		}
		if d = time.Duration(f.delay.Load()); d > 0 {
			// A delayed follower visits every partition it replicates and
			// takes only what is old enough.
			cutoffMs := time.Now().Add(-d).UnixMilli()
			for _, t := range f.ts.snap.Load().list {
				for _, p := range t.partitions() {
					if p.mask&b != 0 {
						f.pull(p, cutoffMs)
					}
				}
			}
			continue
		}
		for _, p := range dirty {
			f.pull(p, 0)
		}
	}
}

func (f *follower) pull(p *partition, cutoffMs int64) {
	p.mu.Lock()
	f.ts.pullLocked(p, f.node, cutoffMs)
	p.mu.Unlock()
}

// kickFollowersLocked asks every follower of p to pull.
func (ts *topicStore) kickFollowersLocked(p *partition) {
	for _, r := range p.reps {
		if r.node != p.leader {
			ts.markSync(p, r.node)
		}
	}
}

// pullLocked brings node's replica of p up to the leader's log end, or
// only up to the batches appended before cutoffMs when that is not 0
// (SetReplicaDelay).
func (ts *topicStore) pullLocked(p *partition, node int, cutoffMs int64) {
	if p.deleted || p.leader == 0 || p.leader == node || !ts.isRunning(node) {
		return
	}
	r := p.rep(node)
	if r == nil {
		return
	}
	L, F := p.rep(p.leader).log, r.log
	if F.syncedEpoch != p.leaderEpoch {
		reconcile(F, L)
		F.syncedEpoch = p.leaderEpoch
	}
	if F.end < L.start || F.end > L.end {
		F.reset(L.start)
		F.syncedEpoch = p.leaderEpoch
	}
	i := L.boundary(F.end)
	if i < 0 { // cannot happen after reconcile; be safe
		F.reset(L.start)
		F.syncedEpoch = p.leaderEpoch
		i = L.boundary(F.end)
	}
	for _, e := range L.live()[i:] {
		if cutoffMs != 0 && e.appendMs > cutoffMs {
			break
		}
		h, err := parseStored(e.b)
		if err != nil {
			ts.e.logf("engine: BUG: %s/%d: stored batch at %d: %v", p.t.name, p.id, e.base, err)
			break
		}
		F.add(e, &h)
	}
	if F.end == L.end {
		r.caughtUp = ts.mono()
		if p.isr&bit(node) == 0 {
			p.isr |= bit(node)
			ts.e.logf("engine: %s/%d: node %d in sync at offset %d", p.t.name, p.id, node, F.end)
			p.notifyLocked() // acks=all may be waiting for minSync
		}
	}
	ts.advanceHWLocked(p)
	if rb := p.t.config().retentionBytes; rb > 0 {
		trimBytes(F, p.hw, rb)
	}
}

// reconcile truncates F to the longest prefix shared with L.
func reconcile(F, L *partLog) {
	fe := F.live()
	if len(fe) == 0 {
		if F.end >= L.start && L.boundary(F.end) < 0 {
			F.reset(L.start)
		}
		return
	}
	// Shared entries form a prefix of F (entries below L's start count as
	// shared: L dropped them by retention and F will restart anyway if it
	// ends there).
	shared := func(i int) bool {
		e := &fe[i]
		if e.next <= L.start {
			return true
		}
		j := L.find(e.base)
		return j >= 0 && sameBatch(&L.live()[j], e)
	}
	lo, hi := 0, len(fe) // first index that is not shared
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if shared(m) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 && !shared(0) {
		F.reset(L.start)
		return
	}
	F.truncate(lo)
}

// advanceHWLocked moves the high watermark to the smallest log end in the
// in-sync set, never backwards, and wakes waiters when it moved.
func (ts *topicStore) advanceHWLocked(p *partition) {
	if p.leader == 0 {
		return
	}
	hw := int64(-1)
	for _, r := range p.reps {
		if p.isr&bit(r.node) != 0 && (hw < 0 || r.log.end < hw) {
			hw = r.log.end
		}
	}
	if hw > p.hw {
		p.hw = hw
		p.notifyLocked()
	}
}

// housekeeping runs the in-sync check and the retention sweep.
func (ts *topicStore) housekeeping() {
	defer ts.wg.Done()
	lagTick := min(max(ts.e.cfg.ReplicaLagMax/4, minHousekeepingTick), time.Second)
	isrT := time.NewTicker(lagTick)
	defer isrT.Stop()
	retT := time.NewTicker(max(ts.e.cfg.RetentionInterval, minHousekeepingTick))
	defer retT.Stop()
	for {
		select {
		case <-ts.done:
			return
		case <-isrT.C:
			ts.checkInSync()
		case <-retT.C:
			ts.sweepRetention(time.Now().UnixMilli())
		}
	}
}

// checkInSync removes from the in-sync sets the followers that have been
// behind their leader's end for longer than ReplicaLagMax.
func (ts *topicStore) checkInSync() {
	now := ts.mono()
	lagMax := ts.e.cfg.ReplicaLagMax
	for _, t := range ts.snap.Load().list {
		for _, p := range t.partitions() {
			p.mu.Lock()
			if l := p.leaderLogLocked(); l != nil {
				for _, r := range p.reps {
					if r.node == p.leader || p.isr&bit(r.node) == 0 {
						continue
					}
					if r.log.end < l.end && now-r.caughtUp > lagMax {
						p.isr &^= bit(r.node)
						ts.e.logf("engine: %s/%d: node %d left the in-sync set (%d behind for %v)", t.name, p.id, r.node, l.end-r.log.end, (now - r.caughtUp).Round(time.Millisecond))
						ts.advanceHWLocked(p)
						p.notifyLocked()
					}
				}
			}
			p.mu.Unlock()
		}
	}
}

// SetReplicaDelay makes node's follower goroutine take only batches its
// leaders appended at least d ago, so its replicas trail by about d (0 = no
// delay, the default). With d above ReplicaLagMax the node leaves the
// in-sync set of every partition that keeps receiving records, and rejoins
// once it has caught up (when traffic pauses for d or the delay is lifted).
func (e *Engine) SetReplicaDelay(node int, d time.Duration) error {
	f := e.topics.follower(node)
	if f == nil {
		return fmt.Errorf("engine: no node %d (cluster has %d)", node, len(e.nodes))
	}
	f.delay.Store(int64(max(d, 0)))
	// Delayed rounds consume the marks; whatever the new delay, every
	// partition the node replicates is looked at again.
	for _, t := range e.topics.snap.Load().list {
		for _, p := range t.partitions() {
			if p.mask&bit(node) != 0 {
				e.topics.markSync(p, node)
			}
		}
	}
	f.wake()
	return nil
}
