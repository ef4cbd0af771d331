package ilink

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/wire"
)

// startTopicEngine starts a 3-node engine with the given topics
// ("name" → props).
func startTopicEngine(t *testing.T, cfg engine.Config, topics map[string]string) *engine.Engine {
	t.Helper()
	e := startEngine(t, cfg)
	for name, props := range topics {
		if err := e.CreateTopic(name, props); err != nil {
			t.Fatalf("CreateTopic(%s, %s): %v", name, props, err)
		}
	}
	return e
}

func newProducerT(t *testing.T, e *engine.Engine, cfg ProducerConfig) *Producer {
	t.Helper()
	if cfg.Logf == nil {
		cfg.Logf = testLogf(t)
	}
	p, err := NewProducer(testCtx(t), joinAddrs(e.DataAddrs()), cfg)
	if err != nil {
		t.Fatalf("NewProducer: %v", err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// readAll reads every record of every partition of topic, from the log
// start to the log end: it waits until the high watermark covers the end
// (acks=1 answers before the followers have the records).
func readAll(t *testing.T, e *engine.Engine, topic string, parts int) [][]wire.Record {
	t.Helper()
	var out [][]wire.Record
	// Past the deadline it returns what it read: the caller's check fails.
	ilinktest.Poll(5*time.Second, func() bool {
		out = make([][]wire.Record, parts)
		start, end := e.TopicOffsets(topic)
		complete := true
		for p := range parts {
			recs, err := e.ReadPartition(topic, p, start[p], 0)
			if err != nil {
				t.Fatalf("ReadPartition(%s, %d): %v", topic, p, err)
			}
			out[p] = recs
			if int64(len(recs)) < end[p]-start[p] {
				complete = false
			}
		}
		return complete
	})
	return out
}

// produceLog decodes the PRODUCE requests the engine sees.
type produceLog struct {
	mu   sync.Mutex
	reqs []producedReq
}

type producedReq struct {
	node    int
	at      time.Time
	bodyLen int
	req     wire.ProduceRequest
}

func watchProduce(e *engine.Engine) *produceLog {
	l := &produceLog{}
	e.Control(func(ev *engine.ControlEvent) engine.ControlAction {
		if ev.Code == wire.CodeProduce {
			var m wire.ProduceRequest
			if err := wire.Decode(ev.Body, &m); err == nil {
				l.mu.Lock()
				l.reqs = append(l.reqs, producedReq{node: ev.Node, at: time.Now(), bodyLen: len(ev.Body), req: m})
				l.mu.Unlock()
			}
		}
		return engine.ControlAction{}
	})
	return l
}

func (l *produceLog) all() []producedReq {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]producedReq(nil), l.reqs...)
}

type sentBatch struct {
	partition int32
	h         wire.BatchHeader
	raw       []byte
}

func (l *produceLog) batches(t *testing.T) []sentBatch {
	t.Helper()
	var out []sentBatch
	for _, r := range l.all() {
		for _, tp := range r.req.Topics {
			for _, pp := range tp.Partitions {
				bs, err := wire.SplitBatches(pp.Batches)
				if err != nil {
					t.Fatalf("split: %v", err)
				}
				for _, b := range bs {
					h, err := wire.ParseBatchHeader(b)
					if err != nil {
						t.Fatal(err)
					}
					out = append(out, sentBatch{pp.Partition, h, b})
				}
			}
		}
	}
	return out
}

func TestProducerSendSyncMetadata(t *testing.T) {
	t.Parallel()
	e := startTopicEngine(t, engine.Config{}, map[string]string{"T": "partitions=3"})
	p := newProducerT(t, e, ProducerConfig{})
	if p.ProducerID() < 0 { // spec: P-24
		t.Fatalf("ProducerID = %d, want an engine-assigned id", p.ProducerID())
	}
	ctx := testCtx(t)
	var last RecordMetadata
	for i := range 5 {
		md, err := p.SendSync(ctx, &ProducerRecord{Topic: "T", Key: []byte("k"), Value: []byte(fmt.Sprint(i))})
		if err != nil {
			t.Fatalf("SendSync: %v", err)
		}
		// spec: P-01 (partition and offset of the stored record)
		if md.Topic != "T" || md.Partition != int32(KeyPartition([]byte("k"), 3)) || md.Offset != int64(i) {
			t.Fatalf("record %d: metadata %+v", i, md)
		}
		if md.Size != 2 { // its key and value bytes
			t.Fatalf("record %d: size %d, want 2", i, md.Size)
		}
		last = md
	}
	recs := readAll(t, e, "T", 3)[last.Partition]
	if len(recs) != 5 || string(recs[4].Value) != "4" || recs[4].Offset != last.Offset { // spec: P-01
		t.Fatalf("stored %v", recs)
	}
	f := p.SendFuture(&ProducerRecord{Topic: "T", Value: []byte("future")})
	md, err := f.Get(ctx)
	if err != nil || md.Offset < 0 { // spec: P-01
		t.Fatalf("future: %+v %v", md, err)
	}
}

func TestProducerHeadersTravel(t *testing.T) {
	t.Parallel()
	e := startTopicEngine(t, engine.Config{}, map[string]string{"T": "partitions=1"})
	p := newProducerT(t, e, ProducerConfig{})
	md, err := p.SendSync(testCtx(t), &ProducerRecord{Topic: "T", Key: []byte("order-1"), Value: []byte("v"),
		Headers: []wire.RecordHeader{{Key: "trace-id", Value: []byte("abc")}, {Key: "empty", Value: []byte{}}}})
	if err != nil {
		t.Fatal(err)
	}
	recs := readAll(t, e, "T", 1)[0]
	if len(recs) != 1 || recs[0].Offset != md.Offset {
		t.Fatalf("stored %v", recs)
	}
	h := recs[0].Headers
	// spec: P-02
	if len(h) != 2 || h[0].Key != "trace-id" || string(h[0].Value) != "abc" || h[1].Key != "empty" || h[1].Value == nil || len(h[1].Value) != 0 {
		t.Fatalf("headers %+v", h)
	}
}

func TestProducerConfigCopied(t *testing.T) {
	t.Parallel()
	e := startTopicEngine(t, engine.Config{}, map[string]string{"T": "partitions=1"})
	idem := true
	cfg := ProducerConfig{EnableIdempotence: &idem, Acks: AcksAll, ClientName: "copy-test"}
	p := newProducerT(t, e, cfg)
	// Change everything the caller still holds (spec: P-03).
	idem = false
	cfg.Acks = AcksNone
	cfg.ReadOnly = true
	md, err := p.SendSync(testCtx(t), &ProducerRecord{Topic: "T", Value: []byte("x")})
	if err != nil || md.Offset != 0 {
		t.Fatalf("SendSync after changing the config: %+v %v", md, err)
	}
	if !p.cfg.idempotent || p.cfg.acks != wire.AcksAll || p.cfg.readOnly { // spec: P-03
		t.Fatalf("producer config changed: %+v", p.cfg)
	}
}

func TestProducerRecordCapAndRejectedRecord(t *testing.T) {
	t.Parallel()
	e := startTopicEngine(t, engine.Config{}, map[string]string{"T": "partitions=2"})
	log := watchProduce(e)
	p := newProducerT(t, e, ProducerConfig{MaxRequestSize: 64 << 10})
	ctx := testCtx(t)
	key := []byte("same-partition")
	if _, err := p.SendSync(ctx, &ProducerRecord{Topic: "T", Key: key, Value: []byte("before")}); err != nil {
		t.Fatal(err)
	}
	before := len(log.all())
	md, err := p.SendSync(ctx, &ProducerRecord{Topic: "T", Key: key, Value: make([]byte, 64<<10)})
	if !HasName(err, wire.ErrMsgSizeOver) || !IsRejected(err) { // spec: P-08, W-08, E-10
		t.Fatalf("oversize record: err = %v, want MIMQE_MSG_SIZE_OVER", err)
	}
	if md.Size != len(key)+64<<10 { // a refused record's size too
		t.Fatalf("oversize record: size %d", md.Size)
	}
	if n := len(log.all()); n != before { // spec: W-08 (nothing of it was sent)
		t.Fatalf("%d PRODUCE requests after the refused record, want none", n-before)
	}
	// A record just under the cap is accepted.
	small := 64<<10 - 200
	if _, err := p.SendSync(ctx, &ProducerRecord{Topic: "T", Key: key, Value: make([]byte, small)}); err != nil {
		t.Fatalf("record under the cap: %v", err)
	}
	// Later records of the same partition still succeed (spec: P-27, W-09).
	md, err = p.SendSync(ctx, &ProducerRecord{Topic: "T", Key: key, Value: []byte("after")})
	if err != nil {
		t.Fatalf("record after the refused one: %v", err)
	}
	recs := readAll(t, e, "T", 2)[md.Partition]
	if len(recs) != 3 || string(recs[0].Value) != "before" || string(recs[2].Value) != "after" { // spec: P-27
		t.Fatalf("stored %d records", len(recs))
	}
	if !p.IsConnected() {
		t.Fatal("producer lost its connection")
	}
}

func TestProducerBatchAndEnvelopeBounds(t *testing.T) {
	t.Parallel()
	e := startTopicEngine(t, engine.Config{}, map[string]string{"T": "partitions=6"})
	log := watchProduce(e)
	// Replies held for a moment, so requests pile up behind them.
	e.Control(func(ev *engine.ControlEvent) engine.ControlAction {
		if ev.Code == wire.CodeProduce {
			return engine.ControlAction{Delay: 20 * time.Millisecond}
		}
		return engine.ControlAction{}
	})
	const batchSize, maxReq = 4096, 10000
	p := newProducerT(t, e, ProducerConfig{BatchSize: batchSize, MaxRequestSize: maxReq, LingerMs: 20, EnableIdempotence: boolp(false)})
	var wg sync.WaitGroup
	var failed atomic.Int64
	var maxInFlight atomic.Int64
	stop := sampleUntilStopped(t, time.Millisecond, func() {
		if n := int64(p.Stats().InFlight); n > maxInFlight.Load() {
			maxInFlight.Store(n)
		}
	})
	value := make([]byte, 100)
	const n = 3000
	wg.Add(n)
	for i := range n {
		p.Send(&ProducerRecord{Topic: "T", Key: []byte(strconv.Itoa(i % 60)), Value: value}, func(_ RecordMetadata, err error) {
			if err != nil {
				failed.Add(1)
			}
			wg.Done()
		})
	}
	wg.Wait()
	stop()
	if failed.Load() != 0 {
		t.Fatalf("%d records failed", failed.Load())
	}
	multi := 0
	for _, r := range log.all() {
		if r.bodyLen > maxReq { // spec: P-09
			t.Fatalf("PRODUCE body of %d bytes exceeds MaxRequestSize %d", r.bodyLen, maxReq)
		}
		nparts := 0
		for _, tp := range r.req.Topics {
			nparts += len(tp.Partitions)
		}
		if nparts > 1 {
			multi++
		}
	}
	for _, b := range log.batches(t) {
		if len(b.raw) > batchSize && b.h.RecordCount > 1 { // spec: P-10
			t.Fatalf("batch of %d records is %d bytes, over BatchSize %d", b.h.RecordCount, len(b.raw), batchSize)
		}
	}
	// Partitions of one node travel together, and requests are pipelined.
	if multi == 0 { // spec: P-22 — one request (envelope) per node
		t.Error("no PRODUCE request carried more than one partition")
	}
	if maxInFlight.Load() < 2 { // spec: P-22 — envelopes pipelined
		t.Errorf("at most %d request in flight: not pipelined", maxInFlight.Load())
	}
	total := 0
	for _, recs := range readAll(t, e, "T", 6) {
		total += len(recs)
	}
	if total != n {
		t.Fatalf("stored %d records, want %d", total, n)
	}
}

func TestProducerKeyPlacement(t *testing.T) {
	t.Parallel()
	e := startTopicEngine(t, engine.Config{}, map[string]string{"T3": "partitions=3", "T7": "partitions=7"})
	p := newProducerT(t, e, ProducerConfig{})
	ctx := testCtx(t)
	// Kafka's murmur2 values of the test vectors (spec P-17).
	hashes := map[string]int32{"21": -973932308, "foobar": -790332482, "abc": 479470107}
	for _, topic := range []struct {
		name string
		n    int
	}{{"T3", 3}, {"T7", 7}} {
		for key, h := range hashes {
			want := int32(int(uint32(h)&0x7fffffff) % topic.n)
			for range 2 {
				md, err := p.SendSync(ctx, &ProducerRecord{Topic: topic.name, Key: []byte(key), Value: []byte(key)})
				if err != nil {
					t.Fatal(err)
				}
				if md.Partition != want { // spec: P-17, P-18
					t.Fatalf("%s key %q: partition %d, want %d", topic.name, key, md.Partition, want)
				}
			}
		}
	}
	md, err := p.SendSync(ctx, &ProducerRecord{Topic: "T3", Key: []byte("order-1"), Value: []byte("x")})
	if err != nil || md.Partition != 1 { // spec: P-17
		t.Fatalf("order-1 on 3 partitions: %+v %v, want partition 1", md, err)
	}
	// Stored where the producer said.
	parts := readAll(t, e, "T3", 3)
	for key, h := range hashes {
		want := int(uint32(h)&0x7fffffff) % 3
		found := 0
		for _, r := range parts[want] {
			if string(r.Key) == key {
				found++
			}
		}
		if found != 2 { // spec: P-18
			t.Fatalf("key %q: %d records in partition %d, want 2", key, found, want)
		}
	}
}

func TestProducerStickyNilKeys(t *testing.T) {
	t.Parallel()
	e := startTopicEngine(t, engine.Config{}, map[string]string{"T": "partitions=4"})
	const batchSize = 2000
	p := newProducerT(t, e, ProducerConfig{BatchSize: batchSize})
	value := make([]byte, 100)
	est := wire.RecordSizeEstimate(nil, value, nil)
	futs := make([]*Future, 100)
	for i := range futs {
		futs[i] = p.SendFuture(&ProducerRecord{Topic: "T", Value: value})
	}
	var parts []int32
	for _, f := range futs {
		md, err := f.Get(testCtx(t))
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, md.Partition)
	}
	// Runs of one partition holding about batchSize bytes, then the next
	// partition (spec: P-19).
	perRun := (batchSize + est - 1) / est
	for i, got := range parts {
		want := (int(parts[0]) + i/perRun) % 4
		if int(got) != want {
			t.Fatalf("record %d went to partition %d, want %d (%d records per run): %v", i, got, want, perRun, parts)
		}
	}
}

func TestProducerOrderPerPartition(t *testing.T) {
	t.Parallel()
	e := startTopicEngine(t, engine.Config{}, map[string]string{"T": "partitions=3"})
	p := newProducerT(t, e, ProducerConfig{LingerMs: NoLinger, BatchSize: 2048})
	const n = 6000
	var wg sync.WaitGroup
	wg.Add(n)
	offsets := make([]int64, n)
	for i := range n {
		key := []byte("key-" + strconv.Itoa(i%5))
		p.Send(&ProducerRecord{Topic: "T", Key: key, Value: []byte(strconv.Itoa(i))}, func(md RecordMetadata, err error) {
			if err != nil {
				t.Errorf("record %d: %v", i, err)
			}
			offsets[i] = md.Offset
			wg.Done()
		})
	}
	wg.Wait()
	for pi, recs := range readAll(t, e, "T", 3) {
		last := map[string]int{}
		for j, r := range recs {
			v, _ := strconv.Atoi(string(r.Value))
			if prev, ok := last[string(r.Key)]; ok && v <= prev { // spec: P-23
				t.Fatalf("partition %d: %s value %d stored after %d", pi, r.Key, v, prev)
			}
			last[string(r.Key)] = v
			if r.Offset != int64(j) || offsets[v] != r.Offset { // spec: P-23
				t.Fatalf("partition %d record %d: offset %d, callback said %d", pi, j, r.Offset, offsets[v])
			}
		}
	}
}

func TestProducerUnknownTopicAndMetadataOnce(t *testing.T) {
	t.Parallel()
	e := startTopicEngine(t, engine.Config{}, map[string]string{"T": "partitions=3"})
	reqs := watchRequests(e)
	p := newProducerT(t, e, ProducerConfig{Acks: AcksNone})
	_, err := p.SendSync(testCtx(t), &ProducerRecord{Topic: "NOPE", Value: []byte("x")})
	if !HasName(err, wire.ErrUnknownTopic) { // spec: P-21 (also with acks 0)
		t.Fatalf("send to a missing topic: %v", err)
	}
	reqs.reset()
	var wg sync.WaitGroup
	wg.Add(200)
	for i := range 200 {
		p.Send(&ProducerRecord{Topic: "T", Key: []byte(strconv.Itoa(i)), Value: []byte("v")}, func(_ RecordMetadata, err error) {
			if err != nil {
				t.Error(err)
			}
			wg.Done()
		})
	}
	wg.Wait()
	if err := p.Flush(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if n := reqs.count(wire.CodeMetadata); n != 1 { // spec: P-20
		t.Fatalf("%d METADATA requests for 200 sends, want 1", n)
	}
	total := 0
	ilinktest.Poll(5*time.Second, func() bool {
		total = 0
		for _, recs := range readAll(t, e, "T", 3) {
			total += len(recs)
		}
		return total == 200
	})
	if total != 200 {
		t.Fatalf("acks 0: %d records stored, want 200", total)
	}
}

func TestProducerReadOnlyRefuses(t *testing.T) {
	t.Parallel()
	e := startTopicEngine(t, engine.Config{}, map[string]string{"T": "partitions=1"})
	var hellos atomic.Int32
	e.Control(func(ev *engine.ControlEvent) engine.ControlAction {
		hellos.Add(1) // any request at all, HELLO first
		return engine.ControlAction{}
	})
	p, err := NewProducer(testCtx(t), joinAddrs(e.DataAddrs()), ProducerConfig{ReadOnly: true, Logf: testLogf(t)})
	if p != nil || !HasName(err, wire.ErrReadOnly) || !IsRejected(err) || AsError(err).Tail != "publish refused: read-only mode" {
		t.Fatalf("read-only NewProducer: %v, %v; want MIMQE_READ_ONLY (publish refused: read-only mode)", p, err)
	}
	if n := hellos.Load(); n != 0 {
		t.Fatalf("a read-only producer sent %d requests", n)
	}
}

func TestProducerIsConnected(t *testing.T) {
	t.Parallel()
	e := startTopicEngine(t, engine.Config{}, map[string]string{"T": "partitions=1"})
	p := newProducerT(t, e, ProducerConfig{})
	if !p.IsConnected() { // spec: P-42
		t.Fatal("IsConnected false after NewProducer")
	}
	if _, err := p.SendSync(testCtx(t), &ProducerRecord{Topic: "T", Value: []byte("x")}); err != nil {
		t.Fatal(err)
	}
	if !p.IsConnected() { // spec: P-42
		t.Fatal("IsConnected false after a send")
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if p.IsConnected() { // spec: P-42
		t.Fatal("IsConnected true after Close")
	}
	if _, err := p.SendSync(testCtx(t), &ProducerRecord{Topic: "T", Value: []byte("x")}); !HasName(err, NameSessionClosed) {
		t.Fatalf("send after Close: %v", err)
	}
}

func TestProducerCompressionRoundTrip(t *testing.T) {
	t.Parallel()
	for _, codec := range []wire.Codec{wire.CodecLZ4, wire.CodecZstd} {
		t.Run(codec.String(), func(t *testing.T) {
			e := startTopicEngine(t, engine.Config{}, map[string]string{"T": "partitions=2"})
			log := watchProduce(e)
			p := newProducerT(t, e, ProducerConfig{Compression: codec})
			const n = 500
			futs := make([]*Future, n)
			for i := range n {
				futs[i] = p.SendFuture(&ProducerRecord{Topic: "T", Key: []byte("key-" + strconv.Itoa(i%3)),
					Value:   []byte(strings.Repeat("value-"+strconv.Itoa(i)+" ", 8)),
					Headers: []wire.RecordHeader{{Key: "i", Value: []byte(strconv.Itoa(i))}}})
			}
			for _, f := range futs {
				if _, err := f.Get(testCtx(t)); err != nil {
					t.Fatal(err)
				}
			}
			seen := 0
			for _, recs := range readAll(t, e, "T", 2) {
				for _, r := range recs {
					i, _ := strconv.Atoi(string(r.Headers[0].Value))
					// spec: P-41
					if string(r.Key) != "key-"+strconv.Itoa(i%3) || string(r.Value) != strings.Repeat("value-"+strconv.Itoa(i)+" ", 8) {
						t.Fatalf("record %d: key %q value %q", i, r.Key, r.Value)
					}
					seen++
				}
			}
			if seen != n {
				t.Fatalf("read %d records, want %d", seen, n)
			}
			for _, b := range log.batches(t) {
				if b.h.Codec() != codec { // spec: P-41
					t.Fatalf("batch sent with %v, want %v", b.h.Codec(), codec)
				}
			}
		})
	}
}

// checkExactlyOnce checks that each partition holds contiguous offsets
// from 0, that every acknowledged value is present exactly once at the
// offset its callback gave, that no value appears twice, and that values
// of one partition are in send order (values are "<i>").
func checkExactlyOnce(t *testing.T, parts [][]wire.Record, acked map[int]RecordMetadata, failed map[int]bool) {
	t.Helper()
	seen := map[int]int32{}
	for pi, recs := range parts {
		last := -1
		for j, r := range recs {
			if r.Offset != int64(j) { // spec: P-40 (contiguous offsets)
				t.Fatalf("partition %d: record %d has offset %d", pi, j, r.Offset)
			}
			v, err := strconv.Atoi(string(r.Value))
			if err != nil {
				t.Fatalf("partition %d offset %d: value %q", pi, j, r.Value)
			}
			if p, dup := seen[v]; dup { // spec: P-25, P-37 (no duplicate)
				t.Fatalf("value %d stored twice (partitions %d and %d)", v, p, pi)
			}
			seen[v] = int32(pi)
			if v <= last { // spec: P-23, P-40 (order kept)
				t.Fatalf("partition %d: value %d after %d", pi, v, last)
			}
			last = v
			if md, ok := acked[v]; ok && (md.Partition != int32(pi) || md.Offset != r.Offset) {
				t.Fatalf("value %d acknowledged at %d/%d, stored at %d/%d", v, md.Partition, md.Offset, pi, r.Offset)
			}
		}
	}
	for v := range acked {
		if _, ok := seen[v]; !ok { // spec: P-40 (no loss)
			t.Fatalf("acknowledged value %d is missing", v)
		}
	}
}

// sendNumbered sends values "0".."n-1" asynchronously with a callback
// that records the outcome, calling between(i) before record i.
func sendNumbered(p *Producer, topic string, n int, keyed bool, between func(i int)) (wait func() (map[int]RecordMetadata, map[int]error)) {
	var mu sync.Mutex
	acked := map[int]RecordMetadata{}
	failed := map[int]error{}
	var wg sync.WaitGroup
	wg.Add(n)
	for i := range n {
		if between != nil {
			between(i)
		}
		var key []byte
		if keyed {
			key = []byte(strconv.Itoa(i % 12))
		}
		p.Send(&ProducerRecord{Topic: topic, Key: key, Value: []byte(strconv.Itoa(i))}, func(md RecordMetadata, err error) {
			mu.Lock()
			if err != nil {
				failed[i] = err
			} else {
				acked[i] = md
			}
			mu.Unlock()
			wg.Done()
		})
	}
	return func() (map[int]RecordMetadata, map[int]error) {
		wg.Wait()
		return acked, failed
	}
}

func TestProducerLeaderKillIdempotent(t *testing.T) {
	t.Parallel()
	e := startTopicEngine(t, engine.Config{}, map[string]string{"T": "partitions=6,replicas=3"})
	p := newProducerT(t, e, ProducerConfig{Acks: AcksAll, BatchSize: 16 << 10, LingerMs: 2})
	const n = 100_000
	var killed atomic.Int32
	wait := sendNumbered(p, "T", n, true, func(i int) {
		if i == n/3 {
			go func() {
				id, err := e.KillLeader()
				if err != nil {
					t.Errorf("KillLeader: %v", err)
				}
				killed.Store(int32(id))
			}()
		}
		if i%5000 == 0 {
			time.Sleep(2 * time.Millisecond) // spread the sends over the failover
		}
	})
	acked, failed := wait()
	if len(failed) != 0 { // spec: P-40 (no error visible to the app)
		for v, err := range failed {
			t.Fatalf("%d records failed, e.g. %d: %v", len(failed), v, err)
		}
	}
	if _, err := e.WaitLeader(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	checkExactlyOnce(t, readAll(t, e, "T", 6), acked, nil)
	if p.Stats().Retries == 0 {
		t.Log("no batch was resent: the kill hit no batch in flight")
	}
	t.Logf("killed node %d; stats %+v", killed.Load(), p.Stats())
}

func TestProducerDropReplyDeduplicated(t *testing.T) {
	t.Parallel()
	e := startTopicEngine(t, engine.Config{}, map[string]string{"T": "partitions=1"})
	p := newProducerT(t, e, ProducerConfig{Acks: AcksAll})
	ctx := testCtx(t)
	if _, err := p.SendSync(ctx, &ProducerRecord{Topic: "T", Value: []byte("0")}); err != nil {
		t.Fatal(err)
	}
	log := watchProduce(e)
	e.Control(once(wire.CodeProduce, engine.ControlAction{DropReply: true}))
	md, err := p.SendSync(ctx, &ProducerRecord{Topic: "T", Value: []byte("1")})
	if err != nil {
		t.Fatalf("send with a dropped reply: %v", err)
	}
	if md.Offset != 1 { // spec: P-25 (the original offset)
		t.Fatalf("offset %d, want 1", md.Offset)
	}
	recs := readAll(t, e, "T", 1)[0]
	if len(recs) != 2 || string(recs[1].Value) != "1" { // spec: P-25 (stored once)
		t.Fatalf("stored %d records", len(recs))
	}
	bs := log.batches(t)
	if len(bs) < 2 || bs[0].h.BaseSequence != bs[1].h.BaseSequence || bs[0].h.ProducerID != bs[1].h.ProducerID { // spec: P-25
		t.Fatalf("resend did not reuse producer id and sequence: %+v", bs)
	}
	if _, err := p.SendSync(ctx, &ProducerRecord{Topic: "T", Value: []byte("2")}); err != nil {
		t.Fatal(err)
	}
	// The application sending again is a new record (spec: P-26).
	if _, err := p.SendSync(ctx, &ProducerRecord{Topic: "T", Value: []byte("2")}); err != nil {
		t.Fatal(err)
	}
	if recs := readAll(t, e, "T", 1)[0]; len(recs) != 4 { // spec: P-26
		t.Fatalf("stored %d records, want 4", len(recs))
	}
}

func TestProducerFollowerRejection(t *testing.T) {
	t.Parallel()
	e := startTopicEngine(t, engine.Config{}, map[string]string{"T": "partitions=3,replicas=3"})
	log := watchProduce(e)
	p := newProducerT(t, e, ProducerConfig{Acks: AcksAll, BatchSize: 4096, LingerMs: 1})
	old := e.PartitionLeader("T", 0)
	target := old%3 + 1
	const n = 20_000
	wait := sendNumbered(p, "T", n, true, func(i int) {
		if i == n/2 {
			// Every partition led by old moves away: P-39 can close it.
			for part := range 3 {
				if e.PartitionLeader("T", part) == old {
					if err := e.MovePartitionLeader("T", part, target); err != nil {
						t.Errorf("MovePartitionLeader: %v", err)
					}
				}
			}
		}
	})
	acked, failed := wait()
	if len(failed) != 0 {
		for v, err := range failed {
			t.Fatalf("%d records failed, e.g. %d: %v", len(failed), v, err)
		}
	}
	checkExactlyOnce(t, readAll(t, e, "T", 3), acked, nil)
	// Resends kept their sequences: per partition, every batch sent twice
	// has the same sequence and count, and the distinct sequences are
	// contiguous from 0 (spec: P-37).
	per := map[int32]map[int32]int32{}
	resent := 0
	for _, b := range log.batches(t) {
		m := per[b.partition]
		if m == nil {
			m = map[int32]int32{}
			per[b.partition] = m
		}
		if c, ok := m[b.h.BaseSequence]; ok {
			resent++
			if c != b.h.RecordCount { // spec: P-37
				t.Fatalf("partition %d sequence %d resent with %d records, first %d", b.partition, b.h.BaseSequence, b.h.RecordCount, c)
			}
		}
		m[b.h.BaseSequence] = b.h.RecordCount
	}
	for part, m := range per {
		next := int32(0)
		for len(m) > 0 {
			c, ok := m[next]
			if !ok { // spec: P-37 (no sequence skipped)
				t.Fatalf("partition %d: no batch at sequence %d", part, next)
			}
			delete(m, next)
			next += c
		}
	}
	if resent == 0 {
		t.Fatal("no batch was resent: the move hit nothing in flight")
	}
	// No connection stays on the old leader once it leads nothing.
	// spec: P-39
	ilinktest.WaitFor(t, 3*time.Second, "the connection to the old leader to close", func() bool {
		return p.Stats().Connections[old] == 0 && e.SessionCount(old) == 0
	})
	st := p.Stats()
	if st.Connections[target] != 1 {
		t.Fatalf("connections %v, want one to node %d", st.Connections, target)
	}
}

func TestProducerReconnectToMostLeading(t *testing.T) {
	t.Parallel()
	e := startTopicEngine(t, engine.Config{}, map[string]string{"T": "partitions=4,replicas=3"})
	for part := range 4 {
		if err := e.MovePartitionLeader("T", part, 3); err != nil {
			t.Fatal(err)
		}
	}
	p := newProducerT(t, e, ProducerConfig{})
	ctx := testCtx(t)
	for i := range 4 {
		if _, err := p.SendSync(ctx, &ProducerRecord{Topic: "T", Key: []byte(strconv.Itoa(i)), Value: []byte("a")}); err != nil {
			t.Fatal(err)
		}
	}
	ilinktest.WaitFor(t, 3*time.Second, "connections only to node 3", func() bool {
		c := p.Stats().Connections
		return len(c) == 1 && c[3] == 1
	})
	e.SeverConnections()
	for i := range 4 {
		if _, err := p.SendSync(ctx, &ProducerRecord{Topic: "T", Key: []byte(strconv.Itoa(i)), Value: []byte("b")}); err != nil {
			t.Fatal(err)
		}
	}
	// Reconnected to the node that leads every partition, and nowhere else.
	// spec: P-38, P-39
	ilinktest.WaitFor(t, 3*time.Second, "connections only to node 3 after the reconnect", func() bool {
		c := p.Stats().Connections
		return len(c) == 1 && c[3] == 1 && e.SessionCount(1) == 0 && e.SessionCount(2) == 0
	})
	// A failover: every partition moves to node 2, node 3 goes down. The
	// producer goes to the new leader, and no connection is left on the
	// old one.
	for part := range 4 {
		if err := e.MovePartitionLeader("T", part, 2); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.KillNode(3); err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		if _, err := p.SendSync(ctx, &ProducerRecord{Topic: "T", Key: []byte(strconv.Itoa(i)), Value: []byte("c")}); err != nil {
			t.Fatal(err)
		}
	}
	// spec: P-38, P-39
	ilinktest.WaitFor(t, 3*time.Second, "connections only to node 2 after the failover", func() bool {
		c := p.Stats().Connections
		return len(c) == 1 && c[2] == 1 && e.SessionCount(1) == 0
	})
}

func TestProducerOneBatchInFlightBeforeAcceptance(t *testing.T) {
	t.Parallel()
	e := startTopicEngine(t, engine.Config{}, map[string]string{"T": "partitions=1"})
	log := watchProduce(e)
	var delayed atomic.Int32
	e.Control(func(ev *engine.ControlEvent) engine.ControlAction {
		if ev.Code == wire.CodeProduce && delayed.Add(1) <= 3 {
			return engine.ControlAction{Delay: 150 * time.Millisecond}
		}
		return engine.ControlAction{}
	})
	p := newProducerT(t, e, ProducerConfig{BatchSize: 1024, LingerMs: NoLinger})
	wait := sendNumbered(p, "T", 400, false, nil)
	_, failed := wait()
	if len(failed) != 0 {
		t.Fatalf("%d failed", len(failed))
	}
	reqs := log.all()
	if len(reqs) < 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	// Before the first acceptance the second request waits for the first
	// reply (spec: P-34); after it, requests are pipelined.
	if gap := reqs[1].at.Sub(reqs[0].at); gap < 140*time.Millisecond { // spec: P-34
		t.Fatalf("second PRODUCE %v after the first, before its (delayed) acceptance", gap)
	}
	if gap := reqs[2].at.Sub(reqs[1].at); gap > 100*time.Millisecond {
		t.Fatalf("third PRODUCE %v after the second: not pipelined after the first acceptance", gap)
	}
}

func TestProducerFlushAndEpochChange(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		idem    bool
		bump    func(e *engine.Engine) error
		errName string
	}{
		{"flushed idempotent", true, func(e *engine.Engine) error { return e.FlushTopic("T") }, wire.ErrTopicFlushed},
		{"epoch idempotent", true, func(e *engine.Engine) error { return e.BumpTopicEpoch("T") }, wire.ErrTopicEpochMismatch},
		{"flushed not idempotent", false, func(e *engine.Engine) error { return e.FlushTopic("T") }, ""},
		{"epoch not idempotent", false, func(e *engine.Engine) error { return e.BumpTopicEpoch("T") }, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := startTopicEngine(t, engine.Config{}, map[string]string{"T": "partitions=1"})
			p := newProducerT(t, e, ProducerConfig{EnableIdempotence: boolp(tc.idem), LingerMs: 60_000})
			ctx := testCtx(t)
			if _, err := p.SendSync(ctx, &ProducerRecord{Topic: "T", Value: []byte("first")}); err != nil {
				t.Fatal(err)
			}
			// Pending (lingering) batches, then the flush or epoch change.
			futs := []*Future{p.SendFuture(&ProducerRecord{Topic: "T", Value: []byte("p1")}), p.SendFuture(&ProducerRecord{Topic: "T", Value: []byte("p2")})}
			if err := tc.bump(e); err != nil {
				t.Fatal(err)
			}
			if err := p.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			for _, f := range futs {
				_, err := f.Get(ctx)
				switch {
				case tc.errName != "" && !HasName(err, tc.errName): // spec: P-28, P-29
					t.Fatalf("pending record: %v, want %s", err, tc.errName)
				case tc.errName == "" && err != nil: // spec: P-30
					t.Fatalf("pending record failed without idempotence: %v", err)
				}
			}
			// Later records succeed at the new epoch.
			if _, err := p.SendSync(ctx, &ProducerRecord{Topic: "T", Value: []byte("after")}); err != nil {
				t.Fatalf("send after the epoch change: %v", err)
			}
			var vals []string
			for _, r := range readAll(t, e, "T", 1)[0] {
				vals = append(vals, string(r.Value))
			}
			got := strings.Join(vals, ",")
			want := "after" // spec: P-28, P-29 (not resent)
			if tc.errName == "" {
				want = "p1,p2,after" // spec: P-30 (resent silently)
			}
			if strings.Contains(tc.name, "epoch") {
				want = "first," + want
			}
			if got != want {
				t.Fatalf("stored %q, want %q", got, want)
			}
		})
	}
}

func TestProducerDeliveryTimeoutAndBufferMemory(t *testing.T) {
	t.Parallel()
	e := startTopicEngine(t, engine.Config{}, map[string]string{"T": "partitions=1"})
	var reject atomic.Bool
	e.Control(func(ev *engine.ControlEvent) engine.ControlAction {
		if ev.Code != wire.CodeProduce {
			return engine.ControlAction{}
		}
		if reject.Load() {
			return engine.ControlAction{Reject: &wire.ErrorBody{Name: wire.ErrNotEnoughReplicas, Tail: "test"}}
		}
		return engine.ControlAction{Delay: 30 * time.Millisecond}
	})
	const bufMem = 8 << 10
	p := newProducerT(t, e, ProducerConfig{BufferMemory: bufMem, Retries: 1000, RetryBackoffMs: 20, DeliveryTimeoutMs: 600, BatchSize: 2048})
	// Buffer memory: senders block, the buffer never exceeds it (spec: P-15).
	var over atomic.Int64
	stop := sampleUntilStopped(t, 200*time.Microsecond, func() {
		if b := p.Stats().BufferedBytes; b > bufMem {
			over.Store(b)
		}
	})
	wait := sendNumbered(p, "T", 1000, false, nil)
	_, failed := wait()
	stop()
	if len(failed) != 0 {
		t.Fatalf("%d records failed under buffer pressure", len(failed))
	}
	if b := over.Load(); b != 0 { // spec: P-15
		t.Fatalf("buffered %d bytes, over bufferMemory %d", b, bufMem)
	}
	// Delivery timeout: retriable rejections until the deadline (spec: P-16).
	reject.Store(true)
	start := time.Now()
	_, err := p.SendSync(testCtx(t), &ProducerRecord{Topic: "T", Value: []byte("late")})
	if !HasName(err, NameDeliveryTimeout) { // spec: P-16
		t.Fatalf("err = %v, want %s", err, NameDeliveryTimeout)
	}
	if d := time.Since(start); d < 500*time.Millisecond || d > 5*time.Second {
		t.Fatalf("failed after %v, want about the 600ms delivery timeout", d)
	}
}

func TestProducerRetryProtection(t *testing.T) {
	t.Parallel()
	e := startTopicEngine(t, engine.Config{MaxFrame: 1 << 20}, map[string]string{"T": "partitions=1"})
	p := newProducerT(t, e, ProducerConfig{MaxRequestSize: 4 << 20, LingerMs: NoLinger})
	ctx := testCtx(t)
	a := p.SendFuture(&ProducerRecord{Topic: "T", Value: []byte("a")})
	big := p.SendFuture(&ProducerRecord{Topic: "T", Value: make([]byte, 2<<20)})
	c := p.SendFuture(&ProducerRecord{Topic: "T", Value: []byte("c")})
	if _, err := big.Get(ctx); !HasName(err, wire.ErrMsgSizeOver) { // spec: P-31
		t.Fatalf("large record: %v, want MIMQE_MSG_SIZE_OVER", err)
	}
	for _, f := range []*Future{a, c} {
		if _, err := f.Get(ctx); err != nil { // spec: P-32
			t.Fatalf("neighbour of the large record: %v", err)
		}
	}
	var vals []string
	for _, r := range readAll(t, e, "T", 1)[0] {
		vals = append(vals, string(r.Value))
	}
	if strings.Join(vals, ",") != "a,c" { // spec: P-32
		t.Fatalf("stored %v", vals)
	}
	if _, err := p.SendSync(ctx, &ProducerRecord{Topic: "T", Value: []byte("d")}); err != nil {
		t.Fatal(err)
	}
}

func TestProducerRejectedBatchRenumbers(t *testing.T) {
	t.Parallel()
	e := startTopicEngine(t, engine.Config{}, map[string]string{"T": "partitions=1"})
	p := newProducerT(t, e, ProducerConfig{Retries: NoRetries})
	ctx := testCtx(t)
	if _, err := p.SendSync(ctx, &ProducerRecord{Topic: "T", Value: []byte("0")}); err != nil {
		t.Fatal(err)
	}
	// The engine refuses the next batch (without storing it); idempotence
	// numbered it, so the batch after it is out of order until the producer
	// renumbers.
	e.Control(once(wire.CodeProduce, engine.ControlAction{Reject: &wire.ErrorBody{Name: wire.ErrNotEnoughReplicas, Tail: "injected"}}))
	if _, err := p.SendSync(ctx, &ProducerRecord{Topic: "T", Value: []byte("rejected")}); !HasName(err, wire.ErrNotEnoughReplicas) {
		t.Fatalf("rejected record: %v", err)
	}
	for _, v := range []string{"2", "3"} {
		if _, err := p.SendSync(ctx, &ProducerRecord{Topic: "T", Value: []byte(v)}); err != nil { // spec: P-27
			t.Fatalf("record %s after the rejected one: %v", v, err)
		}
	}
	var vals []string
	for _, r := range readAll(t, e, "T", 1)[0] {
		vals = append(vals, string(r.Value))
	}
	if strings.Join(vals, ",") != "0,2,3" { // spec: P-27
		t.Fatalf("stored %v", vals)
	}
}

// A follower rejection does not cut the replies still due on its
// connection: the producer closes it only once they are in, then opens a
// new one (spec P-36). The engine answers in request order, so the
// rejected request B is held 300 ms and the request C sent after it
// (another partition of the same node, refused too: P-35) 600 ms more:
// B's FOLLOWER_NODE arrives while C is outstanding.
func TestProducerFollowerRejectionWaitsForOutstandingReplies(t *testing.T) {
	t.Parallel()
	e := startTopicEngine(t, engine.Config{}, map[string]string{"T": "partitions=2,replicas=3"})
	for part := range 2 {
		if err := e.MovePartitionLeader("T", part, 1); err != nil {
			t.Fatal(err)
		}
	}
	keyOf := func(part int) []byte {
		for i := 0; ; i++ {
			if k := []byte(strconv.Itoa(i)); KeyPartition(k, 2) == part {
				return k
			}
		}
	}
	k0, k1 := keyOf(0), keyOf(1)
	var closedAt atomic.Int64 // unix ns of the close after the follower rejection
	logf := testLogf(t)
	p := newProducerT(t, e, ProducerConfig{LingerMs: 1, Logf: func(format string, args ...any) {
		if strings.HasPrefix(format, "ilink: producer: closing connection to node %d after a follower rejection") {
			closedAt.CompareAndSwap(0, time.Now().UnixNano())
		}
		if logf != nil {
			logf(format, args...)
		}
	}})
	ctx := testCtx(t)
	for _, k := range [][]byte{k0, k1} { // both partitions known, the first request accepted
		if _, err := p.SendSync(ctx, &ProducerRecord{Topic: "T", Key: k, Value: []byte("warm")}); err != nil {
			t.Fatal(err)
		}
	}
	log := watchProduce(e)
	var sawB atomic.Bool
	e.Control(func(ev *engine.ControlEvent) engine.ControlAction {
		var m wire.ProduceRequest
		if ev.Code != wire.CodeProduce || ev.Node != 1 || wire.Decode(ev.Body, &m) != nil {
			return engine.ControlAction{}
		}
		switch m.Topics[0].Partitions[0].Partition {
		case 0:
			sawB.Store(true)
			return engine.ControlAction{Delay: 300 * time.Millisecond}
		default:
			return engine.ControlAction{Delay: 600 * time.Millisecond}
		}
	})
	if err := e.MovePartitionLeader("T", 0, 2); err != nil { // the producer does not know yet
		t.Fatal(err)
	}
	done := make(chan error, 2)
	p.Send(&ProducerRecord{Topic: "T", Key: k0, Value: []byte("B")}, func(_ RecordMetadata, err error) { done <- err })
	ilinktest.WaitFor(t, 5*time.Second, "B at node 1", sawB.Load)
	p.Send(&ProducerRecord{Topic: "T", Key: k1, Value: []byte("C")}, func(_ RecordMetadata, err error) { done <- err })
	for range 2 {
		if err := <-done; err != nil {
			t.Fatalf("send: %v", err)
		}
	}
	ilinktest.WaitFor(t, 5*time.Second, "the rejected connection closed", func() bool { return closedAt.Load() != 0 })
	closed := time.Unix(0, closedAt.Load())
	var cReqs []producedReq
	for _, r := range log.all() {
		if r.node == 1 && r.req.Topics[0].Partitions[0].Partition == 1 {
			cReqs = append(cReqs, r)
		}
	}
	if len(cReqs) == 0 {
		t.Fatal("C never reached node 1")
	}
	// spec: P-36 — C's reply (the engine's refusal of every later publish
	// on the connection, P-35), held 600 ms, was awaited: the close came
	// after it, not at B's rejection.
	if wait := closed.Sub(cReqs[0].at); wait < 600*time.Millisecond {
		t.Fatalf("connection closed %v after C was sent, before its reply (held 600ms)", wait)
	}
	// spec: P-36 — then C went again over a new connection to node 1.
	for _, r := range cReqs[1:] {
		if r.at.Before(closed) {
			t.Fatalf("C resent %v before the close, on the rejected connection", closed.Sub(r.at))
		}
	}
	// spec: P-36 — and a new connection serves node 1's partition.
	if md, err := p.SendSync(ctx, &ProducerRecord{Topic: "T", Key: k1, Value: []byte("D")}); err != nil || md.Partition != 1 {
		t.Fatalf("send after the close: %+v %v", md, err)
	}
	if c := p.Stats().Connections; c[1] != 1 {
		t.Fatalf("connections %v, want one to node 1 again", c)
	}
}
