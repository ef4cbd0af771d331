package ilink

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"ilinkdash/ilink/wire"
)

// Producer is the iLink topic producer (ilink-spec §3.5): a buffer per
// partition (accumulator.go) inside a sender per partition-leader node
// (sink.go), in the shape of franz-go's recBuf/sink.
//
// Send partitions the record (murmur2 for keys, uniform-sticky for nil
// keys), appends it to its partition's open batch under that partition's
// lock, and returns; no goroutine is started and nothing is allocated per
// record once the buffers are warm. Each node's sink goroutine freezes ready
// batches (compressing them once), packs every ready partition it leads into
// one PRODUCE request up to MaxRequestSize and pipelines up to MaxInFlight
// requests on its connection. Replies are handled strictly in issue order
// per node; a batch's callbacks run once, from the goroutine that handled
// its reply (a connection's reader), so callbacks must be short and must not
// call Flush, Close or SendSync, nor block in Send (buffer memory).
//
// Idempotence: a producer id from INIT PRODUCER, and a sequence per (topic,
// partition) assigned when a batch is frozen and kept across resends and
// leader moves; a partition keeps one batch in flight until its first
// acceptance; any failure in a partition stops its sending until its
// in-flight batches came back, then it resends from its oldest
// unacknowledged batch with the same sequences.
type Producer struct {
	cfg  producerConfig
	boot []string
	// ident is the producer id the batches are stamped with; it changes
	// when the engine answers MIMQE_UNKNOWN_PRODUCER_ID (it lost the
	// producer's state): see reinit.
	ident atomic.Pointer[producerIdent]
	// reinitFor is the generation of ident found stale, -1 when none: the
	// housekeeping goroutine asks for a new producer id.
	reinitFor atomic.Int64
	reinitCh  chan struct{}

	ctx    context.Context // ends at Close: dials and metadata requests
	cancel context.CancelFunc
	done   chan struct{} // closed when the goroutines must stop
	wg     sync.WaitGroup

	closing  atomic.Bool
	stopped  atomic.Bool // goroutines stopping: appends fail (checked under partBuf.mu)
	closeMu  sync.Mutex
	closeErr error
	closed   bool

	// clock stamps records sent without a timestamp.
	clock recordClock

	// topics is copy-on-write: Send reads it without a lock. A topic's
	// state is never replaced, so lastTopic (the topic of the last Send)
	// spares the common single-topic sender the map's string hash.
	topics    atomic.Pointer[map[string]*topicState]
	lastTopic atomic.Pointer[topicState]
	topicMu   sync.Mutex // serialises first-send metadata lookups

	// mu guards the topology: nodes, sinks, partition placement. Lock
	// order: Producer.mu → sink.mu → partBuf.mu.
	mu      sync.Mutex
	connCfg ConnConfig
	nodes   map[uint16]string // node id → data address
	sinks   map[uint16]*sink

	metaWanted atomic.Bool
	metaCh     chan struct{}

	// Buffer memory (spec P-15): bytes of records accepted and not yet
	// completed. It is also what Flush waits on.
	buffered atomic.Int64
	memFreed wakeup // a Send waits on it for room
	flushing atomic.Int32
	drained  wakeup // Flush waits on it for buffered == 0

	stBatches, stRecords, stRetries, stErrors atomic.Int64
	stIDResets, stMaybeDups                   atomic.Int64
}

// producerIdent is one producer id with its epoch; gen counts the ids this
// producer had (0 = the first).
type producerIdent struct {
	id    int64
	epoch int16
	gen   uint32
}

// ProducerRecord is one record to send. Headers are the record's properties
// (spec P-02). A zero Timestamp means "now": read at Send, the read shared
// with the records sent within about a millisecond (recordClock.stamp).
// Send copies what it needs before it returns: the record and its slices
// may be reused at once.
type ProducerRecord struct {
	Topic     string
	Key       []byte
	Value     []byte
	Headers   []wire.RecordHeader
	Timestamp time.Time
}

// RecordMetadata describes a completed record. Offset is -1 when unknown
// (acks 0, or failure); Partition is -1 when the record failed before it
// was partitioned. Timestamp is the record's timestamp as given to Send
// (with the clock's full precision; the wire carries milliseconds).
type RecordMetadata struct {
	Topic     string
	Partition int32
	Offset    int64
	Timestamp time.Time
	// Size is the record's key and value bytes, so a caller can count the
	// bytes acknowledged without keeping each record's size itself.
	Size int
}

// Future is the result of SendFuture.
type Future struct {
	done chan struct{}
	md   RecordMetadata
	err  error
}

// Get waits for the record's result or for ctx.
func (f *Future) Get(ctx context.Context) (RecordMetadata, error) {
	select {
	case <-f.done:
		return f.md, f.err
	case <-ctx.Done():
		return RecordMetadata{}, ctxError(ctx)
	}
}

// Done is closed once the result is known.
func (f *Future) Done() <-chan struct{} { return f.done }

func (f *Future) complete(md RecordMetadata, err error) {
	f.md, f.err = md, err
	close(f.done)
}

// ProducerStats is a snapshot of a producer's counters.
type ProducerStats struct {
	Connections   map[int]int // open connections per node id
	InFlight      int         // produce requests awaiting a reply
	BatchesSent   int64       // batches acknowledged
	RecordsSent   int64       // records acknowledged
	Retries       int64       // batch resends after a failed attempt
	Errors        int64       // records failed
	BufferedBytes int64       // accepted, not yet completed
	// ProducerIDResets counts the new producer ids taken because the
	// engine had lost this producer's state (MIMQE_UNKNOWN_PRODUCER_ID,
	// e.g. after every replica of a partition restarted).
	ProducerIDResets int64
	// PossibleDuplicates counts the records resent under a new producer id
	// after an attempt whose outcome was unknown: the engine cannot
	// de-duplicate across ids, so these may be stored twice.
	PossibleDuplicates int64
}

// NameDeliveryTimeout is the client-side error of a record that did not
// complete within DeliveryTimeoutMs (spec P-16); Tail says what was last
// seen. Its kind is KindSession: the record may or may not be stored.
const NameDeliveryTimeout = "MIMQE_DELIVERY_TIMEOUT"

// NewProducer validates cfg (a KindConfig error is returned before anything
// is sent), connects to the first reachable address of addrs ("host:port"
// or a comma-separated list) in producer mode, and, when idempotence is on,
// asks the engine for a producer id (INIT PRODUCER). ctx bounds only this
// setup.
func NewProducer(ctx context.Context, addrs string, cfg ProducerConfig) (*Producer, error) {
	c, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	if c.readOnly {
		return nil, ReadOnlyError("publish")
	}
	boot, err := ParseAddrs(addrs)
	if err != nil {
		return nil, err
	}
	p := &Producer{
		cfg:      c,
		boot:     boot,
		reinitCh: make(chan struct{}, 1),
		done:     make(chan struct{}),
		nodes:    map[uint16]string{},
		sinks:    map[uint16]*sink{},
		metaCh:   make(chan struct{}, 1),
		connCfg: ConnConfig{
			ClientName:     c.clientName,
			Mode:           wire.ModeProducer,
			MaxFrame:       c.maxFrame,
			RequestTimeout: c.requestTimeout,
			Hub:            cfg.Hub,
			Logf:           c.logf,
		},
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	p.ident.Store(&producerIdent{id: -1, epoch: -1})
	p.reinitFor.Store(-1)
	empty := map[string]*topicState{}
	p.topics.Store(&empty)

	conn, err := p.controlConn(ctx)
	if err != nil {
		p.shutdown()
		return nil, err
	}
	p.mu.Lock()
	p.connCfg.QueueManager = conn.Hello().QueueManager // every node of one cluster
	p.mu.Unlock()
	if c.idempotent {
		var rep wire.InitProducerReply
		if err := conn.Do(ctx, wire.CodeInitProducer, 0, &wire.InitProducerRequest{ClientName: c.clientName}, &rep); err != nil {
			p.shutdown()
			return nil, err
		}
		p.ident.Store(&producerIdent{id: rep.ProducerID, epoch: rep.Epoch})
	}
	p.wg.Add(1)
	go p.housekeeping()
	c.logf("ilink: producer %d ready (idempotent %v, acks %d, linger %v, batch %d, codec %v)", p.ProducerID(), c.idempotent, c.acks, c.linger, c.batchSize, c.codec)
	return p, nil
}

// ProducerID is the engine-assigned producer id, -1 when idempotence is off
// (spec P-24). It changes when the engine lost the producer's state
// (Stats().ProducerIDResets).
func (p *Producer) ProducerID() int64 { return p.ident.Load().id }

// IsConnected reports whether the producer holds at least one live
// connection; false after Close (spec P-42).
func (p *Producer) IsConnected() bool {
	if p.closing.Load() {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, s := range p.sinks {
		if s.liveConn() != nil {
			return true
		}
	}
	return false
}

// Stats returns a snapshot of the producer's counters.
func (p *Producer) Stats() ProducerStats {
	st := ProducerStats{
		Connections:   map[int]int{},
		BatchesSent:   p.stBatches.Load(),
		RecordsSent:   p.stRecords.Load(),
		Retries:       p.stRetries.Load(),
		Errors:        p.stErrors.Load(),
		BufferedBytes: p.buffered.Load(),

		ProducerIDResets:   p.stIDResets.Load(),
		PossibleDuplicates: p.stMaybeDups.Load(),
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for id, s := range p.sinks {
		s.mu.Lock()
		if s.conn != nil && s.conn.Err() == nil {
			st.Connections[int(id)]++
		}
		st.InFlight += len(s.reqs)
		s.mu.Unlock()
	}
	return st
}

// Send queues r and returns at once; cb (may be nil) is called exactly once
// with the result. Local failures (read-only, closed, too large, unknown
// topic, no buffer memory within DeliveryTimeoutMs) call cb before Send
// returns. The first Send to a topic waits for its partition count
// (METADATA, once per topic: spec P-20), and Send blocks while BufferMemory
// is full. Send does not keep r.
func (p *Producer) Send(r *ProducerRecord, cb func(RecordMetadata, error)) {
	p.send(r, cb, nil, false)
}

// SendFuture is Send with a Future instead of a callback.
func (p *Producer) SendFuture(r *ProducerRecord) *Future {
	f := &Future{done: make(chan struct{})}
	p.send(r, nil, f, false)
	return f
}

// SendSync sends r, makes its partition's batch sendable at once (no
// linger), and waits for the result or ctx (spec P-01).
func (p *Producer) SendSync(ctx context.Context, r *ProducerRecord) (RecordMetadata, error) {
	f := &Future{done: make(chan struct{})}
	p.send(r, nil, f, true)
	return f.Get(ctx)
}

func (p *Producer) send(r *ProducerRecord, cb func(RecordMetadata, error), fut *Future, urgent bool) {
	if p.closing.Load() {
		p.failLocal(r, -1, cb, fut, producerClosedError())
		return
	}
	est := wire.RecordSizeEstimate(r.Key, r.Value, r.Headers)
	if need := recordEnvelopeSize(r.Topic, est); need > p.cfg.recordCap { // spec P-08, W-08
		p.failLocal(r, -1, cb, fut, &Error{Name: wire.ErrMsgSizeOver, Kind: KindRejected,
			Tail: fmt.Sprintf("record needs %d bytes in a request, the record cap is %d (min(maxRequestSize, maxFrameLength-25))", need, p.cfg.recordCap)})
		return
	}
	if int64(est) > p.cfg.bufferMemory {
		p.failLocal(r, -1, cb, fut, &Error{Name: wire.ErrMsgSizeOver, Kind: KindRejected,
			Tail: fmt.Sprintf("record of %d bytes exceeds bufferMemory %d", est, p.cfg.bufferMemory)})
		return
	}
	t, err := p.topicFor(r.Topic)
	if err != nil {
		p.failLocal(r, -1, cb, fut, err) // spec P-21
		return
	}
	parts := t.partBufs()
	n := len(parts)
	var part int
	if r.Key != nil {
		part = KeyPartition(r.Key, n) // spec P-17
	} else {
		part = t.stickyPartition(est, n) // spec P-19
	}
	var ts int64
	if r.Timestamp.IsZero() {
		ts = p.clock.stamp()
	} else {
		ts = r.Timestamp.UnixNano()
	}
	if err := p.reserve(int64(est)); err != nil {
		p.failLocal(r, int32(part), cb, fut, err)
		return
	}
	parts[part].append(r.Key, r.Value, r.Headers, ts, est, cb, fut, urgent)
}

// failLocal completes a record that never entered a buffer.
func (p *Producer) failLocal(r *ProducerRecord, part int32, cb func(RecordMetadata, error), fut *Future, err error) {
	p.stErrors.Add(1)
	ts := r.Timestamp
	if ts.IsZero() {
		ts = time.Now()
	}
	md := RecordMetadata{Topic: r.Topic, Partition: part, Offset: -1, Timestamp: ts, Size: len(r.Key) + len(r.Value)}
	if cb != nil {
		cb(md, err)
	}
	if fut != nil {
		fut.complete(md, err)
	}
}

func producerClosedError() *Error {
	return &Error{Name: NameSessionClosed, Tail: "producer closed", Kind: KindSession}
}

// reserve takes n bytes of buffer memory, waiting while it is full (at most
// DeliveryTimeoutMs).
func (p *Producer) reserve(n int64) error {
	if p.tryReserve(n) {
		return nil
	}
	return p.reserveSlow(n)
}

// tryReserve takes n bytes if they fit; the counter never exceeds the cap.
func (p *Producer) tryReserve(n int64) bool {
	for {
		cur := p.buffered.Load()
		if cur+n > p.cfg.bufferMemory {
			return false
		}
		if p.buffered.CompareAndSwap(cur, cur+n) {
			return true
		}
	}
}

func (p *Producer) reserveSlow(n int64) error {
	deadline := time.Now().Add(p.cfg.deliveryTimeout)
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		ch := p.memFreed.arm(func() bool { return p.tryReserve(n) })
		if ch == nil {
			return nil
		}
		// Memory pressure: every partial batch becomes sendable.
		p.wakeAll()
		wait := time.Until(deadline)
		if wait <= 0 {
			p.memFreed.done()
			return &Error{Name: NameDeliveryTimeout, Kind: KindSession,
				Tail: fmt.Sprintf("no buffer memory for %d bytes within %v (bufferMemory %d)", n, p.cfg.deliveryTimeout, p.cfg.bufferMemory)}
		}
		if timer == nil {
			timer = time.NewTimer(wait)
		} else {
			timer.Reset(wait)
		}
		select {
		case <-ch:
		case <-timer.C:
		case <-p.done:
			p.memFreed.done()
			return producerClosedError()
		}
		p.memFreed.done()
		if p.closing.Load() {
			return producerClosedError()
		}
	}
}

// release returns n bytes of buffer memory and wakes waiters.
func (p *Producer) release(n int64) {
	v := p.buffered.Add(-n)
	p.memFreed.wake()
	if v == 0 {
		p.drained.wake()
	}
}

// wakeup is the broadcast a waiter for buffer memory or for an empty
// buffer sleeps on: release wakes every waiter at once by closing the
// channel they armed. The waiter count lets release skip the lock when
// nobody waits, and tells forceDrain that a Send is waiting.
type wakeup struct {
	waiters atomic.Int32
	mu      sync.Mutex
	ch      chan struct{}
}

// arm counts a waiter, then checks ready: when it holds, arm returns nil
// and the caller waits no more; else it returns the channel the next
// wake closes, and the caller calls done once it stops waiting. Counting
// before checking, under the lock, is what keeps a wake from slipping
// between the check and the wait.
func (w *wakeup) arm(ready func() bool) <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.waiters.Add(1)
	if ready() {
		w.waiters.Add(-1)
		return nil
	}
	if w.ch == nil {
		w.ch = make(chan struct{})
	}
	return w.ch
}

// done uncounts a waiter that arm gave a channel.
func (w *wakeup) done() { w.waiters.Add(-1) }

func (w *wakeup) waiting() bool { return w.waiters.Load() > 0 }

// wake wakes every armed waiter; with none it costs one atomic load.
func (w *wakeup) wake() {
	if w.waiting() {
		w.wakeAll()
	}
}

func (w *wakeup) wakeAll() {
	w.mu.Lock()
	if w.ch != nil {
		close(w.ch)
		w.ch = nil
	}
	w.mu.Unlock()
}

// forceDrain is true while every partial batch should be sent at once:
// during Flush and while a Send waits for buffer memory.
func (p *Producer) forceDrain() bool {
	return p.flushing.Load() > 0 || p.memFreed.waiting()
}

// Flush makes every buffered batch sendable at once and waits until every
// record accepted so far has completed (callbacks included), or ctx ends.
func (p *Producer) Flush(ctx context.Context) error {
	p.flushing.Add(1)
	defer p.flushing.Add(-1)
	p.wakeAll()
	return p.waitIdle(ctx)
}

// waitIdle waits until no record is buffered or in flight.
func (p *Producer) waitIdle(ctx context.Context) error {
	for {
		ch := p.drained.arm(func() bool { return p.buffered.Load() == 0 })
		if ch == nil {
			return nil
		}
		select {
		case <-ch:
			p.drained.done()
		case <-ctx.Done():
			p.drained.done()
			return ctxError(ctx)
		}
	}
}

// Close flushes (waiting at most DeliveryTimeoutMs plus one request
// timeout), then closes every connection. Records still pending fail with
// MIMQE_SESSION_CLOSED. Sends after Close fail the same way. Close is
// idempotent.
func (p *Producer) Close() error {
	return p.CloseContext(context.Background())
}

// CloseContext is Close with the wait for pending records bounded by ctx
// as well: when ctx ends first, the records not yet acknowledged fail at
// once with MIMQE_SESSION_CLOSED (their callbacks run before CloseContext
// returns) and the error is ctx's. An ended ctx closes without waiting,
// which is how a command stops promptly whatever the cluster does. A Send
// blocked on buffer memory or on its topic's first metadata returns when
// the producer closes.
func (p *Producer) CloseContext(ctx context.Context) error {
	if !p.closing.CompareAndSwap(false, true) {
		p.closeMu.Lock()
		defer p.closeMu.Unlock()
		return p.closeErr
	}
	p.closeMu.Lock()
	defer p.closeMu.Unlock()
	fctx, cancel := context.WithTimeout(ctx, p.cfg.deliveryTimeout+p.cfg.requestTimeout)
	err := p.Flush(fctx)
	cancel()
	p.shutdown()
	// Whatever is left (a flush that timed out) fails now.
	for _, t := range *p.topics.Load() {
		for _, pb := range t.partBufs() {
			for _, b := range pb.takeAll() {
				p.completeBatch(b, -1, producerClosedError())
			}
		}
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	_ = p.waitIdle(wctx) // batches whose last reply is being handled right now
	cancel()
	p.closeErr = err
	p.closed = true
	return err
}

// shutdown stops the goroutines and closes every connection.
func (p *Producer) shutdown() {
	p.closing.Store(true)
	p.stopped.Store(true)
	p.cancel()
	select {
	case <-p.done:
	default:
		close(p.done)
	}
	p.mu.Lock()
	var conns []*Conn
	for _, s := range p.sinks {
		s.mu.Lock()
		if s.conn != nil {
			conns = append(conns, s.conn)
			s.conn = nil
		}
		for _, r := range s.reqs {
			if !r.finished && r.conn != nil && !slices.Contains(conns, r.conn) {
				conns = append(conns, r.conn) // a replaced connection still draining (sink.install)
			}
		}
		s.mu.Unlock()
	}
	p.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
	p.wg.Wait()
}

func (p *Producer) isDone() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// wakeAll wakes every sink.
func (p *Producer) wakeAll() {
	p.mu.Lock()
	for _, s := range p.sinks {
		s.wake()
	}
	p.mu.Unlock()
}

// completeBatch runs the callbacks of b and recycles it. base < 0 (acks 0)
// gives offsets of -1.
func (p *Producer) completeBatch(b *batch, base int64, err error) {
	pb := b.pb
	topic := pb.t.name
	md := RecordMetadata{Topic: topic, Partition: pb.id, Offset: -1}
	for i := range b.recs {
		e := &b.recs[i]
		if err == nil && base >= 0 {
			md.Offset = base + int64(i)
		}
		md.Timestamp, md.Size = time.Unix(0, e.ts), int(e.size)
		if e.cb != nil {
			e.cb(md, err)
		}
		if e.fut != nil {
			e.fut.complete(md, err)
		}
	}
	if err == nil {
		p.stBatches.Add(1)
		p.stRecords.Add(int64(len(b.recs)))
	} else {
		p.stErrors.Add(int64(len(b.recs)))
		p.cfg.logf("ilink: producer: %d records of %s[%d] failed: %v", len(b.recs), topic, pb.id, err)
	}
	n := b.bytes
	b.recycle()
	p.release(n)
}

// topicState is what the producer knows about one topic. The partition
// count is learned at the first send (spec P-20) and grows when a metadata
// refresh shows new partitions (every MetadataMaxAgeMs, and after errors).
type topicState struct {
	name       string
	parts      atomic.Pointer[[]*partBuf] // copy-on-write: Send reads it without a lock; only grows
	epoch      atomic.Int32
	staleEpoch atomic.Int64 // epoch a batch was refused at (FLUSHED / EPOCH_MISMATCH); -1 = none
	sticky     atomic.Uint64
	batchLimit int // bound of one batch (uncompressed): min(BatchSize, what fits a request)
}

func (p *Producer) newTopic(name string, n int, epoch int32) *topicState {
	t := &topicState{name: name}
	t.staleEpoch.Store(-1)
	t.epoch.Store(epoch)
	t.batchLimit = min(p.cfg.batchSize, p.cfg.maxRequestSize-loneEnvelope(name, 0))
	parts := make([]*partBuf, n)
	for i := range parts {
		parts[i] = p.newPartBuf(t, i, epoch)
	}
	t.parts.Store(&parts)
	return t
}

func (p *Producer) newPartBuf(t *topicState, i int, epoch int32) *partBuf {
	return &partBuf{p: p, t: t, id: int32(i), seqUnsure: -1, seqEpoch: epoch, idGen: p.ident.Load().gen}
}

// partBufs is the topic's partition buffers (do not modify).
func (t *topicState) partBufs() []*partBuf { return *t.parts.Load() }

// growLocked adds buffers for partitions n and up (p.mu is held, which
// serialises growth).
func (p *Producer) growLocked(t *topicState, n int) []*partBuf {
	old := t.partBufs()
	if n <= len(old) {
		return old
	}
	parts := make([]*partBuf, n)
	copy(parts, old)
	epoch := t.epoch.Load()
	for i := len(old); i < n; i++ {
		parts[i] = p.newPartBuf(t, i, epoch)
	}
	t.parts.Store(&parts)
	p.cfg.logf("ilink: producer: %s grew from %d to %d partitions", t.name, len(old), n)
	return parts
}

// stickyPartition is Kafka 3.3's uniform sticky partitioner without a
// lock: stay on one partition until batchLimit bytes went to it, then move
// to the next (spec P-19). State: partition+1 in the high half, bytes in
// the low half.
func (t *topicState) stickyPartition(size, n int) int {
	for {
		old := t.sticky.Load()
		part, filled := int(old>>32), int(uint32(old))
		if part == 0 || part > n {
			part, filled = rand.IntN(n)+1, 0
		}
		if filled >= t.batchLimit {
			part, filled = part%n+1, 0
		}
		filled += size
		if t.sticky.CompareAndSwap(old, uint64(part)<<32|uint64(uint32(filled))) {
			return part - 1
		}
	}
}

// topicFor returns the topic's state, asking the engine for its partitions
// at the first send (spec P-20, P-21).
func (p *Producer) topicFor(name string) (*topicState, error) {
	if t := p.lastTopic.Load(); t != nil && t.name == name {
		return t, nil
	}
	if t := (*p.topics.Load())[name]; t != nil {
		p.lastTopic.Store(t)
		return t, nil
	}
	return p.newTopicFor(name)
}

// newTopicFor is topicFor's first send to a topic, apart so that topicFor
// stays small and free of defers (its deferred unlock cost every Send).
func (p *Producer) newTopicFor(name string) (*topicState, error) {
	p.topicMu.Lock()
	defer p.topicMu.Unlock()
	if t := (*p.topics.Load())[name]; t != nil {
		return t, nil
	}
	ctx, cancel := context.WithTimeout(p.ctx, min(p.cfg.deliveryTimeout, producerFirstMetadataTimeout))
	defer cancel()
	var rep *wire.MetadataReply
	for {
		var err error
		rep, err = p.metadata(ctx, []string{name})
		if err == nil {
			break
		}
		if p.isDone() {
			return nil, producerClosedError()
		}
		// No node answers (the cluster is restarting): try again within
		// the first-metadata budget, as a batch would be resent; only a
		// refusal (no such topic) fails at once (spec P-21).
		if !IsSessionError(err) || ctx.Err() != nil {
			return nil, err
		}
		t := time.NewTimer(p.cfg.retryBackoff)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, err
		}
	}
	var tm *wire.TopicMeta
	for i := range rep.Topics {
		if rep.Topics[i].Name == name {
			tm = &rep.Topics[i]
		}
	}
	switch {
	case tm == nil:
		return nil, &Error{Name: wire.ErrUnknownTopic, Tail: name, Kind: KindRejected}
	case tm.Err.Name != "":
		return nil, &Error{Name: tm.Err.Name, Tail: tm.Err.Tail, Kind: KindRejected}
	}
	n := 0
	for _, pm := range tm.Partitions {
		n = max(n, int(pm.ID)+1)
	}
	if n == 0 {
		return nil, &Error{Name: wire.ErrUnknownTopic, Tail: name + ": no partitions", Kind: KindRejected}
	}
	t := p.newTopic(name, n, tm.Epoch)
	old := *p.topics.Load()
	m := make(map[string]*topicState, len(old)+1)
	for k, v := range old {
		m[k] = v
	}
	m[name] = t
	p.topics.Store(&m)
	p.applyMetadata(rep)
	return t, nil
}

// metadata asks for topics' partition-leader tables on the control
// connection, retrying on another connection when one dies.
func (p *Producer) metadata(ctx context.Context, topics []string) (*wire.MetadataReply, error) {
	var last error
	for range 3 {
		c, err := p.controlConn(ctx)
		if err != nil {
			return nil, err
		}
		var rep wire.MetadataReply
		err = c.Do(ctx, wire.CodeMetadata, 0, &wire.MetadataRequest{Topics: topics}, &rep)
		if err == nil {
			return &rep, nil
		}
		if !IsSessionError(err) || ctx.Err() != nil {
			return nil, err
		}
		last = err
	}
	return nil, last
}

// controlConn returns a live connection for METADATA and INIT PRODUCER:
// the one to the node leading the most partitions (spec P-38), else any,
// else a new one, dialled in that order of preference, then the other known
// nodes, then the configured addresses.
func (p *Producer) controlConn(ctx context.Context) (*Conn, error) {
	p.mu.Lock()
	order := make([]*sink, 0, len(p.sinks))
	for _, s := range p.sinks {
		order = append(order, s)
	}
	counts := make(map[*sink]int, len(order))
	for _, s := range order {
		s.mu.Lock()
		counts[s] = len(s.parts)
		s.mu.Unlock()
	}
	slices.SortFunc(order, func(a, b *sink) int {
		if d := counts[b] - counts[a]; d != 0 {
			return d
		}
		return int(a.node) - int(b.node)
	})
	for _, s := range order {
		if c := s.liveConn(); c != nil {
			s.touch()
			p.mu.Unlock()
			return c, nil
		}
	}
	var addrs []string
	for _, s := range order {
		addrs = append(addrs, s.addr)
	}
	ids := make([]uint16, 0, len(p.nodes))
	for id := range p.nodes {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		addrs = append(addrs, p.nodes[id])
	}
	addrs = append(addrs, p.boot...)
	cfg := p.connCfg
	p.mu.Unlock()

	var last error
	tried := map[string]bool{}
	for _, a := range addrs {
		if a == "" || tried[a] {
			continue
		}
		tried[a] = true
		c, err := DialConn(ctx, a, cfg)
		if err != nil {
			last = err
			if ctx.Err() != nil {
				return nil, ctxError(ctx)
			}
			continue
		}
		return p.attach(c), nil
	}
	if last == nil {
		last = sessionError(NameConnectFailed, nil, "no address to connect to")
	}
	return nil, last
}

// attach makes a freshly dialled connection the connection of its node's
// sink (or closes it when that sink already has a live one) and learns the
// node list of its HELLO. It returns the connection to use.
func (p *Producer) attach(c *Conn) *Conn {
	h := c.Hello()
	p.mu.Lock()
	p.learnNodesLocked(h.Nodes)
	if p.nodes[h.NodeID] == "" {
		p.nodes[h.NodeID] = c.Addr()
	}
	s := p.sinkLocked(h.NodeID)
	p.mu.Unlock()
	if s == nil {
		c.Close()
		return c
	}
	return s.install(c)
}

func (p *Producer) learnNodesLocked(nodes []wire.NodeInfo) {
	for _, n := range nodes {
		if n.Addr != "" {
			if a, err := normalizeAddr(n.Addr); err == nil {
				p.nodes[n.ID] = a
			}
		}
	}
}

// sinkLocked returns node's sink, creating it (and its goroutine) if
// needed. p.mu is held. nil once the producer is shutting down.
func (p *Producer) sinkLocked(node uint16) *sink {
	if s := p.sinks[node]; s != nil {
		if a := p.nodes[node]; a != "" {
			s.setAddr(a)
		}
		return s
	}
	if p.isDone() {
		return nil
	}
	s := newSink(p, node, p.nodes[node])
	p.sinks[node] = s
	p.wg.Add(1)
	go s.run()
	return s
}

// wantMetadata asks the housekeeping goroutine for a metadata refresh.
func (p *Producer) wantMetadata() {
	p.metaWanted.Store(true)
	select {
	case p.metaCh <- struct{}{}:
	default:
	}
}

// applyMetadata updates nodes, topic epochs and partition leaders, moving
// partition buffers between sinks (franz-go's migration).
func (p *Producer) applyMetadata(rep *wire.MetadataReply) {
	var wake []*sink
	leaderless := false
	p.mu.Lock()
	p.learnNodesLocked(rep.Nodes)
	topics := *p.topics.Load()
	for i := range rep.Topics {
		tm := &rep.Topics[i]
		t := topics[tm.Name]
		if t == nil || tm.Err.Name != "" {
			continue
		}
		t.epoch.Store(tm.Epoch)
		if st := t.staleEpoch.Load(); st >= 0 && int64(tm.Epoch) != st {
			t.staleEpoch.Store(-1)
			for _, pb := range t.partBufs() {
				if s := pb.currentSink(); s != nil {
					wake = append(wake, s)
				}
			}
		}
		n := 0
		for _, pm := range tm.Partitions {
			n = max(n, int(pm.ID)+1)
		}
		parts := p.growLocked(t, n) // a grown topic: its new partitions are used at once
		for _, pm := range tm.Partitions {
			if int(pm.ID) >= len(parts) || pm.ID < 0 {
				continue
			}
			pb := parts[pm.ID]
			leader := pm.Leader
			if leader != 0 && p.nodes[leader] == "" {
				leader = 0 // no address for it yet
			}
			if leader == 0 {
				leaderless = true
			}
			if s := p.assignLocked(pb, leader); s != nil {
				wake = append(wake, s)
			}
		}
	}
	for _, tm := range rep.Topics {
		if t := topics[tm.Name]; t != nil && t.staleEpoch.Load() >= 0 {
			leaderless = true // still waiting for the new epoch: ask again
		}
	}
	p.mu.Unlock()
	if leaderless {
		p.metaWanted.Store(true)
	}
	for _, s := range wake {
		s.wake()
	}
}

// assignLocked makes leader the home of pb. p.mu is held. It returns the
// sink to wake, if any.
func (p *Producer) assignLocked(pb *partBuf, leader uint16) *sink {
	pb.mu.Lock()
	cur, curSink := pb.leader, pb.sink
	pb.mu.Unlock()
	if cur == leader && (curSink != nil || leader == 0) {
		return nil
	}
	var ns *sink
	if leader != 0 {
		ns = p.sinkLocked(leader)
	}
	if curSink != nil && curSink != ns {
		curSink.removePart(pb)
	}
	if ns != nil && ns != curSink {
		ns.addPart(pb)
	}
	pb.mu.Lock()
	pb.sink, pb.leader = ns, leader
	pb.mu.Unlock()
	if cur != leader {
		p.cfg.logf("ilink: producer: %s[%d] leader %d -> %d", pb.t.name, pb.id, cur, leader)
	}
	return ns
}

// move sends pb to the node a follower rejection named.
func (p *Producer) move(pb *partBuf, hint uint16) {
	p.mu.Lock()
	var s *sink
	if hint != 0 && p.nodes[hint] != "" {
		s = p.assignLocked(pb, hint)
	}
	p.mu.Unlock()
	if s != nil {
		s.wake()
	}
}

// housekeeping runs metadata refreshes, delivery timeouts of buffered
// batches and the closing of idle connections.
func (p *Producer) housekeeping() {
	defer p.wg.Done()
	tick := min(max(p.cfg.deliveryTimeout/20, producerHousekeepingMin), producerHousekeepingMax)
	t := time.NewTicker(tick)
	defer t.Stop()
	var lastMeta time.Time
	metaEvery := max(p.cfg.retryBackoff, producerMetadataMinInterval)
	urgent := false
	for {
		select {
		case <-p.done:
			return
		case <-p.metaCh:
			urgent = true
		case <-p.reinitCh:
		case <-t.C:
		}
		now := time.Now()
		p.expire(now)
		if p.reinitFor.Load() >= 0 {
			p.reinit()
		}
		if now.Sub(lastMeta) >= p.cfg.metadataMaxAge {
			p.metaWanted.Store(true) // the periodic refresh: new partitions, moved leaders
		}
		if p.metaWanted.Load() {
			gap := metaEvery
			if urgent {
				gap = producerMetadataMinInterval
			}
			if now.Sub(lastMeta) >= gap {
				lastMeta, urgent = now, false
				p.metaWanted.Store(false)
				if err := p.refreshMetadata(); err != nil {
					p.metaWanted.Store(true)
					p.cfg.logf("ilink: producer: metadata: %v", err)
				}
			}
		} else {
			urgent = false
		}
		p.closeIdle(now)
	}
}

// requestReinit asks for a new producer id because the engine does not
// know generation gen of it any more; a request for an id already
// replaced is ignored.
func (p *Producer) requestReinit(gen uint32) {
	if p.ident.Load().gen != gen || !p.reinitFor.CompareAndSwap(-1, int64(gen)) {
		return
	}
	select {
	case p.reinitCh <- struct{}{}:
	default:
	}
}

// reinitPending reports whether a new id replacing generation gen is
// being asked for: the partitions of that generation wait for it.
func (p *Producer) reinitPending(gen uint32) bool {
	return p.reinitFor.Load() == int64(gen)
}

// reinit asks the engine for a new producer id (INIT PRODUCER) after it
// lost the producer's state. Each partition switches to it once nothing
// of it is in flight: its unacknowledged batches are stamped with the new
// id and numbered from sequence 0 (partBuf.switchIDLocked). On failure the
// next housekeeping tick tries again; batches meanwhile wait, within their
// delivery timeout.
func (p *Producer) reinit() {
	gen := p.reinitFor.Load()
	if gen < 0 {
		return
	}
	ctx, cancel := context.WithTimeout(p.ctx, p.cfg.requestTimeout)
	defer cancel()
	c, err := p.controlConn(ctx)
	var rep wire.InitProducerReply
	if err == nil {
		err = c.Do(ctx, wire.CodeInitProducer, 0, &wire.InitProducerRequest{ClientName: p.cfg.clientName}, &rep)
	}
	if err != nil {
		if !p.isDone() {
			p.cfg.logf("ilink: producer: new producer id: %v (trying again)", err)
		}
		return
	}
	old := p.ident.Load()
	p.ident.Store(&producerIdent{id: rep.ProducerID, epoch: rep.Epoch, gen: uint32(gen) + 1})
	p.reinitFor.Store(-1)
	p.stIDResets.Add(1)
	p.cfg.logf("ilink: producer: the engine lost the state of producer id %d: now %d", old.id, rep.ProducerID)
	p.wakeAll()
}

// refreshMetadata asks for every known topic.
func (p *Producer) refreshMetadata() error {
	topics := *p.topics.Load()
	if len(topics) == 0 {
		return nil
	}
	names := make([]string, 0, len(topics))
	for n := range topics {
		names = append(names, n)
	}
	slices.Sort(names)
	ctx, cancel := context.WithTimeout(p.ctx, p.cfg.requestTimeout)
	defer cancel()
	rep, err := p.metadata(ctx, names)
	if err != nil {
		return err
	}
	p.applyMetadata(rep)
	return nil
}

// expire fails buffered batches whose delivery timeout passed (spec P-16).
func (p *Producer) expire(now time.Time) {
	for _, t := range *p.topics.Load() {
		for _, pb := range t.partBufs() {
			for _, b := range pb.expire(now) {
				p.completeBatch(b, -1, b.timeoutError(p.cfg.deliveryTimeout))
			}
		}
	}
}

// closeIdle closes connections to nodes that lead no partition once they
// are idle (spec P-39). While no partition has a known leader the
// connections are kept, so the producer stays connected.
func (p *Producer) closeIdle(now time.Time) {
	p.mu.Lock()
	leading := 0
	for _, s := range p.sinks {
		s.mu.Lock()
		if len(s.parts) > 0 {
			leading++
		}
		s.mu.Unlock()
	}
	var idle []*Conn
	if leading > 0 {
		for _, s := range p.sinks {
			if c := s.takeIdleConn(now); c != nil {
				idle = append(idle, c)
			}
		}
	}
	p.mu.Unlock()
	for _, c := range idle {
		p.cfg.logf("ilink: producer: closing idle connection to %s (node %d leads no partition)", c.Addr(), c.Hello().NodeID)
		c.Close()
	}
}
