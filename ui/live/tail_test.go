package live

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ui/views/tail"

	"ilinkdash/ilink"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/engine/enginetest"
	"ilinkdash/ilink/position"
	"ilinkdash/ilink/wire"
)

const deadline = 20 * time.Second

func startEngine(t *testing.T) *engine.Engine {
	t.Helper()
	return enginetest.Start(t, engine.Config{Nodes: 1, ElectionDelay: 200 * time.Millisecond, CoordinatorLoadTime: 20 * time.Millisecond, HeartbeatInterval: 200 * time.Millisecond})
}

// engineWithTopic starts an engine (startEngine) holding topic, created
// with props.
func engineWithTopic(t *testing.T, topic, props string) *engine.Engine {
	t.Helper()
	e := startEngine(t)
	if err := e.CreateTopic(topic, props); err != nil {
		t.Fatal(err)
	}
	return e
}

func produce(t *testing.T, e *engine.Engine, topic string, from, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	p, err := ilink.NewProducer(ctx, strings.Join(e.DataAddrs(), ","), ilink.ProducerConfig{ClientName: "live-test"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var failed atomic.Value
	for i := from; i < from+n; i++ {
		p.Send(&ilink.ProducerRecord{Topic: topic, Value: []byte(fmt.Sprintf("v%d", i))}, func(_ ilink.RecordMetadata, err error) {
			if err != nil {
				failed.Store(err)
			}
		})
	}
	if err := p.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err, _ := failed.Load().(error); err != nil {
		t.Fatal(err)
	}
}

func startTail(t *testing.T, e *engine.Engine, spec tail.Spec) tail.Stream {
	t.Helper()
	src, err := New(Config{AdminAddrs: e.AdminAddrs(), DataAddrs: e.DataAddrs(), ClientName: "live-test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	// The context bounds the stream's whole life.
	s, err := src.StartTail(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// The owner goroutine serves a jump while its channel is full: a backlog
// larger than the channel no longer leaves the tab on "jumping…" (the
// reader held a lock while blocked on the send, and Seek took the same
// lock). Batches of the old epoch are then recognisable and the first of
// the new epoch starts at the new position.
func TestTailJumpWithABacklogLargerThanTheChannel(t *testing.T) {
	t.Parallel()
	const topic = "LIVE.BACKLOG"
	e := engineWithTopic(t, topic, "partitions=1")
	backlog := tailChanBatches*tailReadMax + 4*tailReadMax
	produce(t, e, topic, 0, backlog)
	s := startTail(t, e, tail.Spec{Target: topic, From: position.Position{Kind: position.Earliest, Partition: -1}})
	ch := s.Records()
	ilinktest.WaitFor(t, deadline, "the channel fills up (nobody drains it)", func() bool { return len(ch) == cap(ch) })

	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	epoch, err := s.Seek(ctx, position.Position{Kind: position.Offset, Partition: -1, Offset: int64(backlog - 5)}, tail.Fill{})
	if err != nil {
		t.Fatalf("jump with a full channel: %v (it must return within its 1 s context)", err)
	}
	if epoch != 1 {
		t.Fatalf("epoch after the first seek = %d, want 1", epoch)
	}
	var got []tail.Record
	old := 0
	ilinktest.WaitFor(t, deadline, "the 5 records after the jump", func() bool {
		select {
		case b := <-ch:
			if b.Epoch < epoch {
				old += len(b.Records)
			} else {
				got = append(got, b.Records...)
			}
		default:
		}
		return len(got) >= 5
	})
	if old == 0 {
		t.Fatal("no batch of the old epoch was queued: the test did not fill the channel")
	}
	for i, r := range got {
		if want := int64(backlog - 5 + i); r.Offset != want {
			t.Fatalf("record %d after the jump has offset %d, want %d", i, r.Offset, want)
		}
	}
	// A cancelled context ends a request at once.
	dead, stop := context.WithCancel(context.Background())
	stop()
	if _, err := s.Seek(dead, position.Position{Kind: position.Latest, Partition: -1}, tail.Fill{}); err == nil {
		t.Fatal("seek with a cancelled context succeeded")
	}
}

// Pause is back pressure: no FETCH reaches the engine while paused,
// Waiting counts what was produced meanwhile from end offsets, and resume
// delivers exactly those records, once each.
func TestTailPauseStopsFetching(t *testing.T) {
	t.Parallel()
	const topic = "LIVE.PAUSE"
	e := engineWithTopic(t, topic, "partitions=2")
	var fetches atomic.Int64
	t.Cleanup(e.Control(func(ev *engine.ControlEvent) engine.ControlAction {
		if ev.Code == wire.CodeFetch {
			fetches.Add(1)
		}
		return engine.ControlAction{}
	}))
	s := startTail(t, e, tail.Spec{Target: topic, From: position.Position{Kind: position.Latest, Partition: -1}})
	seen := map[string]int{}
	read := func(want int) {
		t.Helper()
		ilinktest.WaitFor(t, deadline, fmt.Sprintf("%d records", want), func() bool {
			select {
			case b := <-s.Records():
				for _, r := range b.Records {
					seen[string(r.Value)]++
				}
			default:
			}
			return len(seen) >= want
		})
	}
	produce(t, e, topic, 0, 50)
	read(50)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	if err := s.Pause(ctx, true); err != nil {
		t.Fatal(err)
	}
	before := fetches.Load()
	produce(t, e, topic, 50, 300)
	ilinktest.WaitFor(t, deadline, "Waiting() reports the 300 records produced while paused", func() bool {
		n, ok := s.Waiting()
		return ok && n == 300
	})
	if n := fetches.Load() - before; n != 0 {
		t.Fatalf("%d FETCH requests reached the engine while the tail was paused", n)
	}
	if err := s.Pause(ctx, false); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Waiting(); ok {
		t.Fatal("Waiting still known after resume")
	}
	read(350)
	for v, n := range seen {
		if n != 1 {
			t.Fatalf("%s received %d times", v, n)
		}
	}
	if len(seen) != 350 {
		t.Fatalf("received %d distinct records, want 350", len(seen))
	}
}

// The stream reports its consumer's fetching: replies while the engine
// answers, a failure (since when) while it is off the network, replies
// again after.
func TestTailStreamReportsItsFetching(t *testing.T) {
	t.Parallel()
	e := engineWithTopic(t, "LIVE.FETCH", "partitions=1")
	s := startTail(t, e, tail.Spec{Target: "LIVE.FETCH"})
	ilinktest.WaitFor(t, deadline, "a fetch reply", func() bool { f := s.Fetching(); return !f.OK.IsZero() && f.Err == nil })
	down := time.Now()
	if err := e.Outage(); err != nil {
		t.Fatal(err)
	}
	ilinktest.WaitFor(t, deadline, "the fetch failing", func() bool { return s.Fetching().Err != nil })
	if f := s.Fetching(); f.FailingSince.Before(down) {
		t.Fatalf("failing since %v, before the outage began (%v)", f.FailingSince, down)
	}
	if err := e.EndOutage(); err != nil {
		t.Fatal(err)
	}
	ilinktest.WaitFor(t, deadline, "fetching again", func() bool { f := s.Fetching(); return f.Err == nil && f.OK.After(down) })
}
