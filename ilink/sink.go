package ilink

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"ilinkdash/ilink/wire"
)

// sink is the sender of one node: the partitions that node leads, one
// connection to it, and one goroutine that builds and pipelines PRODUCE
// requests (franz-go's sink). Replies are handled strictly in issue order:
// whichever goroutine completes a request appends nothing to the state
// until every earlier request of the sink was handled (produceReq.done).
type sink struct {
	p    *Producer
	node uint16

	wakeFlag atomic.Bool
	wakeCh   chan struct{}
	timer    *time.Timer

	mu          sync.Mutex
	addr        string
	parts       []*partBuf
	conn        *Conn
	poisoned    bool          // conn got MIMQE_FOLLOWER_NODE: drain, close, reopen (spec P-36)
	reqs        []*produceReq // unanswered or unhandled, in issue order (every connection)
	handling    bool
	nextDial    time.Time
	dialBackoff time.Duration
	lastUse     time.Time
	timerAt     time.Time
	rr          int

	scratch []*partBuf // the sink goroutine's copy of parts
}

func newSink(p *Producer, node uint16, addr string) *sink {
	s := &sink{p: p, node: node, addr: addr, wakeCh: make(chan struct{}, 1), lastUse: time.Now()}
	s.timer = time.AfterFunc(time.Hour, s.wake)
	s.timer.Stop()
	return s
}

// wake makes the sink goroutine look at its partitions; wake-ups coalesce.
func (s *sink) wake() {
	if s.wakeFlag.CompareAndSwap(false, true) {
		select {
		case s.wakeCh <- struct{}{}:
		default:
		}
	}
}

// wakeAt arranges a wake-up at t (the earliest one asked for wins).
// s.mu is held.
func (s *sink) wakeAtLocked(t time.Time) {
	if !s.timerAt.IsZero() && !s.timerAt.After(t) && time.Now().Before(s.timerAt) {
		return
	}
	s.timerAt = t
	s.timer.Reset(time.Until(t))
}

func (s *sink) run() {
	defer s.p.wg.Done()
	for {
		select {
		case <-s.wakeCh:
		case <-s.p.done:
			s.timer.Stop()
			return
		}
		s.wakeFlag.Store(false)
		s.drain()
	}
}

func (s *sink) setAddr(a string) {
	s.mu.Lock()
	s.addr = a
	s.mu.Unlock()
}

func (s *sink) addPart(pb *partBuf) {
	s.mu.Lock()
	s.parts = append(s.parts, pb)
	s.mu.Unlock()
}

func (s *sink) removePart(pb *partBuf) {
	s.mu.Lock()
	for i, x := range s.parts {
		if x == pb {
			s.parts = append(s.parts[:i], s.parts[i+1:]...)
			break
		}
	}
	s.mu.Unlock()
}

// liveConn is the sink's connection when it can carry new requests.
func (s *sink) liveConn() *Conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn == nil || s.poisoned || s.conn.Err() != nil {
		return nil
	}
	return s.conn
}

func (s *sink) touch() {
	s.mu.Lock()
	s.lastUse = time.Now()
	s.mu.Unlock()
}

// install makes c the sink's connection unless it has a live one already,
// in which case c is closed and the live one returned. Once the producer
// is done, c is closed and returned: shutdown closes the sinks' connections
// once, under each sink's lock after marking the producer done, so one
// installed later would never be closed, nor a request sent on it answered.
func (s *sink) install(c *Conn) *Conn {
	s.mu.Lock()
	if s.p.isDone() {
		s.mu.Unlock()
		c.Close()
		return c
	}
	if s.conn != nil && s.conn.Err() == nil && !s.poisoned {
		cur := s.conn
		s.lastUse = time.Now()
		s.mu.Unlock()
		c.Close()
		return cur
	}
	old := s.conn
	if old != nil && s.inflightOnLocked(old) > 0 {
		old = nil // a poisoned connection still draining: closed when drained
	}
	s.conn, s.poisoned, s.dialBackoff = c, false, 0
	s.lastUse = time.Now()
	s.mu.Unlock()
	if old != nil {
		old.Close()
	}
	s.wake()
	return c
}

// takeIdleConn detaches the connection of a sink that leads nothing and has
// nothing in flight, once it has been idle for a moment (spec P-39).
func (s *sink) takeIdleConn(now time.Time) *Conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn == nil || len(s.parts) > 0 || len(s.reqs) > 0 || now.Sub(s.lastUse) < producerIdleConnGrace {
		return nil
	}
	c := s.conn
	s.conn, s.poisoned = nil, false
	return c
}

func (s *sink) inflightOnLocked(c *Conn) int {
	n := 0
	for _, r := range s.reqs {
		if r.conn == c && !r.finished {
			n++
		}
	}
	return n
}

// usableConn returns the connection to send on, dialling when needed, or
// nil when nothing can be sent now (the sink is woken again later).
func (s *sink) usableConn() *Conn {
	p := s.p
	s.mu.Lock()
	if s.conn != nil && s.conn.Err() != nil {
		s.conn, s.poisoned = nil, false
	}
	if s.conn != nil && s.poisoned {
		if s.inflightOnLocked(s.conn) > 0 {
			s.mu.Unlock()
			return nil // its last reply wakes us
		}
		old := s.conn
		s.conn, s.poisoned = nil, false
		s.mu.Unlock()
		p.cfg.logf("ilink: producer: closing connection to node %d after a follower rejection", s.node)
		old.Close()
		s.mu.Lock()
	}
	if c := s.conn; c != nil {
		if s.inflightOnLocked(c) >= p.cfg.maxInFlight {
			c = nil
		}
		s.mu.Unlock()
		return c
	}
	if len(s.parts) == 0 {
		s.mu.Unlock()
		return nil
	}
	if now := time.Now(); now.Before(s.nextDial) {
		s.wakeAtLocked(s.nextDial)
		s.mu.Unlock()
		return nil
	}
	addr := s.addr
	s.mu.Unlock()
	p.mu.Lock()
	cfg := p.connCfg
	p.mu.Unlock()
	c, err := DialConn(p.ctx, addr, cfg)
	if err == nil && c.Hello().NodeID != s.node {
		c.Close()
		err = fmt.Errorf("%s is node %d, not node %d", addr, c.Hello().NodeID, s.node)
	}
	if err != nil {
		s.mu.Lock()
		s.dialBackoff = min(max(2*s.dialBackoff, p.cfg.retryBackoff/2), producerReconnectBackoffMax)
		s.nextDial = time.Now().Add(s.dialBackoff)
		s.wakeAtLocked(s.nextDial)
		s.mu.Unlock()
		if !p.isDone() {
			p.cfg.logf("ilink: producer: node %d (%s): %v", s.node, addr, err)
			p.wantMetadata()
		}
		return nil
	}
	p.mu.Lock()
	p.learnNodesLocked(c.Hello().Nodes)
	p.mu.Unlock()
	c = s.install(c)
	s.mu.Lock()
	if s.inflightOnLocked(c) >= p.cfg.maxInFlight {
		c = nil
	}
	s.mu.Unlock()
	return c
}

// drain sends requests while there is something ready and room in flight.
func (s *sink) drain() {
	for !s.p.isDone() {
		c := s.usableConn()
		if c == nil {
			return
		}
		req := s.collect(c)
		if req == nil {
			return
		}
		s.issue(req)
	}
}

// produceReq is one PRODUCE request in flight.
type produceReq struct {
	s        *sink
	conn     *Conn
	entries  []reqEntry
	msg      wire.ProduceRequest
	body     produceBody
	reply    wire.ProduceReply
	err      error
	notSent  bool
	finished bool
}

type reqEntry struct {
	pb *partBuf
	b  *batch
}

// produceBody encodes a request into a frame buffer grown once to its size.
type produceBody struct {
	m    *wire.ProduceRequest
	size int
}

func (b *produceBody) Encode(w *wire.Writer) {
	if cap(w.B)-len(w.B) < b.size {
		nb := append(wire.GetFrameBuf(len(w.B)+b.size), w.B...)
		putBuf(w.B)
		w.B = nb
	}
	b.m.Encode(w)
}

func (b *produceBody) Decode(r *wire.Reader) { b.m.Decode(r) }

// collect builds the next request: one ready batch of every partition the
// node leads, in rotating order, up to MaxRequestSize (spec P-09, P-22).
func (s *sink) collect(c *Conn) *produceReq {
	p := s.p
	s.mu.Lock()
	s.scratch = append(s.scratch[:0], s.parts...)
	start := s.rr
	s.rr++
	s.mu.Unlock()
	parts := s.scratch
	n := len(parts)
	if n == 0 {
		return nil
	}
	now := time.Now()
	force := p.forceDrain()
	room := p.cfg.maxRequestSize - envelopeBase
	var entries []reqEntry
	var wakeAt time.Time
	for i := range n {
		pb := parts[(start+i)%n]
		b, at := pb.take(s, now, force, room, len(entries) == 0)
		if !at.IsZero() && (wakeAt.IsZero() || at.Before(wakeAt)) {
			wakeAt = at
		}
		if b == nil {
			continue
		}
		if len(b.frozen) == 0 {
			if err := b.freeze(p.cfg.codec, p.cfg.idempotent); err != nil {
				if fin, ferr := pb.result(b, outFatal, &Error{Name: wire.ErrInvalidArgument, Tail: err.Error(), Kind: KindRejected}); fin {
					p.completeBatch(b, -1, ferr)
				}
				continue
			}
		}
		room -= envelopePerTopic + len(pb.t.name) + envelopePerPartition + len(b.frozen)
		entries = append(entries, reqEntry{pb, b})
		if b.large || room < envelopePerTopic+envelopePerPartition+wire.BatchHeaderSize {
			break
		}
	}
	clear(s.scratch)
	if !wakeAt.IsZero() {
		s.mu.Lock()
		s.wakeAtLocked(wakeAt)
		s.mu.Unlock()
	}
	if len(entries) == 0 {
		return nil
	}
	req := &produceReq{s: s, conn: c, entries: entries}
	req.msg.Acks = p.cfg.acks
	size := envelopeBase
	for _, e := range entries {
		// Batches travel with the epoch they were frozen at, so one topic
		// may appear once per epoch.
		ti := -1
		for j := range req.msg.Topics {
			if req.msg.Topics[j].Topic == e.pb.t.name && req.msg.Topics[j].Epoch == e.b.epoch {
				ti = j
				break
			}
		}
		if ti < 0 {
			req.msg.Topics = append(req.msg.Topics, wire.ProduceTopic{Topic: e.pb.t.name, Epoch: e.b.epoch})
			ti = len(req.msg.Topics) - 1
			size += envelopePerTopic + len(e.pb.t.name)
		}
		req.msg.Topics[ti].Partitions = append(req.msg.Topics[ti].Partitions, wire.ProducePartition{Partition: e.pb.id, Batches: e.b.frozen})
		size += envelopePerPartition + len(e.b.frozen)
	}
	req.body = produceBody{m: &req.msg, size: size}
	return req
}

// issue writes req on its connection.
func (s *sink) issue(req *produceReq) {
	p := s.p
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	s.lastUse = time.Now()
	s.mu.Unlock()
	if p.cfg.acks == wire.AcksNone {
		err := req.conn.SendNoReply(wire.CodeProduce, &req.body)
		if err != nil {
			req.notSent = true
		}
		req.done(err)
		return
	}
	timeout := uint32(p.cfg.requestTimeout / time.Millisecond)
	if _, err := req.conn.Send(wire.CodeProduce, timeout, &req.body, &req.reply, req.done); err != nil {
		req.notSent = true
		req.done(err)
	}
}

// done is the completion of a request (from the connection's reader, from
// the goroutine that killed the connection, or from issue). Requests are
// handled in issue order, by one goroutine at a time.
func (r *produceReq) done(err error) {
	s := r.s
	s.mu.Lock()
	r.err, r.finished = err, true
	if s.handling {
		s.mu.Unlock()
		return
	}
	s.handling = true
	for len(s.reqs) > 0 && s.reqs[0].finished {
		head := s.reqs[0]
		copy(s.reqs, s.reqs[1:])
		s.reqs[len(s.reqs)-1] = nil
		s.reqs = s.reqs[:len(s.reqs)-1]
		s.mu.Unlock()
		s.handle(head)
		s.mu.Lock()
	}
	s.handling = false
	s.mu.Unlock()
	s.wake()
}

// classify maps an engine error name to what the producer does about it.
func classify(name string) outcome {
	switch name {
	case "":
		return outOK
	case wire.ErrFollowerNode:
		return outMoved
	case wire.ErrQmgrNotRunning, wire.ErrNoLeader, wire.ErrNotLeader:
		return outRoute
	case wire.ErrTopicFlushed, wire.ErrTopicEpochMismatch:
		return outEpoch
	case wire.ErrOutOfOrderSequence:
		return outSequence
	case wire.ErrUnknownProducerID:
		return outUnknownID
	case wire.ErrNotEnoughReplicas:
		return outUnsure
	case wire.ErrInternal, wire.ErrUnknownTopic, wire.ErrLoading:
		return outRetry
	}
	return outFatal
}

type finishedBatch struct {
	b    *batch
	base int64
	err  error
}

// handle applies the answer of one request to its batches.
func (s *sink) handle(r *produceReq) {
	p := s.p
	var fin []finishedBatch
	var moves []reqEntry
	var hints []uint16
	meta, poison := false, false
	apply := func(e reqEntry, o outcome, err error, base int64) {
		if done, ferr := e.pb.result(e.b, o, err); done {
			fin = append(fin, finishedBatch{e.b, base, ferr})
		}
	}
	switch {
	case r.err != nil:
		o := outAmbiguous
		var e *Error
		switch {
		case HasName(r.err, wire.ErrMsgSizeOver):
			o = outFatal // the client's frame cap (cannot happen within MaxRequestSize)
		case r.notSent:
			o = outNotSent
		case errors.As(r.err, &e) && e.Kind == KindRejected:
			o = classify(e.Name) // the engine refused the whole request
		}
		if o == outMoved {
			poison = true
		}
		if o == outAmbiguous || o == outNotSent || o == outRoute || o == outMoved {
			meta = true
		}
		for _, en := range r.entries {
			apply(en, o, r.err, -1)
			if o == outMoved {
				moves = append(moves, en)
				hints = append(hints, 0)
			}
		}
	case p.cfg.acks == wire.AcksNone:
		for _, en := range r.entries {
			apply(en, outOK, nil, -1)
		}
	default:
		for _, en := range r.entries {
			res := findResult(&r.reply, en.pb.t.name, en.b.epoch, en.pb.id, &r.msg)
			if res == nil {
				apply(en, outRetry, &Error{Name: NameProtocol, Kind: KindSession,
					Tail: fmt.Sprintf("no result for %s[%d] in the PRODUCE reply", en.pb.t.name, en.pb.id)}, -1)
				continue
			}
			o := classify(res.Err.Name)
			var err error
			if o != outOK {
				err = &Error{Name: res.Err.Name, Tail: res.Err.Tail, Kind: KindRejected}
			}
			switch o {
			case outMoved:
				poison, meta = true, true
				switch {
				case res.LeaderHint == 0:
					// No leader right now (election): back off until the
					// metadata names one.
					o = outRoute
				case res.LeaderHint != s.node:
					moves = append(moves, en)
					hints = append(hints, res.LeaderHint)
				}
			case outRoute, outEpoch, outRetry, outUnsure, outUnknownID:
				meta = true
			}
			if o == outEpoch {
				en.pb.t.staleEpoch.Store(int64(en.b.epoch))
			}
			apply(en, o, err, res.BaseOffset)
		}
	}
	if poison {
		s.mu.Lock()
		if s.conn == r.conn {
			s.poisoned = true // spec P-35, P-36
		}
		s.mu.Unlock()
	}
	for _, f := range fin {
		p.completeBatch(f.b, f.base, f.err)
	}
	for i, en := range moves {
		if hints[i] != 0 {
			p.move(en.pb, hints[i]) // spec P-37: same sequences, new leader
		}
	}
	if meta {
		p.wantMetadata()
	}
}

// findResult finds the result of (topic, epoch, partition): replies list
// the request's topics in request order.
func findResult(rep *wire.ProduceReply, topic string, epoch int32, part int32, req *wire.ProduceRequest) *wire.ProducePartitionResult {
	for i := range rep.Topics {
		t := &rep.Topics[i]
		if t.Topic != topic || (i < len(req.Topics) && req.Topics[i].Epoch != epoch) {
			continue
		}
		for j := range t.Partitions {
			if t.Partitions[j].Partition == part {
				return &t.Partitions[j]
			}
		}
	}
	return nil
}
