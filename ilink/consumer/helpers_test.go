package consumer

import (
	"context"
	"sync"
	"testing"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/ilinktest"
)

// testLogf returns a Logf that writes to the test log while the test runs
// (and is silent afterwards, so a late goroutine cannot panic the test).
func testLogf(t testing.TB) func(string, ...any) {
	var mu sync.Mutex
	done := false
	t.Cleanup(func() {
		mu.Lock()
		done = true
		mu.Unlock()
	})
	return func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if !done && testing.Verbose() {
			t.Logf(format, args...)
		}
	}
}

func testOptions(t testing.TB, group string) Options {
	o := NewOptions()
	o.Group = group
	o.Logf = testLogf(t)
	o.fetchMaxWait = 100 * time.Millisecond
	return o
}

func testCtx(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func mustSubscribe(t testing.TB, addrs, topic string, o Options) *Consumer {
	t.Helper()
	c, err := Subscribe(testCtx(t, 20*time.Second), addrs, topic, o)
	if err != nil {
		t.Fatalf("Subscribe(%s, %s): %v", o.Group, topic, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func mustAssign(t testing.TB, addrs, topic string, parts []int32, o Options) *Consumer {
	t.Helper()
	c, err := Assign(testCtx(t, 20*time.Second), addrs, topic, parts, o)
	if err != nil {
		t.Fatalf("Assign(%s): %v", topic, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// readN reads exactly n records (failing the test after d).
func readN(t testing.TB, c *Consumer, n int, d time.Duration) []*Record {
	t.Helper()
	deadline := time.Now().Add(d)
	var out []*Record
	for len(out) < n {
		left := time.Until(deadline)
		if left <= 0 {
			t.Fatalf("read %d of %d records within %v", len(out), n, d)
		}
		rs, err := c.ReadBatch(context.Background(), n-len(out), left)
		if err != nil {
			if ilink.IsNoMessage(err) {
				continue
			}
			t.Fatalf("ReadBatch after %d of %d records: %v", len(out), n, err)
		}
		out = append(out, rs...)
	}
	return out
}

// advanceInOrder checks that rs continue each partition's offsets from
// next, nothing skipped or repeated, and moves next past them.
func advanceInOrder(t testing.TB, rs []*Record, next map[int32]int64) {
	t.Helper()
	for _, r := range rs {
		if r.Offset != next[r.Partition] {
			t.Fatalf("partition %d: offset %d, want %d (skipped or repeated)", r.Partition, r.Offset, next[r.Partition])
		}
		next[r.Partition]++
	}
}

// loopUntilStopped runs step(0), step(1), ... in a goroutine until stop
// is called (or the test ends); stop waits for the goroutine to finish.
func loopUntilStopped(t testing.TB, step func(i int)) (stop func()) {
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-quit:
				return
			default:
			}
			step(i)
		}
	})
	stop = sync.OnceFunc(func() {
		close(quit)
		wg.Wait()
	})
	t.Cleanup(stop)
	return stop
}

// waitFetchBlocked waits until every fetch loop of c has stopped for want
// of buffer room (Prefetch or MaxBufferedBytes): the buffers are as full
// as they will get until a reader frees room.
func waitFetchBlocked(t testing.TB, c *Consumer) {
	t.Helper()
	ilinktest.WaitFor(t, 10*time.Second, "every fetch loop waits for buffer room", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		if len(c.sources) == 0 {
			return false
		}
		for _, s := range c.sources {
			if !s.blocked {
				return false
			}
		}
		return true
	})
}
