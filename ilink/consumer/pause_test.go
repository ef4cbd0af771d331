package consumer

import (
	"sync/atomic"
	"testing"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/wire"
)

// countFetches counts the FETCH requests the engine receives.
func countFetches(t *testing.T, e *engine.Engine) *atomic.Int64 {
	var n atomic.Int64
	remove := e.Control(func(ev *engine.ControlEvent) engine.ControlAction {
		if ev.Code == wire.CodeFetch {
			n.Add(1)
		}
		return engine.ControlAction{}
	})
	t.Cleanup(remove)
	return &n
}

// TestPauseFetchingHoldsThePosition: while fetching is paused the engine
// gets no FETCH, the position stays where the reader stopped and Lag
// counts what was produced meanwhile; after ResumeFetching the reader gets
// exactly those records, in order, each once.
func TestPauseFetchingHoldsThePosition(t *testing.T) {
	t.Parallel()
	e := startEngine(t, 1)
	const topic = "PAUSE.T"
	if err := e.CreateTopic(topic, "partitions=2"); err != nil {
		t.Fatal(err)
	}
	p := newTestProducer(t, e, ilink.ProducerConfig{})
	fetches := countFetches(t, e)
	c := mustSubscribe(t, engineAddrs(e), topic, testOptions(t, "pause-group"))

	produceN(t, p, topic, 0, 100)
	got := readN(t, c, 100, 20*time.Second)
	if err := c.PauseFetching(testCtx(t, 10*time.Second)); err != nil {
		t.Fatalf("PauseFetching: %v", err)
	}
	if !c.FetchingPaused() {
		t.Fatal("FetchingPaused() = false after PauseFetching")
	}
	before := fetches.Load()
	produceN(t, p, topic, 100, 500)
	// Reads while paused hand over nothing new (nothing was fetched) and
	// keep the member alive.
	var lag int64
	ilinktest.WaitFor(t, 10*time.Second, "Lag reports the 500 records produced while paused", func() bool {
		if rs, err := c.ReadBatch(testCtx(t, time.Second), 1000, 20*time.Millisecond); err == nil {
			got = append(got, rs...)
		}
		n, err := c.Lag(testCtx(t, 5*time.Second))
		lag = n
		return err == nil && n == 500
	})
	if n := fetches.Load(); n != before {
		t.Fatalf("the engine got %d FETCH requests while the consumer was paused, want 0", n-before)
	}
	if len(got) != 100 {
		t.Fatalf("read %d records while paused, want the 100 read before the pause", len(got))
	}
	c.ResumeFetching()
	got = append(got, readN(t, c, 500, 20*time.Second)...)
	if c.FetchingPaused() {
		t.Fatal("FetchingPaused() = true after ResumeFetching")
	}
	if fetches.Load() == before {
		t.Fatal("no FETCH after ResumeFetching")
	}
	seen := map[string]bool{}
	next := map[int32]int64{}
	for _, r := range got {
		if seen[string(r.Value)] {
			t.Fatalf("record %s read twice", r.Value)
		}
		seen[string(r.Value)] = true
		if r.Offset != next[r.Partition] {
			t.Fatalf("partition %d: offset %d after %d: a gap or a repeat", r.Partition, r.Offset, next[r.Partition]-1)
		}
		next[r.Partition]++
	}
	if len(seen) != 600 || lag != 500 {
		t.Fatalf("read %d distinct records (want 600); lag while paused %d (want 500)", len(seen), lag)
	}
	if n, err := c.Lag(testCtx(t, 5*time.Second)); err != nil || n != 0 {
		t.Fatalf("Lag after reading everything = %d, %v; want 0", n, err)
	}
}
