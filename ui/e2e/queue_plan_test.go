package e2e

import (
	"context"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"ilinkdash/ilink"
	"ilinkdash/ilink/engine"
)

// Queue mutations run the plan they showed (issue 22): a move back, a
// reinjection and a take name the messages of their preview by id, leave
// what arrived since in place and say so; the detail reads itself again
// after them. Queue ids show the part that tells them apart.

// browseBodies returns the payloads of queue, in queue order.
func browseBodies(t *testing.T, e *engine.Engine, queue string) []string {
	t.Helper()
	msgs, _, _, err := e.BrowseQueue(queue, 0, 1000, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range msgs {
		out = append(out, string(m.Payload))
	}
	return out
}

// createQueue creates the local queue name at the engine.
func createQueue(t *testing.T, e *engine.Engine, name string) {
	t.Helper()
	if err := e.CreateQueue(name); err != nil {
		t.Fatalf("create queue %s: %v", name, err)
	}
}

// quarantined creates queue and puts entries in the quarantine for it
// (their Queue set to queue).
func quarantined(t *testing.T, e *engine.Engine, queue string, entries ...engine.QuarantineEntry) {
	t.Helper()
	createQueue(t, e, queue)
	for i := range entries {
		entries[i].Queue = queue
	}
	if err := e.AddQuarantine(entries...); err != nil {
		t.Fatalf("quarantine for %s: %v", queue, err)
	}
}

// TestMoveBackLeavesWhatArrivedAfterThePlan reproduces defect 4: the
// preview says 3 messages would move, a 4th dead letter arrives before
// enter; the move takes the 3 of the plan, leaves the 4th and reports it,
// and the detail shows the queue as it is after the move — and again when
// the next dead letter arrives, without r.
func TestMoveBackLeavesWhatArrivedAfterThePlan(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engineOpts{})
	if err := e.DefineQueue("E2E.PAY", engine.QueueConfig{DeadLetterQueue: "E2E.PAY.DLQ", MaxRedeliveries: 1}); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		deadLetter(t, e, "E2E.PAY", fmt.Sprintf("poison-%d", i))
	}
	d := startDash(t, e, dashOpts{})
	d.keys("5")
	d.waitText("2 queues", "E2E.PAY.DLQ")
	d.openRow("DLQ")
	d.waitText("Queue E2E.PAY.DLQ", "browsing 3 of 3")
	d.keys("M")
	d.waitText("Move messages of E2E.PAY.DLQ back", "‹ the selected message")
	d.keys("right")
	d.waitText("‹ every message ›")
	d.keys("enter")
	d.waitText("Move back — preview", "3 messages would move", "→ E2E.PAY")

	deadLetter(t, e, "E2E.PAY", "late") // between the preview and enter
	if depthOf(t, e, "E2E.PAY.DLQ") != 4 {
		t.Fatal("setup: the late message was not dead-lettered")
	}
	d.press("enter")
	d.waitText("3 messages moved back from E2E.PAY.DLQ: 3 planned, 3 moved; 1 arrived after the plan, left in place")
	if got := browseBodies(t, e, "E2E.PAY.DLQ"); len(got) != 1 || got[0] != "late" {
		t.Fatalf("the DLQ holds %q after the move, want the late message alone", got)
	}
	if got := browseBodies(t, e, "E2E.PAY"); len(got) != 3 || got[0] != "poison-1" || got[2] != "poison-3" {
		t.Fatalf("E2E.PAY holds %q after the move, want the 3 planned", got)
	}
	// The detail reads itself again: the browse and the header agree.
	s := d.waitText("browsing 1 of 1", "late")
	if !strings.Contains(s, "depth 1 ·") {
		t.Fatalf("the header's depth is not the browse's:\n%s", s)
	}
	// A message arriving later shows without r: the list's new depth
	// makes the detail browse again.
	d.markNow()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	if err := ilink.PutOnce(ctx, e.DataAddrs()[0], ilink.Options{ClientName: "e2e-later", AutoCommit: true}, "E2E.PAY.DLQ", [][]byte{[]byte("later")}); err != nil {
		t.Fatal(err)
	}
	s = d.waitText("browsing 2 of 2", "later")
	if !strings.Contains(s, "depth 2 ·") {
		t.Fatalf("the header's depth is not the browse's:\n%s", s)
	}
}

// TestQueueIDsShowTheirDistinguishingPart reproduces defect 8: the ids of
// one producer share their first 16 hex digits; the rows and the move
// preview show each id by its first and last digits, distinct, and the
// detail the full id.
func TestQueueIDsShowTheirDistinguishingPart(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engineOpts{})
	createQueue(t, e, "E2E.IDS")
	bodies := make([][]byte, 12)
	for i := range bodies {
		bodies[i] = []byte(fmt.Sprintf("m-%02d", i))
	}
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	if err := ilink.PutOnce(ctx, e.DataAddrs()[0], ilink.Options{ClientName: "e2e-ids", AutoCommit: true}, "E2E.IDS", bodies); err != nil {
		t.Fatal(err)
	}
	msgs, _, _, err := e.BrowseQueue("E2E.IDS", 0, 100, 1<<20)
	if err != nil || len(msgs) != 12 {
		t.Fatalf("browse: %d messages, %v", len(msgs), err)
	}
	full := make([]string, len(msgs))
	for i, m := range msgs {
		full[i] = hex.EncodeToString(m.ID)
		if full[i][:16] != full[0][:16] {
			t.Fatalf("setup: ids %s and %s of one producer do not share their prefix", full[0], full[i])
		}
	}
	short := func(h string) string { return h[:4] + "…" + h[len(h)-4:] }

	d := startDash(t, e, dashOpts{})
	d.findOn("5", "E2E.IDS")
	d.keys("enter")
	s := d.waitText("Queue E2E.IDS", "browsing 12 of 12", "m-11")
	seen := map[string]bool{}
	for i, h := range full {
		l, ok := line(s, fmt.Sprintf("m-%02d", i))
		if !ok || !strings.Contains(l, short(h)) {
			t.Fatalf("row of m-%02d (id %s) does not show %s:\n%s", i, h, short(h), s)
		}
		seen[short(h)] = true
	}
	if len(seen) != 12 {
		t.Fatalf("%d distinct ids shown for 12 messages", len(seen))
	}
	if !strings.Contains(s, "id "+full[0]) { // the selected message: the full id
		t.Fatalf("the detail does not show the full id %s:\n%s", full[0], s)
	}
	d.keys("M")
	d.waitText("the selected message " + short(full[0]))
	d.keys("right", "enter")
	s = d.waitText("Move back — preview", "0 messages would move")
	for _, h := range full {
		if l, ok := line(s, short(h)); !ok || !strings.Contains(l, "stays: no source queue recorded") {
			t.Fatalf("the preview has no line for %s:\n%s", short(h), s)
		}
	}
}

// TestReinjectLeavesWhatWasQuarantinedAfterThePlan: the preview takes the
// 2 entries shown; one quarantined before enter stays and is reported.
func TestReinjectLeavesWhatWasQuarantinedAfterThePlan(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engineOpts{})
	quarantined(t, e, "E2E.RQ",
		engine.QuarantineEntry{Dir: "rq", Payload: []byte("one")},
		engine.QuarantineEntry{Dir: "rq", Payload: []byte("two")})
	d := startDash(t, e, dashOpts{})
	d.keys("5")
	d.waitText("E2E.RQ")
	d.keys("Q")
	d.waitText("Entries of rq / E2E.RQ")
	d.keys("R")
	d.waitText("Reinject rq into E2E.RQ", "NEW entries only (2)")
	d.keys("enter")
	d.waitText("Reinject — preview", "2 entries appended")
	if err := e.AddQuarantine(engine.QuarantineEntry{Dir: "rq", Queue: "E2E.RQ", Payload: []byte("late")}); err != nil {
		t.Fatal(err)
	}
	d.keys("enter")
	d.waitText("Reinject — result", "2 planned, 2 reinjected into E2E.RQ; 1 not in the plan")
	if got := browseBodies(t, e, "E2E.RQ"); len(got) != 2 || got[0] != "one" || got[1] != "two" {
		t.Fatalf("E2E.RQ holds %q, want the 2 planned", got)
	}
	if n := e.QuarantineLen(); n != 1 {
		t.Fatalf("%d entries quarantined after the reinjection, want the late one", n)
	}
}

// TestTakeTakesTheMessageItShowed: the take's preview names the first
// message; when another client takes it first, the take takes nothing
// (not the next one) and says so.
func TestTakeTakesTheMessageItShowed(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engineOpts{})
	createQueue(t, e, "E2E.TK")
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	opt := ilink.Options{ClientName: "e2e-take", AutoCommit: true}
	if err := ilink.PutOnce(ctx, e.DataAddrs()[0], opt, "E2E.TK", [][]byte{[]byte("first"), []byte("second")}); err != nil {
		t.Fatal(err)
	}
	msgs, _, _, err := e.BrowseQueue("E2E.TK", 0, 10, 1<<20)
	if err != nil || len(msgs) != 2 {
		t.Fatalf("browse: %v %v", msgs, err)
	}
	first := hex.EncodeToString(msgs[0].ID)
	d := startDash(t, e, dashOpts{})
	d.findOn("5", "E2E.TK")
	d.keys("enter")
	d.waitText("Queue E2E.TK", "browsing 2 of 2")
	d.keys("T")
	d.waitText("Take the next message of E2E.TK", "Takes message "+first)
	if m, err := ilink.GetOnce(ctx, e.DataAddrs()[0], opt, "E2E.TK"); err != nil || m == nil || string(m.Payload) != "first" {
		t.Fatalf("another client's take: %v %v", m, err)
	}
	d.keys("enter")
	d.waitText("Taken from E2E.TK", "Nothing was taken: message "+first)
	if got := browseBodies(t, e, "E2E.TK"); len(got) != 1 || got[0] != "second" {
		t.Fatalf("E2E.TK holds %q, want the second message untouched", got)
	}
}
