package search

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/consumer"
	"ilinkdash/ilink/engine"
)

// The search goal: scanning is at least 80 % of the plain consume rate.
//
//	go test -run '^$' -bench 'Scan' -benchtime 5x ./ilink/search/
//
// compares records/s of BenchmarkScanConsume (an assign consumer reading
// every record, nothing else) with BenchmarkScanSearch (the same records
// through Run with a key that matches one of them).

const benchRecords = 1_000_000

var (
	benchOnce sync.Once
	benchEng  *engine.Engine
)

func benchEngine(b *testing.B) string {
	benchOnce.Do(func() {
		e, err := engine.Start(engine.Config{ElectionDelay: 200 * time.Millisecond})
		if err != nil {
			b.Fatal(err)
		}
		if err := e.CreateTopic("BENCH.S", "partitions=4,replicas=1"); err != nil {
			b.Fatal(err)
		}
		produce(b, e, "BENCH.S", 0, benchRecords)
		benchEng = e
	})
	return strings.Join(benchEng.DataAddrs(), ",")
}

func BenchmarkScanConsume(b *testing.B) {
	addrs := benchEngine(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		opt := consumer.NewOptions()
		opt.Durable = false
		opt.Commit = consumer.CommitManual
		c, err := consumer.Assign(context.Background(), addrs, "BENCH.S", nil, opt)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for n < benchRecords {
			recs, err := c.ReadBatch(context.Background(), 2000, time.Second)
			if err != nil && !ilink.IsNoMessage(err) {
				b.Fatal(err)
			}
			n += len(recs)
		}
		c.Close()
	}
	b.ReportMetric(float64(benchRecords)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

func BenchmarkScanSearch(b *testing.B) {
	benchSearch(b, benchEngine(b), Spec{Target: "BENCH.S", Key: []byte("key-150000")})
}

// benchSearch times the search for spec over the benchRecords records at
// addrs, of which it matches one.
func benchSearch(b *testing.B, addrs string, spec Spec) {
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		found := 0
		p, err := Run(context.Background(), addrs, spec, Options{}, func(*consumer.Record) error { found++; return nil })
		if err != nil || found != 1 || p.Scanned != benchRecords {
			b.Fatalf("found %d, scanned %d: %v", found, p.Scanned, err)
		}
	}
	b.ReportMetric(float64(benchRecords)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}
