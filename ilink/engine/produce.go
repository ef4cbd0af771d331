package engine

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/bits"
	"time"

	"ilinkdash/ilink/wire"
)

// PRODUCE and INIT PRODUCER, producer connections only.
//
// The produce path is built to be cheap: the batches of a partition are
// validated from their plain headers (and CRC), copied out of the frame
// buffer once, stamped with base offset and leader epoch in place and
// appended under that partition's mutex alone. No decompression, nothing
// per record. acks=1 is answered by the reader goroutine right away;
// acks=all waits in the connection's async goroutine until the high
// watermark covers the batches and minSync replicas are in sync.
func init() {
	register(wire.CodeProduce, route{fn: handleProduce, modes: producerModes})
	register(wire.CodeInitProducer, route{fn: handleInitProducer, modes: producerModes})
}

var producerModes = []wire.SessionMode{wire.ModeProducer}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// handleInitProducer assigns a producer id, unique in the engine; its
// sequences start at 0 in every partition.
func handleInitProducer(r *request) {
	var req wire.InitProducerRequest
	if !r.decode(&req) {
		return
	}
	pid := r.c.e.topics.nextPID.Add(1)
	r.c.e.logf("engine: node %d: producer id %d for %q", r.c.nodeID(), pid, req.ClientName)
	r.reply(&wire.InitProducerReply{ProducerID: pid, Epoch: 0})
}

// pendingAck is one partition of an acks=all produce still waiting.
type pendingAck struct {
	p       *partition
	settled bool
	end     int64 // the high watermark must reach this
	lepoch  int32 // leader epoch at append; a change means the leader moved
	res     *wire.ProducePartitionResult
}

func handleProduce(r *request) {
	var req wire.ProduceRequest
	if !r.decode(&req) {
		return
	}
	e, sess := r.c.e, r.c.sess
	ts := e.topics
	if req.Acks != wire.AcksNone && req.Acks != wire.AcksLeader && req.Acks != wire.AcksAll {
		r.fail(&wire.ErrorBody{Name: wire.ErrInvalidArgument, Tail: fmt.Sprintf("acks %d (0, 1 or -1)", req.Acks)})
		return
	}
	node := r.c.nodeID()
	now := time.Now()
	nowMs, sec := now.UnixMilli(), now.Unix()
	fenced := sess.fenced.Load()
	fence := false
	rep := &wire.ProduceReply{Topics: make([]wire.ProduceTopicResult, len(req.Topics))}
	var pend []pendingAck
	for i := range req.Topics {
		pt := &req.Topics[i]
		tr := &rep.Topics[i]
		tr.Topic = pt.Topic
		tr.Partitions = make([]wire.ProducePartitionResult, len(pt.Partitions))
		t := ts.lookup(pt.Topic)
		for j := range pt.Partitions {
			pp := &pt.Partitions[j]
			res := &tr.Partitions[j]
			res.Partition = pp.Partition
			res.BaseOffset = -1
			p, perr := partitionOf(t, pt.Topic, pp.Partition)
			switch {
			case perr.Name != "":
				res.Err = perr
			case t.internal:
				res.Err = wire.PartError{Name: wire.ErrInvalidArgument, Tail: internalTopicRefusal(t.name)}
			case fenced:
				// spec P-35: once refused, always refused on this connection.
				res.Err = wire.PartError{Name: wire.ErrFollowerNode, Tail: "connection received a follower rejection; reopen it"}
				res.LeaderHint = uint16(leaderOf(p))
			default:
				out := ts.produceTo(p, node, pt.Epoch, false, pp.Batches, nowMs, sec)
				res.Err, res.LeaderHint = out.err, out.hint
				if out.follower {
					fence = true
				}
				if out.err.Name == "" {
					res.BaseOffset, res.LogAppendTime = out.base, nowMs
					if req.Acks == wire.AcksAll {
						pend = append(pend, pendingAck{p: p, end: out.end, lepoch: out.lepoch, res: res})
					}
				}
			}
		}
	}
	if fence {
		sess.fenced.Store(true)
	}
	if r.hdr.Flags&wire.FlagNoReply != 0 {
		r.finish(nil) // acks=0: handled, nothing is sent
		return
	}
	if len(pend) == 0 || ts.acksSettled(sess, pend, false, nil) {
		r.reply(rep)
		return
	}
	wait := time.Duration(r.hdr.TimeoutMs) * time.Millisecond
	if wait == 0 {
		wait = defaultProduceWait
	}
	r.async(func() {
		w := newPWaiter()
		t := time.NewTimer(wait)
		defer t.Stop()
		defer func() {
			for _, pa := range pend {
				pa.p.removeWaiter(w)
			}
		}()
		for {
			if ts.acksSettled(sess, pend, false, w) {
				r.reply(rep)
				return
			}
			select {
			case <-w.ch:
			case <-t.C:
				ts.acksSettled(sess, pend, true, nil)
				r.reply(rep)
				return
			case <-r.closing():
				return
			}
		}
	})
}

func leaderOf(p *partition) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.leader
}

// acksSettled checks the pending acks=all partitions; it reports whether
// all are settled (answered or failed). With final, the unsettled ones fail
// with MIMQE_NOT_ENOUGH_REPLICAS. A non-nil w is registered with every
// partition still unsettled, under the same lock as the check (no lost
// wake-up).
func (ts *topicStore) acksSettled(sess *session, pend []pendingAck, final bool, w *pwaiter) bool {
	all := true
	for i := range pend {
		pa := &pend[i]
		if pa.settled {
			continue
		}
		pa.p.mu.Lock()
		done := ts.settleLocked(sess, pa, final)
		if !done && w != nil {
			pa.p.addWaiterLocked(w)
		}
		pa.p.mu.Unlock()
		all = all && done
	}
	return all
}

// settleLocked decides one pending partition and marks it settled.
func (ts *topicStore) settleLocked(sess *session, pa *pendingAck, final bool) bool {
	p := pa.p
	minSync := p.t.config().minSync // re-read at every check: AlterTopic may change it
	inSync := bits.OnesCount64(p.isr)
	switch {
	case p.deleted:
		pa.res.Err = wire.PartError{Name: wire.ErrUnknownTopic, Tail: p.t.name}
	case p.leaderEpoch != pa.lepoch:
		// The leader moved while we waited: the batches may or may not
		// survive on the new leader. The producer resends them with the
		// same sequences, and the new leader de-duplicates.
		pa.res.Err = wire.PartError{Name: wire.ErrFollowerNode, Tail: fmt.Sprintf("%s/%d leader moved to node %d", p.t.name, p.id, p.leader)}
		pa.res.LeaderHint = uint16(p.leader)
		sess.fenced.Store(true)
	case p.hw >= pa.end && inSync >= minSync:
		pa.settled = true
		return true
	case final:
		tail := fmt.Sprintf("%s/%d: %d of %d replicas in sync, minSync %d", p.t.name, p.id, inSync, len(p.reps), minSync)
		if inSync >= minSync {
			tail = fmt.Sprintf("%s/%d: high watermark %d below %d after the produce timeout", p.t.name, p.id, p.hw, pa.end)
		}
		pa.res.Err = wire.PartError{Name: wire.ErrNotEnoughReplicas, Tail: tail}
	default:
		return false
	}
	pa.res.BaseOffset = -1
	pa.settled = true
	return true
}

// produceOutcome is produceTo's answer for one partition.
type produceOutcome struct {
	err      wire.PartError
	hint     uint16
	follower bool  // refused because this node does not lead
	base     int64 // offset of the first record of the first batch
	end      int64 // offset after the last record of the last batch
	lepoch   int32
}

// batchSpan is one validated batch of a produce blob.
type batchSpan struct {
	off, n int
	h      wire.BatchHeader
}

// produceTo appends the batches of one partition. A normal produce must
// arrive at the leader node at the producer's topic epoch; a forwarded
// one (admin PUBLISH) goes to whichever node leads and skips the epoch.
func (ts *topicStore) produceTo(p *partition, node int, epoch int32, forwarded bool, blob []byte, nowMs, sec int64) produceOutcome {
	var stack [8]batchSpan
	spans, perr := splitProduceBlob(blob, stack[:0])
	if perr != "" {
		return produceOutcome{err: wire.PartError{Name: wire.ErrInvalidArgument, Tail: perr}}
	}
	// The one copy: out of the frame buffer into memory the log keeps.
	buf := make([]byte, len(blob))
	copy(buf, blob)

	var out produceOutcome
	var records, nbytes int64
	p.mu.Lock()
	switch {
	case p.deleted:
		out.err = wire.PartError{Name: wire.ErrUnknownTopic, Tail: p.t.name}
	case p.leader == 0:
		if forwarded {
			out.err = wire.PartError{Name: wire.ErrNoLeader, Tail: fmt.Sprintf("%s/%d is offline", p.t.name, p.id)}
		} else {
			out.err = wire.PartError{Name: wire.ErrFollowerNode, Tail: fmt.Sprintf("%s/%d has no leader", p.t.name, p.id)}
			out.follower = true
		}
	case !forwarded && p.leader != node:
		out.err = wire.PartError{Name: wire.ErrFollowerNode, Tail: fmt.Sprintf("node %d does not lead %s/%d; node %d does", node, p.t.name, p.id, p.leader)}
		out.hint, out.follower = uint16(p.leader), true
	case !forwarded && epoch != p.tEpoch:
		if epoch < p.flushEpoch {
			out.err = wire.PartError{Name: wire.ErrTopicFlushed, Tail: fmt.Sprintf("%s epoch %d, flushed at epoch %d", p.t.name, epoch, p.flushEpoch)}
		} else {
			out.err = wire.PartError{Name: wire.ErrTopicEpochMismatch, Tail: fmt.Sprintf("%s epoch %d, current %d", p.t.name, epoch, p.tEpoch)}
		}
	default:
		L := p.rep(p.leader).log
		start := L.end
		out.base, out.lepoch = -1, p.leaderEpoch
		for i := range spans {
			s := &spans[i]
			v := L.checkSeq(&s.h, p.tEpoch)
			if ts.e.cfg.PlantedBugNoDedup {
				v = seqVerdict{} // the chaos checker's planted bug: every batch is new
			}
			if v.err != "" {
				name := wire.ErrOutOfOrderSequence
				if v.unknown {
					name = wire.ErrUnknownProducerID
				}
				out.err = wire.PartError{Name: name, Tail: v.err}
				break
			}
			if v.dup {
				if out.base < 0 {
					out.base = v.dupRange.base
				}
				out.end = max(out.end, v.dupRange.next)
				continue
			}
			b := buf[s.off : s.off+s.n : s.off+s.n]
			wire.SetBatchBaseOffset(b, L.end)
			wire.SetBatchLeaderEpoch(b, p.leaderEpoch)
			s.h.BaseOffset, s.h.LeaderEpoch = L.end, p.leaderEpoch
			en := logEntry{b: b, base: L.end, next: L.end + int64(s.h.RecordCount), appendMs: nowMs, tEpoch: p.tEpoch}
			L.add(en, &s.h)
			if out.base < 0 {
				out.base = en.base
			}
			out.end = en.next
			records += int64(s.h.RecordCount)
			nbytes += int64(s.n)
		}
		if L.end != start {
			ts.appendedLocked(p, start)
			ts.advanceHWLocked(p)
			if rb := p.t.config().retentionBytes; rb > 0 {
				trimBytes(L, p.hw, rb)
			}
		}
	}
	p.mu.Unlock()
	if records > 0 {
		p.t.stats.addIn(sec, records, nbytes)
		ts.qmStats.addIn(sec, records, nbytes)
	}
	return out
}

// splitProduceBlob validates the batches of a produce partition: whole
// batches back to back, each with a valid header, a matching CRC and at
// least one record. It returns a reason on failure.
func splitProduceBlob(b []byte, spans []batchSpan) ([]batchSpan, string) {
	if len(b) == 0 {
		return nil, "no record batch"
	}
	off := 0
	for off < len(b) {
		rest := b[off:]
		if len(rest) < wire.BatchHeaderSize {
			return nil, fmt.Sprintf("batch %d: %d bytes, shorter than a batch header", len(spans), len(rest))
		}
		n := int(int32(binary.BigEndian.Uint32(rest[8:12]))) + 12
		if n < wire.BatchHeaderSize || n > len(rest) {
			return nil, fmt.Sprintf("batch %d: length %d does not fit the %d bytes left", len(spans), n, len(rest))
		}
		h, err := wire.ParseBatchHeader(rest[:n])
		if err != nil {
			return nil, fmt.Sprintf("batch %d: %v", len(spans), err)
		}
		if h.RecordCount == 0 {
			return nil, fmt.Sprintf("batch %d: no records", len(spans))
		}
		if crc := crc32.Checksum(rest[21:n], castagnoli); crc != h.CRC {
			return nil, fmt.Sprintf("batch %d: crc 0x%08x, computed 0x%08x", len(spans), h.CRC, crc)
		}
		spans = append(spans, batchSpan{off: off, n: n, h: h})
		off += n
	}
	return spans, ""
}

// appendedLocked tells p's followers that its leader log grew from start:
// followers that had everything until now were in sync up to this instant
// (their lag is measured from here), and all of them are woken to fetch.
// p.mu is held.
func (ts *topicStore) appendedLocked(p *partition, start int64) {
	if p.followerMaskLocked() == 0 {
		return
	}
	now := ts.mono()
	for _, r := range p.reps {
		if r.node != p.leader && r.log.end == start {
			r.caughtUp = now
		}
	}
	ts.kickFollowersLocked(p)
}
