package consumer

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// mkChunk returns n records of cur at offsets from.., costing bytes.
func mkChunk(cur *cursor, from int64, n, bytes int) *chunk {
	recs := make([]Record, n)
	for i := range recs {
		recs[i] = Record{Topic: cur.topic, Partition: cur.partition, Offset: from + int64(i)}
	}
	return &chunk{cur: cur, epoch: cur.epoch, recs: recs, bytes: bytes}
}

func TestChunkBuf(t *testing.T) {
	t.Parallel()
	type step struct {
		op    string // push, take, takeHeld (CommitImmediate), commit, drop, remove, seek, clear
		p     int    // partition (push, drop, remove, seek)
		from  int64  // push: first offset
		n     int    // push: records; take: max
		cost  int    // push: the chunk's bytes
		taken string // take: the records handed over, "p:offset" each
		// then: records and bytes buffered, records of partitions 0 and 1
		recs, bytes int
		pending     [2]int
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"take within one chunk then its end", []step{
			{op: "push", p: 0, from: 10, n: 3, cost: 300, recs: 3, bytes: 300, pending: [2]int{3, 0}},
			{op: "take", n: 2, taken: "0:10 0:11", recs: 1, bytes: 300, pending: [2]int{1, 0}},
			{op: "take", n: 5, taken: "0:12", recs: 0, bytes: 0},
			{op: "take", n: 5, taken: ""},
		}},
		{"take across chunks and partitions, in arrival order", []step{
			{op: "push", p: 0, from: 0, n: 2, cost: 100, recs: 2, bytes: 100, pending: [2]int{2, 0}},
			{op: "push", p: 1, from: 5, n: 2, cost: 50, recs: 4, bytes: 150, pending: [2]int{2, 2}},
			{op: "push", p: 0, from: 2, n: 2, cost: 100, recs: 6, bytes: 250, pending: [2]int{4, 2}},
			{op: "take", n: 3, taken: "0:0 0:1 1:5", recs: 3, bytes: 150, pending: [2]int{2, 1}},
			{op: "take", n: 3, taken: "1:6 0:2 0:3", recs: 0, bytes: 0},
		}},
		{"an empty chunk is not buffered", []step{
			{op: "push", p: 0, from: 0, n: 0, cost: 10},
			{op: "take", n: 1, taken: ""},
		}},
		{"a revoked partition's chunks are skipped and counted out", []step{
			{op: "push", p: 0, from: 0, n: 2, cost: 100, recs: 2, bytes: 100, pending: [2]int{2, 0}},
			{op: "push", p: 1, from: 0, n: 3, cost: 30, recs: 5, bytes: 130, pending: [2]int{2, 3}},
			{op: "remove", p: 0, recs: 5, bytes: 130, pending: [2]int{2, 3}},
			{op: "take", n: 2, taken: "1:0 1:1", recs: 1, bytes: 30, pending: [2]int{0, 1}},
		}},
		{"a seek leaves the older chunks stale", []step{
			{op: "push", p: 0, from: 0, n: 4, cost: 40, recs: 4, bytes: 40, pending: [2]int{4, 0}},
			{op: "take", n: 1, taken: "0:0", recs: 3, bytes: 40, pending: [2]int{3, 0}},
			{op: "seek", p: 0, recs: 3, bytes: 40, pending: [2]int{3, 0}},
			{op: "push", p: 0, from: 100, n: 1, cost: 10, recs: 4, bytes: 50, pending: [2]int{4, 0}},
			{op: "take", n: 9, taken: "0:100", recs: 0, bytes: 0},
		}},
		{"drop removes one partition only", []step{
			{op: "push", p: 0, from: 0, n: 2, cost: 20, recs: 2, bytes: 20, pending: [2]int{2, 0}},
			{op: "push", p: 1, from: 0, n: 2, cost: 30, recs: 4, bytes: 50, pending: [2]int{2, 2}},
			{op: "take", n: 1, taken: "0:0", recs: 3, bytes: 50, pending: [2]int{1, 2}},
			{op: "drop", p: 0, recs: 2, bytes: 30, pending: [2]int{0, 2}},
			{op: "take", n: 9, taken: "1:0 1:1", recs: 0, bytes: 0},
		}},
		{"CommitImmediate holds what is not committed", []step{
			{op: "push", p: 0, from: 0, n: 2, cost: 20, recs: 2, bytes: 20, pending: [2]int{2, 0}},
			{op: "takeHeld", n: 5, taken: "", recs: 2, bytes: 20, pending: [2]int{2, 0}},
			{op: "commit", n: 5, recs: 2, bytes: 20, pending: [2]int{2, 0}},
			{op: "push", p: 1, from: 0, n: 1, cost: 5, recs: 3, bytes: 25, pending: [2]int{2, 1}},
			{op: "takeHeld", n: 5, taken: "0:0 0:1", recs: 1, bytes: 5, pending: [2]int{0, 1}},
		}},
		{"commit marks only what taking max would touch", []step{
			{op: "push", p: 0, from: 0, n: 2, cost: 20, recs: 2, bytes: 20, pending: [2]int{2, 0}},
			{op: "push", p: 1, from: 0, n: 2, cost: 20, recs: 4, bytes: 40, pending: [2]int{2, 2}},
			{op: "commit", n: 2, recs: 4, bytes: 40, pending: [2]int{2, 2}},
			{op: "takeHeld", n: 4, taken: "0:0 0:1", recs: 2, bytes: 20, pending: [2]int{0, 2}},
		}},
		{"clear", []step{
			{op: "push", p: 0, from: 0, n: 2, cost: 20, recs: 2, bytes: 20, pending: [2]int{2, 0}},
			{op: "push", p: 1, from: 0, n: 2, cost: 20, recs: 4, bytes: 40, pending: [2]int{2, 2}},
			{op: "clear"},
			{op: "take", n: 9, taken: ""},
			{op: "push", p: 1, from: 2, n: 1, cost: 7, recs: 1, bytes: 7, pending: [2]int{0, 1}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b chunkBuf
			curs := []*cursor{{tp: tp{"T", 0}}, {tp: tp{"T", 1}}}
			for i, s := range tc.steps {
				where := fmt.Sprintf("step %d (%s)", i, s.op)
				switch s.op {
				case "push":
					b.push(mkChunk(curs[s.p], s.from, s.n, s.cost))
				case "take", "takeHeld":
					var took []string
					out := b.take(s.n, nil, s.op == "takeHeld", func(cur *cursor, next int64, left int) {
						took = append(took, fmt.Sprintf("%d:%d/%d", cur.partition, next, left))
						if got := b.byCur[cur]; got != left {
							t.Errorf("%s: took says %d left of partition %d, the buffer %d", where, left, cur.partition, got)
						}
					})
					if len(out) > s.n {
						t.Errorf("%s: %d records taken with max %d", where, len(out), s.n)
					}
					var got []string
					for _, r := range out {
						got = append(got, fmt.Sprintf("%d:%d", r.Partition, r.Offset))
					}
					if strings.Join(got, " ") != s.taken {
						t.Errorf("%s: took %q, want %q", where, strings.Join(got, " "), s.taken)
					}
					// took is told each partition's next position: after
					// its last record taken.
					for _, tk := range took {
						var p int32
						var next int64
						var left int
						fmt.Sscanf(tk, "%d:%d/%d", &p, &next, &left)
						if !slices.Contains(got, fmt.Sprintf("%d:%d", p, next-1)) {
							t.Errorf("%s: took reports next %d for partition %d, not after a record taken (%v)", where, next, p, got)
						}
					}
				case "commit":
					b.markCommitted(b.uncommitted(s.n))
				case "drop":
					b.drop(curs[s.p])
				case "remove":
					curs[s.p].removed = true
				case "seek":
					curs[s.p].epoch++
				case "clear":
					b.clear()
				default:
					t.Fatalf("%s: unknown op", where)
				}
				if got := b.len(); got != s.recs {
					t.Errorf("%s: len %d, want %d", where, got, s.recs)
				}
				if got := b.bytes(); got != s.bytes {
					t.Errorf("%s: bytes %d, want %d", where, got, s.bytes)
				}
				for p := range curs {
					if got := b.pending(curs[p]); got != s.pending[p] {
						t.Errorf("%s: partition %d: %d records pending, want %d", where, p, got, s.pending[p])
					}
				}
				// The counts agree with the chunks themselves.
				recs, bytes := 0, 0
				for _, ch := range b.queue {
					recs += len(ch.recs) - ch.next
					bytes += ch.bytes
				}
				if recs != b.nrecs || bytes != b.nbytes {
					t.Errorf("%s: the chunks hold %d records, %d bytes; the counts say %d, %d", where, recs, bytes, b.nrecs, b.nbytes)
				}
			}
		})
	}
}

// uncommitted stops at max records and skips the committed and the stale.
func TestChunkBufUncommitted(t *testing.T) {
	t.Parallel()
	a, z := &cursor{tp: tp{"T", 0}}, &cursor{tp: tp{"T", 1}}
	for _, tc := range []struct {
		name string
		max  int
		prep func(b *chunkBuf, chs []*chunk)
		want []int // indexes into chs
	}{
		{"all", 100, nil, []int{0, 1, 2}},
		{"one record touches the first", 1, nil, []int{0}},
		{"three records touch two", 3, nil, []int{0, 1}},
		{"the committed are left out", 100, func(b *chunkBuf, chs []*chunk) { b.markCommitted(chs[:1]) }, []int{1, 2}},
		{"the committed still count towards max", 2, func(b *chunkBuf, chs []*chunk) { b.markCommitted(chs[:1]) }, nil},
		{"the stale neither", 3, func(b *chunkBuf, chs []*chunk) { z.removed = true }, []int{0, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a.removed, z.removed = false, false
			var b chunkBuf
			chs := []*chunk{mkChunk(a, 0, 2, 1), mkChunk(z, 0, 2, 1), mkChunk(a, 2, 2, 1)}
			for _, ch := range chs {
				b.push(ch)
			}
			if tc.prep != nil {
				tc.prep(&b, chs)
			}
			got := b.uncommitted(tc.max)
			var idx []int
			for _, ch := range got {
				idx = append(idx, slices.Index(chs, ch))
			}
			if !slices.Equal(idx, tc.want) {
				t.Errorf("uncommitted(%d) = chunks %v, want %v", tc.max, idx, tc.want)
			}
		})
	}
}
