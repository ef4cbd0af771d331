package consumer

import (
	"errors"
	"slices"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/wire"
)

// source is the fetch loop of one leader node (franz-go's "source"): it
// owns the cursors of the partitions that node leads, keeps one fetch in
// flight on its own connection while the application works through what
// is buffered (double buffering), and stops fetching a partition when its
// buffered records reach Prefetch or the consumer's buffer reaches
// MaxBufferedBytes.
type source struct {
	c    *Consumer
	node uint16
	wake chan struct{}

	curs    []*cursor // guarded by c.mu
	rot     int       // rotating start for fairness, guarded by c.mu
	blocked bool      // waits for a reader to make room (c.mu)

	// Owned by the run goroutine.
	conn *ilink.Conn
	sent []sentPart
}

// sentPart is one partition of a fetch on the wire.
type sentPart struct {
	cur    *cursor
	offset int64
	epoch  uint32
}

func newSource(c *Consumer, node uint16) *source {
	return &source{c: c, node: node, wake: make(chan struct{}, 1)}
}

func (s *source) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// add attaches cur (c.mu held).
func (s *source) add(cur *cursor) {
	if cur.src == s {
		return
	}
	if cur.src != nil {
		cur.src.drop(cur)
	}
	cur.src = s
	s.curs = append(s.curs, cur)
	s.signal()
}

// drop detaches cur (c.mu held).
func (s *source) drop(cur *cursor) {
	if i := slices.Index(s.curs, cur); i >= 0 {
		s.curs = slices.Delete(s.curs, i, i+1)
	}
	if cur.src == s {
		cur.src = nil
	}
}

func (s *source) run() {
	c := s.c
	defer c.wg.Done()
	defer func() {
		if s.conn != nil {
			s.conn.Close()
		}
	}()
	backoff := 50 * time.Millisecond
	for {
		if c.ctx.Err() != nil {
			return
		}
		req, held := s.build()
		if req == nil {
			select {
			case <-c.ctx.Done():
				return
			case <-s.wake:
			}
			continue
		}
		if err := s.fetch(req, held); err != nil {
			if c.ctx.Err() != nil {
				s.release(nil)
				return
			}
			c.opt.Logf("consumer: fetch from node %d: %v", s.node, err)
			c.health.failed(err, time.Now())
			s.release(err)
			if c.opt.sleep(c.ctx, backoff) != nil {
				return
			}
			backoff = min(2*backoff, time.Second)
			continue
		}
		c.health.ok(time.Now())
		backoff = 50 * time.Millisecond
	}
}

// build prepares the next fetch from the cursors that may fetch now and
// marks them in flight; nil when none may. held reports cursors left out
// because their buffers are full: the fetch then must not long-poll for
// long, or a reader freeing room would wait for the poll to end.
func (s *source) build() (req *wire.FetchRequest, held bool) {
	c := s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	s.sent = s.sent[:0]
	room := c.opt.MaxBufferedBytes - c.buf.bytes()
	if c.state == stateClosed || c.fetchPaused || len(s.curs) == 0 {
		return nil, false
	}
	if room <= 0 {
		s.blocked = true
		c.roomBlocked = true
		return nil, true
	}
	blocked := false
	n := len(s.curs)
	s.rot++
	for i := 0; i < n; i++ {
		cur := s.curs[(s.rot+i)%n]
		if cur.inflight || cur.removed {
			continue
		}
		if c.buf.pending(cur) >= c.opt.Prefetch {
			blocked = true
			continue
		}
		if req == nil {
			req = &wire.FetchRequest{MinBytes: 1, MaxBytes: int32(min(room, defaultFetchMaxBytes))}
		}
		req.Topics = appendFetchPartition(req.Topics, cur.topic, wire.FetchPartition{Partition: cur.partition, Offset: cur.offset, MaxBytes: c.opt.partFetch})
		cur.inflight = true
		s.sent = append(s.sent, sentPart{cur: cur, offset: cur.offset, epoch: cur.epoch})
	}
	if req == nil && blocked {
		s.blocked = true
	}
	return req, blocked
}

func appendFetchPartition(ts []wire.FetchTopic, topic string, p wire.FetchPartition) []wire.FetchTopic {
	for i := range ts {
		if ts[i].Topic == topic {
			ts[i].Partitions = append(ts[i].Partitions, p)
			return ts
		}
	}
	return append(ts, wire.FetchTopic{Topic: topic, Partitions: []wire.FetchPartition{p}})
}

// heldFetchWait bounds the long-poll of a fetch sent while other
// partitions of the source wait for buffer room.
const heldFetchWait = 20 * time.Millisecond

// fetch sends req on the source's connection and hands the reply over.
func (s *source) fetch(req *wire.FetchRequest, held bool) error {
	c := s.c
	if s.conn == nil || s.conn.Err() != nil {
		if s.conn != nil {
			s.conn.Close()
			s.conn = nil
		}
		addr, ok := c.cl.addrOf(s.node)
		if !ok {
			return &ilink.Error{Name: ilink.NameConnectFailed, Tail: "address of node unknown", Kind: ilink.KindSession}
		}
		conn, err := c.cl.dial(c.ctx, addr)
		if err != nil {
			return err
		}
		s.conn = conn
	}
	var rep wire.FetchReply
	wait := c.opt.fetchMaxWait
	if held {
		wait = min(wait, heldFetchWait)
	}
	if err := s.conn.DoBounded(c.ctx, wire.CodeFetch, uint32(wait/time.Millisecond), req, &rep, fetchReplyBound(req)); err != nil {
		if ilink.IsSessionError(err) {
			s.conn.Close()
			s.conn = nil
		}
		return err
	}
	s.handle(&rep)
	return nil
}

// fetchReplyBound is what a reply to req may take: the batches its byte
// limits let through (the whole one and each partition's), and room for
// the fields. A reply up to it is read into one buffer at once (a larger
// one, which an oversize first batch may make, grows as it arrives).
func fetchReplyBound(req *wire.FetchRequest) int {
	parts := 0
	for i := range req.Topics {
		for _, p := range req.Topics[i].Partitions {
			parts += int(p.MaxBytes)
		}
	}
	return min(int(req.MaxBytes), parts) + 64<<10
}

// release ends a fetch that failed as a whole: its cursors look for their
// leader again (a dead connection or a stopped queue manager usually means
// a dead or moved leader, spec C-29). err nil = closing.
func (s *source) release(err error) {
	c := s.c
	c.mu.Lock()
	for _, sp := range s.sent {
		sp.cur.inflight = false
		if err != nil && !sp.cur.removed {
			c.unhomeLocked(sp.cur)
		}
	}
	s.sent = s.sent[:0]
	c.fetchDoneLocked()
	c.mu.Unlock()
	if err != nil {
		c.wakeMeta()
	}
}

// decoded is one partition's outcome of a fetch, prepared outside the lock.
type decoded struct {
	res   *wire.FetchPartitionResult
	recs  []Record
	bytes int
	err   error
}

// handle decodes the reply outside the consumer's lock, then buffers the
// records and moves cursors under it.
func (s *source) handle(rep *wire.FetchReply) {
	c := s.c
	out := make([]decoded, len(s.sent))
	for i, sp := range s.sent {
		res := findFetchResult(rep, sp.cur.topic, sp.cur.partition)
		if res == nil {
			continue
		}
		out[i].res = res
		if res.Err.Name == "" && len(res.Batches) > 0 {
			out[i].recs, out[i].bytes, out[i].err = s.decode(sp.cur.topic, sp.cur.partition, sp.offset, res.Batches)
		}
	}
	metaNeeded := false
	c.mu.Lock()
	added := false
	for i, sp := range s.sent {
		cur := sp.cur
		cur.inflight = false
		d := &out[i]
		if cur.removed || cur.epoch != sp.epoch || d.res == nil {
			continue
		}
		res := d.res
		switch res.Err.Name {
		case "":
			if d.err != nil {
				c.opt.Logf("consumer: %v: %v", cur.tp, d.err)
			}
			if len(d.recs) > 0 {
				c.buf.push(&chunk{cur: cur, epoch: cur.epoch, recs: d.recs, bytes: d.bytes})
				cur.offset = d.recs[len(d.recs)-1].Offset + 1
				added = true
			}
		case wire.ErrOffsetOutOfRange:
			// Hidden (spec C-30): back into the log per the start mode.
			to := c.resetOffset(cur.offset, res.LogStart, res.HighWatermark)
			c.opt.Logf("consumer: %v: offset %d out of range [%d, %d]: reset to %d", cur.tp, cur.offset, res.LogStart, res.HighWatermark, to)
			cur.offset = to
			if cur.pos < res.LogStart || cur.pos > res.HighWatermark {
				cur.pos = to
			}
		default:
			// FOLLOWER_NODE (with a hint), unknown topic, stopped queue
			// manager...: fetch from the right leader (spec C-29).
			if res.LeaderHint != 0 && res.LeaderHint != s.node {
				c.cl.setLeader(cur.tp, res.LeaderHint)
				if _, known := c.cl.addrOf(res.LeaderHint); known {
					c.sourceLocked(res.LeaderHint).add(cur)
					continue
				}
			}
			c.opt.Logf("consumer: %v on node %d: %s (%s)", cur.tp, s.node, res.Err.Name, res.Err.Tail)
			c.unhomeLocked(cur)
			metaNeeded = true
		}
	}
	s.sent = s.sent[:0]
	if added {
		c.notifyLocked()
	}
	c.fetchDoneLocked()
	c.mu.Unlock()
	if metaNeeded {
		c.wakeMeta()
	}
}

func findFetchResult(rep *wire.FetchReply, topic string, p int32) *wire.FetchPartitionResult {
	for i := range rep.Topics {
		t := &rep.Topics[i]
		if t.Topic != topic {
			continue
		}
		for j := range t.Partitions {
			if t.Partitions[j].Partition == p {
				return &t.Partitions[j]
			}
		}
	}
	return nil
}

// decode turns the batches of one partition into one slab of records at
// or after from. Records below from (the first batch may start earlier)
// are skipped; a batch that ends before from is not even decompressed.
// A truncated batch at the end (cut by MaxBytes) ends the records; a
// corrupt one too, with an error.
func (s *source) decode(topic string, p int32, from int64, batches []byte) ([]Record, int, error) {
	total := 0
	for b := batches; len(b) > 0; {
		batch, rest, err := wire.NextBatch(b)
		if err != nil {
			break
		}
		h, err := wire.ParseBatchHeader(batch)
		if err != nil {
			break
		}
		if h.LastOffset() >= from {
			total += int(h.RecordCount)
		}
		b = rest
	}
	if total == 0 {
		return nil, 0, nil
	}
	recs := make([]Record, 0, total)
	bytes := 0
	var ferr error
	var it wire.BatchRecords
	var r wire.Record
	for b := batches; len(b) > 0; {
		batch, rest, err := wire.NextBatch(b)
		if err != nil {
			if !errors.Is(err, wire.ErrBatchTruncated) {
				ferr = err
			}
			break
		}
		b = rest
		h, _ := wire.ParseBatchHeader(batch)
		if h.LastOffset() < from {
			continue
		}
		// Each record is decoded once, straight into recs; a batch that
		// fails gives none of its records. An uncompressed batch is not
		// copied: its records alias the reply's frame, fresh memory per
		// reply that nothing modifies, so a record kept pins at most the
		// reply (bounded by the fetch's MaxBytes).
		keep, keepBytes := len(recs), bytes
		if err := it.Reset(batch, 0, true); err != nil {
			ferr = err
			break
		}
		for it.Next(&r) {
			if r.Offset < from || len(recs) == cap(recs) {
				continue
			}
			// Field by field into the slab (fresh, zeroed memory): no
			// Record built aside and copied, and no nil stored.
			recs = recs[:len(recs)+1]
			d := &recs[len(recs)-1]
			d.Topic, d.Partition, d.Offset = topic, p, r.Offset
			d.Timestamp = time.UnixMilli(r.Timestamp)
			d.Value = r.Value
			bytes += len(r.Key) + len(r.Value) + recordOverhead
			if r.Key != nil {
				d.Key = r.Key
			}
			if r.Headers != nil {
				d.Headers = r.Headers
				for j := range r.Headers {
					bytes += len(r.Headers[j].Key) + len(r.Headers[j].Value)
				}
			}
		}
		if err := it.Err(); err != nil {
			clear(recs[keep:])
			recs, bytes, ferr = recs[:keep], keepBytes, err
			break
		}
	}
	return recs, bytes, ferr
}
