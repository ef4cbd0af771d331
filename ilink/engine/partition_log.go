package engine

import (
	"fmt"
	"sort"

	"ilinkdash/ilink/wire"
)

// One replica's log of one partition. A log is a list of record batches
// exactly as producers sent them: the engine only stamps each batch's base
// offset and leader epoch (fields the CRC does not cover) and never
// decompresses on the produce path. A stored batch is immutable from then
// on, so replicas share its bytes: replication copies entries (slice
// headers), not data, and a fetch hands the same bytes to the encoder.
//
// A partLog is owned by its partition's mutex (partition.mu).

// logEntry is one stored batch.
type logEntry struct {
	b        []byte // the whole batch, stamped; never written again
	base     int64  // offset of its first record
	next     int64  // base + recordCount: offset after its last record
	appendMs int64  // wall-clock time the leader appended it (retention.ms)
	tEpoch   int32  // topic epoch it was appended in (scopes producer sequences)
}

type partLog struct {
	// ents holds the live entries at ents[head:]. Bound (issue 21): the
	// dropped prefix is reclaimed once it is at least logCompactMin entries
	// and a quarter of the live part, and the array is reallocated when
	// its capacity passes 2 × live + 4 × logCompactMin, so under a steady
	// load the array holds at most 2 × live + 256 entries (56 B each)
	// whatever the log's age (TestPartLogEntriesBoundedByLive).
	ents  []logEntry
	head  int   // entries before head were dropped by retention or compaction
	start int64 // log start offset
	end   int64 // log end offset: the next offset to assign
	bytes int64 // bytes of the live entries

	// producers is the idempotence state rebuilt from the batches this
	// replica holds, so whichever replica leads de-duplicates the same way.
	// Bound (issue 21): a producer id whose last batch left the log (by
	// retention or compaction) is forgotten, as Kafka evicts unretained
	// producers when the log start moves, so the map holds at most one
	// state per producer with a batch in the log, not one per producer
	// that ever wrote (every `publish`, every restarted client). Such a
	// producer's next batch gets MIMQE_UNKNOWN_PRODUCER_ID, and the client
	// takes a new id (ilink/sink.go, outUnknownID); a resend of a batch
	// that expired cannot be recognised anyway.
	producers map[int64]*prodState

	// syncedEpoch (followers) is the partition leader epoch this log was
	// last reconciled with; a different epoch makes the follower check its
	// log against the new leader's before it pulls (replication_topics.go).
	syncedEpoch int32
}

func newPartLog(start int64) *partLog {
	return &partLog{start: start, end: start, syncedEpoch: -1}
}

// live returns the retained entries.
func (l *partLog) live() []logEntry { return l.ents[l.head:] }

// find returns the index in live() of the entry holding offset off, or -1
// if no live entry holds it.
func (l *partLog) find(off int64) int {
	es := l.live()
	i := sort.Search(len(es), func(i int) bool { return es[i].base > off }) - 1
	if i < 0 || off >= es[i].next {
		return -1
	}
	return i
}

// boundary returns the index in live() of the entry starting at off, or
// len(live()) when off is the log end, or -1 when off is neither.
func (l *partLog) boundary(off int64) int {
	es := l.live()
	if off == l.end {
		return len(es)
	}
	i := sort.Search(len(es), func(i int) bool { return es[i].base >= off })
	if i < len(es) && es[i].base == off {
		return i
	}
	return -1
}

// add appends a stamped entry and updates the producer state.
func (l *partLog) add(e logEntry, h *wire.BatchHeader) {
	l.ents = append(l.ents, e)
	l.end = e.next
	l.bytes += int64(len(e.b))
	l.observe(&e, h)
}

// reset empties the log; it restarts at off.
func (l *partLog) reset(off int64) {
	l.ents, l.head = nil, 0
	l.start, l.end, l.bytes = off, off, 0
	l.producers = nil
	l.syncedEpoch = -1
}

// dropHead removes the first n live entries (retention).
func (l *partLog) dropHead(n int) {
	es := l.live()
	for i := 0; i < n; i++ {
		l.bytes -= int64(len(es[i].b))
		es[i] = logEntry{} // release the bytes
	}
	l.head += n
	if l.head == len(l.ents) {
		l.ents, l.head = l.ents[:0], 0
		if cap(l.ents) > logCompactMin {
			l.ents = nil
		}
		l.start = l.end
		l.evictUnretained()
		return
	}
	l.start = l.ents[l.head].base
	l.evictUnretained()
	// Reclaim the dropped prefix once it is worth a copy of the live part,
	// so ents does not grow under a steady produce-and-expire load (the
	// bound at partLog.ents): each live entry is copied at most 4 times
	// per log turnover.
	if live := len(l.ents) - l.head; l.head >= logCompactMin && 4*l.head >= live {
		if cap(l.ents) > 2*live+4*logCompactMin {
			// A burst, a lag or a shorter retention left a large array.
			// The new one has room for the next reclaim's prefix, and
			// even rounded up to its size class it stays below the
			// threshold, so a steady log is not reallocated again.
			ents := make([]logEntry, live, live+live/4+2*logCompactMin)
			copy(ents, l.ents[l.head:])
			l.ents = ents
		} else {
			n := copy(l.ents, l.ents[l.head:])
			clear(l.ents[n:])
			l.ents = l.ents[:n]
		}
		l.head = 0
	}
}

// logCompactMin is the dropped prefix of a log's entry array worth
// reclaiming (partLog.ents). It was 1,024: with a few hundred live
// batches per replica, every log then carried over a thousand dead slots
// (56 B each), which the issue-21 soak saw as partLog.add growing by
// 1.5 MiB in its fault-free last minute, as the logs of ORDER.EVENT's
// new partitions filled theirs.
const logCompactMin = 64

// evictUnretained forgets the producers whose last batch is below the log
// start (the bound at partLog.producers).
func (l *partLog) evictUnretained() {
	for id, st := range l.producers {
		if st.n == 0 || st.win[(st.pos+dedupWindow-1)%dedupWindow].next <= l.start {
			delete(l.producers, id)
		}
	}
}

// truncate drops every entry from index i of live() on; the log then ends
// where entry i started. Producer state is rebuilt from what is left.
func (l *partLog) truncate(i int) {
	es := l.live()
	if i >= len(es) {
		return
	}
	l.end = es[i].base
	for j := i; j < len(es); j++ {
		l.bytes -= int64(len(es[j].b))
		es[j] = logEntry{}
	}
	l.ents = l.ents[:l.head+i]
	l.rebuildProducers()
}

func (l *partLog) rebuildProducers() {
	l.producers = nil
	for i := range l.live() {
		e := &l.live()[i]
		if h, err := wire.ParseBatchHeader(e.b); err == nil {
			l.observe(e, &h)
		}
	}
}

// ---- idempotence ----

// dedupWindow is the number of batches remembered per (producer id,
// partition): a resend of any of them is recognised as a duplicate.
const dedupWindow = 5

type seqRange struct {
	first, last int32 // sequences of the batch's first and last record
	base, next  int64 // offsets the batch got
}

// prodState is one producer id's state in one partition.
type prodState struct {
	tEpoch int32 // topic epoch; a new topic epoch starts the producer afresh
	pEpoch int16
	next   int32 // next expected sequence
	win    [dedupWindow]seqRange
	n      int // valid window entries
	pos    int // next window slot to overwrite
}

// seqAdd adds to a sequence number, wrapping from MaxInt32 to 0 as Kafka
// does.
func seqAdd(seq int32, n int64) int32 {
	return int32((int64(seq) + n) % (1 << 31))
}

// seqVerdict is checkSeq's answer.
type seqVerdict struct {
	dup      bool
	dupRange seqRange // the original batch, when dup
	err      string   // tail of MIMQE_OUT_OF_ORDER_SEQUENCE, when non-empty
	unknown  bool     // with err: MIMQE_UNKNOWN_PRODUCER_ID instead
}

// checkSeq decides whether the leader may append batch h in topic epoch
// tEpoch (spec P-25; kfake's pushAndValidate): a batch of the window is a
// duplicate, a new producer id (or a new producer epoch, or a new topic
// epoch) must start at sequence 0, anything else must be the next
// sequence. A producer id the replica knows nothing of that does not start
// at 0 is unknown (MIMQE_UNKNOWN_PRODUCER_ID): its state was lost.
func (l *partLog) checkSeq(h *wire.BatchHeader, tEpoch int32) seqVerdict {
	if h.ProducerID < 0 {
		return seqVerdict{}
	}
	if h.BaseSequence < 0 {
		return seqVerdict{err: fmt.Sprintf("producer %d sent sequence %d", h.ProducerID, h.BaseSequence)}
	}
	st := l.producers[h.ProducerID]
	if st == nil && h.BaseSequence != 0 {
		// The replica holds nothing of this producer id (its batches were
		// lost with every replica of the partition, or truncated away):
		// the producer must start afresh with a new id.
		return seqVerdict{unknown: true, err: fmt.Sprintf("partition holds no state of producer %d (sequence %d): initialise a new producer id", h.ProducerID, h.BaseSequence)}
	}
	if st != nil && st.tEpoch != tEpoch {
		st = nil
	}
	if st == nil || h.ProducerEpoch > st.pEpoch {
		if h.BaseSequence != 0 {
			return seqVerdict{err: fmt.Sprintf("producer %d epoch %d must start at sequence 0, got %d", h.ProducerID, h.ProducerEpoch, h.BaseSequence)}
		}
		return seqVerdict{}
	}
	if h.ProducerEpoch < st.pEpoch {
		return seqVerdict{err: fmt.Sprintf("producer %d epoch %d is fenced by epoch %d", h.ProducerID, h.ProducerEpoch, st.pEpoch)}
	}
	last := seqAdd(h.BaseSequence, int64(h.RecordCount)-1)
	for i := 0; i < st.n; i++ {
		if w := st.win[i]; w.first == h.BaseSequence && w.last == last {
			return seqVerdict{dup: true, dupRange: w}
		}
	}
	if h.BaseSequence != st.next {
		return seqVerdict{err: fmt.Sprintf("producer %d expected sequence %d, got %d", h.ProducerID, st.next, h.BaseSequence)}
	}
	return seqVerdict{}
}

// observe records an appended batch in the producer state. Leaders call it
// after checkSeq accepted the batch; followers for every batch they pull,
// which is how a new leader knows the window.
func (l *partLog) observe(e *logEntry, h *wire.BatchHeader) {
	if h.ProducerID < 0 || h.BaseSequence < 0 {
		return
	}
	if l.producers == nil {
		l.producers = map[int64]*prodState{}
	}
	st := l.producers[h.ProducerID]
	if st == nil || st.tEpoch != e.tEpoch || h.ProducerEpoch != st.pEpoch {
		if st == nil {
			st = &prodState{}
			l.producers[h.ProducerID] = st
		}
		*st = prodState{tEpoch: e.tEpoch, pEpoch: h.ProducerEpoch}
	}
	last := seqAdd(h.BaseSequence, int64(h.RecordCount)-1)
	st.win[st.pos] = seqRange{first: h.BaseSequence, last: last, base: e.base, next: e.next}
	st.pos = (st.pos + 1) % dedupWindow
	if st.n < dedupWindow {
		st.n++
	}
	st.next = seqAdd(last, 1)
}
