package consumer

import "sync"

// chunk is the records of one partition from one fetch, handed over in
// order. recs is one slab: handing records over allocates nothing. cur,
// epoch, recs and bytes do not change once pushed; next and committed
// are the buffer's (chunkBuf.mu).
type chunk struct {
	cur       *cursor
	epoch     uint32
	recs      []Record
	next      int
	bytes     int
	committed bool // CommitImmediate: committed before hand-over
}

// stale reports whether the chunk's partition was revoked or moved (a
// seek) since it was fetched. It reads the cursor: Consumer.mu is held.
func (ch *chunk) stale() bool { return ch.cur.removed || ch.epoch != ch.cur.epoch }

// chunkBuf is the records fetched and not handed over yet: the chunks in
// the order they arrived, their bytes (a chunk counts whole until its
// last record is taken) and each partition's records. It has its own
// lock, so Consumer.mu does not guard it; it may be taken with
// Consumer.mu held, never the reverse. take, uncommitted and drop look at
// the chunks' cursors (chunk.stale), so their callers hold Consumer.mu;
// len, bytes and pending need nothing else.
type chunkBuf struct {
	mu     sync.Mutex
	queue  []*chunk
	nbytes int
	nrecs  int
	byCur  map[*cursor]int // records not handed over, per partition
}

// push appends the records of one fetch of one partition.
func (b *chunkBuf) push(ch *chunk) {
	n := len(ch.recs) - ch.next
	if n <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.queue = append(b.queue, ch)
	b.nbytes += ch.bytes
	b.nrecs += n
	if b.byCur == nil {
		b.byCur = map[*cursor]int{}
	}
	b.byCur[ch.cur] += n
}

// take moves up to max-len(dst) records from the front to dst. Stale
// chunks are dropped on the way; with holdUncommitted (CommitImmediate)
// it stops before a chunk not committed yet. For every chunk it takes
// from, took is told the partition's next position (after the last
// record taken) and how many of its records are still buffered; took
// runs under the buffer's lock and must not call the buffer.
func (b *chunkBuf) take(max int, dst []*Record, holdUncommitted bool, took func(cur *cursor, next int64, left int)) []*Record {
	b.mu.Lock()
	defer b.mu.Unlock()
	for len(dst) < max && len(b.queue) > 0 {
		ch := b.queue[0]
		if ch.stale() {
			b.popLocked()
			continue
		}
		if holdUncommitted && !ch.committed {
			break
		}
		n := min(max-len(dst), len(ch.recs)-ch.next)
		if dst == nil {
			// Room for all that may be taken (stale chunks aside), so
			// taking from several chunks does not grow the slice.
			dst = make([]*Record, 0, min(max, b.nrecs))
		}
		for i := ch.next; i < ch.next+n; i++ {
			dst = append(dst, &ch.recs[i])
		}
		ch.next += n
		b.nrecs -= n
		left := b.byCur[ch.cur] - n
		b.setPendingLocked(ch.cur, left)
		if ch.next == len(ch.recs) {
			b.popLocked()
		}
		if took != nil {
			took(ch.cur, ch.recs[ch.next-1].Offset+1, left)
		}
	}
	return dst
}

// popLocked removes the front chunk with what is left of it.
func (b *chunkBuf) popLocked() {
	ch := b.queue[0]
	b.nbytes -= ch.bytes
	if left := len(ch.recs) - ch.next; left > 0 {
		b.nrecs -= left
		b.setPendingLocked(ch.cur, b.byCur[ch.cur]-left)
	}
	b.queue[0] = nil
	b.queue = b.queue[1:]
	if len(b.queue) == 0 {
		b.queue = b.queue[:0:0]
	}
}

func (b *chunkBuf) setPendingLocked(cur *cursor, n int) {
	if n <= 0 {
		delete(b.byCur, cur)
		return
	}
	b.byCur[cur] = n
}

// uncommitted returns, in order, the chunks not committed yet among
// those that taking max records would touch (stale ones are skipped).
func (b *chunkBuf) uncommitted(max int) []*chunk {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []*chunk
	n := 0
	for _, ch := range b.queue {
		if n >= max {
			break
		}
		if ch.stale() {
			continue
		}
		n += len(ch.recs) - ch.next
		if !ch.committed {
			out = append(out, ch)
		}
	}
	return out
}

// markCommitted notes that the records of chs were committed
// (CommitImmediate), so take may hand them over.
func (b *chunkBuf) markCommitted(chs []*chunk) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, ch := range chs {
		ch.committed = true
	}
}

// drop removes the records of one partition.
func (b *chunkBuf) drop(cur *cursor) {
	b.mu.Lock()
	defer b.mu.Unlock()
	q := b.queue[:0]
	for _, ch := range b.queue {
		if ch.cur == cur {
			b.nbytes -= ch.bytes
			b.nrecs -= len(ch.recs) - ch.next
			continue
		}
		q = append(q, ch)
	}
	clear(b.queue[len(q):])
	b.queue = q
	delete(b.byCur, cur)
}

// clear removes every record.
func (b *chunkBuf) clear() {
	b.mu.Lock()
	defer b.mu.Unlock()
	clear(b.queue)
	b.queue = nil
	b.nbytes, b.nrecs = 0, 0
	clear(b.byCur)
}

// len returns the records buffered.
func (b *chunkBuf) len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.nrecs
}

// bytes returns what the buffered chunks cost (MaxBufferedBytes bounds it).
func (b *chunkBuf) bytes() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.nbytes
}

// pending returns the records of cur buffered (Prefetch bounds it).
func (b *chunkBuf) pending(cur *cursor) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.byCur[cur]
}
