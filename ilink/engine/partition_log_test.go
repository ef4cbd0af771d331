package engine

import (
	"math"
	"testing"

	"ilinkdash/ilink/wire"
)

// appendBatches appends n batches of k records each to l (offset stamping
// as the leader does) and returns them.
func appendBatches(t testing.TB, l *partLog, n, k int) {
	t.Helper()
	vals := make([]string, k)
	for i := range vals {
		vals[i] = "v"
	}
	for i := 0; i < n; i++ {
		b := plainBatch(t, vals...)
		h, err := wire.ParseBatchHeader(b)
		if err != nil {
			t.Fatal(err)
		}
		wire.SetBatchBaseOffset(b, l.end)
		l.add(logEntry{b: b, base: l.end, next: l.end + int64(k)}, &h)
	}
}

// TestPartLogEntriesBoundedByLive: under a steady produce-and-expire load
// the entry array stays within its bound (partLog.ents: 2 × live + 256),
// also after a burst left it large; with the former 1,024-entry threshold
// it carried over a thousand dead slots per log.
func TestPartLogEntriesBoundedByLive(t *testing.T) {
	l := newPartLog(0)
	bound := func(live int) int { return 2*live + 256 } // as documented at partLog.ents
	const live = 100
	steady := func(n int) {
		t.Helper()
		for i := 0; i < n; i++ {
			appendBatches(t, l, 1, 1)
			if over := len(l.live()) - live; over > 0 {
				l.dropHead(over)
			}
			if c := cap(l.ents); c > bound(live) {
				t.Fatalf("after %d appends: entry array of %d for %d live entries (bound %d)", i, c, len(l.live()), bound(live))
			}
		}
	}
	steady(20_000)
	// A burst of 5,000 unexpired batches grows the array; once retention
	// brings the log back to 100 batches, the array shrinks back.
	appendBatches(t, l, 5000, 1)
	if cap(l.ents) < 5000 {
		t.Fatalf("array of %d after a burst of 5000", cap(l.ents))
	}
	l.dropHead(len(l.live()) - live)
	steady(2 * live)
	if l.end != 25_200 || len(l.live()) != live {
		t.Fatalf("log ends at %d with %d live entries", l.end, len(l.live()))
	}
}

func TestPartLogIndexAndRetention(t *testing.T) {
	l := newPartLog(0)
	appendBatches(t, l, 3000, 2)
	if l.start != 0 || l.end != 6000 || len(l.live()) != 3000 {
		t.Fatalf("log %d..%d with %d entries", l.start, l.end, len(l.live()))
	}
	for _, tc := range []struct {
		off        int64
		find, bndy int
	}{{0, 0, 0}, {1, 0, -1}, {5999, 2999, -1}, {5998, 2999, 2999}, {6000, -1, 3000}, {-1, -1, -1}} {
		if got := l.find(tc.off); got != tc.find {
			t.Errorf("find(%d) = %d, want %d", tc.off, got, tc.find)
		}
		if got := l.boundary(tc.off); got != tc.bndy {
			t.Errorf("boundary(%d) = %d, want %d", tc.off, got, tc.bndy)
		}
	}
	per := l.bytes / 3000
	// Drop in steps; the dropped prefix is compacted away once it is at
	// least logCompactMin entries and a quarter of the live part (here
	// from the second step on).
	for i := 0; i < 4; i++ {
		l.dropHead(500)
	}
	if l.start != 4000 || l.bytes != 1000*per || len(l.live()) != 1000 || l.head != 0 || len(l.ents) != 1000 {
		t.Fatalf("after dropping 2000: start %d bytes %d live %d head %d ents %d", l.start, l.bytes, len(l.live()), l.head, len(l.ents))
	}
	if l.find(3999) != -1 || l.find(4000) != 0 {
		t.Fatal("find after retention")
	}
	l.truncate(10)
	if l.end != 4020 || len(l.live()) != 10 || l.bytes != 10*per {
		t.Fatalf("after truncate: end %d live %d bytes %d", l.end, len(l.live()), l.bytes)
	}
	l.dropHead(10)
	if l.start != 4020 || l.end != 4020 || l.bytes != 0 {
		t.Fatalf("after dropping everything: %d..%d, %d bytes", l.start, l.end, l.bytes)
	}
}

func TestSequenceWindowWraps(t *testing.T) {
	if got := seqAdd(math.MaxInt32, 1); got != 0 {
		t.Fatalf("seqAdd(MaxInt32, 1) = %d", got)
	}
	if got := seqAdd(math.MaxInt32-1, 3); got != 1 {
		t.Fatalf("seqAdd(MaxInt32-1, 3) = %d", got)
	}
	l := newPartLog(0)
	h := wire.BatchHeader{ProducerID: 7, BaseSequence: 0, RecordCount: 2}
	if v := l.checkSeq(&h, 1); v.dup || v.err != "" {
		t.Fatalf("first batch: %+v", v)
	}
	l.observe(&logEntry{base: 0, next: 2, tEpoch: 1}, &h)
	// The same batch in a new topic epoch is not a duplicate: sequences
	// restart there, so seq 0 is accepted as new.
	if v := l.checkSeq(&h, 2); v.dup || v.err != "" {
		t.Fatalf("same sequences in a new topic epoch: %+v", v)
	}
	if v := l.checkSeq(&h, 1); !v.dup || v.dupRange.base != 0 || v.dupRange.next != 2 {
		t.Fatalf("resend: %+v", v)
	}
	// A higher producer epoch must restart at 0; a lower one is fenced.
	h2 := wire.BatchHeader{ProducerID: 7, ProducerEpoch: 1, BaseSequence: 2, RecordCount: 1}
	if v := l.checkSeq(&h2, 1); v.err == "" {
		t.Fatal("new producer epoch not at sequence 0 accepted")
	}
	h2.BaseSequence = 0
	l.observe(&logEntry{base: 2, next: 3, tEpoch: 1}, &h2)
	h.BaseSequence = 2
	if v := l.checkSeq(&h, 1); v.err == "" {
		t.Fatal("fenced producer epoch accepted")
	}
}

// FuzzSplitProduceBlob feeds arbitrary bytes to the produce validator,
// which sees every byte a client sends: it must never panic, and what it
// accepts must be whole batches covering the input exactly.
func FuzzSplitProduceBlob(f *testing.F) {
	one := plainBatch(f, "a", "b")
	lz, err := func() ([]byte, error) {
		bb := wire.NewBatchBuilder(9, 0, 0)
		bb.Append(1, []byte("k"), []byte("v"), []wire.RecordHeader{{Key: "h", Value: nil}})
		return bb.Finish(wire.CodecLZ4)
	}()
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte{})
	f.Add(one)
	f.Add(append(append([]byte{}, one...), lz...))
	f.Add(one[:len(one)-1])
	f.Add(append(append([]byte{}, one...), 0, 0, 0))
	f.Add(make([]byte, 61))
	f.Fuzz(func(t *testing.T, b []byte) {
		spans, reason := splitProduceBlob(b, nil)
		if reason != "" {
			if spans != nil {
				t.Fatalf("refused with spans %v", spans)
			}
			return
		}
		off := 0
		for _, s := range spans {
			if s.off != off || s.n < wire.BatchHeaderSize || s.h.RecordCount < 1 {
				t.Fatalf("span %+v at %d", s, off)
			}
			if err := wire.VerifyBatchCRC(b[s.off : s.off+s.n]); err != nil {
				t.Fatalf("accepted a batch that fails its CRC: %v", err)
			}
			off += s.n
		}
		if off != len(b) {
			t.Fatalf("spans cover %d of %d bytes", off, len(b))
		}
	})
}

// TestPartLogForgetsUnretainedProducers: the idempotence state keeps only
// producers with a batch in the log (partLog.producers); without the
// eviction, 1,000 producers of one batch each would all stay, long after
// retention took their batches.
func TestPartLogForgetsUnretainedProducers(t *testing.T) {
	l := newPartLog(0)
	const producers, live = 1000, 10
	for pid := int64(1); pid <= producers; pid++ {
		b := batchOf(t, pid, 0, wire.CodecNone, 0, "v")
		h, err := wire.ParseBatchHeader(b)
		if err != nil {
			t.Fatal(err)
		}
		wire.SetBatchBaseOffset(b, l.end)
		l.add(logEntry{b: b, base: l.end, next: l.end + 1}, &h)
		if over := len(l.live()) - live; over > 0 {
			l.dropHead(over)
		}
		if len(l.producers) > live {
			t.Fatalf("after producer %d: state of %d producers for %d batches in the log", pid, len(l.producers), len(l.live()))
		}
	}
	// The retained producers go on; a forgotten one must take a new id.
	next := func(pid int64) seqVerdict {
		h, err := wire.ParseBatchHeader(batchOf(t, pid, 1, wire.CodecNone, 0, "w"))
		if err != nil {
			t.Fatal(err)
		}
		return l.checkSeq(&h, 0)
	}
	if v := next(producers); v.err != "" {
		t.Errorf("retained producer refused: %s", v.err)
	}
	if v := next(1); !v.unknown {
		t.Errorf("forgotten producer: %+v, want unknown producer id", v)
	}
}
