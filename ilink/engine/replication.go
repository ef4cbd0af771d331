package engine

// Queue replication. The leader applies a change to its own replica, then
// ships it as a commitOp to every online, in-sync follower inside the same
// queueStore critical section, before the request that caused it is
// answered: replication is synchronous, so killing the leader loses no
// committed message (contract "Replication"). A follower that was down or
// stopped is out of date (current=false) and receives nothing until it
// resyncs by copying the leader's committed state (copyFrom) — at once when
// it comes back under a leader, or when a leader is elected.
//
// Followers hold committed state only: locks and waiters live on the leader.
// A message locked by an open transaction is therefore still in every
// follower, which is what makes a leader kill roll that transaction back.

// commitOp is one committed change of the leader's queue state.
type commitOp struct {
	lsn       uint64
	creates   []string
	defines   []queueDef // create or re-configure (queue_admin.go)
	puts      []replPut  // appended in this order (sequence numbers increase)
	removes   []msgRef
	redeliver []redeliverRef // rollback returned these messages: their new count
	deletes   []string       // queues removed with their messages
}

type queueDef struct {
	name string
	cfg  QueueConfig
}

type redeliverRef struct {
	msgRef
	count int
}

type replPut struct {
	queue string
	m     message // a copy: followers never share the leader's lock state
}

type msgRef struct {
	queue string
	seq   uint64
}

// commitLocked counts a change the leader has applied to its own replica
// and ships it to the followers. Caller holds queueStore.mu.
func (s *queueStore) commitLocked(leader *replica, op *commitOp) {
	leader.lsn++
	op.lsn = leader.lsn
	if !leader.leading {
		return
	}
	for _, r := range s.reps {
		if r != leader && r.online && r.current && !r.leading {
			r.apply(op)
		}
	}
}

// apply applies a leader's change to a follower.
func (r *replica) apply(op *commitOp) {
	r.applyCreates(op)
	for _, ref := range op.removes {
		if q := r.queues[ref.queue]; q != nil {
			q.remove(ref.seq)
		}
	}
	for _, p := range op.puts {
		q := r.queues[p.queue]
		if q == nil { // cannot happen: creates are replicated first
			q = &queue{name: p.queue}
			r.queues[p.queue] = q
		}
		m := p.m
		m.lockedBy = nil
		q.msgs = append(q.msgs, &m)
		if m.seq >= r.nextSeq {
			r.nextSeq = m.seq + 1
		}
	}
	for _, ref := range op.redeliver {
		if q := r.queues[ref.queue]; q != nil {
			if m := q.find(ref.seq); m != nil {
				m.redeliveries = ref.count
			}
		}
	}
	for _, name := range op.deletes {
		delete(r.queues, name)
	}
	r.lsn = op.lsn
}

func (r *replica) applyCreates(op *commitOp) {
	for _, name := range op.creates {
		if r.queues[name] == nil {
			r.queues[name] = &queue{name: name}
		}
	}
	for _, d := range op.defines {
		q := r.queues[d.name]
		if q == nil {
			q = &queue{name: d.name}
			r.queues[d.name] = q
		}
		q.cfg = d.cfg
	}
}

// copyFrom replaces r's state by a copy of src's committed state (resync).
// Payloads and ids are immutable and shared.
func (r *replica) copyFrom(src *replica) {
	qs := make(map[string]*queue, len(src.queues))
	for name, sq := range src.queues {
		q := &queue{name: name, cfg: sq.cfg, msgs: make([]*message, len(sq.msgs))}
		for i, m := range sq.msgs {
			c := *m
			c.lockedBy = nil
			q.msgs[i] = &c
		}
		qs[name] = q
	}
	r.queues = qs
	r.lsn = src.lsn
	r.nextSeq = src.nextSeq
	r.current = true
}
