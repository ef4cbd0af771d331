package ilink

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/wire"
)

// benchValues returns n JSON-ish values of size bytes (compressible like
// real payloads), generated before the measurement.
func benchValues(size, n int) [][]byte {
	words := []string{"order", "payment", "status", "created", "amount", "KRW", "customer", "seoul", "item", "price", "ok", "shipped"}
	x := uint64(0x9e3779b97f4a7c15)
	rnd := func() uint64 { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return x }
	out := make([][]byte, n)
	for i := range out {
		v := fmt.Appendf(nil, `{"id":%d`, rnd()%1_000_000)
		for len(v) < size {
			v = fmt.Appendf(v, `,"%s":"%s-%d"`, words[rnd()%uint64(len(words))], words[rnd()%uint64(len(words))], rnd()%1000)
		}
		out[i] = v[:size]
	}
	return out
}

// benchProduce sends b.N records of 100 bytes through a producer to an
// in-process 3-node engine (one topic, 6 partitions) and waits for every
// acknowledgement. allocs/op is per record and counts the whole process
// (client and engine).
func benchProduce(b *testing.B, cfg ProducerConfig) {
	e, err := engine.Start(engine.Config{ElectionDelay: time.Second, QueueManager: "QMB", Cluster: "CB"})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	if err := e.CreateTopic("bench", "partitions=6"); err != nil {
		b.Fatal(err)
	}
	p, err := NewProducer(context.Background(), joinAddrs(e.DataAddrs()), cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	values := benchValues(100, 8192)
	var failed atomic.Int64
	cb := func(_ RecordMetadata, err error) {
		if err != nil {
			failed.Add(1)
		}
	}
	rec := ProducerRecord{Topic: "bench"}
	// Warm up: topic metadata, connections, batch pool.
	for i := range 20000 {
		rec.Value = values[i%len(values)]
		p.Send(&rec, cb)
	}
	if err := p.Flush(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(100)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		rec.Value = values[i%len(values)]
		p.Send(&rec, cb)
	}
	if err := p.Flush(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "records/s")
	if n := failed.Load(); n != 0 {
		b.Fatalf("%d records failed", n)
	}
}

// BenchmarkProducer100BLZ4 is the headline: 100-byte values, lz4, default
// producer settings (idempotent, acks 1, linger 5ms, batch 256 KiB).
func BenchmarkProducer100BLZ4(b *testing.B) {
	benchProduce(b, ProducerConfig{Compression: wire.CodecLZ4})
}

// BenchmarkProducer100BLZ4AcksAll waits for the in-sync replicas.
func BenchmarkProducer100BLZ4AcksAll(b *testing.B) {
	benchProduce(b, ProducerConfig{Compression: wire.CodecLZ4, Acks: AcksAll})
}

// BenchmarkProducer100BNone is without compression.
func BenchmarkProducer100BNone(b *testing.B) {
	benchProduce(b, ProducerConfig{})
}
