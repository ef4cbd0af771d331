package ilink

import (
	"fmt"
	"sync"
	"time"

	"ilinkdash/ilink/wire"
)

// The accumulator: one partBuf per (topic, partition) holding its
// unacknowledged batches, oldest first (franz-go's recBuf).
//
// Batch life: open (records are appended under partBuf.mu) → closed (full,
// or frozen by the sink) → frozen (sequence assigned, compressed once into
// wire bytes that every resend reuses) → in flight → acknowledged (removed,
// callbacks run, recycled) or back to "frozen, not in flight" for a resend.
// In-flight batches are always a prefix of partBuf.batches: a partition
// sends in order, and any failure stops it (a rewind) until every
// in-flight batch has come back; then it resends from its oldest batch.
// Which of these phases a partition is in is its partState, moved by the
// table partSteps (below partBuf.take).

// recEntry is the completion state of one record (no closure per record).
type recEntry struct {
	cb   func(RecordMetadata, error)
	fut  *Future
	ts   int64 // Unix nanoseconds
	size int32 // key and value bytes (RecordMetadata.Size)
}

// batch is one partition batch.
type batch struct {
	pb       *partBuf
	bb       wire.BatchBuilder
	recs     []recEntry
	bytes    int64 // buffer memory held
	created  time.Time
	deadline time.Time

	closed bool // no more appends
	urgent bool // sendable without linger (SendSync)
	large  bool // a single record over 1 MiB: travels alone (spec P-32)

	frozen   []byte // wire bytes once frozen
	seq      int32  // base sequence (idempotent), assigned at freeze
	pid      int64  // producer id and epoch it is stamped with (idempotent), set with seq
	pepoch   int16
	gen      uint32 // generation of that producer id (Producer.ident)
	epoch    int32  // topic epoch it travels with, fixed at freeze (idempotent)
	newEpoch bool   // refused for its epoch, idempotence off: resend at the current one
	inflight bool
	sent     bool  // was handed to a connection at least once
	maybe    bool  // an attempt's outcome is unknown (the engine may have it)
	tries    int   // counted retries (spec: Retries)
	drops    int   // connection drops in a row while in flight (retry protection)
	lastErr  error // last failure, for the delivery-timeout error
}

var batchPool = sync.Pool{New: func() any { return new(batch) }}

func (p *Producer) newBatch(pb *partBuf, now time.Time) *batch {
	b := batchPool.Get().(*batch)
	b.pb = pb
	// Idempotent batches get their producer id, epoch and sequence at
	// freeze (partBuf.take), the id being the one current then.
	b.bb.Reset(-1, -1, -1)
	// Room for what the partition's last batch held (pb.mu is held): a
	// steady stream fills its batch without regrowing it by copies. Sized
	// by that batch, not by the limit, so a quiet partition's stays small.
	b.bb.Grow(pb.lastSize)
	if cap(b.recs) < pb.lastCount {
		b.recs = make([]recEntry, 0, pb.lastCount)
	}
	b.created = now
	b.deadline = now.Add(p.cfg.deliveryTimeout)
	b.seq = -1
	return b
}

func (b *batch) recycle() {
	clear(b.recs)
	bb, frozen := b.bb, b.frozen[:0]
	if bb.Cap() == 0 {
		// Taken uncompressed: the next batch is encoded into this one's
		// memory, so a batch in flight holds one buffer, not two.
		bb.Give(frozen)
		frozen = nil
	}
	*b = batch{bb: bb, recs: b.recs[:0], frozen: frozen}
	batchPool.Put(b)
}

// wireSize bounds the batch's size in a request: its frozen bytes, or its
// uncompressed size (freeze never produces more).
func (b *batch) wireSize() int {
	if len(b.frozen) > 0 {
		return len(b.frozen)
	}
	return b.bb.EncodedSize()
}

// freeze encodes the batch once, stamped with its sequence (one CRC):
// compressed with codec unless that does not shrink it, else uncompressed
// where the builder encoded it (no copy; the builder takes the frozen
// buffer's memory in exchange).
func (b *batch) freeze(codec wire.Codec, idempotent bool) error {
	if idempotent {
		b.bb.SetProducer(b.pid, b.pepoch, b.seq)
	}
	if codec != wire.CodecNone {
		out, err := b.bb.AppendTo(b.frozen[:0], codec)
		if err != nil {
			return err
		}
		if len(out) <= b.bb.EncodedSize() {
			b.frozen = out
			return nil
		}
		b.frozen = out[:0]
	}
	out, err := b.bb.TakeUncompressed(b.frozen[:0])
	if err != nil {
		return err
	}
	b.frozen = out
	return nil
}

func (b *batch) timeoutError(d time.Duration) error {
	tail := fmt.Sprintf("%d records of %s[%d] not acknowledged within %v", len(b.recs), b.pb.t.name, b.pb.id, d)
	if b.lastErr != nil {
		tail += "; last error: " + b.lastErr.Error()
	} else if !b.sent {
		tail += " (never sent: no leader or no connection)"
	}
	return &Error{Name: NameDeliveryTimeout, Tail: tail, Kind: KindSession, cause: b.lastErr}
}

// partBuf is the buffer of one partition.
type partBuf struct {
	p  *Producer
	t  *topicState
	id int32

	mu           sync.Mutex
	batches      []*batch // unacknowledged, oldest first; the last may be open
	lastSize     int      // encoded size of the batch frozen last (newBatch)
	lastCount    int      // and its records
	sink         *sink    // the leader's sink; nil while the leader is unknown
	leader       uint16
	inflight     int       // batches in flight (a prefix of batches)
	inflightOn   *sink     // the sink they are in flight on
	accepted     bool      // a batch was accepted under the current producer id (spec P-34)
	state        partState // the resend phase (partSteps)
	seqEpoch     int32     // topic epoch of the sequence space: the engine restarts at 0 in a new one
	nextSeq      int32
	seqUnsure    int32  // >= 0: a batch at this sequence (of seqEpoch) failed without a known outcome
	idGen        uint32 // generation of the producer id its sequences belong to
	backoffUntil time.Time
	linger       *time.Timer
}

func (pb *partBuf) currentSink() *sink {
	pb.mu.Lock()
	defer pb.mu.Unlock()
	return pb.sink
}

// append adds one record whose buffer memory (size bytes) is reserved.
func (pb *partBuf) append(key, value []byte, headers []wire.RecordHeader, ts int64, size int, cb func(RecordMetadata, error), fut *Future, urgent bool) {
	p := pb.p
	limit := pb.t.batchLimit
	large := size > largeRecordBytes
	wake := false
	tsMs := ts / int64(time.Millisecond)

	pb.mu.Lock()
	if p.stopped.Load() {
		// Close has swept the buffers (under this lock): fail here.
		pb.mu.Unlock()
		p.release(int64(size))
		md := RecordMetadata{Topic: pb.t.name, Partition: pb.id, Offset: -1, Timestamp: time.Unix(0, ts), Size: len(key) + len(value)}
		p.stErrors.Add(1)
		if cb != nil {
			cb(md, producerClosedError())
		}
		if fut != nil {
			fut.complete(md, producerClosedError())
		}
		return
	}
	var b *batch
	if n := len(pb.batches); n > 0 && !pb.batches[n-1].closed {
		b = pb.batches[n-1]
		if large || !b.fits(tsMs, key, value, headers, size, limit) {
			b.closed = true // spec P-10: the next record would overflow it
			wake = true
			b = nil
		}
	}
	fresh := b == nil
	if fresh {
		b = p.newBatch(pb, time.Now()) // the clock is read once per batch, not per record
		pb.batches = append(pb.batches, b)
	}
	b.bb.Append(tsMs, key, value, headers)
	b.recs = append(b.recs, recEntry{cb: cb, fut: fut, ts: ts, size: int32(len(key) + len(value))})
	b.bytes += int64(size)
	if large {
		b.large, b.closed = true, true // alone in its batch (spec P-32)
	} else if b.bb.EncodedSize() >= limit {
		b.closed = true
	}
	if urgent {
		b.urgent = true
	}
	if b.closed || b.urgent || p.cfg.linger <= 0 || p.forceDrain() {
		wake = true
	} else if fresh {
		if pb.linger == nil {
			pb.linger = time.AfterFunc(p.cfg.linger, pb.lingerFired)
		} else {
			pb.linger.Reset(p.cfg.linger)
		}
	}
	s := pb.sink
	pb.mu.Unlock()
	if wake && s != nil {
		s.wake()
	}
}

// fits reports whether a record fits in b under limit. The estimate
// assumes 3-byte deltas; near the limit the exact size decides.
func (b *batch) fits(tsMs int64, key, value []byte, headers []wire.RecordHeader, est, limit int) bool {
	cur := b.bb.EncodedSize()
	if cur+est+16 <= limit {
		return true
	}
	return cur+b.bb.RecordSize(tsMs, key, value, headers) <= limit
}

// lingerFired wakes the sink when the open batch has lingered long enough.
func (pb *partBuf) lingerFired() {
	pb.mu.Lock()
	var again time.Duration
	if n := len(pb.batches); n > 0 {
		if b := pb.batches[n-1]; !b.closed && !b.urgent {
			again = pb.p.cfg.linger - time.Since(b.created)
		}
	}
	s := pb.sink
	if again > 0 {
		pb.linger.Reset(again)
	}
	pb.mu.Unlock()
	if again <= 0 && s != nil {
		s.wake()
	}
}

// take picks the next batch to send on s, or nil. It marks it in flight and
// assigns its sequence at its first freeze; the caller freezes it (outside
// the lock) when frozen is nil. room is what is left of the request; first
// says whether the request is still empty. wakeAt is set when the partition
// waits for a backoff.
func (pb *partBuf) take(s *sink, now time.Time, force bool, room int, first bool) (b *batch, wakeAt time.Time) {
	p := pb.p
	pb.mu.Lock()
	defer pb.mu.Unlock()
	switch {
	case pb.sink != s, pb.state.rewinds(), len(pb.batches) <= pb.inflight:
		return nil, wakeAt
	case pb.inflight > 0 && pb.inflightOn != s:
		return nil, wakeAt // still in flight on the previous leader's connection
	case p.cfg.idempotent && !pb.accepted && pb.inflight > 0:
		return nil, wakeAt // spec P-34: one batch until the first acceptance
	case pb.inflight >= p.cfg.maxInFlight:
		return nil, wakeAt
	case pb.t.staleEpoch.Load() >= 0:
		return nil, wakeAt // waiting for the topic's new epoch
	case now.Before(pb.backoffUntil):
		return nil, pb.backoffUntil
	}
	var id *producerIdent
	if p.cfg.idempotent {
		id = p.ident.Load()
		switch {
		case p.reinitPending(pb.idGen):
			return nil, wakeAt // the engine lost our id: wait for the new one
		case id.gen != pb.idGen:
			if pb.inflight > 0 {
				return nil, wakeAt // switch once nothing is in flight under the old id
			}
			if pb.step(evNewID)&actSwitchID != 0 {
				pb.switchIDLocked(id)
			}
		}
	}
	if pb.state == psAwaitingID {
		pb.step(evResume) // no new id came (it was not replaced, or idempotence is off): send under it
	}
	b = pb.batches[pb.inflight]
	if len(b.frozen) == 0 && !(b.closed || b.urgent || force || now.Sub(b.created) >= p.cfg.linger) {
		return nil, wakeAt
	}
	if !first && (b.large || room < envelopePerTopic+len(pb.t.name)+envelopePerPartition+b.wireSize()) {
		return nil, wakeAt
	}
	if len(b.frozen) == 0 {
		b.closed = true
		pb.lastSize, pb.lastCount = min(b.bb.EncodedSize(), pb.t.batchLimit), min(len(b.recs), pb.t.batchLimit/8)
		b.epoch = pb.t.epoch.Load()
		if p.cfg.idempotent && b.seq < 0 {
			if b.epoch != pb.seqEpoch {
				// A new topic epoch (FLUSH, recreate): the engine expects
				// sequence 0 again.
				pb.seqEpoch, pb.nextSeq, pb.seqUnsure = b.epoch, 0, -1
			}
			b.seq = pb.nextSeq // spec P-24: assigned when frozen, kept afterwards
			b.pid, b.pepoch, b.gen = id.id, id.epoch, id.gen
			pb.nextSeq += int32(len(b.recs))
		}
	} else if b.newEpoch {
		b.epoch, b.newEpoch = pb.t.epoch.Load(), false // spec P-30
	}
	if b.sent {
		p.stRetries.Add(1)
	}
	b.inflight, b.sent = true, true
	pb.inflight++
	pb.inflightOn = s
	return b, wakeAt
}

// outcome classifies the answer to one batch.
type outcome uint8

const (
	outOK        outcome = iota // accepted, or a duplicate (original offset)
	outNotSent                  // never reached the engine: resend, nothing counted
	outAmbiguous                // connection lost or no reply: the engine may have it
	outMoved                    // MIMQE_FOLLOWER_NODE: not appended; go to the leader
	outRoute                    // no leader / node stopped: not appended; resend after metadata
	outRetry                    // retriable rejection, counted in Retries
	outUnsure                   // retriable, counted, and the engine may have appended it
	outSequence                 // MIMQE_OUT_OF_ORDER_SEQUENCE
	outUnknownID                // MIMQE_UNKNOWN_PRODUCER_ID: the engine lost the producer's state
	outEpoch                    // MIMQE_TOPIC_FLUSHED / MIMQE_TOPIC_EPOCH_MISMATCH
	outFatal                    // rejection: fail the batch
)

// partState is the resend phase of one partition. The three rewinds stop
// its sending (and its delivery-timeout expiry) until every in-flight
// batch has come back; they differ in what happens then.
type partState uint8

const (
	psSending      partState = iota // in order, up to MaxInFlight (one until the first acceptance, spec P-34)
	psRewinding                     // a batch failed: when the rewind ends, resend from the oldest batch
	psResequencing                  // rewinding, and the engine showed that the unsure batch (seqUnsure) was not stored: renumber from it when the rewind ends
	psIDLost                        // rewinding after MIMQE_UNKNOWN_PRODUCER_ID: when the rewind ends, await the new id
	psAwaitingID                    // nothing in flight: partBuf.take waits for the producer's new id, then renumbers every batch from 0 under it
	numPartStates
)

var partStateNames = [numPartStates]string{"sending", "rewinding", "resequencing", "idLost", "awaitingID"}

func (s partState) String() string {
	if s < numPartStates {
		return partStateNames[s]
	}
	return fmt.Sprintf("partState(%d)", uint8(s))
}

// rewinds reports whether s stops the partition until its in-flight
// batches are back.
func (s partState) rewinds() bool {
	return s == psRewinding || s == psResequencing || s == psIDLost
}

// partEvent is what moves a partition: a batch's outcome, refined by what
// the partition knows of that batch (eventOf), or one of the partition's
// own moments (the last events).
type partEvent uint8

const (
	evAcked                partEvent = iota // outOK, idempotent
	evAckedPlain                            // outOK, idempotence off: a resend would be stored twice
	evNotSent                               // outNotSent
	evAmbiguous                             // outAmbiguous
	evMoved                                 // outMoved
	evRoute                                 // outRoute
	evRetry                                 // outRetry
	evUnsure                                // outUnsure
	evSeqGap                                // outSequence for the oldest batch
	evSeqAfterUnsure                        // outSequence for the oldest batch, numbered after the unsure one: that one was not stored
	evSeqBehind                             // outSequence for a batch behind the oldest
	evSeqBehindAfterUnsure                  // outSequence for a batch behind the oldest, numbered after the unsure one
	evUnknownID                             // outUnknownID
	evEpoch                                 // outEpoch, idempotent
	evEpochPlain                            // outEpoch, idempotence off
	evFatal                                 // outFatal
	evDrained                               // the last in-flight batch of a rewind came back
	evNewID                                 // take: the producer has a new id and nothing is in flight
	evResume                                // take: the wait for a new id is over without one
	numEvents
)

var partEventNames = [numEvents]string{"acked", "ackedPlain", "notSent", "ambiguous", "moved", "route", "retry", "unsure",
	"seqGap", "seqAfterUnsure", "seqBehind", "seqBehindAfterUnsure", "unknownID", "epoch", "epochPlain", "fatal",
	"drained", "newID", "resume"}

func (e partEvent) String() string {
	if e < numEvents {
		return partEventNames[e]
	}
	return fmt.Sprintf("partEvent(%d)", uint8(e))
}

// eventOf refines outcome o of a batch: idem says whether the producer is
// idempotent, behind whether an older unacknowledged batch is ahead of it,
// afterUnsure whether it is numbered after the partition's unsure batch
// (partBuf.afterUnsure).
func eventOf(o outcome, idem, behind, afterUnsure bool) partEvent {
	switch o {
	case outOK:
		if idem {
			return evAcked
		}
		return evAckedPlain
	case outNotSent:
		return evNotSent
	case outAmbiguous:
		return evAmbiguous
	case outMoved:
		return evMoved
	case outRoute:
		return evRoute
	case outRetry:
		return evRetry
	case outUnsure:
		return evUnsure
	case outSequence:
		switch {
		case behind && afterUnsure:
			return evSeqBehindAfterUnsure
		case behind:
			return evSeqBehind
		case afterUnsure:
			return evSeqAfterUnsure
		}
		return evSeqGap
	case outUnknownID:
		return evUnknownID
	case outEpoch:
		if idem {
			return evEpoch
		}
		return evEpochPlain
	}
	return evFatal
}

// partAction is what a step does besides changing the state, as bits.
type partAction uint16

const (
	actAccept   partAction = 1 << iota // the batch is done; the partition had an acceptance (spec P-34); an unsure batch before it was stored after all
	actMaybe                           // the engine may have stored it: resend (the engine answers a duplicate with its offset)
	actDrop                            // a connection drop: a batch of a record over 1 MiB fails after retryProtectionDrops in a row (spec P-31)
	actCount                           // a counted retry: the batch fails past Retries
	actBackoff                         // the partition resends after RetryBackoff
	actReinit                          // ask for a new producer id (Producer.requestReinit)
	actNewEpoch                        // resend at the topic's current epoch (spec P-30)
	actFail                            // the batch fails with the engine's error (spec P-28, P-29 for a new epoch)
	actRenumber                        // renumber the frozen batches from the unsure batch's sequence (partBuf.renumber)
	actSwitchID                        // stamp the batches with the new id from sequence 0 (partBuf.switchIDLocked)
	actRefused                         // no transition: the pair cannot happen
)

// partStep is one entry of partSteps.
type partStep struct {
	next partState
	act  partAction
}

func to(next partState, act partAction) partStep { return partStep{next, act} }

// refused marks a pair that cannot happen: nothing is in flight while
// awaiting an id; only a rewind ends; take looks at the producer id only
// outside a rewind, and resumes only an awaiting partition.
var refused = partStep{act: actRefused}

// stepRow is one row of partSteps, a step per state.
func stepRow(sending, rewinding, resequencing, idLost, awaitingID partStep) [numPartStates]partStep {
	return [numPartStates]partStep{sending, rewinding, resequencing, idLost, awaitingID}
}

// failRow is the row of an outcome that does not finish the batch well:
// sending starts a rewind, a rewind keeps its kind, act applies to the
// batch either way; nothing is in flight while awaiting an id.
func failRow(act partAction) [numPartStates]partStep {
	return stepRow(to(psRewinding, act), to(psRewinding, act), to(psResequencing, act), to(psIDLost, act), refused)
}

// partSteps is the partition's transition table: event × state → next
// state and action. Any failure starts a rewind, which later failures
// keep; an unknown id makes a plain rewind psIDLost, and an out-of-order
// sequence after the unsure batch makes any rewind psResequencing. A
// resequencing partition stays so after an unknown id too: its
// renumbering comes first (if the id turns out not replaced, it resumes
// with it), and Producer.reinitPending holds every partition of a lost id
// in take whatever its state. What else a result does to its batch (the
// delivery timeout, Close, the unsure mark) is data, in partBuf.result.
var partSteps = [numEvents][numPartStates]partStep{
	// columns: sending, rewinding, resequencing, idLost, awaitingID
	evAcked:                stepRow(to(psSending, actAccept), to(psRewinding, actMaybe), to(psResequencing, actMaybe), to(psIDLost, actMaybe), refused),
	evAckedPlain:           stepRow(to(psSending, actAccept), to(psRewinding, actAccept), to(psResequencing, actAccept), to(psIDLost, actAccept), refused),
	evNotSent:              failRow(0),
	evAmbiguous:            failRow(actMaybe | actDrop),
	evMoved:                failRow(0),
	evRoute:                failRow(actBackoff),
	evRetry:                failRow(actCount | actBackoff),
	evUnsure:               failRow(actMaybe | actCount | actBackoff),
	evSeqGap:               failRow(actCount | actBackoff),
	evSeqAfterUnsure:       stepRow(to(psResequencing, 0), to(psResequencing, 0), to(psResequencing, 0), to(psResequencing, 0), refused),
	evSeqBehind:            stepRow(to(psRewinding, actCount|actBackoff), to(psRewinding, 0), to(psResequencing, 0), to(psIDLost, 0), refused), // in a rewind: expected behind the failed batch
	evSeqBehindAfterUnsure: stepRow(to(psResequencing, 0), to(psRewinding, 0), to(psResequencing, 0), to(psIDLost, 0), refused),
	evUnknownID:            stepRow(to(psIDLost, actReinit|actBackoff), to(psIDLost, actReinit|actBackoff), to(psResequencing, actReinit|actBackoff), to(psIDLost, actReinit|actBackoff), refused),
	evEpoch:                failRow(actFail),
	evEpochPlain:           failRow(actNewEpoch),
	evFatal:                failRow(actFail),
	evDrained:              stepRow(refused, to(psSending, 0), to(psSending, actRenumber), to(psAwaitingID, 0), refused),
	evNewID:                stepRow(to(psSending, actSwitchID), refused, refused, refused, to(psSending, actSwitchID)),
	evResume:               stepRow(refused, refused, refused, refused, to(psSending, 0)),
}

// step moves the partition by partSteps for ev and returns the actions to
// run. A refused pair (a bug) is logged and changes nothing.
func (pb *partBuf) step(ev partEvent) partAction {
	st := partSteps[ev][pb.state]
	if st.act&actRefused != 0 {
		pb.p.cfg.logf("ilink: producer: %s[%d]: no transition for %v while %v (ignored)", pb.t.name, pb.id, ev, pb.state)
		return 0
	}
	pb.state = st.next
	return st.act
}

// afterUnsure reports whether b is numbered after the partition's unsure
// batch in the same sequence space.
func (pb *partBuf) afterUnsure(b *batch) bool {
	return pb.seqUnsure >= 0 && b.epoch == pb.seqEpoch && b.seq > pb.seqUnsure
}

// result applies the answer for the in-flight batch b and returns whether
// the batch is finished (ok, or failed with failErr), for the caller to
// complete outside the lock.
func (pb *partBuf) result(b *batch, o outcome, err error) (finished bool, failErr error) {
	p := pb.p
	idem := p.cfg.idempotent
	now := time.Now()
	pb.mu.Lock()
	defer pb.mu.Unlock()
	ev := eventOf(o, idem, len(pb.batches) > 0 && pb.batches[0] != b, pb.afterUnsure(b))
	b.inflight = false
	pb.inflight--
	if err != nil {
		b.lastErr = err
	}
	act := pb.step(ev)
	ok := act&actAccept != 0
	if ok {
		pb.accepted = true
		b.drops = 0
		if pb.afterUnsure(b) {
			pb.seqUnsure = -1 // the unsure batch was appended after all
		}
	}
	if act&actMaybe != 0 {
		b.maybe = true
	}
	if act&actDrop != 0 && b.large {
		b.drops++
		if b.drops >= retryProtectionDrops { // spec P-31
			failErr = &Error{Name: wire.ErrMsgSizeOver, Kind: KindRejected,
				Tail: fmt.Sprintf("the connection dropped %d times in a row without a reply after a record of over 1 MiB (%d bytes of batch): the engine's frame cap is smaller than the client's", b.drops, b.wireSize())}
		}
	}
	if act&actCount != 0 {
		b.tries++
		if b.tries > p.cfg.retries {
			failErr = err
		}
	}
	if act&actReinit != 0 {
		// Not appended. Every batch of the partition waits for a new
		// producer id and is resent under it from sequence 0.
		p.requestReinit(b.gen)
	}
	if act&actNewEpoch != 0 {
		b.newEpoch = true
	}
	if act&actFail != 0 {
		failErr = err
	}
	if !ok && failErr == nil {
		if p.isDone() {
			failErr = producerClosedError()
		} else if now.After(b.deadline) {
			failErr = b.timeoutError(p.cfg.deliveryTimeout) // spec P-16
		}
	}
	if ok || failErr != nil {
		pb.remove(b)
		if failErr != nil && idem && b.seq >= 0 && b.epoch == pb.seqEpoch && (pb.seqUnsure < 0 || b.seq < pb.seqUnsure) {
			// Later batches keep their numbers; if the engine says they are
			// out of order, this batch was not appended and they are
			// renumbered from here.
			pb.seqUnsure = b.seq
		}
	}
	if act&actBackoff != 0 {
		pb.backoffUntil = now.Add(p.cfg.retryBackoff)
	}
	if pb.state.rewinds() && pb.inflight == 0 {
		if pb.step(evDrained)&actRenumber != 0 {
			pb.renumber()
		}
	}
	return ok || failErr != nil, failErr
}

// renumber gives the frozen batches new sequences from the unsure batch's,
// the engine having shown that it was not appended.
func (pb *partBuf) renumber() {
	if pb.seqUnsure < 0 {
		return
	}
	seq := pb.seqUnsure
	for _, b := range pb.batches {
		if b.seq < 0 {
			break // not frozen yet: numbered at freeze
		}
		if b.epoch != pb.seqEpoch {
			continue // an older epoch's batch: the engine refuses it anyway
		}
		if b.seq != seq {
			b.seq = seq
			if len(b.frozen) > 0 {
				wire.SetBatchBaseSequence(b.frozen, seq)
			}
		}
		seq += int32(len(b.recs))
	}
	pb.p.cfg.logf("ilink: producer: %s[%d] renumbered from sequence %d (a failed batch was not stored)", pb.t.name, pb.id, pb.seqUnsure)
	pb.nextSeq = seq
	pb.seqUnsure = -1
}

// switchIDLocked moves the partition to producer id id (nothing is in
// flight): its numbered batches are stamped with it and renumbered from
// sequence 0, the engine's start for a new id; one batch goes first until
// the engine accepted one (spec P-34). A batch whose earlier attempt had no
// known outcome may already be stored under the old id, where the engine
// cannot see it as a duplicate: its records are counted in
// PossibleDuplicates.
func (pb *partBuf) switchIDLocked(id *producerIdent) {
	seq := int32(0)
	maybe := 0
	for _, b := range pb.batches {
		if b.seq < 0 {
			break // not frozen yet: numbered at freeze
		}
		if b.maybe {
			maybe += len(b.recs)
			b.maybe = false
		}
		b.seq, b.pid, b.pepoch, b.gen = seq, id.id, id.epoch, id.gen
		if len(b.frozen) > 0 {
			wire.SetBatchProducer(b.frozen, id.id, id.epoch, seq)
		}
		if b.epoch == pb.seqEpoch {
			seq += int32(len(b.recs))
		}
	}
	pb.nextSeq, pb.seqUnsure, pb.accepted = seq, -1, false
	pb.idGen = id.gen
	if maybe > 0 {
		pb.p.stMaybeDups.Add(int64(maybe))
	}
	pb.p.cfg.logf("ilink: producer: %s[%d] now producer id %d from sequence 0 (%d records may be stored twice)", pb.t.name, pb.id, id.id, maybe)
}

func (pb *partBuf) remove(b *batch) {
	for i, x := range pb.batches {
		if x == b {
			copy(pb.batches[i:], pb.batches[i+1:])
			pb.batches[len(pb.batches)-1] = nil
			pb.batches = pb.batches[:len(pb.batches)-1]
			return
		}
	}
}

// expire removes the batches whose delivery timeout passed while the
// partition has nothing in flight (in-flight batches wait for their answer).
func (pb *partBuf) expire(now time.Time) []*batch {
	pb.mu.Lock()
	defer pb.mu.Unlock()
	var out []*batch
	if pb.inflight > 0 || pb.state.rewinds() {
		return nil
	}
	for len(pb.batches) > 0 && now.After(pb.batches[0].deadline) {
		b := pb.batches[0]
		pb.remove(b)
		if b.seq >= 0 && b.epoch == pb.seqEpoch && (pb.seqUnsure < 0 || b.seq < pb.seqUnsure) {
			pb.seqUnsure = b.seq
		}
		out = append(out, b)
	}
	return out
}

// takeAll removes every batch that is not in flight (Close).
func (pb *partBuf) takeAll() []*batch {
	pb.mu.Lock()
	defer pb.mu.Unlock()
	out := append([]*batch(nil), pb.batches[pb.inflight:]...)
	for _, b := range out {
		pb.remove(b)
	}
	if pb.linger != nil {
		pb.linger.Stop()
	}
	return out
}
