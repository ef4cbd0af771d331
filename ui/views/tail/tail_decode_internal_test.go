package tail

import (
	"bytes"
	"testing"
)

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
