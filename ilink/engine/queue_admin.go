package engine

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"ilinkdash/ilink/wire"
)

// Queue definition, dead-lettering, browse and moves (docs/PROTOCOL.md
// "Admin", queues). Everything here runs under queueStore.mu on the
// leader's replica and is replicated as a commitOp like a put or a get.
//
//   - A queue's properties (QueueConfig) live in every replica's queue, so
//     a new leader enforces them at once.
//   - MaxDepth bounds the committed depth plus the session's own pending
//     puts: a PUT that would exceed it, or a COMMIT whose puts would, is
//     refused with MIMQE_QUEUE_FULL and changes nothing.
//   - A message returned to its queue (rollback, lost session) more than
//     MaxRedeliveries times moves to the queue's DeadLetterQueue in the same
//     committed change: removed from the source, appended at the DLQ's tail
//     with its id, payload, put time and count, and where it came from. A
//     DLQ accepts every dead letter whatever its own MaxDepth, so a poison
//     message never stays in its source queue because the DLQ is full.
//   - Browse reads without locking or removing anything.
//   - A move (a DLQ back to the source queue, or any queue to another)
//     takes messages that are not locked, in queue order, and appends them
//     at the target's tail as fresh puts (count reset, id kept).

// QueueConfig is a queue's definable properties.
type QueueConfig struct {
	Description string
	// MaxDepth bounds the committed depth; 0 = unlimited.
	MaxDepth int64
	// DeadLetterQueue receives messages redelivered more than
	// MaxRedeliveries times. Both are set or neither.
	DeadLetterQueue string
	MaxRedeliveries int
}

// deadLetter is where a dead-lettered message came from.
type deadLetter struct {
	source string // the queue it was moved from
	reason string
	atMs   int64
}

// maxQueueDepth bounds MaxDepth (and thereby nothing else: the engine keeps
// messages in memory, the bound only keeps the number sane).
const maxQueueDepth = 1 << 40

func (c QueueConfig) validate(name string) error {
	switch {
	case c.MaxDepth < 0 || c.MaxDepth > maxQueueDepth:
		return errorf(wire.ErrInvalidProperty, "maxDepth %d out of range 0..%d", c.MaxDepth, int64(maxQueueDepth))
	case c.MaxRedeliveries < 0 || c.MaxRedeliveries > 1_000_000:
		return errorf(wire.ErrInvalidProperty, "maxRedeliveries %d out of range 0..1000000", c.MaxRedeliveries)
	case c.DeadLetterQueue != "" && c.MaxRedeliveries == 0:
		return errorf(wire.ErrInvalidProperty, "dlq=%s needs maxRedeliveries=N (N >= 1: the returns after which a message moves)", c.DeadLetterQueue)
	case c.DeadLetterQueue == "" && c.MaxRedeliveries > 0:
		return errorf(wire.ErrInvalidProperty, "maxRedeliveries=%d needs dlq=NAME (the queue the messages move to)", c.MaxRedeliveries)
	case c.DeadLetterQueue == name:
		return errorf(wire.ErrInvalidProperty, "queue %s cannot be its own dead-letter queue", name)
	case len(c.Description) > 1024:
		return errorf(wire.ErrInvalidProperty, "description of %d bytes (max 1024)", len(c.Description))
	}
	if c.DeadLetterQueue != "" {
		if err := validQueueName(c.DeadLetterQueue); err != nil {
			return errorf(wire.ErrInvalidProperty, "dlq: %v", err)
		}
	}
	return nil
}

func errQueueFull(q *queue) *wire.ErrorBody {
	return &wire.ErrorBody{Name: wire.ErrQueueFull, Tail: q.name + " max depth " + strconv.FormatInt(q.cfg.MaxDepth, 10)}
}

// DefineQueue creates a queue with cfg, or gives an existing queue cfg (its
// messages stay). A dead-letter queue that does not exist is created with
// no properties. Errors are *Error (MIMQE_INVALID_PROPERTY,
// MIMQE_INVALID_ARGUMENT for a bad name, MIMQE_NO_LEADER).
func (e *Engine) DefineQueue(name string, cfg QueueConfig) error {
	if err := validQueueName(name); err != nil {
		return errorf(wire.ErrInvalidArgument, "%v", err)
	}
	if err := cfg.validate(name); err != nil {
		return err
	}
	if err := e.queues.define(name, cfg); err != nil {
		return err
	}
	e.logf("engine: queue %s defined (maxDepth=%d dlq=%q maxRedeliveries=%d)", name, cfg.MaxDepth, cfg.DeadLetterQueue, cfg.MaxRedeliveries)
	return nil
}

// leaderLocked is the leading replica, or nil.
func (s *queueStore) leaderLocked() *replica {
	for _, r := range s.reps {
		if r.leading {
			return r
		}
	}
	return nil
}

func (s *queueStore) define(name string, cfg QueueConfig) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.leaderLocked()
	if l == nil {
		return &Error{Name: wire.ErrNoLeader, Tail: "no cluster leader (election in progress)"}
	}
	op := &commitOp{defines: []queueDef{{name, cfg}}}
	if d := cfg.DeadLetterQueue; d != "" && l.queues[d] == nil {
		op.creates = []string{d}
	}
	l.applyCreates(op)
	s.commitLocked(l, op)
	return nil
}

// DeleteQueue removes a queue and its messages. A queue that is another
// queue's dead-letter queue is refused (redefine that queue first).
// Waiting GETs end with MIMQE_NO_MSG; transactions holding its messages
// fail their commit.
func (e *Engine) DeleteQueue(name string) error {
	if err := e.queues.deleteQueue(name); err != nil {
		return err
	}
	e.forgetQueueAdmin(name)
	e.logf("engine: queue %s deleted", name)
	return nil
}

func (s *queueStore) deleteQueue(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.leaderLocked()
	if l == nil {
		return &Error{Name: wire.ErrNoLeader, Tail: "no cluster leader (election in progress)"}
	}
	q := l.queues[name]
	if q == nil {
		return &Error{Name: wire.ErrUnknownQueue, Tail: name}
	}
	for _, o := range sortedQueues(l) {
		if o.cfg.DeadLetterQueue == name {
			return errorf(wire.ErrInvalidArgument, "queue %s is the dead-letter queue of %s", name, o.name)
		}
	}
	for _, w := range q.waiters {
		delete(w.t.waiters, w)
		close(w.ready) // got stays nil: the GET answers MIMQE_NO_MSG
	}
	q.waiters = nil
	delete(l.queues, name)
	s.commitLocked(l, &commitOp{deletes: []string{name}})
	return nil
}

// attachedLocked reports whether q is still the queue of its name in r
// (a deleted queue stays referenced by transactions that held it).
func (r *replica) attachedLocked(q *queue) bool { return r.queues[q.name] == q }

// roomLocked refuses a put into a full queue: the committed depth plus
// this session's pending puts to it must stay below MaxDepth.
func (t *txn) roomLocked(q *queue) *wire.ErrorBody {
	if q.cfg.MaxDepth <= 0 {
		return nil
	}
	n := int64(len(q.msgs))
	for _, p := range t.puts {
		if p.q == q {
			n++
		}
	}
	if n >= q.cfg.MaxDepth {
		return errQueueFull(q)
	}
	return nil
}

// commitFitsLocked checks a transaction's puts before COMMIT applies
// anything: every target must still exist and stay within its MaxDepth
// once the transaction's own gets from it are removed.
func (t *txn) commitFitsLocked() *wire.ErrorBody {
	delta := map[*queue]int64{}
	for _, p := range t.puts {
		if !t.rep.attachedLocked(p.q) {
			return errUnknownQueue(p.q.name)
		}
		delta[p.q]++
	}
	for _, g := range t.gets {
		if _, ok := delta[g.q]; ok {
			delta[g.q]--
		}
	}
	for q, d := range delta {
		if q.cfg.MaxDepth > 0 && d > 0 && int64(len(q.msgs))+d > q.cfg.MaxDepth {
			return errQueueFull(q)
		}
	}
	return nil
}

// deadLetterLocked moves m (just returned to q, its count already raised)
// to q's dead-letter queue when the count exceeds MaxRedeliveries, adding
// the move to op. It returns the DLQ, or nil when m stays.
func (s *queueStore) deadLetterLocked(r *replica, q *queue, m *message, op *commitOp, nowMs int64) *queue {
	c := q.cfg
	if !r.leading || c.MaxRedeliveries <= 0 || m.redeliveries <= c.MaxRedeliveries || !r.attachedLocked(q) {
		return nil
	}
	dlq := r.queues[c.DeadLetterQueue]
	if dlq == nil {
		return nil // deleted since: the message stays and keeps counting
	}
	q.remove(m.seq)
	op.removes = append(op.removes, msgRef{q.name, m.seq})
	moved := &message{id: m.id, payload: m.payload, headers: m.headers, putTimeMs: m.putTimeMs, redeliveries: m.redeliveries,
		dead: &deadLetter{source: q.name, reason: fmt.Sprintf("redelivered %d times (max %d)", m.redeliveries, c.MaxRedeliveries), atMs: nowMs}}
	s.appendLocked(r, dlq, moved, op)
	return dlq
}

// ---- browse ----

// BrowsedMessage is one message as QUEUE BROWSE shows it.
type BrowsedMessage struct {
	Seq          uint64
	ID           []byte
	PutTime      time.Time
	Redeliveries int
	InFlight     bool // locked by a transacted get not yet committed
	Headers      []wire.RecordHeader
	Payload      []byte
}

// browseHeaders are the PUT's headers, then the engine's properties of a
// message: where a dead letter came from and why.
func (m *message) browseHeaders() []wire.RecordHeader {
	if m.dead == nil {
		return m.headers
	}
	return append(slices.Clip(m.headers),
		wire.RecordHeader{Key: "dlq.source", Value: []byte(m.dead.source)},
		wire.RecordHeader{Key: "dlq.reason", Value: []byte(m.dead.reason)},
		wire.RecordHeader{Key: "dlq.time", Value: []byte(time.UnixMilli(m.dead.atMs).UTC().Format(time.RFC3339Nano))},
	)
}

// BrowseQueue reads up to max messages (and about maxBytes of payload,
// at least one message) from sequence number from on, without locking or
// removing anything. more says whether messages follow; the next page
// starts at the last Seq + 1.
func (e *Engine) BrowseQueue(name string, from uint64, max, maxBytes int) (msgs []BrowsedMessage, depth int, more bool, err error) {
	p, err := e.BrowseQueuePage(BrowseSpec{Queue: name, From: from, Max: max, MaxBytes: maxBytes})
	return p.Messages, p.Depth, p.More, err
}

// BrowseSpec is one page of a browse: from From on, or (Before > 0) the
// page ending just before Before (math.MaxUint64 = the last page).
type BrowseSpec struct {
	Queue         string
	From, Before  uint64
	Max, MaxBytes int
}

// BrowsePage is one page: its messages, the queue's depth, whether
// messages follow the last one, and Index, the messages ahead of the
// first one.
type BrowsePage struct {
	Messages []BrowsedMessage
	Depth    int
	More     bool
	Index    int
}

// BrowseQueuePage reads one page of a queue without locking or removing
// anything. The queue is ordered by seq, so a page is found by binary
// search, not a scan from the head.
func (e *Engine) BrowseQueuePage(sp BrowseSpec) (BrowsePage, error) {
	s := e.queues
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.leaderLocked()
	if l == nil {
		return BrowsePage{}, &Error{Name: wire.ErrNoLeader, Tail: "no cluster leader (election in progress)"}
	}
	q := l.queues[sp.Queue]
	if q == nil {
		return BrowsePage{}, &Error{Name: wire.ErrUnknownQueue, Tail: sp.Queue}
	}
	search := func(seq uint64) int {
		return sort.Search(len(q.msgs), func(i int) bool { return q.msgs[i].seq >= seq })
	}
	lo, hi := 0, 0 // the page is q.msgs[lo:hi]
	if sp.Before > 0 {
		hi = search(sp.Before)
		lo = hi
		bytesOut := 0
		for lo > 0 && hi-lo < sp.Max {
			n := len(q.msgs[lo-1].payload)
			if hi > lo && bytesOut+n > sp.MaxBytes {
				break
			}
			bytesOut += n
			lo--
		}
	} else {
		lo = search(sp.From)
		hi = lo
		bytesOut := 0
		for hi < len(q.msgs) && hi-lo < sp.Max {
			n := len(q.msgs[hi].payload)
			if hi > lo && bytesOut+n > sp.MaxBytes {
				break
			}
			bytesOut += n
			hi++
		}
	}
	out := BrowsePage{Depth: len(q.msgs), More: hi < len(q.msgs), Index: lo, Messages: make([]BrowsedMessage, 0, hi-lo)}
	for _, m := range q.msgs[lo:hi] {
		out.Messages = append(out.Messages, BrowsedMessage{Seq: m.seq, ID: m.id, PutTime: time.UnixMilli(m.putTimeMs),
			Redeliveries: m.redeliveries, InFlight: m.lockedBy != nil, Headers: m.browseHeaders(), Payload: m.payload})
	}
	return out, nil
}

// ---- moves ----

// MessageMove is one message of a move: where it goes, or why it does not.
type MessageMove struct {
	ID      []byte
	To      string
	Skipped string // "" = moved (or, in a plan, would move)
}

// MaxMoveIDs bounds a move: the message ids one MOVE MESSAGES names, and
// the messages a plan of every message goes through (the rest are counted
// in Unselected), so a plan's ids always fit the request that executes it.
const MaxMoveIDs = wire.MaxSelectIDs

// MoveSpec selects a move.
type MoveSpec struct {
	From string
	To   string // "" = each message's dead-letter source
	// IDs are the messages to move; nil = every message of From, in queue
	// order, the first MaxMoveIDs (a plan's selection).
	IDs    [][]byte
	DryRun bool // plan: change nothing
	// PlanNext is the NextSeq of the plan being executed (0 = none): a
	// message of From not named whose position is at or after it arrived
	// after the plan (Arrived).
	PlanNext uint64
}

// MoveOutcome is what a move did (or, planned, would do).
type MoveOutcome struct {
	Moves []MessageMove
	Moved int
	Stop  string // why it stopped early ("" = the selection was gone through)
	// NextSeq is the position the next message put anywhere gets: the
	// mark a plan hands to its execution.
	NextSeq uint64
	// Unselected counts the messages of From the selection did not name,
	// left in place; Arrived, those of them at or after PlanNext.
	Unselected, Arrived int
}

// MoveMessages is Move with the common arguments (ids nil = every message
// of from, at most MaxMoveIDs).
func (e *Engine) MoveMessages(from, to string, ids [][]byte, dryRun bool) (moves []MessageMove, moved int, stop string, err error) {
	o, err := e.Move(MoveSpec{From: from, To: to, IDs: ids, DryRun: dryRun})
	return o.Moves, o.Moved, o.Stop, err
}

// Move moves the messages of sp.From that sp.IDs names to sp.To (""
// = each message's dead-letter source), appended at the target's tail.
// Locked messages and messages with no target are skipped with the
// reason, named ids that are not in From are reported as such; a full
// target stops the move (Stop says why). With DryRun nothing changes and
// the outcome is the plan; executing a plan means sending its ids (the
// moves not skipped) and its NextSeq, so that the messages moved are the
// ones shown and those that arrived since are counted, not moved.
func (e *Engine) Move(sp MoveSpec) (MoveOutcome, error) {
	var out MoveOutcome
	if len(sp.IDs) > MaxMoveIDs {
		return out, errorf(wire.ErrInvalidArgument, "msg_ids: %d ids; at most %d per MOVE MESSAGES", len(sp.IDs), MaxMoveIDs)
	}
	s := e.queues
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.leaderLocked()
	if l == nil {
		return out, &Error{Name: wire.ErrNoLeader, Tail: "no cluster leader (election in progress)"}
	}
	out.NextSeq = l.nextSeq
	src, err := moveEndsLocked(l, sp.From, sp.To)
	if err != nil {
		return out, err
	}
	take, dst := planMoveLocked(l, src, sp, &out)
	out.Moved = len(take)
	if sp.DryRun || len(take) == 0 {
		return out, nil
	}
	out.NextSeq = s.applyMoveLocked(l, sp.From, src, take, dst)
	e.logf("engine: moved %d messages from %s (%s)", len(take), sp.From, out.Stop)
	return out, nil
}

// moveEndsLocked checks a move's queues on the leader l (to "" = each
// message's source) and returns the queue moved from. With s.mu held.
func moveEndsLocked(l *replica, from, to string) (*queue, error) {
	src := l.queues[from]
	if src == nil {
		return nil, &Error{Name: wire.ErrUnknownQueue, Tail: from}
	}
	if to != "" && l.queues[to] == nil {
		return nil, &Error{Name: wire.ErrUnknownQueue, Tail: to}
	}
	if to == from {
		return nil, errorf(wire.ErrInvalidArgument, "move from %s to itself", from)
	}
	return src, nil
}

// planMoveLocked goes through src's messages in order and plans sp into
// out (Moves, Stop, Unselected, Arrived); it returns the messages to take
// and, for each, its target queue. Nothing changes. With s.mu held.
func planMoveLocked(l *replica, src *queue, sp MoveSpec, out *MoveOutcome) (take []*message, dst []*queue) {
	ids := sp.IDs
	want := map[string]bool{}
	for _, id := range ids {
		want[string(id)] = false
	}
	added := map[*queue]int64{}
	stopped := false
	for _, m := range src.msgs {
		if ids != nil {
			if _, ok := want[string(m.id)]; !ok {
				if sp.PlanNext > 0 && m.seq >= sp.PlanNext {
					out.Arrived++
				}
				out.Unselected++
				continue
			}
			want[string(m.id)] = true
		}
		if stopped {
			continue // the move ends at a full target: the rest is not gone through
		}
		if ids == nil && len(out.Moves) >= MaxMoveIDs {
			out.Unselected++ // beyond a plan's bound: planned next time
			continue
		}
		mv, tq, full := moveOfLocked(l, m, sp.From, sp.To, added)
		if full {
			out.Stop = fmt.Sprintf("queue %s is full (max depth %d)", mv.To, tq.cfg.MaxDepth)
			stopped = true
			continue
		}
		out.Moves = append(out.Moves, mv)
		if mv.Skipped == "" {
			added[tq]++
			take = append(take, m)
			dst = append(dst, tq)
		}
	}
	if !stopped {
		for _, id := range ids {
			if !want[string(id)] {
				out.Moves = append(out.Moves, MessageMove{ID: id, Skipped: "not in " + sp.From})
				want[string(id)] = true // a repeated id is reported once
			}
		}
	}
	return take, dst
}

// moveOfLocked is m's move from from to to ("" = m's source) and its
// target queue, with the reason it is skipped if it is; full when the
// target has no room left after the messages already planned into it
// (added), which stops the move. With s.mu held.
func moveOfLocked(l *replica, m *message, from, to string, added map[*queue]int64) (mv MessageMove, tq *queue, full bool) {
	target := to
	if target == "" && m.dead != nil {
		target = m.dead.source
	}
	mv = MessageMove{ID: m.id, To: target}
	tq = l.queues[target]
	switch {
	case m.lockedBy != nil:
		mv.Skipped = "in flight (locked by a transaction)"
	case target == "":
		mv.Skipped = "no source queue recorded: give a target queue"
	case tq == nil:
		mv.Skipped = "queue " + target + " is not defined"
	case target == from:
		mv.Skipped = "its source is this queue"
	case tq.cfg.MaxDepth > 0 && int64(len(tq.msgs))+added[tq] >= tq.cfg.MaxDepth:
		return mv, tq, true
	}
	return mv, tq, false
}

// applyMoveLocked moves take[i] from src (the queue named from) to
// dst[i] in one commit, each appended at its target's tail with a new put
// time, then serves each target's waiters once. It returns the position
// the next message put gets after the commit. With s.mu held.
func (s *queueStore) applyMoveLocked(l *replica, from string, src *queue, take []*message, dst []*queue) (nextSeq uint64) {
	op := &commitOp{}
	nowMs := time.Now().UnixMilli()
	for i, m := range take {
		src.remove(m.seq)
		op.removes = append(op.removes, msgRef{from, m.seq})
		s.appendLocked(l, dst[i], &message{id: m.id, payload: m.payload, headers: m.headers, putTimeMs: nowMs}, op)
	}
	s.commitLocked(l, op)
	nextSeq = l.nextSeq
	served := map[*queue]bool{}
	for _, q := range dst {
		if !served[q] {
			served[q] = true
			s.serveWaitersLocked(q)
		}
	}
	return nextSeq
}

// sortedQueues lists r's queues by name (deterministic error texts).
func sortedQueues(r *replica) []*queue {
	out := make([]*queue, 0, len(r.queues))
	for _, q := range r.queues {
		out = append(out, q)
	}
	slices.SortFunc(out, func(a, b *queue) int { return strings.Compare(a.name, b.name) })
	return out
}

// configOf is a queue's properties on the leader.
func (s *queueStore) configOf(name string) (QueueConfig, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if l := s.leaderLocked(); l != nil {
		if q := l.queues[name]; q != nil {
			return q.cfg, true
		}
	}
	return QueueConfig{}, false
}

// ---- handlers ----

func handleDefineQueue(r *request) {
	var req wire.QueueDefineRequest
	if !r.decode(&req) || !r.qmgrRunning(req.Qmgr) {
		return
	}
	cfg := QueueConfig{Description: req.Description, MaxDepth: req.MaxDepth, DeadLetterQueue: req.DeadLetterQueue, MaxRedeliveries: req.MaxRedeliveries}
	if err := r.c.e.DefineQueue(req.Queue, cfg); err != nil {
		r.fail(wireError(err))
		return
	}
	r.reply(&wire.QueuePropertyReply{Property: r.c.e.queueProperty(req.Queue, cfg, time.Now())})
}

func handleDeleteQueue(r *request) {
	var req wire.QueueNameRequest
	if !r.decode(&req) || !r.qmgrRunning(req.Qmgr) {
		return
	}
	if err := r.c.e.DeleteQueue(req.Queue); err != nil {
		r.fail(wireError(err))
		return
	}
	r.reply(&wire.Empty{})
}

// browseMaxBytes bounds one QUEUE BROWSE reply's payload bytes.
const browseMaxBytes = 4 << 20

func handleBrowseQueue(r *request) {
	var req wire.QueueBrowseRequest
	if !r.decode(&req) || !r.qmgrRunning(req.Qmgr) {
		return
	}
	max := req.Max
	if max <= 0 || max > 1000 {
		max = 1000
	}
	limit := min(browseMaxBytes, r.c.e.cfg.MaxFrame/2)
	if req.MaxBytes > 0 {
		limit = min(limit, req.MaxBytes)
	}
	p, err := r.c.e.BrowseQueuePage(BrowseSpec{Queue: req.Queue, From: req.FromSeq, Before: req.BeforeSeq, Max: max, MaxBytes: limit})
	if err != nil {
		r.fail(wireError(err))
		return
	}
	rep := &wire.QueueBrowseReply{Depth: int64(p.Depth), More: p.More, Index: int64(p.Index), Messages: make([]wire.BrowsedMessage, len(p.Messages))}
	for i, m := range p.Messages {
		rep.Messages[i] = wire.BrowsedMessage{Seq: m.Seq, MsgID: m.ID, PutTimeMs: m.PutTime.UnixMilli(),
			Redeliveries: m.Redeliveries, InFlight: m.InFlight, Headers: m.Headers, Payload: m.Payload}
	}
	r.reply(rep)
}

func handleMoveMessages(r *request) {
	var req wire.QueueMoveRequest
	if !r.decode(&req) || !r.qmgrRunning(req.Qmgr) {
		return
	}
	if !req.DryRun && len(req.MsgIDs) == 0 {
		// A move executes a plan the operator saw, by id, never "whatever
		// is in the queue now" (docs/PROTOCOL.md §11).
		r.fail(&wire.ErrorBody{Name: wire.ErrInvalidArgument, Tail: "MOVE MESSAGES moves by id: msg_ids is empty (plan with dry_run, then send the plan's ids)"})
		return
	}
	ids := cloneIDs(req.MsgIDs)
	o, err := r.c.e.Move(MoveSpec{From: req.From, To: req.To, IDs: ids, DryRun: req.DryRun, PlanNext: req.PlanNextSeq})
	if err != nil {
		r.fail(wireError(err))
		return
	}
	rep := &wire.QueueMoveReply{Moved: int64(o.Moved), StopReason: o.Stop, Moves: make([]wire.MessageMoveEntry, len(o.Moves)),
		NextSeq: o.NextSeq, Unselected: int64(o.Unselected), Arrived: int64(o.Arrived)}
	for i, m := range o.Moves {
		rep.Moves[i] = wire.MessageMoveEntry{MsgID: m.ID, To: m.To, Skipped: m.Skipped}
	}
	r.reply(rep)
}

// cloneIDs copies a request's message ids out of the frame buffer (nil
// for none: every message).
func cloneIDs(in [][]byte) [][]byte {
	if len(in) == 0 {
		return nil
	}
	ids := make([][]byte, len(in))
	for i, id := range in {
		ids[i] = bytes.Clone(id)
	}
	return ids
}
