package engine

import (
	"fmt"
	"time"

	"ilinkdash/ilink/wire"
)

// Every call on the coordinator state (coordinator.go, group_admin.go,
// the sweep of groups.go) holds its group's shard through synced or
// withShard: groupShard.mu is taken there, the state synced with its
// partition's leader, and the lock released on every path by a defer. A
// handler answers only after, from what withShard returns, because an
// answer may wait for replication.
//
// Lock order (engine.go, "Ownership and lock order"): groupShard.mu is
// taken before partition.mu (syncing, appending, end offsets, compaction
// take it briefly inside), never under a topic or partition lock, and one
// shard at a time.

// synced runs fn with s held and its state that of its partition's
// current leader (a leader change starts a LOADING window).
func (s *groupShard) synced(fn func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gc.syncLocked(s, true)
	fn()
}

// shardOp is what a call decided with its shard held.
type shardOp[T any] struct {
	res  T
	recs []grec // appended before res is given; res waits for their replication
	// durable makes res wait for every record of the state, not only
	// recs: a read of commits must not show one a leader change could undo.
	durable bool
	f       *gfail // a refusal: res and recs are ignored
}

// msgOp is the shardOp of a wire handler: its reply.
type msgOp = shardOp[wire.Message]

// shardDone is what is left of a call once its shard is released: a
// refusal, or a result to give (after the shard's partition is replicated
// up to end at epoch, when wait).
type shardDone[T any] struct {
	s     *groupShard
	res   T
	f     *gfail
	wait  bool
	end   int64
	epoch int32
}

// withShard runs check, then fn, on s held and synced; appends the records
// fn decided on (and compacts the log when it is due); and releases s.
// check refuses the call before fn sees the state (nil: no check).
func withShard[T any](s *groupShard, check func() *gfail, fn func() shardOp[T]) shardDone[T] {
	d := shardDone[T]{s: s}
	s.synced(func() {
		if check != nil {
			if d.f = check(); d.f != nil {
				return
			}
		}
		op := fn()
		switch {
		case op.f != nil:
			d.f = op.f
		case len(op.recs) > 0:
			end, f := s.gc.appendLocked(s, op.recs)
			if f != nil {
				d.f = f
				return
			}
			d.res, d.wait, d.end, d.epoch = op.res, true, end, s.epoch
			s.gc.compactLocked(s)
		case op.durable:
			d.res, d.wait, d.end, d.epoch = op.res, true, s.lastEnd, s.epoch
		default:
			d.res = op.res
		}
	})
	return d
}

// checkLocked is what every call on a group's shard checks first: a
// coordinator (this node self for a coordinator request, spec C-35; any
// node for a group-admin call, self 0, which reaches the state in-process)
// that is not loading (C-36) unless anyLoad. The group's silent members
// are removed then (spec C-46).
func (gc *groupCoord) checkLocked(s *groupShard, group string, self int, anyLoad bool) *gfail {
	now := time.Now()
	switch {
	case self != 0 && s.node != self:
		return failNotCoordinator()
	case s.node == 0:
		return &gfail{report: wire.ReportNotCoordinator, eb: &wire.ErrorBody{Name: wire.ErrNotCoordinator,
			Tail: fmt.Sprintf("no coordinator for group %s: %s/%d has no leader", group, wire.GroupsTopic, s.idx)}}
	case !anyLoad && now.Before(s.loadUntil):
		return failLoading(s)
	}
	if g := s.groups[group]; g != nil {
		if recs := gc.expireLocked(s, g, now); len(recs) > 0 {
			gc.appendLocked(s, recs)
		}
	}
	return nil
}

// coordinate answers the coordinator request r on group with what fn
// decides on the group's shard, after the checks every coordinator
// request shares.
func coordinate(r *request, group string, fn func(s *groupShard) msgOp) {
	if !topicSessionOK(r, true) {
		return
	}
	if eb := validGroupName(group); eb != nil {
		r.fail(eb)
		return
	}
	gc, self := r.c.e.groups, r.c.nodeID()
	s := gc.shardOf(group)
	answer(r, withShard(s, func() *gfail { return gc.checkLocked(s, group, self, false) }, func() msgOp { return fn(s) }))
}

// administer runs a group-admin call on group's shard, from any node;
// anyLoad lets it read through a LOADING window (the Go API does).
func administer[T any](gc *groupCoord, group string, anyLoad bool, fn func(s *groupShard) shardOp[T]) shardDone[T] {
	if eb := validGroupName(group); eb != nil {
		return shardDone[T]{f: &gfail{eb: eb}}
	}
	s := gc.shardOf(group)
	return withShard(s, func() *gfail { return gc.checkLocked(s, group, 0, anyLoad) }, func() shardOp[T] { return fn(s) })
}

// answer completes a wire request with a call's outcome: its refusal, or
// its reply once it is replicated (replyAfterReplication).
func answer(r *request, d shardDone[wire.Message]) {
	switch {
	case d.f != nil:
		r.failWith(d.f)
	case d.wait:
		d.s.gc.replyAfterReplication(r, d.s, d.end, d.epoch, d.res)
	default:
		r.reply(d.res)
	}
}

// await is answer for the Go API: it blocks until the result is
// replicated, the leadership moves or the engine closes.
func await[T any](d shardDone[T]) (T, *gfail) {
	if d.f == nil && d.wait {
		d.f = d.s.gc.waitReplicated(d.s.p, d.end, d.epoch, d.s.gc.done)
	}
	if d.f != nil {
		var zero T
		return zero, d.f
	}
	return d.res, nil
}

// adminCall is a group-admin call from the Go API: fn on group's shard,
// reading through a LOADING window, waited for (await); a refusal is an
// *Error.
func adminCall[T any](gc *groupCoord, group string, fn func(s *groupShard) shardOp[T]) (T, error) {
	res, f := await(administer(gc, group, true, fn))
	if f != nil {
		return res, f.err()
	}
	return res, nil
}
