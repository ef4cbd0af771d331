package engine

import (
	"errors"
	"fmt"
	"time"

	"ilinkdash/ilink/wire"
)

// FETCH: consumers read from partition leaders only (others answer
// MIMQE_FOLLOWER_NODE with the leader's id); admin connections are served
// from the leader wherever it is (forwarded in-process, spec A-05). Only
// records below the high watermark are returned, as whole stored batches;
// the first may start before the requested offset and the client skips
// the records below it. A fetch is a long-poll: with fewer than MinBytes
// available it waits (watchers on the partitions, woken when a high
// watermark moves) up to the header's timeout_ms.
func init() {
	register(wire.CodeFetch, route{fn: handleFetch, modes: fetchModes})
}

var fetchModes = []wire.SessionMode{wire.ModeConsumer, wire.ModeAdmin}

// topicSessionOK refuses topic requests on a node whose queue manager is
// stopped (its admin listener stays up; spec A-21) and topic consumption
// by consumers older than protocol v2 (spec C-43).
func topicSessionOK(r *request, consume bool) bool {
	e := r.c.e
	if !e.topics.isRunning(r.c.nodeID()) {
		r.fail(&wire.ErrorBody{Name: wire.ErrQmgrNotRunning, Tail: e.cfg.QueueManager})
		return false
	}
	if consume && r.c.sess.mode == wire.ModeConsumer && r.c.sess.proto < wire.ConsumerProtocolV2 {
		r.failReport(wire.ReportUnsupported, &wire.ErrorBody{Name: wire.ErrUnsupported, Tail: "consumer protocol v2 - upgrade client"})
		return false
	}
	return true
}

func handleFetch(r *request) {
	var req wire.FetchRequest
	if !r.decode(&req) || !topicSessionOK(r, true) {
		return
	}
	ts := r.c.e.topics
	node, forwarded := r.c.nodeID(), r.c.sess.mode == wire.ModeAdmin
	out, total, errs := ts.fetchOnce(node, forwarded, &req, nil)
	wait := time.Duration(r.hdr.TimeoutMs) * time.Millisecond
	if errs || total >= int(req.MinBytes) || wait == 0 {
		ts.replyFetch(r, out)
		return
	}
	// The read is pending until its reply is final; a LEAVE of one of its
	// topics on this connection meanwhile is refused (spec T-22).
	reads := &r.c.sess.reads
	reads.add(&req)
	r.async(func() {
		w := newPWaiter()
		t := time.NewTimer(wait)
		defer t.Stop()
		defer ts.unwatch(&req, w)
		reply := func(out *fetchReply) {
			reads.remove(&req)
			ts.replyFetch(r, out)
		}
		for {
			out, total, errs := ts.fetchOnce(node, forwarded, &req, w)
			if errs || total >= int(req.MinBytes) {
				reply(out)
				return
			}
			select {
			case <-w.ch:
			case <-t.C:
				out, _, _ := ts.fetchOnce(node, forwarded, &req, nil)
				reply(out)
				return
			case <-r.closing():
				reads.remove(&req)
				return
			}
		}
	})
}

// fetchOnce reads what the request may get now. With w it also registers
// w on every partition it read, under the same lock (no lost wake-up).
func (ts *topicStore) fetchOnce(node int, forwarded bool, req *wire.FetchRequest, w *pwaiter) (out *fetchReply, total int, errs bool) {
	out = &fetchReply{topics: make([]fetchTopic, len(req.Topics))}
	maxTotal := int(req.MaxBytes)
	for i := range req.Topics {
		ft := &req.Topics[i]
		ot := &out.topics[i]
		ot.topic = ft.Topic
		ot.parts = make([]fetchPart, len(ft.Partitions))
		t := ts.lookup(ft.Topic)
		for j := range ft.Partitions {
			fp := &ft.Partitions[j]
			po := &ot.parts[j]
			po.partition, po.hw, po.start = fp.Partition, -1, -1
			if p, perr := partitionOf(t, ft.Topic, fp.Partition); perr.Name != "" {
				po.err = perr
			} else {
				po.t = t
				p.mu.Lock()
				ts.readLocked(p, node, forwarded, fp, po, maxTotal, &total)
				if w != nil && po.err.Name == "" {
					p.addWaiterLocked(w)
				}
				p.mu.Unlock()
			}
			if po.err.Name != "" {
				errs = true
			}
		}
	}
	return out, total, errs
}

// readLocked fills po from p's leader log. MaxBytes is respected, except
// that the first batch of the response is always whole, and a partition's
// first batch may exceed that partition's MaxBytes when it fits the total.
func (ts *topicStore) readLocked(p *partition, node int, forwarded bool, fp *wire.FetchPartition, po *fetchPart, maxTotal int, total *int) {
	switch {
	case p.deleted:
		po.err = wire.PartError{Name: wire.ErrUnknownTopic, Tail: p.t.name}
		return
	case p.leader == 0:
		po.err = wire.PartError{Name: wire.ErrFollowerNode, Tail: fmt.Sprintf("%s/%d has no leader", p.t.name, p.id)}
		return
	case !forwarded && p.leader != node:
		po.err = wire.PartError{Name: wire.ErrFollowerNode, Tail: fmt.Sprintf("node %d does not lead %s/%d; node %d does", node, p.t.name, p.id, p.leader)}
		po.hint = uint16(p.leader)
		return
	}
	L := p.rep(p.leader).log
	po.hw, po.start = p.hw, L.start
	off := fp.Offset
	if off < L.start || off > L.end {
		po.err = wire.PartError{Name: wire.ErrOffsetOutOfRange, Tail: fmt.Sprintf("offset %d outside %d..%d", off, L.start, p.hw)}
		return
	}
	if off >= p.hw {
		return
	}
	i := L.find(off)
	if i < 0 {
		return
	}
	maxPart := int(fp.MaxBytes)
	for _, en := range L.live()[i:] {
		if en.next > p.hw {
			break
		}
		sz := len(en.b)
		fitsTotal := maxTotal <= 0 || *total+sz <= maxTotal
		fitsPart := maxPart <= 0 || po.size+sz <= maxPart
		first := len(po.batches) == 0
		if !(*total == 0 || (fitsTotal && (fitsPart || first))) {
			break
		}
		po.batches = append(po.batches, en.b)
		po.size += sz
		*total += sz
		po.records += en.next - max(en.base, off)
	}
}

// unwatch removes w from every partition of the request.
func (ts *topicStore) unwatch(req *wire.FetchRequest, w *pwaiter) {
	for i := range req.Topics {
		t := ts.lookup(req.Topics[i].Topic)
		if t == nil {
			continue
		}
		for _, fp := range req.Topics[i].Partitions {
			if ps := t.partitions(); fp.Partition >= 0 && int(fp.Partition) < len(ps) {
				ps[fp.Partition].removeWaiter(w)
			}
		}
	}
}

// replyFetch sends the reply, encoded straight from the stored batches
// into one frame, and counts the traffic out.
func (ts *topicStore) replyFetch(r *request, out *fetchReply) {
	size, batchBytes := 64, 0
	sec := time.Now().Unix()
	for i := range out.topics {
		ot := &out.topics[i]
		size += len(ot.topic) + 8
		var recs, nbytes int64
		for j := range ot.parts {
			po := &ot.parts[j]
			size += 48 + len(po.err.Name) + len(po.err.Tail) + po.size
			recs += po.records
			nbytes += int64(po.size)
			batchBytes += po.size
			if ot.parts[j].t != nil && po.records > 0 {
				po.t.stats.addOut(sec, po.records, int64(po.size))
			}
		}
		if recs > 0 {
			ts.qmStats.addOut(sec, recs, nbytes)
		}
	}
	h := wire.Header{Flags: wire.FlagResponse, Code: r.hdr.Code, Corr: r.hdr.Corr}
	r.finishPieces(out.pieces(h, size-batchBytes))
}

// pieces is the reply frame as the writer sends it in one vectored write:
// the fields, written into one buffer (of fieldSize, a bound), cut where
// a partition's batches go, and the stored batches themselves between
// the cuts, never copied (a batch is immutable once in the log). Their
// concatenation is the frame Encode would give.
func (m *fetchReply) pieces(h wire.Header, fieldSize int) [][]byte {
	w := wire.Writer{B: make([]byte, wire.HeaderSize, wire.HeaderSize+fieldSize)}
	var pieces [][]byte
	cut, total := 0, 0
	m.encode(&w, func(batches [][]byte) {
		pieces = append(pieces, w.B[cut:len(w.B):len(w.B)])
		total += len(w.B) - cut
		cut = len(w.B)
		for _, b := range batches {
			pieces = append(pieces, b)
			total += len(b)
		}
	})
	if cut < len(w.B) || len(pieces) == 0 {
		pieces = append(pieces, w.B[cut:])
		total += len(w.B) - cut
	}
	h.Length = uint32(total)
	wire.PutHeader(pieces[0], h) // the first piece starts with the header's room
	return pieces
}

// fetchReply is wire.FetchReply with each partition's batches kept as the
// stored slices: Encode writes the same bytes FetchReply.Encode would for
// their concatenation, without building it first.
type fetchReply struct{ topics []fetchTopic }

type fetchTopic struct {
	topic string
	parts []fetchPart
}

type fetchPart struct {
	partition int32
	err       wire.PartError
	hw, start int64
	hint      uint16
	batches   [][]byte
	size      int    // bytes in batches
	records   int64  // records at or after the fetch offset (stats)
	t         *topic // for stats; nil for an unknown topic
}

func (m *fetchReply) Encode(w *wire.Writer) {
	m.encode(w, func(batches [][]byte) {
		for _, b := range batches {
			w.Raw(b)
		}
	})
}

// encode writes the reply's fields, and hands each partition's stored
// batches to batches where their bytes go.
func (m *fetchReply) encode(w *wire.Writer, batches func([][]byte)) {
	w.ArrayLen(len(m.topics))
	for i := range m.topics {
		t := &m.topics[i]
		w.String(t.topic)
		w.ArrayLen(len(t.parts))
		for j := range t.parts {
			p := &t.parts[j]
			w.I32(p.partition)
			w.String(p.err.Name)
			w.String(p.err.Tail)
			w.I64(p.hw)
			w.I64(p.start)
			w.U16(p.hint)
			if len(p.batches) == 0 {
				w.Bytes(nil)
				continue
			}
			w.Uvarint(uint64(p.size) + 1)
			batches(p.batches)
		}
	}
}

// Decode is not used: the engine only sends fetch replies.
func (m *fetchReply) Decode(r *wire.Reader) {
	r.Fail(errors.New("engine: fetchReply is encode-only; decode into wire.FetchReply"))
}
