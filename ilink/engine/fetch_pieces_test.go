package engine

import (
	"bytes"
	"testing"

	"ilinkdash/ilink/wire"
)

// The vectored fetch reply is, byte for byte, the frame Encode gives; its
// batches are the stored slices themselves, not copies.
func TestFetchReplyPiecesAreTheFrame(t *testing.T) {
	b1, b2, b3 := bytes.Repeat([]byte{1}, 300), bytes.Repeat([]byte{2}, 70), bytes.Repeat([]byte{3}, 5)
	out := &fetchReply{topics: []fetchTopic{
		{topic: "ORDERS", parts: []fetchPart{
			{partition: 0, hw: 10, start: 0, batches: [][]byte{b1, b2}, size: len(b1) + len(b2)},
			{partition: 1, err: wire.PartError{Name: wire.ErrFollowerNode, Tail: "node 2 leads"}, hint: 2},
			{partition: 2, hw: 5, batches: [][]byte{b3}, size: len(b3)},
		}},
		{topic: "EMPTY", parts: []fetchPart{{partition: 0, hw: 0}}},
	}}
	h := wire.Header{Flags: wire.FlagResponse, Code: wire.CodeFetch, Corr: 77}
	want := wire.AppendFrame(nil, h, out.Encode)
	for _, fieldSize := range []int{0, 16, 4096} { // a bound too small only costs a copy of the fields
		pieces := out.pieces(h, fieldSize)
		if got := bytes.Join(pieces, nil); !bytes.Equal(got, want) {
			t.Fatalf("fieldSize %d: pieces join to\n%x\nwant\n%x", fieldSize, got, want)
		}
		var shared int
		for _, p := range pieces {
			for _, b := range [][]byte{b1, b2, b3} {
				if len(p) > 0 && &p[0] == &b[0] {
					shared++
				}
			}
		}
		if shared != 3 {
			t.Fatalf("fieldSize %d: %d of the 3 batches sent as stored, want all", fieldSize, shared)
		}
	}
	none := &fetchReply{}
	if got := bytes.Join(none.pieces(h, 8), nil); !bytes.Equal(got, wire.AppendFrame(nil, h, none.Encode)) {
		t.Fatalf("an empty reply: %x", got)
	}
}
