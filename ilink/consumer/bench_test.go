package consumer

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/wire"
)

// BenchmarkConsume100BLZ4 consumes 1,000,000 records of 100 bytes (JSON-ish,
// lz4 batches, 6 partitions on a 3-node in-process engine) from the
// earliest offset per iteration, the anchors' franz-go → kfake shape.
// ILINK_BENCH_RECORDS overrides the count. It reports records/s and
// allocations per record (whole process: the engine's fetch path is
// included) next to the usual figures. Run with -benchtime=3x.
// ILINK_BENCH_CODEC=none stores the batches uncompressed instead;
// ILINK_BENCH_PARTFETCH sets the bytes asked per partition in a fetch.
func BenchmarkConsume100BLZ4(b *testing.B) {
	n := 1_000_000
	if s := os.Getenv("ILINK_BENCH_RECORDS"); s != "" {
		if v, err := strconv.Atoi(s); err == nil && v > 0 {
			n = v
		}
	}
	codec := wire.CodecLZ4
	if os.Getenv("ILINK_BENCH_CODEC") == "none" {
		codec = wire.CodecNone
	}
	const parts = 6
	e := startEngine(b, 3)
	if err := e.CreateTopic("BENCH", fmt.Sprintf("partitions=%d", parts)); err != nil {
		b.Fatal(err)
	}
	p := newTestProducer(b, e, ilink.ProducerConfig{Compression: codec, LingerMs: 10})
	var wg sync.WaitGroup
	var firstErr error
	var mu sync.Mutex
	wg.Add(n)
	for i := 0; i < n; i++ {
		v := fmt.Appendf(nil, `{"id":%9d,"kind":"order","state":"created","amount":%6d,"cur":"KRW","x":"`, i, i%100000)
		for len(v) < 99 {
			v = append(v, 'a')
		}
		v = append(v, '}')
		p.Send(&ilink.ProducerRecord{Topic: "BENCH", Value: v}, func(_ ilink.RecordMetadata, err error) {
			if err != nil {
				mu.Lock()
				firstErr = err
				mu.Unlock()
			}
			wg.Done()
		})
	}
	wg.Wait()
	if firstErr != nil {
		b.Fatal(firstErr)
	}
	_, end := e.TopicOffsets("BENCH")
	total := int64(0)
	for _, x := range end {
		total += x
	}
	if total != int64(n) {
		b.Fatalf("%d records in the topic, want %d", total, n)
	}
	b.Run("ReadBatch", func(b *testing.B) { benchConsume(b, engineAddrs(e), n, true) })
	b.Run("Read", func(b *testing.B) { benchConsume(b, engineAddrs(e), n, false) })
}

// benchConsume reads the n records of BENCH from the earliest offset per
// iteration, with ReadBatch(10000) or one Read per record.
func benchConsume(b *testing.B, addrs string, n int, batch bool) {
	o := NewOptions()
	o.Logf = func(string, ...any) {}
	if s := os.Getenv("ILINK_BENCH_PARTFETCH"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v <= 0 {
			b.Fatalf("ILINK_BENCH_PARTFETCH=%q: want a positive byte count", s)
		}
		o.partFetch = int32(v)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	start := time.Now()
	for i := 0; i < b.N; i++ {
		c, err := Assign(context.Background(), addrs, "BENCH", nil, o)
		if err != nil {
			b.Fatal(err)
		}
		got := 0
		var sum int64
		for got < n {
			if batch {
				rs, err := c.ReadBatch(context.Background(), 10000, 10*time.Second)
				if err != nil {
					b.Fatal(err)
				}
				for _, r := range rs {
					sum += int64(len(r.Value))
				}
				got += len(rs)
				continue
			}
			r, err := c.Read(context.Background(), 10*time.Second)
			if err != nil {
				b.Fatal(err)
			}
			sum += int64(len(r.Value))
			got++
		}
		if sum != int64(n)*100 {
			b.Fatalf("read %d value bytes", sum)
		}
		c.Close()
	}
	elapsed := time.Since(start)
	runtime.ReadMemStats(&ms1)
	b.StopTimer()
	recs := float64(n) * float64(b.N)
	b.ReportMetric(recs/elapsed.Seconds(), "records/s")
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/recs, "allocs/record")
	b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/recs, "B/record")
}

// BenchmarkSourceDecode decodes one fetch's worth of one partition (1 MiB:
// four uncompressed 256 KiB batches of 100-byte records) into a slab of
// Records, the client's share of consuming without the network. A 128 MiB
// ballast stands for the engine's log in the in-process benchmarks, so the
// collector runs about as rarely as there (not once per iteration).
func BenchmarkSourceDecode(b *testing.B) {
	ballast := make([]byte, 128<<20)
	defer runtime.KeepAlive(ballast)
	var batches []byte
	base := int64(0)
	for len(batches) < 3*256<<10 {
		bb := wire.NewBatchBuilder(1, 0, 0)
		for i := 0; bb.EncodedSize()+110 <= 256<<10; i++ {
			v := fmt.Appendf(nil, `{"id":%9d,"kind":"order","state":"created","x":"`, i)
			for len(v) < 99 {
				v = append(v, 'a')
			}
			bb.Append(int64(1_700_000_000_000+i), nil, append(v, '}'), nil)
		}
		batch, err := bb.Finish(wire.CodecNone)
		if err != nil {
			b.Fatal(err)
		}
		wire.SetBatchBaseOffset(batch, base)
		base += int64(bb.Count())
		batches = append(batches, batch...)
	}
	s := &source{}
	b.SetBytes(int64(len(batches)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		recs, _, err := s.decode("BENCH", 0, 0, batches)
		if err != nil || int64(len(recs)) != base {
			b.Fatalf("%d records of %d: %v", len(recs), base, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(base)/float64(b.N), "ns/record")
}
