package search

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/consumer"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/engine/enginetest"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/position"
	"ilinkdash/ilink/wire"
)

func startEngine(t testing.TB) *engine.Engine {
	t.Helper()
	return enginetest.Start(t, engine.Config{ElectionDelay: 200 * time.Millisecond})
}

func testCtx(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// produce writes n records key-<i> / value-<i> (i from first), header
// seq=<i>, spread over the partitions by key.
func produce(t testing.TB, e *engine.Engine, topic string, first, n int) {
	t.Helper()
	ctx := testCtx(t, 5*time.Minute)
	p, err := ilink.NewProducer(ctx, strings.Join(e.DataAddrs(), ","), ilink.ProducerConfig{LingerMs: 5, BatchSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var mu sync.Mutex
	var first1 error
	cb := func(_ ilink.RecordMetadata, err error) {
		if err != nil {
			mu.Lock()
			if first1 == nil {
				first1 = err
			}
			mu.Unlock()
		}
	}
	for i := first; i < first+n; i++ {
		s := strconv.Itoa(i)
		p.Send(&ilink.ProducerRecord{Topic: topic, Key: []byte("key-" + s), Value: []byte("value-" + s),
			Headers: []wire.RecordHeader{{Key: "seq", Value: []byte(s)}}}, cb)
	}
	if err := p.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if first1 != nil {
		t.Fatal(first1)
	}
	// Acknowledged by the leader is not yet below the high watermark,
	// where a search (its end captured when it starts) reads to: wait
	// for the followers, or a loaded machine scans a part (101 of 200).
	ilinktest.WaitFor(t, time.Minute, topic+"'s records below the high watermark", func() bool {
		ps, err := e.TopicPartitions(topic)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			if p.HighWatermark != p.EndOffset {
				return false
			}
		}
		return true
	})
}

func TestSearchMillionRecordsFindsTheMiddleKey(t *testing.T) {
	e := startEngine(t)
	const n = 1_000_000
	if err := e.CreateTopic("S.BIG", "partitions=4,replicas=1"); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	produce(t, e, "S.BIG", 0, n)
	t.Logf("produced %d records in %v", n, time.Since(t0))

	var progress []Progress
	var matches []*consumer.Record
	spec := Spec{Target: "S.BIG", Key: []byte("key-" + strconv.Itoa(n/2))}
	res, err := Run(testCtx(t, 5*time.Minute), strings.Join(e.DataAddrs(), ","), spec,
		Options{ProgressEvery: 50 * time.Millisecond, OnProgress: func(p Progress) { progress = append(progress, p) }},
		func(r *consumer.Record) error { matches = append(matches, r); return nil })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("scanned %d records in %v (%.0f/s), %d progress reports", res.Scanned, res.Elapsed, res.Rate, len(progress))
	if len(matches) != 1 || string(matches[0].Value) != "value-"+strconv.Itoa(n/2) {
		t.Fatalf("matches %d, want the one record of key-%d", len(matches), n/2)
	}
	if res.Scanned != n || res.Total != n || res.Matches != 1 || !res.Finished || res.Cancelled {
		t.Fatalf("final progress %+v", res)
	}
	// Progress is reported while scanning: some reports between the start
	// and the end, rising, with a rate and an estimate of the time left.
	var mid int
	for i, p := range progress {
		if i > 0 && p.Scanned < progress[i-1].Scanned {
			t.Fatalf("progress went back: %+v after %+v", p, progress[i-1])
		}
		if !p.Finished && p.Scanned > 0 && p.Scanned < n && p.Total == n && p.Rate > 0 && p.ETA > 0 {
			mid++
		}
	}
	if mid == 0 || !progress[len(progress)-1].Finished {
		t.Fatalf("no progress report during the scan (%d reports: first %+v, last %+v)", len(progress), progress[0], progress[len(progress)-1])
	}
}

func TestSearchCriteriaRangesPatternsAndCancel(t *testing.T) {
	e := startEngine(t)
	for _, tp := range []string{"S.A", "S.B"} {
		if err := e.CreateTopic(tp, "partitions=2"); err != nil {
			t.Fatal(err)
		}
	}
	produce(t, e, "S.A", 0, 200)
	produce(t, e, "S.B", 1000, 100)
	addrs := strings.Join(e.DataAddrs(), ",")
	run := func(spec Spec) ([]*consumer.Record, Progress) {
		t.Helper()
		var out []*consumer.Record
		p, err := Run(testCtx(t, time.Minute), addrs, spec, Options{}, func(r *consumer.Record) error { out = append(out, r); return nil })
		if err != nil {
			t.Fatalf("%+v: %v", spec, err)
		}
		return out, p
	}
	if got, p := run(Spec{Target: "S.A", ValueContains: []byte("value-19")}); len(got) != 11 || p.Scanned != 200 { // 19, 190..199
		t.Fatalf("value contains: %d matches, %d scanned", len(got), p.Scanned)
	}
	if got, _ := run(Spec{Target: "S.*", ValueRegex: regexp.MustCompile(`^value-10[0-9]{2}$`)}); len(got) != 100 || got[0].Topic != "S.B" {
		t.Fatalf("pattern + regex: %d matches", len(got))
	}
	h, _ := ParseHeader("seq=42")
	if got, _ := run(Spec{Target: "S.A", Header: h, Key: []byte("key-42")}); len(got) != 1 {
		t.Fatalf("header + key: %d matches", len(got))
	}
	if got, _ := run(Spec{Target: "S.A", Header: h, Key: []byte("key-43")}); len(got) != 0 {
		t.Fatalf("header and another key: %d matches, want 0 (criteria AND)", len(got))
	}
	any, _ := ParseHeader("seq")
	if got, _ := run(Spec{Target: "S.A", Header: any, Max: 5}); len(got) != 5 {
		t.Fatalf("--max 5: %d matches", len(got))
	}
	// Ranges: one partition from an offset to an offset.
	from, _ := position.Parse("1@10", time.Now())
	to, _ := position.Parse("19", time.Now())
	got, p := run(Spec{Target: "S.A", From: &from, To: &to})
	if len(got) != 10 || p.Total != 10 || got[0].Partition != 1 || got[0].Offset != 10 || got[9].Offset != 19 {
		t.Fatalf("1@10 .. 19: %d matches, total %d", len(got), p.Total)
	}
	// A time after every record: nothing to scan.
	later, _ := position.Parse(time.Now().Add(time.Hour).Format(time.RFC3339), time.Now())
	if got, p := run(Spec{Target: "S.A", From: &later}); len(got) != 0 || p.Total != 0 {
		t.Fatalf("from the future: %d matches, total %d", len(got), p.Total)
	}
	// Records produced after the start are not waited for.
	if got, _ := run(Spec{Target: "S.B"}); len(got) != 100 {
		t.Fatalf("S.B: %d records", len(got))
	}
	if _, err := Run(testCtx(t, time.Minute), addrs, Spec{Target: "NOPE.*"}, Options{}, nil); err == nil || !strings.Contains(err.Error(), "no topic matches NOPE.*") {
		t.Fatalf("empty pattern: %v", err)
	}
	// Cancel: an emit that cancels ends the scan without an error.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	res, err := Run(ctx, addrs, Spec{Target: "S.A"}, Options{}, func(*consumer.Record) error {
		n++
		if n == 3 {
			cancel()
		}
		return nil
	})
	if err != nil || !res.Cancelled || !res.Finished || res.Scanned >= 200 {
		t.Fatalf("cancelled scan: %+v %v", res, err)
	}
	// An emit error stops the scan and is returned.
	stop := fmt.Errorf("enough")
	if _, err := Run(testCtx(t, time.Minute), addrs, Spec{Target: "S.A"}, Options{}, func(*consumer.Record) error { return stop }); err != stop {
		t.Fatalf("emit error: %v", err)
	}
	// No group was created.
	if gs := e.Groups(); len(gs) != 0 {
		t.Fatalf("search created groups %v", gs)
	}
}
