package tail

import (
	"bytes"
	"testing"
	"time"

	"ilinkdash/ilink/engine/demo"
	"ilinkdash/ilink/schema"
)

func mustDemoSet(t testing.TB) *schema.Set {
	t.Helper()
	set, err := schema.Compile(demo.DecodeRules())
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// The decoded document of a record counts against the buffer's byte
// bound: a ring of 20 kB holds fewer decoded records than raw ones.
func TestDecodedBytesCountInTheBound(t *testing.T) {
	raw := Record{Topic: "T", Value: bytes.Repeat([]byte{1}, 100)}
	dec := raw
	dec.ValueDecoded = bytes.Repeat([]byte("x"), 1000)
	if got, want := RecordSize(&dec)-RecordSize(&raw), int64(1000); got != want {
		t.Fatalf("the decoded document adds %d bytes, want %d", got, want)
	}
	fill := func(r Record) int {
		ring := newTailRing(1000, 20_000)
		for i := 0; i < 100; i++ {
			ring.push(newEntry(&r, interner{}))
		}
		if ring.bytes > ring.maxBytes {
			t.Fatalf("ring holds %d bytes over its bound %d", ring.bytes, ring.maxBytes)
		}
		return ring.n
	}
	if r, d := fill(raw), fill(dec); d >= r || d != int(20_000/RecordSize(&dec)) {
		t.Fatalf("raw records held %d, decoded %d", r, d)
	}
	e := newEntry(&dec, interner{})
	if rec := e.record(); !bytes.Equal(rec.ValueDecoded, dec.ValueDecoded) {
		t.Fatal("the saved record lost its decoded value")
	}
}

// stubStream is a Stream of a channel the test feeds (the other methods
// are not called).
type stubStream struct {
	Stream
	ch     chan Batch
	closed bool
}

func (s *stubStream) Records() <-chan Batch { return s.ch }
func (s *stubStream) Close() error          { s.closed = true; return nil }

// The relay decodes on its own goroutine and hands batches on in order;
// Close ends it even while it waits on a view that stopped draining.
func TestDecodedStreamRelaysAndStops(t *testing.T) {
	set := mustDemoSet(t)
	in := &stubStream{ch: make(chan Batch, 8)}
	s := decodeStream(in, set)
	in.ch <- Batch{Epoch: 1, Records: []Record{{Topic: "SHOP.ORDERS", Value: []byte{0xff}}}}
	in.ch <- Batch{Epoch: 2, Records: []Record{{Topic: "OTHER", Value: []byte("x")}}}
	b1, b2 := <-s.Records(), <-s.Records()
	if b1.Epoch != 1 || b1.Records[0].ValueError == "" || b2.Epoch != 2 || b2.Records[0].ValueError != "" || b2.Records[0].ValueDecoded != nil {
		t.Fatalf("batches %+v %+v", b1, b2)
	}
	for i := 0; i < 5; i++ { // more than the relay holds: it blocks
		in.ch <- Batch{Epoch: 3}
	}
	if err := s.Close(); err != nil || !in.closed {
		t.Fatalf("close: %v, inner closed %v", err, in.closed)
	}
	deadline := time.After(10 * time.Second)
	for {
		select {
		case _, ok := <-s.Records():
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("the relay did not end after Close")
		}
	}
}
