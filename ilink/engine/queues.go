package engine

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"ilinkdash/ilink/wire"
)

// queueStore owns every node's queue replica, every queue session's
// transaction and every waiting GET, under one mutex (see the package doc
// for why one lock). Nothing in here blocks or does I/O while holding it: a
// GET that must wait registers a waiter and returns; the waiting happens in
// the connection's async goroutine.
//
// Model:
//   - a replica is one node's copy of the queues. Only the leader's replica
//     carries transactional state (locks, waiters); followers hold the
//     committed state only, applied from commitOps (replication.go);
//   - a message gets its sequence number when its put is committed, so a
//     queue is always ordered by seq and committed puts append at the tail;
//   - an uncommitted get locks the message in place (lockedBy), so a
//     rollback returns it at its original position by clearing the lock;
//   - a txn is one queue session's state on the leader replica it was
//     opened on. If that replica dies or stops leading, the txn's requests
//     fail; the connection is being closed anyway.
type queueStore struct {
	mu   sync.Mutex
	reps map[int]*replica // node id → replica; absent while the node is killed
}

type replica struct {
	node    int
	online  bool   // queue manager running: receives replication
	current bool   // holds every committed change (the leader always does)
	leading bool   // the cluster leader's replica: the only one serving sessions
	dead    bool   // killed: state discarded; txns bound to it fail
	lsn     uint64 // committed changes applied (replication sequence)
	nextSeq uint64 // next message sequence number
	queues  map[string]*queue
}

type queue struct {
	name    string
	cfg     QueueConfig
	msgs    []*message // committed messages ordered by seq; locked ones stay in place
	waiters []*waiter  // FIFO of waiting GETs (leader only)
	puts    uint64     // leader: puts committed, gets taken (admin rates, admin_queues.go)
	gets    uint64
}

type message struct {
	seq       uint64
	id        []byte // as given by the client (spec S-14)
	payload   []byte // immutable once stored: replies and replicas share it
	putTimeMs int64
	headers   []wire.RecordHeader // the PUT's, immutable once stored like the payload
	// redeliveries counts the returns to the queue (rollback or lost
	// session); the GET reply's redelivered flag is redeliveries > 0.
	redeliveries int
	dead         *deadLetter // set when the engine moved it to a dead-letter queue
	lockedBy     *txn        // leader only: an uncommitted get holds it
}

// txn is a queue session's state on the leader.
type txn struct {
	rep     *replica
	mode    wire.SessionMode
	session uint64
	puts    []pendingPut // transacted: puts awaiting COMMIT
	gets    []lockRef    // transacted: messages this session locked
	waiters map[*waiter]struct{}
	ended   bool
}

type pendingPut struct {
	q *queue
	m *message
}

type lockRef struct {
	q *queue
	m *message
}

// waiter is a GET waiting for a message. It is satisfied (got set, ready
// closed) under the store lock by whoever makes a matching message visible,
// or cancelled under the same lock by the waiting goroutine; whichever comes
// first wins, so a message is never both handed over and lost.
type waiter struct {
	t     *txn
	q     *queue
	match []byte
	got   *delivery
	ready chan struct{}
}

// delivery is a snapshot of a delivered message for the reply.
type delivery struct {
	id          []byte
	payload     []byte
	putTimeMs   int64
	redelivered bool
}

func (m *message) delivery() *delivery {
	return &delivery{id: m.id, payload: m.payload, putTimeMs: m.putTimeMs, redelivered: m.redeliveries > 0}
}

func (d *delivery) reply() *wire.GetReply {
	return &wire.GetReply{MsgID: d.id, Payload: d.payload, PutTimeMs: d.putTimeMs, Redelivered: d.redelivered}
}

func newQueueStore() *queueStore { return &queueStore{reps: map[int]*replica{}} }

// ---- membership hooks, called by cluster under cluster.mu ----

// addReplica gives a (re)started node an empty, out-of-date replica.
func (s *queueStore) addReplica(id int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reps[id] = &replica{node: id, online: true, queues: map[string]*queue{}}
}

// dropReplica discards a killed node's state.
func (s *queueStore) dropReplica(id int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.reps[id]; r != nil {
		r.dead, r.leading, r.online, r.current = true, false, false, false
		delete(s.reps, id)
	}
}

// suspendReplica keeps a stopped node's data but stops replicating to it.
func (s *queueStore) suspendReplica(id int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.reps[id]; r != nil {
		r.leading, r.online, r.current = false, false, false
	}
}

// resumeReplica brings a started node's replica back online (out of date
// until a resync).
func (s *queueStore) resumeReplica(id int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r := s.reps[id]; r != nil {
		r.online = true
	}
}

// promote makes id's replica the leader's and resyncs every online
// follower that is out of date.
func (s *queueStore) promote(id int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.reps[id]
	for _, r := range s.reps {
		r.leading = false
	}
	if l == nil {
		return
	}
	l.leading, l.current = true, true
	for _, r := range s.reps {
		if r != l && r.online && !r.current {
			r.copyFrom(l)
		}
	}
}

// resync copies the leader's committed state to node id.
func (s *queueStore) resync(id, leader int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, l := s.reps[id], s.reps[leader]
	if r == nil || l == nil || r == l {
		return
	}
	r.copyFrom(l)
}

func (s *queueStore) replicaInfo(id int) (inSync bool, lsn uint64, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.reps[id]
	if r == nil || !r.online {
		return false, 0, false
	}
	return r.current, r.lsn, true
}

// depthOn is a queue's committed depth on node id's replica.
func (s *queueStore) depthOn(id int, name string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.reps[id]
	if r == nil {
		return 0, ErrNoLeader
	}
	q := r.queues[name]
	if q == nil {
		return 0, fmt.Errorf("engine: %s (%s)", wire.ErrUnknownQueue, name)
	}
	return len(q.msgs), nil
}

// createQueue creates a queue on every online in-sync replica (all of
// them hold identical committed state); idempotent.
func (s *queueStore) createQueue(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var target []*replica
	for _, r := range s.reps {
		if r.online && r.current {
			target = append(target, r)
		}
	}
	if len(target) == 0 {
		return fmt.Errorf("engine: create queue %s: no running node holds the queue state", name)
	}
	op := &commitOp{creates: []string{name}}
	for _, r := range target {
		if r.leading { // ship it like any committed change
			r.applyCreates(op)
			s.commitLocked(r, op)
			return nil
		}
	}
	for _, r := range target { // no leader: every in-sync replica alike
		r.applyCreates(op)
		r.lsn++
	}
	return nil
}

// ---- sessions ----

// openSession opens a queue session's transaction on node id's replica,
// which must be leading. Called by cluster.admit under cluster.mu.
func (s *queueStore) openSession(id int, mode wire.SessionMode, sessionID uint64) *txn {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.reps[id]
	if r == nil || !r.leading {
		return nil
	}
	return &txn{rep: r, mode: mode, session: sessionID, waiters: map[*waiter]struct{}{}}
}

// endSession runs when the connection is gone: it cancels the session's
// waiters and rolls back its uncommitted work (spec Q-10).
func (s *queueStore) endSession(t *txn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for w := range t.waiters {
		s.dropWaiterLocked(w)
	}
	if !t.rep.dead {
		s.rollbackLocked(t)
	}
	t.ended = true
}

// usableLocked checks that the session's replica still leads.
func (t *txn) usableLocked() *wire.ErrorBody {
	if t.rep.dead || !t.rep.leading || t.ended {
		return &wire.ErrorBody{Name: wire.ErrNotLeader, Tail: fmt.Sprintf("node %d no longer leads", t.rep.node)}
	}
	return nil
}

func (t *txn) queueLocked(name string) (*queue, *wire.ErrorBody) {
	if eb := t.usableLocked(); eb != nil {
		return nil, eb
	}
	q := t.rep.queues[name]
	if q == nil {
		return nil, errUnknownQueue(name)
	}
	return q, nil
}

func errUnknownQueue(name string) *wire.ErrorBody {
	return &wire.ErrorBody{Name: wire.ErrUnknownQueue, Tail: name}
}

// ---- operations ----

// depth answers OPEN QUEUE and QUEUE DEPTH.
func (s *queueStore) depth(t *txn, name string) (uint64, *wire.ErrorBody) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q, eb := t.queueLocked(name)
	if eb != nil {
		return 0, eb
	}
	return uint64(len(q.msgs)), nil
}

// put stores a message: committed and replicated at once in auto-commit,
// held in the transaction otherwise. id and payload must be owned by the
// caller (not alias a frame buffer), and so must headers. It returns the
// committed depth.
func (s *queueStore) put(t *txn, name string, id, payload []byte, headers []wire.RecordHeader, nowMs int64) (uint64, *wire.ErrorBody) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q, eb := t.queueLocked(name)
	if eb != nil {
		return 0, eb
	}
	if eb := t.roomLocked(q); eb != nil {
		return 0, eb
	}
	m := &message{id: id, payload: payload, headers: headers, putTimeMs: nowMs}
	if t.mode == wire.ModeTransacted {
		t.puts = append(t.puts, pendingPut{q, m})
		return uint64(len(q.msgs)), nil
	}
	op := &commitOp{}
	s.appendLocked(t.rep, q, m, op)
	s.commitLocked(t.rep, op)
	s.serveWaitersLocked(q)
	return uint64(len(q.msgs)), nil
}

// get takes the first visible message (or the one whose id is match). When
// none is visible and wait is set, it registers a waiter and returns it.
func (s *queueStore) get(t *txn, name string, match []byte, wait bool) (*delivery, *waiter, *wire.ErrorBody) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q, eb := t.queueLocked(name)
	if eb != nil {
		return nil, nil, eb
	}
	if d := s.takeLocked(t, q, match); d != nil {
		return d, nil, nil
	}
	if !wait {
		return nil, nil, nil
	}
	w := &waiter{t: t, q: q, match: match, ready: make(chan struct{})}
	q.waiters = append(q.waiters, w)
	t.waiters[w] = struct{}{}
	return nil, w, nil
}

// finishWait ends a wait: the message handed over, or nil after removing
// the waiter (timeout or connection loss).
func (s *queueStore) finishWait(w *waiter) *delivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	if w.got == nil {
		s.dropWaiterLocked(w)
	}
	return w.got
}

// commit makes the session's puts visible and its gets final.
func (s *queueStore) commit(t *txn) *wire.ErrorBody {
	s.mu.Lock()
	defer s.mu.Unlock()
	if eb := t.endableLocked("commit"); eb != nil {
		return eb
	}
	if len(t.puts) == 0 && len(t.gets) == 0 {
		return nil // nothing pending: succeeds
	}
	if eb := t.commitFitsLocked(); eb != nil {
		return eb // nothing applied: the application rolls back
	}
	op := &commitOp{}
	for _, g := range t.gets {
		g.q.remove(g.m.seq)
		op.removes = append(op.removes, msgRef{g.q.name, g.m.seq})
	}
	var touched []*queue
	for _, p := range t.puts {
		s.appendLocked(t.rep, p.q, p.m, op)
		if !slices.Contains(touched, p.q) {
			touched = append(touched, p.q)
		}
	}
	t.puts, t.gets = nil, nil
	s.commitLocked(t.rep, op)
	for _, q := range touched {
		s.serveWaitersLocked(q)
	}
	return nil
}

// rollback drops the session's puts and returns its gets.
func (s *queueStore) rollback(t *txn) *wire.ErrorBody {
	s.mu.Lock()
	defer s.mu.Unlock()
	if eb := t.endableLocked("rollback"); eb != nil {
		return eb
	}
	s.rollbackLocked(t)
	return nil
}

// endableLocked refuses to end t (what: "commit" or "rollback") in an
// auto-commit session, or once the session's replica no longer leads.
func (t *txn) endableLocked(what string) *wire.ErrorBody {
	if t.mode != wire.ModeTransacted {
		return &wire.ErrorBody{Name: wire.ErrNotInTransaction, Tail: what + " in an auto-commit session"}
	}
	return t.usableLocked()
}

// rollbackLocked returns locked messages to their original position with
// the redelivered flag, drops uncommitted puts, and wakes waiters. The
// flags are replicated when this replica leads.
func (s *queueStore) rollbackLocked(t *txn) {
	t.puts = nil
	if len(t.gets) == 0 {
		return
	}
	op := &commitOp{}
	var touched []*queue
	nowMs := time.Now().UnixMilli()
	for _, g := range t.gets {
		g.m.lockedBy = nil
		g.m.redeliveries++
		if dlq := s.deadLetterLocked(t.rep, g.q, g.m, op, nowMs); dlq != nil {
			if !slices.Contains(touched, dlq) {
				touched = append(touched, dlq)
			}
			continue
		}
		op.redeliver = append(op.redeliver, redeliverRef{msgRef{g.q.name, g.m.seq}, g.m.redeliveries})
		if !slices.Contains(touched, g.q) {
			touched = append(touched, g.q)
		}
	}
	t.gets = nil
	if t.rep.leading {
		s.commitLocked(t.rep, op)
		for _, q := range touched {
			s.serveWaitersLocked(q)
		}
	}
}

// appendLocked commits a put on the leader: it assigns the sequence number
// and appends at the tail.
func (s *queueStore) appendLocked(r *replica, q *queue, m *message, op *commitOp) {
	m.seq = r.nextSeq
	r.nextSeq++
	q.puts++
	q.msgs = append(q.msgs, m)
	op.puts = append(op.puts, replPut{queue: q.name, m: *m})
}

// takeLocked hands the first visible matching message to t: removed and
// replicated at once in auto-commit, locked in a transaction.
func (s *queueStore) takeLocked(t *txn, q *queue, match []byte) *delivery {
	for i, m := range q.msgs {
		if m.lockedBy != nil || (match != nil && !bytes.Equal(m.id, match)) {
			continue
		}
		d := m.delivery()
		q.gets++
		if t.mode == wire.ModeTransacted {
			m.lockedBy = t
			t.gets = append(t.gets, lockRef{q, m})
		} else {
			q.msgs = slices.Delete(q.msgs, i, i+1)
			s.commitLocked(t.rep, &commitOp{removes: []msgRef{{q.name, m.seq}}})
		}
		return d
	}
	return nil
}

// serveWaitersLocked hands newly visible messages to waiting GETs, oldest
// waiter first. One pass is enough: taking a message never makes another
// visible. Waiters of ended sessions are skipped (their cleanup removes
// them), so a message is never handed to a connection that is gone.
func (s *queueStore) serveWaitersLocked(q *queue) {
	kept := q.waiters[:0]
	for _, w := range q.waiters {
		if !w.t.ended {
			if d := s.takeLocked(w.t, q, w.match); d != nil {
				w.got = d
				close(w.ready)
				delete(w.t.waiters, w)
				continue
			}
		}
		kept = append(kept, w)
	}
	clear(q.waiters[len(kept):])
	q.waiters = kept
}

func (s *queueStore) dropWaiterLocked(w *waiter) {
	delete(w.t.waiters, w)
	if i := slices.Index(w.q.waiters, w); i >= 0 {
		w.q.waiters = slices.Delete(w.q.waiters, i, i+1)
	}
}

// remove deletes the message with sequence seq (queues are ordered by seq).
func (q *queue) remove(seq uint64) {
	i := sort.Search(len(q.msgs), func(i int) bool { return q.msgs[i].seq >= seq })
	if i < len(q.msgs) && q.msgs[i].seq == seq {
		q.msgs = slices.Delete(q.msgs, i, i+1)
	}
}

// find returns the message with sequence seq, or nil.
func (q *queue) find(seq uint64) *message {
	i := sort.Search(len(q.msgs), func(i int) bool { return q.msgs[i].seq >= seq })
	if i < len(q.msgs) && q.msgs[i].seq == seq {
		return q.msgs[i]
	}
	return nil
}
