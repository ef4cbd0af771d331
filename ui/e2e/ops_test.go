package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/engine"
)

// The operator panes end to end: the real program, adapters and engine.
// Every mutating flow shows the engine's plan (or the change) first, and
// the engine is checked unchanged before the confirmation and changed
// after it.

// deadLetter puts body on queue and returns it twice in a transacted
// session, so a queue with maxRedeliveries=1 dead-letters it.
func deadLetter(t *testing.T, e *engine.Engine, queue, body string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	s, err := ilink.Dial(ctx, e.DataAddrs()[0], ilink.Options{ClientName: "e2e-poison"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	q, err := s.AccessQueue(ctx, queue)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.Put(ctx, []byte(body)); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if _, err := q.Get(ctx, time.Second); err != nil {
			t.Fatal(err)
		}
		if err := s.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

func depthOf(t *testing.T, e *engine.Engine, q string) int {
	t.Helper()
	d, err := e.QueueDepth(q)
	if err != nil {
		t.Fatalf("depth of %s: %v", q, err)
	}
	return d
}

// TestQueueBrowseAndDeadLetterMoveBack: the Queues tab shows the DLQ's
// depth next to its queue; the DLQ's detail browses the dead letter with
// its dlq.* headers; M previews the move back, which the engine makes only
// after enter.
func TestQueueBrowseAndDeadLetterMoveBack(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engineOpts{})
	if err := e.DefineQueue("E2E.ORDERS", engine.QueueConfig{DeadLetterQueue: "E2E.ORDERS.DLQ", MaxRedeliveries: 1}); err != nil {
		t.Fatal(err)
	}
	deadLetter(t, e, "E2E.ORDERS", `{"order":"poison-1"}`)
	if depthOf(t, e, "E2E.ORDERS.DLQ") != 1 {
		t.Fatal("setup: the message was not dead-lettered")
	}

	d := startDash(t, e, dashOpts{})
	d.keys("5")
	d.waitText("2 queues", "1 dead letter", "(is a DLQ)")
	d.openRow("DLQ")
	d.waitText("Queue E2E.ORDERS.DLQ", "dead letters of E2E.ORDERS", "browsing 1 of 1", "dlq.source: E2E.ORDERS",
		"dlq.reason: redelivered 2 times (max 1)", `{"order":"poison-1"}`)
	d.keys("M")
	d.waitText("Move messages of E2E.ORDERS.DLQ back", "the selected message")
	d.keys("enter")
	d.waitText("Move back — preview", "→ E2E.ORDERS", "1 message would move")
	if depthOf(t, e, "E2E.ORDERS.DLQ") != 1 || depthOf(t, e, "E2E.ORDERS") != 0 {
		t.Fatal("the preview moved the message")
	}
	d.press("enter")
	d.waitText("1 message moved back from E2E.ORDERS.DLQ", "browsing 0 of 0")
	if depthOf(t, e, "E2E.ORDERS.DLQ") != 0 || depthOf(t, e, "E2E.ORDERS") != 1 {
		t.Fatal("the move back did not happen")
	}

	// Put from the detail of the source queue, then take one.
	d.keys("esc", "esc", "/")
	d.typeText("E2E.ORDERS")
	// Frames from now on only: an older one of the DLQ's detail also says
	// "Queue E2E.ORDERS…" and "browsing 1 of 1".
	d.press("enter", "enter")
	d.waitText("Queue E2E.ORDERS", "dead-letter queue E2E.ORDERS.DLQ", "browsing 1 of 1")
	d.keys("P", "enter") // the dialog opens navigating: enter edits
	d.typeText(`{"n":{{seq}}}`)
	d.keys("tab", "backspace")
	d.typeText("2")
	d.press("enter")
	d.waitText("2 messages put on E2E.ORDERS", "browsing 3 of 3", `{"n":1}`)
	d.keys("T", "enter")
	d.waitText("Taken from E2E.ORDERS", "poison-1")
	if depthOf(t, e, "E2E.ORDERS") != 2 {
		t.Fatalf("depth %d after take, want 2", depthOf(t, e, "E2E.ORDERS"))
	}
}

// TestQuarantineReinjectShowsTheDuplicateWarningFirst: Q lists the
// quarantine; R with OLD entries shows the spec's warning before the plan,
// and the result (count, leader) after enter.
func TestQuarantineReinjectShowsTheDuplicateWarningFirst(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engineOpts{})
	quarantined(t, e, "E2E.Q",
		engine.QuarantineEntry{Dir: "qd", Payload: []byte("new")},
		engine.QuarantineEntry{Dir: "qd", Payload: []byte("old"), Old: true})
	d := startDash(t, e, dashOpts{})
	d.keys("5")
	d.waitText("E2E.Q")
	d.keys("Q")
	d.waitText("Quarantine", "qd", "Entries of qd / E2E.Q", "OLD")
	d.keys("R")
	d.waitText("Reinject qd into E2E.Q", "NEW entries only (1)")
	d.keys("right", "enter")
	s := d.waitText("Reinject — preview", "⚠ 1 OLD entry", "duplicates are not removed", "2 entries appended")
	if strings.Index(s, "⚠ 1 OLD entry") > strings.Index(s, "2 entries appended") {
		t.Fatalf("the warning must come before the plan:\n%s", s)
	}
	if e.QuarantineLen() != 2 || depthOf(t, e, "E2E.Q") != 0 {
		t.Fatal("the preview reinjected")
	}
	d.keys("enter")
	d.waitText("Reinject — result", "2 messages appended to E2E.Q; the queue state is led by node 1")
	if e.QuarantineLen() != 0 || depthOf(t, e, "E2E.Q") != 2 {
		t.Fatalf("after the reinjection: %d quarantined, depth %d", e.QuarantineLen(), depthOf(t, e, "E2E.Q"))
	}
}

// TestTopicConfigEditWithDiffPreview: c shows every property; editing the
// partitions shows the diff, enter alters the topic.
func TestTopicConfigEditWithDiffPreview(t *testing.T) {
	t.Parallel()
	e := engineWithTopic(t, "E2E.CFG", "partitions=2,retention.ms=3600000")
	d := startDash(t, e, dashOpts{})
	d.keys("2")
	d.waitText("1 topic", "E2E.CFG") // the only topic (SYSTEM. ones are hidden): selected
	d.keys("c")
	d.waitText("Configuration of E2E.CFG", "partitions 2", "retention 1h", "[1] 2,3,1 · leader 2")
	d.keys("tab", "tab", "tab", "enter", "backspace") // Partitions: edit
	d.typeText("4")
	d.keys("enter")
	d.waitText("Alter E2E.CFG — preview", "2 → 4", "2 new partitions start empty")
	if _, end := e.TopicOffsets("E2E.CFG"); len(end) != 2 {
		t.Fatal("the preview altered the topic")
	}
	d.press("enter")
	d.waitText("topic E2E.CFG altered")
	if _, end := e.TopicOffsets("E2E.CFG"); len(end) != 4 {
		t.Fatalf("partitions after the alter: %d", len(end))
	}
}

// TestClusterRebalanceWithPreview: a partition away from its preferred
// leader shows in the Balance pane and the header's imbalance; b previews
// the engine's plan and enter moves the leader back.
func TestClusterRebalanceWithPreview(t *testing.T) {
	t.Parallel()
	e := engineWithTopic(t, "E2E.RB", "partitions=3")
	if err := e.MovePartitionLeader("E2E.RB", 1, 3); err != nil {
		t.Fatal(err)
	}
	d := startDash(t, e, dashOpts{})
	d.keys("4")
	d.waitText("leaders 2/3 on preferred (imbalance 33%)")
	d.keys("v", "v", "v")
	d.waitText("Balance (1 off)", "not preferred")
	d.keys("b")
	d.waitText("Rebalance leaders — preview", "E2E.RB [1]  node 3 → node 2", "imbalance after: 0%")
	if e.PartitionLeader("E2E.RB", 1) != 3 {
		t.Fatal("the preview moved the leader")
	}
	d.press("enter")
	d.waitText("rebalance: 1 partition moved to their preferred leader")
	d.waitText("leaders 3/3 on preferred (imbalance 0%)")
	if e.PartitionLeader("E2E.RB", 1) != 2 {
		t.Fatalf("leader after the rebalance: %d", e.PartitionLeader("E2E.RB", 1))
	}
	// L moves one partition's leader (a forced election).
	d.keys("L")
	d.waitText("Move the leader of E2E.RB [0]", "‹ node 2 ›")
	d.keys("enter")
	d.waitText("Move leader — preview", "E2E.RB [0]: leader node 1 → node 2")
	d.press("enter")
	d.waitText("E2E.RB [0]: node 2 leads")
	if e.PartitionLeader("E2E.RB", 0) != 2 {
		t.Fatalf("leader of [0]: %d", e.PartitionLeader("E2E.RB", 0))
	}
}

// TestTailSearchBeyondTheBuffer: S in the tail scans the topic with a
// direct consumer (no group), shows the progress and the outcome, and
// the match streams into the list.
func TestTailSearchBeyondTheBuffer(t *testing.T) {
	t.Parallel()
	const topic = "E2E.SEARCH"
	e := engineWithTopic(t, topic, "partitions=2,replicas=2")
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	p := newProducer(ctx, t, e, ilink.ProducerConfig{LingerMs: 2})
	for i := 0; i < 3000; i++ {
		p.Send(&ilink.ProducerRecord{Topic: topic, Key: fmt.Appendf(nil, "order-%d", i), Value: fmt.Appendf(nil, `{"n":%d}`, i)}, nil)
	}
	if err := p.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	p.Close()

	d := startDash(t, e, dashOpts{})
	d.tailLive(topic)
	d.keys("S")
	d.waitText("Search beyond the buffer", "Value regex")
	d.keys("enter") // edit the key
	d.typeText("order-1777")
	d.press("enter")
	d.waitText("search E2E.SEARCH key=order-1777 from earliest to the end · done: 1 match in 3,000 records", "order-1777", `{"n":1777}`)
	for _, g := range e.Groups() {
		if strings.Contains(g.Name, "search") {
			t.Fatalf("the search created group %s", g.Name)
		}
	}
	// A regex with several matches, then r reopens the live tail.
	d.keys("S", "tab", "tab", "enter") // Value regex: edit
	d.typeText(`"n":29[0-9]{2}`)
	d.press("enter")
	d.waitText("done: 100 matches in 3,000 records")
	d.keys("r")
	d.waitText("● live")
}
