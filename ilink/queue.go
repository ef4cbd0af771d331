package ilink

import (
	"context"
	"math"
	"time"

	"ilinkdash/ilink/wire"
)

// Queue is a handle on one queue of a session. It stays valid across the
// session's internal failover reconnects (spec S-17).
type Queue struct {
	s    *Session
	name string
}

// Message is a message taken from a queue.
type Message struct {
	ID          MsgID
	Payload     []byte
	PutTime     time.Time
	Redelivered bool // it went back to the queue once (rollback or lost session)
}

// AccessQueue opens a queue (OPEN QUEUE). It is not reconnected
// automatically: on a dead session it fails with a KindSession error, and it
// works again after a successful Reconnect (spec S-16).
func (s *Session) AccessQueue(ctx context.Context, name string) (*Queue, error) {
	c, err := s.current()
	if err != nil {
		return nil, err
	}
	var rep wire.DepthReply
	if err := c.Do(ctx, wire.CodeOpenQueue, 0, &wire.QueueRequest{Queue: name}, &rep); err != nil {
		return nil, err
	}
	return &Queue{s: s, name: name}, nil
}

// Name is the queue's name.
func (q *Queue) Name() string { return q.name }

// Put stores one message and returns the id the client gave it. The id is
// returned even on failure: after a KindSession error the message may or
// may not have been stored. A retry after failover reuses the id (S-14).
func (q *Queue) Put(ctx context.Context, payload []byte) (MsgID, error) {
	return q.PutHeaders(ctx, payload, nil)
}

// PutHeaders is Put with headers: the message's properties, which BROWSE
// QUEUE shows (GET does not return them).
func (q *Queue) PutHeaders(ctx context.Context, payload []byte, headers []wire.RecordHeader) (MsgID, error) {
	id := NewMsgID()
	if err := q.s.opt.refuse("Put"); err != nil {
		return id, err
	}
	max := q.s.opt.MaxFrame
	size := len(payload)
	for _, h := range headers {
		size += len(h.Key) + len(h.Value)
	}
	if wire.FrameLen(size) > max { // refuse before even encoding (W-08)
		return id, sizeOverError(wire.FrameLen(size), max)
	}
	req := &wire.PutRequest{Queue: q.name, MsgID: id[:], Payload: payload, Headers: headers}
	err := q.s.withRetry(ctx, func(c *Conn) error {
		var rep wire.PutReply
		return c.Do(ctx, wire.CodePut, 0, req, &rep)
	})
	q.s.noteWork(err)
	return id, err
}

// Get takes the next message, waiting up to wait for one. Nothing within
// the wait is a KindNoMessage error (spec Q-05). If ctx ends first, Get
// returns the context's error; in an auto-commit session a message the
// engine handed over meanwhile is then lost to the caller, in a transacted
// session it is returned by the next rollback.
func (q *Queue) Get(ctx context.Context, wait time.Duration) (*Message, error) {
	return q.get(ctx, nil, wait)
}

// GetMatch takes the message with the given id, waiting up to wait for it.
func (q *Queue) GetMatch(ctx context.Context, id MsgID, wait time.Duration) (*Message, error) {
	return q.get(ctx, id[:], wait)
}

func (q *Queue) get(ctx context.Context, match []byte, wait time.Duration) (*Message, error) {
	if err := q.s.opt.refuse("Get"); err != nil {
		return nil, err
	}
	var rep wire.GetReply
	op := q.getOp(ctx, match, wait, &rep)
	err := q.s.withRetry(ctx, op)
	q.s.noteWork(err)
	if err != nil {
		return nil, err
	}
	return toMessage(&rep), nil
}

func (q *Queue) getOp(ctx context.Context, match []byte, wait time.Duration, rep *wire.GetReply) func(*Conn) error {
	req := &wire.GetRequest{Queue: q.name, MatchID: match}
	ms := waitMs(wait)
	return func(c *Conn) error {
		*rep = wire.GetReply{}
		return c.Do(ctx, wire.CodeGet, ms, req, rep)
	}
}

// Depth returns the queue's committed depth. It is not retried after a
// communication fault: the automatic retry covers put and get only.
func (q *Queue) Depth(ctx context.Context) (int, error) {
	c, err := q.s.current()
	if err != nil {
		return 0, err
	}
	var rep wire.DepthReply
	if err := c.Do(ctx, wire.CodeQueueDepth, 0, &wire.QueueRequest{Queue: q.name}, &rep); err != nil {
		return 0, err
	}
	return int(min(rep.Depth, math.MaxInt)), nil
}

// CommitAndGet commits the session's work and takes the next message, with
// the COMMIT and the GET written back to back before any reply is read: one
// round trip (spec ). Outcomes:
//   - no message within the wait: KindNoMessage, the commit took effect;
//   - commit rejected: the commit's error, after a message the get took was
//     handed back with a ROLLBACK — which, like the rollback the application
//     is expected to make after a failed commit, also discards the rest of
//     the transaction;
//   - commit ok, get rejected: the get's error;
//   - connection lost before the commit's reply: KindSession, no retry;
//   - commit ok, get lost to a communication fault: like Get, one retry
//     after a failover reconnect.
//
// In an auto-commit session only the GET is sent.
func (q *Queue) CommitAndGet(ctx context.Context, wait time.Duration) (*Message, error) {
	s := q.s
	if err := s.opt.refuse("CommitAndGet"); err != nil {
		return nil, err
	}
	if s.mode == wire.ModeAutoCommit {
		return q.Get(ctx, wait) // spec Q-18
	}
	c, err := s.current()
	if err != nil {
		if IsSessionError(err) && !s.InTransaction() {
			// Nothing to commit: this is a plain get, failover retry included.
			return q.get(ctx, nil, wait)
		}
		return nil, err
	}
	var rep wire.GetReply
	op := q.getOp(ctx, nil, wait, &rep)
	calls, err := c.SendBatch(
		Request{Code: wire.CodeCommit, Req: &wire.Empty{}},
		Request{Code: wire.CodeGet, TimeoutMs: waitMs(wait), Req: &wire.GetRequest{Queue: q.name}, Resp: &rep},
	)
	if err != nil {
		if IsSessionError(err) && !s.InTransaction() {
			return q.get(ctx, nil, wait)
		}
		return nil, err
	}
	commit, get := calls[0], calls[1]

	if cerr := commit.Wait(ctx); cerr != nil {
		if gerr := get.Wait(ctx); gerr == nil && IsRejected(cerr) {
			// the get took a message inside the failed transaction: hand it back
			if rerr := c.Do(ctx, wire.CodeRollback, 0, &wire.Empty{}, nil); rerr == nil {
				s.setUncommitted(false)
			} else {
				s.opt.Logf("ilink: rollback after failed commit: %v", rerr)
			}
		}
		return nil, cerr // Q-14 (rejected), Q-16 (session: outcome unknown, no retry)
	}
	s.setUncommitted(false)
	// The commit succeeded, so there is no uncommitted work: a get lost to a
	// communication fault behaves like Get.
	err = s.recoverAndRetry(ctx, c, get.Wait(ctx), false, op)
	s.noteWork(err)
	if err != nil {
		return nil, err
	}
	return toMessage(&rep), nil
}

func toMessage(r *wire.GetReply) *Message {
	return &Message{
		ID:          msgIDFrom(r.MsgID),
		Payload:     r.Payload,
		PutTime:     time.UnixMilli(r.PutTimeMs),
		Redelivered: r.Redelivered,
	}
}

// waitMs converts a wait to the header's TimeoutMs, rounding up so a short
// positive wait never becomes "no wait".
func waitMs(d time.Duration) uint32 {
	if d <= 0 {
		return 0
	}
	ms := (d + time.Millisecond - 1) / time.Millisecond
	return uint32(min(int64(ms), math.MaxUint32))
}
