package ilink

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// The partition's resend state machine (partState, partSteps): the table
// itself, the refinement of outcomes into events, and partBuf.result and
// partBuf.take driving it on a hand-built producer (no engine).

// resultEvents are the events a batch's answer becomes (eventOf).
var resultEvents = []partEvent{evAcked, evAckedPlain, evNotSent, evAmbiguous, evMoved, evRoute, evRetry, evUnsure,
	evSeqGap, evSeqAfterUnsure, evSeqBehind, evSeqBehindAfterUnsure, evUnknownID, evEpoch, evEpochPlain, evFatal}

func TestPartStepsEveryPairHasAnEntry(t *testing.T) {
	t.Parallel()
	if len(resultEvents)+3 != int(numEvents) {
		t.Fatalf("%d result events + drained, newID, resume; the table has %d events", len(resultEvents), numEvents)
	}
	for ev := partEvent(0); ev < numEvents; ev++ {
		if strings.HasPrefix(ev.String(), "event(") || ev.String() == "" {
			t.Errorf("event %d has no name", ev)
		}
		if partSteps[ev] == ([numPartStates]partStep{}) {
			t.Errorf("%v: no row in partSteps", ev)
			continue
		}
		for s := partState(0); s < numPartStates; s++ {
			st := partSteps[ev][s]
			switch {
			case st == refused:
			case st.act&actRefused != 0:
				t.Errorf("%v × %v: refused with other fields set: %+v", s, ev, st)
			case st.next >= numPartStates:
				t.Errorf("%v × %v: next state %v out of range", s, ev, st.next)
			}
		}
	}
	for s := partState(0); s < numPartStates; s++ {
		if strings.HasPrefix(s.String(), "partState(") || s.String() == "" {
			t.Errorf("state %d has no name", s)
		}
	}
}

// The key transitions, as the code does them.
func TestPartStepsKeyTransitions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		why  string
		from partState
		ev   partEvent
		next partState
		act  partAction
	}{
		{"an acknowledgement keeps sending", psSending, evAcked, psSending, actAccept},
		{"a retriable error rewinds, counted, after a backoff", psSending, evRetry, psRewinding, actCount | actBackoff},
		{"an unsure error rewinds and may be stored", psSending, evUnsure, psRewinding, actMaybe | actCount | actBackoff},
		{"a lost connection rewinds, counted as a drop", psSending, evAmbiguous, psRewinding, actMaybe | actDrop},
		{"a follower rejection rewinds at once", psSending, evMoved, psRewinding, 0},
		{"no leader rewinds after a backoff", psSending, evRoute, psRewinding, actBackoff},
		{"a rejection fails the batch and rewinds the rest", psSending, evFatal, psRewinding, actFail},
		{"a new epoch fails an idempotent batch", psSending, evEpoch, psRewinding, actFail},
		{"a new epoch resends a plain batch at the current one", psSending, evEpochPlain, psRewinding, actNewEpoch},
		{"an idempotent ack during a rewind is resent", psRewinding, evAcked, psRewinding, actMaybe},
		{"a plain ack during a rewind is kept", psRewinding, evAckedPlain, psRewinding, actAccept},
		{"an out-of-order oldest batch is counted", psSending, evSeqGap, psRewinding, actCount | actBackoff},
		{"an out-of-order sequence after an unknown outcome resequences", psSending, evSeqAfterUnsure, psResequencing, 0},
		{"... in a rewind too", psRewinding, evSeqAfterUnsure, psResequencing, 0},
		{"out of order behind the failed batch is expected", psRewinding, evSeqBehind, psRewinding, 0},
		{"... even after the unsure one", psRewinding, evSeqBehindAfterUnsure, psRewinding, 0},
		{"an unknown producer id loses the id", psSending, evUnknownID, psIDLost, actReinit | actBackoff},
		{"... in a rewind too", psRewinding, evUnknownID, psIDLost, actReinit | actBackoff},
		{"a resequencing partition renumbers first", psResequencing, evUnknownID, psResequencing, actReinit | actBackoff},
		{"an out-of-order sequence after the unsure batch resequences a lost id's rewind", psIDLost, evSeqAfterUnsure, psResequencing, 0},
		{"a rewind ends in sending", psRewinding, evDrained, psSending, 0},
		{"a resequencing rewind ends renumbered", psResequencing, evDrained, psSending, actRenumber},
		{"a lost id's rewind ends awaiting the new id", psIDLost, evDrained, psAwaitingID, 0},
		{"the new id renumbers from 0 and sends", psAwaitingID, evNewID, psSending, actSwitchID},
		{"a partition that never saw the error switches too", psSending, evNewID, psSending, actSwitchID},
		{"no new id: resume under the old one", psAwaitingID, evResume, psSending, 0},
	} {
		if got := partSteps[tc.ev][tc.from]; got != to(tc.next, tc.act) {
			t.Errorf("%s: %v × %v = %v %#x, want %v %#x", tc.why, tc.from, tc.ev, got.next, got.act, tc.next, tc.act)
		}
	}
}

// What the table promises as a whole: a result never ends a rewind (only
// the drain does), sending stays sending only on an acceptance, nothing
// answers while awaiting an id, every state leads back to sending.
func TestPartStepsInvariants(t *testing.T) {
	t.Parallel()
	for _, ev := range resultEvents {
		if partSteps[ev][psAwaitingID] != refused {
			t.Errorf("awaitingID × %v: not refused (nothing is in flight)", ev)
		}
		for _, s := range []partState{psSending, psRewinding, psResequencing, psIDLost} {
			st := partSteps[ev][s]
			if st == refused {
				t.Errorf("%v × %v refused: a batch can be in flight there", s, ev)
				continue
			}
			if s.rewinds() && !st.next.rewinds() {
				t.Errorf("%v × %v → %v: a result ended a rewind", s, ev, st.next)
			}
			if s == psSending && (st.next == psSending) != (st.act&actAccept != 0) {
				t.Errorf("sending × %v → %v %#x: only an acceptance keeps sending", ev, st.next, st.act)
			}
			if st.act&(actRenumber|actSwitchID) != 0 {
				t.Errorf("%v × %v: a result renumbers (only the drain and the new id do)", s, ev)
			}
		}
	}
	for s := partState(0); s < numPartStates; s++ {
		if got := partSteps[evDrained][s]; (got == refused) == s.rewinds() || (got != refused && got.next.rewinds()) {
			t.Errorf("%v × drained = %+v: only a rewind drains, out of the rewinds", s, got)
		}
		for _, ev := range []partEvent{evNewID, evResume} {
			if s.rewinds() && partSteps[ev][s] != refused {
				t.Errorf("%v × %v: take looks at the id during a rewind", s, ev)
			}
		}
	}
	// Every state is reached from sending and leads back to it.
	reach := func(from partState, back bool) map[partState]bool {
		seen := map[partState]bool{from: true}
		for changed := true; changed; {
			changed = false
			for ev := partEvent(0); ev < numEvents; ev++ {
				for s := partState(0); s < numPartStates; s++ {
					st := partSteps[ev][s]
					a, b := s, st.next
					if back {
						a, b = b, a
					}
					if st != refused && seen[a] && !seen[b] {
						seen[b], changed = true, true
					}
				}
			}
		}
		return seen
	}
	fwd, bwd := reach(psSending, false), reach(psSending, true)
	for s := partState(0); s < numPartStates; s++ {
		if !fwd[s] || !bwd[s] {
			t.Errorf("%v: reached from sending %v, leads back %v", s, fwd[s], bwd[s])
		}
	}
}

func TestEventOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		o                         outcome
		idem, behind, afterUnsure bool
		want                      partEvent
	}{
		{outOK, true, false, false, evAcked},
		{outOK, true, true, true, evAcked},
		{outOK, false, false, false, evAckedPlain},
		{outNotSent, true, false, false, evNotSent},
		{outAmbiguous, true, true, false, evAmbiguous},
		{outMoved, false, false, false, evMoved},
		{outRoute, true, false, false, evRoute},
		{outRetry, true, false, true, evRetry},
		{outUnsure, true, false, false, evUnsure},
		{outSequence, true, false, false, evSeqGap},
		{outSequence, true, false, true, evSeqAfterUnsure},
		{outSequence, true, true, false, evSeqBehind},
		{outSequence, true, true, true, evSeqBehindAfterUnsure},
		{outUnknownID, true, false, false, evUnknownID},
		{outUnknownID, false, false, false, evUnknownID},
		{outEpoch, true, false, false, evEpoch},
		{outEpoch, false, false, false, evEpochPlain},
		{outFatal, true, true, true, evFatal},
	} {
		if got := eventOf(tc.o, tc.idem, tc.behind, tc.afterUnsure); got != tc.want {
			t.Errorf("eventOf(%d, idem %v, behind %v, afterUnsure %v) = %v, want %v", tc.o, tc.idem, tc.behind, tc.afterUnsure, got, tc.want)
		}
	}
	// Every result event comes from some outcome.
	made := map[partEvent]bool{}
	for o := outOK; o <= outFatal; o++ {
		for f := range 8 {
			made[eventOf(o, f&1 != 0, f&2 != 0, f&4 != 0)] = true
		}
	}
	for _, ev := range resultEvents {
		if !made[ev] {
			t.Errorf("%v: no outcome makes it", ev)
		}
	}
}

// stateRig is a producer with one idempotent (or plain) partition and
// no engine: batches are taken and answered by hand.
type stateRig struct {
	t    *testing.T
	p    *Producer
	pb   *partBuf
	s    *sink
	mu   sync.Mutex
	logs []string
}

func newStateRig(t *testing.T, idem bool) *stateRig {
	r := &stateRig{t: t, s: &sink{}}
	r.p = &Producer{cfg: producerConfig{idempotent: idem, retries: 3, retryBackoff: time.Millisecond,
		deliveryTimeout: time.Hour, maxInFlight: 5, batchSize: 1000, maxRequestSize: DefaultMaxRequestSize,
		logf: func(format string, args ...any) {
			r.mu.Lock()
			r.logs = append(r.logs, fmt.Sprintf(format, args...))
			r.mu.Unlock()
		}}, done: make(chan struct{}), reinitCh: make(chan struct{}, 1)}
	r.p.ident.Store(&producerIdent{id: 5, epoch: 0})
	r.p.reinitFor.Store(-1)
	r.pb = r.p.newTopic("T", 1, 0).partBufs()[0]
	r.pb.sink = r.s
	r.pb.accepted = true // as after the first acceptance: several batches in flight (spec P-34)
	return r
}

// send adds one batch per count (of that many records) and takes them all.
func (r *stateRig) send(counts ...int) []*batch {
	r.t.Helper()
	var out []*batch
	for _, n := range counts {
		b := r.p.newBatch(r.pb, time.Now())
		for range n {
			b.bb.Append(0, nil, []byte("v"), nil)
			b.recs = append(b.recs, recEntry{})
		}
		r.pb.batches = append(r.pb.batches, b)
	}
	for range counts {
		b := r.take()
		if b == nil {
			r.t.Fatalf("take: nothing in %v (%d in flight)", r.pb.state, r.pb.inflight)
		}
		out = append(out, b)
	}
	return out
}

// take takes the next batch past any backoff.
func (r *stateRig) take() *batch {
	b, _ := r.pb.take(r.s, time.Now().Add(time.Hour), true, 1<<20, true)
	return b
}

func (r *stateRig) answer(b *batch, o outcome, want partState) (bool, error) {
	r.t.Helper()
	var err error
	if o != outOK {
		err = &Error{Name: fmt.Sprintf("outcome %d", o), Kind: KindRejected}
	}
	fin, ferr := r.pb.result(b, o, err)
	if r.pb.state != want {
		r.t.Fatalf("after outcome %d of seq %d: %v, want %v", o, b.seq, r.pb.state, want)
	}
	return fin, ferr
}

func seqs(bs []*batch) []int32 {
	var out []int32
	for _, b := range bs {
		out = append(out, b.seq)
	}
	return out
}

func TestPartBufRetriableErrorRewinds(t *testing.T) {
	t.Parallel()
	r := newStateRig(t, true)
	bs := r.send(1, 1, 1)
	if fin, _ := r.answer(bs[0], outRetry, psRewinding); fin || bs[0].tries != 1 || r.pb.backoffUntil.IsZero() {
		t.Fatalf("retried batch: finished %v, tries %d, backoff %v", fin, bs[0].tries, r.pb.backoffUntil)
	}
	if r.take() != nil {
		t.Fatal("took a batch during the rewind")
	}
	if fin, _ := r.answer(bs[1], outSequence, psRewinding); fin || bs[1].tries != 0 {
		t.Fatalf("out of order behind it: finished %v, tries %d (expected, not counted)", fin, bs[1].tries)
	}
	if fin, _ := r.answer(bs[2], outOK, psSending); fin || !bs[2].maybe {
		t.Fatalf("acked during the rewind: finished %v, maybe %v (resent, the engine answers it as a duplicate)", fin, bs[2].maybe)
	}
	if got := seqs(r.pb.batches); fmt.Sprint(got) != "[0 1 2]" {
		t.Fatalf("sequences after the rewind %v, want kept [0 1 2]", got)
	}
	if b := r.take(); b != bs[0] {
		t.Fatalf("resent %v first, want the oldest batch", b)
	}
}

func TestPartBufSequenceAfterUnsureResequences(t *testing.T) {
	t.Parallel()
	r := newStateRig(t, true)
	bs := r.send(1, 2, 1) // sequences 0, 1, 3
	fin, ferr := r.answer(bs[0], outFatal, psRewinding)
	if !fin || ferr == nil || r.pb.seqUnsure != 0 {
		t.Fatalf("rejected batch: finished %v, err %v, seqUnsure %d", fin, ferr, r.pb.seqUnsure)
	}
	r.answer(bs[1], outSequence, psResequencing) // the oldest now, after the unsure one: it was not stored
	r.answer(bs[2], outSequence, psSending)      // behind it; the rewind ends renumbered
	if got := seqs(r.pb.batches); fmt.Sprint(got) != "[0 2]" || r.pb.nextSeq != 3 || r.pb.seqUnsure != -1 {
		t.Fatalf("after the rewind: sequences %v, next %d, unsure %d; want [0 2], 3, -1", got, r.pb.nextSeq, r.pb.seqUnsure)
	}
	if !strings.Contains(strings.Join(r.logs, "\n"), "T[0] renumbered from sequence 0") {
		t.Fatalf("no renumbering logged: %q", r.logs)
	}
}

func TestPartBufUnsureBatchStoredAfterAll(t *testing.T) {
	t.Parallel()
	r := newStateRig(t, true)
	bs := r.send(1, 1)
	r.answer(bs[0], outFatal, psRewinding)
	r.answer(bs[1], outOK, psSending) // resent: the rewind was on
	if r.pb.seqUnsure != 0 || bs[1].seq != 1 {
		t.Fatalf("unsure %d, seq %d; want 0 and 1 kept", r.pb.seqUnsure, bs[1].seq)
	}
	if b := r.take(); b != bs[1] {
		t.Fatalf("resent %v", b)
	}
	if fin, ferr := r.answer(bs[1], outOK, psSending); !fin || ferr != nil || r.pb.seqUnsure != -1 {
		t.Fatalf("acked after the unsure one: finished %v, err %v, unsure %d; want done and the mark cleared", fin, ferr, r.pb.seqUnsure)
	}
}

func TestPartBufUnknownIDAwaitsNewID(t *testing.T) {
	t.Parallel()
	r := newStateRig(t, true)
	bs := r.send(1, 1)
	r.answer(bs[0], outUnknownID, psIDLost)
	if r.p.reinitFor.Load() != 0 {
		t.Fatalf("reinitFor %d: no new id asked for generation 0", r.p.reinitFor.Load())
	}
	r.answer(bs[1], outSequence, psAwaitingID)
	if r.take() != nil || r.pb.state != psAwaitingID {
		t.Fatalf("took a batch before the new id (%v)", r.pb.state)
	}
	bs[1].maybe = true // its outcome was unknown once: may be stored under the old id
	r.p.ident.Store(&producerIdent{id: 77, epoch: 0, gen: 1})
	r.p.reinitFor.Store(-1)
	b := r.take()
	if b != bs[0] || r.pb.state != psSending || r.pb.accepted {
		t.Fatalf("after the new id took %v in %v (accepted %v); want the oldest, sending, one batch first", b, r.pb.state, r.pb.accepted)
	}
	if got := seqs(r.pb.batches); fmt.Sprint(got) != "[0 1]" || bs[0].pid != 77 || bs[1].pid != 77 || r.p.stMaybeDups.Load() != 1 {
		t.Fatalf("sequences %v, ids %d %d, possible duplicates %d; want [0 1] under 77, 1", got, bs[0].pid, bs[1].pid, r.p.stMaybeDups.Load())
	}
	if r.take() != nil {
		t.Fatal("a second batch before the first acceptance under the new id (spec P-34)")
	}
}

func TestPartBufPlainUnknownIDResumes(t *testing.T) {
	t.Parallel()
	r := newStateRig(t, false)
	bs := r.send(1)
	r.answer(bs[0], outUnknownID, psAwaitingID)
	if b := r.take(); b != bs[0] || r.pb.state != psSending {
		t.Fatalf("took %v in %v; idempotence off: resent at once", b, r.pb.state)
	}
	if fin, ferr := r.answer(bs[0], outEpoch, psSending); fin || ferr != nil || !bs[0].newEpoch {
		t.Fatalf("plain batch refused for its epoch: finished %v, err %v, newEpoch %v; want a resend at the current epoch", fin, ferr, bs[0].newEpoch)
	}
}

func TestPartBufRewindEndsOnDeadlineFailure(t *testing.T) {
	t.Parallel()
	r := newStateRig(t, true)
	bs := r.send(1, 1)
	bs[0].deadline = time.Now().Add(-time.Second)
	fin, ferr := r.answer(bs[0], outMoved, psRewinding)
	if !fin || !HasName(ferr, NameDeliveryTimeout) || r.pb.seqUnsure != 0 {
		t.Fatalf("expired batch: finished %v, err %v, unsure %d", fin, ferr, r.pb.seqUnsure)
	}
	r.answer(bs[1], outSequence, psSending)
	if bs[1].seq != 0 {
		t.Fatalf("seq %d after the rewind, want 0 (renumbered from the expired batch)", bs[1].seq)
	}
}

func TestPartBufRefusedStepChangesNothing(t *testing.T) {
	t.Parallel()
	r := newStateRig(t, true)
	if act := r.pb.step(evDrained); act != 0 || r.pb.state != psSending {
		t.Fatalf("drained while sending: actions %#x, state %v", act, r.pb.state)
	}
	if len(r.logs) != 1 || !strings.Contains(r.logs[0], "no transition for drained while sending") {
		t.Fatalf("logs %q", r.logs)
	}
}
