package consumer

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/wire"
)

func TestReadTimeoutAndArrivalDuringWait(t *testing.T) {
	t.Parallel()
	fc := newTestEngine(t, 1)
	fc.createTopic("T", 1)
	c := mustSubscribe(t, fc.addr(), "T", testOptions(t, "r"))
	start := time.Now()
	_, err := c.Read(context.Background(), 150*time.Millisecond)
	// spec: C-50 — nothing within the wait: the no-message error.
	if !ilink.IsNoMessage(err) || time.Since(start) < 150*time.Millisecond {
		t.Fatalf("Read on an empty topic: %v after %v", err, time.Since(start))
	}
	if _, err := c.Read(context.Background(), 0); !ilink.IsNoMessage(err) {
		t.Fatalf("Read(0): %v", err)
	}
	// The record arrives while the Read waits: once a fetch (a long poll,
	// held at the engine) has reached the engine since the Read began.
	fetching := make(chan struct{}, 1)
	defer fc.hook(func(ev *reqEvent) *reqAction {
		if ev.Code == wire.CodeFetch {
			select {
			case fetching <- struct{}{}:
			default:
			}
		}
		return nil
	})()
	go func() {
		select {
		case <-fetching:
		case <-time.After(5 * time.Second):
			t.Error("no fetch reached the engine within 5s")
			return
		}
		fc.produce("T", 0, 1, wire.CodecNone)
	}()
	// spec: C-50 — a record that arrives during the wait is returned.
	r, err := c.Read(context.Background(), 5*time.Second)
	if err != nil || r.Offset != 0 {
		t.Fatalf("Read: %v %v", r, err)
	}
}

func TestReadBatchNeverExceedsMax(t *testing.T) {
	t.Parallel()
	fc := newTestEngine(t, 2)
	fc.createTopic("T", 2)
	fc.produce("T", 0, 50, wire.CodecLZ4)
	fc.produce("T", 1, 50, wire.CodecZstd)
	c := mustSubscribe(t, fc.addr(), "T", testOptions(t, "rb"))
	total := 0
	seen := map[string]bool{}
	for total < 100 {
		rs, err := c.ReadBatch(context.Background(), 7, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		// spec: C-51 — never more than max.
		if len(rs) == 0 || len(rs) > 7 {
			t.Fatalf("ReadBatch(7) returned %d", len(rs))
		}
		for _, r := range rs {
			k := fmt.Sprintf("%d/%d", r.Partition, r.Offset)
			if seen[k] || string(r.Value) != fmt.Sprintf("T/%d/%d", r.Partition, r.Offset) {
				t.Fatalf("record %s value %q (dup %v)", k, r.Value, seen[k])
			}
			seen[k] = true
		}
		total += len(rs)
	}
	if _, err := c.ReadBatch(context.Background(), 0, 0); !ilink.IsConfigError(err) {
		t.Fatalf("ReadBatch(0): %v", err)
	}
}

func TestListenAndStopListening(t *testing.T) {
	t.Parallel()
	fc := engineWithT(t, 1, 1, 20)
	c := mustSubscribe(t, fc.addr(), "T", testOptions(t, "l"))
	var got atomic.Int64
	var stopped atomic.Bool
	var late atomic.Int64
	c.Listen(func(in Inside, r *Record) {
		if stopped.Load() {
			late.Add(1)
		}
		if r.Offset != got.Load() {
			t.Errorf("record %d, want %d", r.Offset, got.Load())
		}
		got.Add(1)
		time.Sleep(time.Millisecond) // a slow callback: the listener is busy when the stop comes
	}, func(in Inside, err error) { t.Errorf("onError: %v", err) })
	ilinktest.WaitFor(t, 5*time.Second, "20 records pushed", func() bool { return got.Load() == 20 })
	fc.produce("T", 0, 200, wire.CodecNone)
	// Stop while the listener is busy with the new records.
	ilinktest.WaitFor(t, 5*time.Second, "a new record pushed", func() bool { return got.Load() > 20 })
	c.StopListening()
	stopped.Store(true)
	n := got.Load()
	fc.produce("T", 0, 20, wire.CodecNone)
	// Records not pushed are still there for Read, in order: every one of
	// them, so no callback took any after StopListening returned.
	rs := readN(t, c, int(240-n), 10*time.Second)
	if rs[0].Offset != n || rs[len(rs)-1].Offset != 239 {
		t.Fatalf("Read after StopListening: offsets %d..%d, want %d..239", rs[0].Offset, rs[len(rs)-1].Offset, n)
	}
	// spec: C-53 — no callback after StopListening returned.
	if late.Load() != 0 || got.Load() != n {
		t.Fatalf("%d callbacks after StopListening", got.Load()-n)
	}
	// StopListening from inside a callback (through its Inside) returns at
	// once, and the callback that stopped is the last one: the next record
	// goes to Read.
	fc.produce("T", 0, 2, wire.CodecNone)
	var inside atomic.Int64
	c.Listen(func(in Inside, r *Record) {
		inside.Add(1)
		in.StopListening()
	}, nil)
	ilinktest.WaitFor(t, 5*time.Second, "one callback", func() bool { return inside.Load() == 1 })
	if r, err := c.Read(context.Background(), 5*time.Second); err != nil || r.Offset != 241 {
		t.Fatalf("Read after stopping from inside: %v %v, want offset 241", r, err)
	}
	if inside.Load() != 1 {
		t.Fatalf("%d callbacks after stopping from inside", inside.Load())
	}
}

func TestSeekToOffsetAndTime(t *testing.T) {
	t.Parallel()
	fc := newTestEngine(t, 2)
	fc.createTopic("T", 2)
	base := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	for i := 0; i < 10; i++ {
		fc.produceAt("T", 0, base.Add(time.Duration(i)*time.Minute).UnixMilli())
		fc.produceAt("T", 1, base.Add(time.Duration(i)*time.Minute).UnixMilli())
	}
	o := testOptions(t, "seek")
	o.Commit = CommitManual
	c := mustAssign(t, fc.addrs(), "T", []int32{0}, o)
	readN(t, c, 10, 5*time.Second)
	var mu sync.Mutex
	var sent []wire.Code // during the seek, besides the fetch loop's
	remove := fc.hook(func(ev *reqEvent) *reqAction {
		if ev.Code != wire.CodeFetch {
			mu.Lock()
			sent = append(sent, ev.Code)
			mu.Unlock()
		}
		return nil
	})
	err := c.SeekToOffset("T", 0, 3)
	remove()
	if err != nil {
		t.Fatal(err)
	}
	// spec: C-21 — a seek sends nothing.
	mu.Lock()
	if len(sent) > 0 {
		t.Fatalf("seek caused %v", sent)
	}
	mu.Unlock()
	// spec: C-22 — the next record read has offset o.
	if r := readN(t, c, 1, 5*time.Second)[0]; r.Offset != 3 {
		t.Fatalf("after SeekToOffset(3): %d", r.Offset)
	}
	if err := c.SeekToOffset("T", 1, 3); !ilink.IsRejected(err) {
		t.Fatalf("seek on an unassigned partition: %v", err)
	}
	lists := fc.requestCount(wire.CodeListOffsets)
	if err := c.SeekToTime(testCtx(t, 5*time.Second), base.Add(6*time.Minute)); err != nil {
		t.Fatal(err)
	}
	// spec: C-23 — seek_to_time uses LIST_OFFSETS.
	if fc.requestCount(wire.CodeListOffsets) == lists {
		t.Fatal("SeekToTime sent no LIST_OFFSETS")
	}
	r := readN(t, c, 1, 5*time.Second)[0]
	if r.Offset != 6 || !r.Timestamp.Equal(base.Add(6*time.Minute)) {
		t.Fatalf("after SeekToTime: offset %d at %v", r.Offset, r.Timestamp)
	}
}

func TestLeaderMovesLoseAndSkipNothing(t *testing.T) {
	t.Parallel()
	fc := newTestEngine(t, 3)
	fc.createTopic("T", 3)
	o := testOptions(t, "lm")
	o.Commit = CommitManual
	c := mustSubscribe(t, fc.addr(), "T", o)
	stop := loopUntilStopped(t, func(i int) {
		fc.produce("T", int32(i%3), 5, wire.CodecLZ4)
		time.Sleep(time.Millisecond) // pacing the stream across the leader moves
	})
	next := map[int32]int64{}
	deadline := time.Now().Add(20 * time.Second)
	moves := 0
	for moves < 6 || next[0]+next[1]+next[2] < 3000 {
		if time.Now().After(deadline) {
			t.Fatalf("stuck at %v after %d moves", next, moves)
		}
		rs, err := c.ReadBatch(context.Background(), 100, time.Second)
		if err != nil && !ilink.IsNoMessage(err) {
			// spec: C-29 — leader moves are hidden from reads.
			t.Fatalf("read: %v", err)
		}
		advanceInOrder(t, rs, next)
		if moves < 6 && next[0]+next[1]+next[2] > int64(300*(moves+1)) {
			p := int32(moves % 3)
			// To the next node: the engine moves leadership only to another
			// in-sync replica.
			to := fc.PartitionLeader("T", int(p))%3 + 1
			if err := fc.MovePartitionLeader("T", int(p), to); err != nil {
				t.Fatalf("move %d: %v", moves, err)
			}
			moves++
		}
	}
	stop()
}

func TestKilledLeaderNodeLosesAndSkipsNothing(t *testing.T) {
	t.Parallel()
	fc := engineWithT(t, 3, 3, 100)
	o := testOptions(t, "kill")
	c := mustSubscribe(t, fc.addrs(), "T", o)
	recs := readN(t, c, 90, 5*time.Second)
	if err := fc.KillNode(fc.PartitionLeader("T", 1)); err != nil {
		t.Fatal(err)
	}
	for p := int32(0); p < 3; p++ {
		fc.produce("T", p, 100, wire.CodecNone)
	}
	recs = append(recs, readN(t, c, 510, 10*time.Second)...)
	// spec: C-29, C-49 — after the leader's node died the consumer finds
	// the new leader by itself: nothing lost, nothing skipped, no dups.
	advanceInOrder(t, recs, map[int32]int64{})
	if _, err := c.Read(context.Background(), 200*time.Millisecond); !ilink.IsNoMessage(err) {
		t.Fatalf("extra: %v", err)
	}
}

func TestOutOfRangeOffsetIsReset(t *testing.T) {
	t.Parallel()
	fc := newFakeCluster(t, 1)
	fc.createTopic("T", 1)
	for i := 0; i < 10; i++ {
		fc.produce("T", 0, 10, wire.CodecNone)
	}
	o := testOptions(t, "oor")
	o.Start, o.StartOffset = StartOffset, 1000
	o.Commit = CommitManual
	c := mustAssign(t, fc.addr(), "T", nil, o)
	ilinktest.WaitFor(t, 5*time.Second, "reset to the end", func() bool { return c.Position("T", 0) == 100 })
	fc.produce("T", 0, 1, wire.CodecNone)
	// spec: C-30 — an offset past the end is reset (offset mode: to the
	// nearest end) without an error.
	r, err := c.Read(context.Background(), 5*time.Second)
	if err != nil || r.Offset != 100 {
		t.Fatalf("read: %v %v", r, err)
	}
	// Below the log start (retention): earliest → log start.
	o2 := testOptions(t, "oor2")
	o2.Commit = CommitManual
	c2 := mustAssign(t, fc.addr(), "T", nil, o2)
	readN(t, c2, 5, 5*time.Second)
	fc.truncate("T", 0, 50)
	if err := c2.SeekToOffset("T", 0, 10); err != nil {
		t.Fatal(err)
	}
	r, err = c2.Read(context.Background(), 5*time.Second)
	if err != nil || r.Offset != 50 {
		t.Fatalf("read below the log start: %v %v", r, err)
	}
}

func TestBufferBounds(t *testing.T) {
	t.Parallel()
	fc := newTestEngine(t, 1)
	fc.createTopic("T", 2)
	for i := 0; i < 40; i++ {
		fc.produce("T", int32(i%2), 50, wire.CodecNone)
	}
	o := testOptions(t, "buf")
	o.Prefetch = 100
	o.partFetch = 4096
	c := mustSubscribe(t, fc.addr(), "T", o)
	waitFetchBlocked(t, c)
	c.mu.Lock()
	for k, cur := range c.cursors {
		// Prefetch bounds a partition's buffer (plus at most one fetch).
		if n := c.buf.pending(cur); n > o.Prefetch+100 {
			t.Errorf("%v: %d records buffered with prefetch %d", k, n, o.Prefetch)
		}
	}
	c.mu.Unlock()
	readN(t, c, 2000, 10*time.Second)

	o = testOptions(t, "buf2")
	o.MaxBufferedBytes = 20000
	o.partFetch = 4096
	c2 := mustSubscribe(t, fc.addr(), "T", o)
	waitFetchBlocked(t, c2)
	c2.mu.Lock()
	// MaxBufferedBytes bounds the consumer's buffer (plus at most one fetch).
	if n := c2.buf.bytes(); n > o.MaxBufferedBytes+2*4096*4 {
		t.Errorf("%d bytes buffered with a bound of %d", n, o.MaxBufferedBytes)
	}
	c2.mu.Unlock()
	readN(t, c2, 2000, 10*time.Second)
}

func TestPatternSubscription(t *testing.T) {
	t.Parallel()
	fc := newFakeCluster(t, 2)
	for _, n := range []string{"ORDER.KR", "ORDER.KR.SUB", "ORDERING", "SYSTEM.GROUPS"} {
		fc.createTopic(n, 2)
		fc.produce(n, 0, 3, wire.CodecNone)
		fc.produce(n, 1, 3, wire.CodecNone)
	}
	joins := fc.requestCount(wire.CodeJoinGroup)
	got, err := Resolve(testCtx(t, 5*time.Second), fc.addr(), "ORDER.*")
	// spec: T-11 — resolve lists the matches and creates no member.
	if err != nil || !slices.Equal(got, []string{"ORDER.KR", "ORDER.KR.SUB"}) {
		t.Fatalf("Resolve: %v %v", got, err)
	}
	if fc.requestCount(wire.CodeJoinGroup) != joins {
		t.Fatal("Resolve joined a group")
	}
	all, _ := Resolve(testCtx(t, 5*time.Second), fc.addr(), "*")
	if slices.Contains(all, "SYSTEM.GROUPS") || len(all) != 3 {
		t.Fatalf("Resolve(*) = %v", all)
	}

	o := testOptions(t, "pat")
	o.PatternRefresh = time.Hour
	var leaveErrs atomic.Int64
	fc.hook(func(ev *reqEvent) *reqAction {
		if ev.Code == wire.CodeTopicLeave && strings.Contains(string(ev.Body), "ORDER.FAIL") {
			leaveErrs.Add(1)
			return &reqAction{Name: wire.ErrInternal, Tail: "leave refused"}
		}
		return nil
	})
	c := mustSubscribe(t, fc.addr(), "ORDER.*", o)
	recs := readN(t, c, 12, 5*time.Second)
	topics := map[string]int{}
	for _, r := range recs {
		topics[r.Topic]++
	}
	// spec: T-12 — one multi-topic subscription; records carry their topic.
	if topics["ORDER.KR"] != 6 || topics["ORDER.KR.SUB"] != 6 || len(topics) != 2 {
		t.Fatalf("topics read: %v", topics)
	}
	fc.createTopic("ORDER.US", 1)
	fc.produce("ORDER.US", 0, 4, wire.CodecNone)
	if err := c.RefreshNow(testCtx(t, 5*time.Second)); err != nil {
		t.Fatal(err)
	}
	// spec: T-17 — refresh_now adds a topic created after the subscribe.
	rs := readN(t, c, 4, 5*time.Second)
	if rs[0].Topic != "ORDER.US" {
		t.Fatalf("after RefreshNow: %s", rs[0].Topic)
	}
	if !slices.Contains(c.Topics(), "ORDER.US") {
		t.Fatalf("topics %v", c.Topics())
	}
	// A topic that stops matching is left with MIMQ_TOPIC_LEAVE (T-19).
	// The fake still serves fetches of the topic, which long-poll: at the
	// refresh a fetch covering it is pending, and the LEAVE must wait for
	// it to return (T-21; the fake answers MIMQE_READ_IN_PROGRESS and
	// records a violation otherwise).
	ilinktest.WaitFor(t, 5*time.Second, "a fetch covering ORDER.KR.SUB pending", func() bool { return fc.fetchPending("ORDER.KR.SUB") })
	fc.hideTopic("ORDER.KR.SUB")
	if err := c.RefreshNow(testCtx(t, 5*time.Second)); err != nil {
		t.Fatal(err)
	}
	ev := fc.eventLog()
	iLeave := slices.IndexFunc(ev, func(e string) bool {
		return strings.HasPrefix(e, "topic-leave pat ") && strings.HasSuffix(e, " ORDER.KR.SUB")
	})
	if iLeave < 0 {
		t.Fatalf("no LEAVE for the topic that stopped matching:\n%s", strings.Join(ev, "\n"))
	}
	// spec: T-19, T-21 — left, after the pending fetch covering it ended,
	// and no fetch covering it started before the LEAVE.
	lastEnd, lastStart := -1, -1
	for i, e := range ev[:iLeave] {
		if strings.Contains(e, "ORDER.KR.SUB") {
			if strings.HasPrefix(e, "fetch-end") {
				lastEnd = i
			} else if strings.HasPrefix(e, "fetch-start") {
				lastStart = i
			}
		}
	}
	if lastEnd < 0 || lastStart > lastEnd {
		t.Fatalf("LEAVE while a fetch of the topic was pending:\n%s", strings.Join(ev[max(0, iLeave-10):iLeave+1], "\n"))
	}
	fc.checkViolations(t)
	if slices.Contains(c.Topics(), "ORDER.KR.SUB") {
		t.Fatalf("topics %v", c.Topics())
	}
	// spec: T-20 — a failed LEAVE never reaches the app.
	fc.createTopic("ORDER.FAIL", 1)
	if err := c.RefreshNow(testCtx(t, 5*time.Second)); err != nil {
		t.Fatal(err)
	}
	fc.deleteTopic("ORDER.FAIL")
	if err := c.RefreshNow(testCtx(t, 5*time.Second)); err != nil {
		t.Fatalf("RefreshNow with a failing LEAVE: %v", err)
	}
	if leaveErrs.Load() == 0 {
		t.Fatal("the LEAVE of ORDER.FAIL was not sent")
	}
	fc.produce("ORDER.KR", 0, 1, wire.CodecNone)
	if r, err := c.Read(context.Background(), 5*time.Second); err != nil || r.Topic != "ORDER.KR" {
		t.Fatalf("read after a failed LEAVE: %v %v", r, err)
	}
	// spec: T-18 — periodic re-evaluation without RefreshNow.
	o2 := testOptions(t, "pat2")
	o2.PatternRefresh = 100 * time.Millisecond
	c2 := mustSubscribe(t, fc.addr(), "ORDER.*", o2)
	fc.createTopic("ORDER.JP", 1)
	fc.produce("ORDER.JP", 0, 1, wire.CodecNone)
	ilinktest.WaitFor(t, 5*time.Second, "ORDER.JP picked up", func() bool { return slices.Contains(c2.Topics(), "ORDER.JP") })
	deadline := time.Now().Add(5 * time.Second)
	for {
		r, err := c2.Read(context.Background(), time.Second)
		if err == nil && r.Topic == "ORDER.JP" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no record of ORDER.JP")
		}
	}
	// SYSTEM. topics only for SYSTEM. patterns (spec T-16) on a subscription.
	c3 := mustSubscribe(t, fc.addr(), "SYSTEM.*", testOptions(t, "pat3"))
	if r := readN(t, c3, 1, 5*time.Second)[0]; r.Topic != "SYSTEM.GROUPS" {
		t.Fatalf("SYSTEM.* read %s", r.Topic)
	}
}
