package engine

import (
	"bytes"
	"strings"
	"time"

	"ilinkdash/ilink/wire"
)

// Queue requests; queue sessions only (the HELLO admitted them on the
// leader).
func init() {
	register(wire.CodeOpenQueue, route{fn: handleDepth, modes: queueModes})
	register(wire.CodeQueueDepth, route{fn: handleDepth, modes: queueModes})
	register(wire.CodePut, route{fn: handlePut, modes: queueModes})
	register(wire.CodeGet, route{fn: handleGet, modes: queueModes})
	register(wire.CodeCommit, route{fn: handleCommit, modes: queueModes})
	register(wire.CodeRollback, route{fn: handleRollback, modes: queueModes})
}

func handleDepth(r *request) {
	var req wire.QueueRequest
	if !r.decode(&req) {
		return
	}
	d, eb := r.c.e.queues.depth(r.c.sess.txn, req.Queue)
	if eb != nil {
		r.fail(eb)
		return
	}
	r.reply(&wire.DepthReply{Depth: d})
}

func handlePut(r *request) {
	var req wire.PutRequest
	if !r.decode(&req) {
		return
	}
	if err := wire.CheckMsgID(req.MsgID); err != nil {
		r.fail(&wire.ErrorBody{Name: wire.ErrInvalidArgument, Tail: err.Error()})
		return
	}
	// The body aliases the frame reader's buffer: keep copies.
	id := bytes.Clone(req.MsgID)
	payload := bytes.Clone(req.Payload)
	headers := cloneHeaders(req.Headers)
	depth, eb := r.c.e.queues.put(r.c.sess.txn, req.Queue, id, payload, headers, time.Now().UnixMilli())
	if eb != nil {
		r.fail(eb)
		return
	}
	r.reply(&wire.PutReply{MsgID: id, Depth: depth})
}

// cloneHeaders copies headers out of the frame buffer (nil stays nil).
func cloneHeaders(hs []wire.RecordHeader) []wire.RecordHeader {
	if len(hs) == 0 {
		return nil
	}
	out := make([]wire.RecordHeader, len(hs))
	for i, h := range hs {
		out[i] = wire.RecordHeader{Key: strings.Clone(h.Key), Value: bytes.Clone(h.Value)}
	}
	return out
}

func noMessage() *wire.ErrorBody { return &wire.ErrorBody{Name: wire.ErrNoMessage} }

// handleGet takes a message, waiting up to the header's TimeoutMs. A wait
// runs in an async goroutine so the reader keeps reading pipelined requests;
// the ordered slot keeps this reply ahead of theirs.
func handleGet(r *request) {
	var req wire.GetRequest
	if !r.decode(&req) {
		return
	}
	if req.MatchID != nil {
		if err := wire.CheckMsgID(req.MatchID); err != nil {
			r.fail(&wire.ErrorBody{Name: wire.ErrInvalidArgument, Tail: "match " + err.Error()})
			return
		}
	}
	match := bytes.Clone(req.MatchID)
	wait := time.Duration(r.hdr.TimeoutMs) * time.Millisecond
	qs := r.c.e.queues
	d, w, eb := qs.get(r.c.sess.txn, req.Queue, match, wait > 0)
	switch {
	case eb != nil:
		r.fail(eb)
	case d != nil:
		r.reply(d.reply())
	case w == nil:
		r.fail(noMessage())
	default:
		r.async(func() {
			t := time.NewTimer(wait)
			defer t.Stop()
			select {
			case <-w.ready:
			case <-t.C:
			case <-r.closing():
			}
			// Whoever wins under the store lock decides: a message handed
			// over meanwhile is delivered, otherwise the waiter is removed.
			if d := qs.finishWait(w); d != nil {
				r.reply(d.reply())
			} else {
				r.fail(noMessage())
			}
		})
	}
}

func handleCommit(r *request) {
	if !r.decode(&wire.Empty{}) {
		return
	}
	if eb := r.c.e.queues.commit(r.c.sess.txn); eb != nil {
		r.fail(eb)
		return
	}
	r.reply(&wire.Empty{})
}

func handleRollback(r *request) {
	if !r.decode(&wire.Empty{}) {
		return
	}
	if eb := r.c.e.queues.rollback(r.c.sess.txn); eb != nil {
		r.fail(eb)
		return
	}
	r.reply(&wire.Empty{})
}
