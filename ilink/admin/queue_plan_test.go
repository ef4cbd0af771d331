package admin

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/engine"
)

// A move executes its plan by id (issue 22): the result read against the
// plan says what moved, what of the plan did not, and what arrived since.
func TestMoveMessagesExecutesThePlan(t *testing.T) {
	t.Parallel()
	e, _, q, ctx := startAdmin(t, engine.Config{}, 1)
	defineQueues(t, ctx, q, "SRC", "DST")
	putOnce(t, ctx, e, "SRC", nil, []byte("a"), []byte("b"), []byte("c"))
	plan := must[MoveResult](t)(q.PlanMoveMessages(ctx, "SRC", "DST", nil))
	if plan.Moved != 3 || len(plan.Planned()) != 3 {
		t.Fatalf("plan %+v", plan)
	}
	// Between the plan and its execution: one planned message is taken,
	// one new message arrives.
	if m, err := ilink.GetOnce(ctx, e.DataAddrs()[0], onceOptions, "SRC"); err != nil || m == nil || string(m.Payload) != "a" {
		t.Fatalf("take: %v %v", m, err)
	}
	putOnce(t, ctx, e, "SRC", nil, []byte("late"))
	sel := plan.Execution()
	res := must[MoveResult](t)(q.MoveMessages(ctx, "SRC", "DST", sel.IDs, sel.PlanNext))
	o := res.Against(plan)
	if o.Planned != 3 || o.Moved != 2 || o.Arrived != 1 || o.Unplanned != 0 || len(o.Missed) != 1 {
		t.Fatalf("outcome %+v: want 3 planned, 2 moved, 1 missed, 1 arrived", o)
	}
	if !bytes.Equal(o.Missed[0].ID, plan.Planned()[0]) || o.Missed[0].Skipped != "not in SRC" {
		t.Fatalf("missed %+v, want the taken message, not in SRC", o.Missed[0])
	}
	b := must[QueueBrowse](t)(q.BrowseQueue(ctx, "SRC", 0, 0))
	if len(b.Messages) != 1 || string(b.Messages[0].Payload) != "late" {
		t.Fatalf("SRC keeps %+v, want the late message", b.Messages)
	}
	// No ids: refused before anything is sent; too many: likewise.
	if _, err := q.MoveMessages(ctx, "SRC", "DST", nil, 0); err == nil || !strings.Contains(err.Error(), "no message id") {
		t.Fatalf("MoveMessages without ids: %v", err)
	}
	if _, err := q.MoveMessages(ctx, "SRC", "DST", make([][]byte, MaxMoveIDs+1), 0); err == nil || !strings.Contains(err.Error(), "at most 1000") {
		t.Fatalf("MoveMessages with %d ids: %v", MaxMoveIDs+1, err)
	}
}

func TestReinjectQuarantineIDsTakesThePlan(t *testing.T) {
	t.Parallel()
	e, _, q, ctx := startAdmin(t, engine.Config{}, 1)
	defineQueues(t, ctx, q, "RQ")
	if err := e.AddQuarantine(
		engine.QuarantineEntry{Dir: "d", Queue: "RQ", Payload: []byte("new")},
		engine.QuarantineEntry{Dir: "d", Queue: "RQ", Payload: []byte("old"), Old: true},
	); err != nil {
		t.Fatal(err)
	}
	scan, err := ParseQuarantineScan(must[string](t)(q.ScanQuarantine(ctx, "d", "RQ", time.Time{})))
	if err != nil {
		t.Fatal(err)
	}
	plan := PlanReinject(scan, "d", "RQ", false)
	if plan.New != 1 || plan.Old != 0 || plan.OldLeft != 1 || len(plan.IDs) != 1 {
		t.Fatalf("plan %+v: want the NEW entry, the OLD one left out", plan)
	}
	noErr(t, e.AddQuarantine(engine.QuarantineEntry{Dir: "d", Queue: "RQ", Payload: []byte("late")}))
	res := must[QuarantineReinjectResult](t)(q.ReinjectQuarantineIDs(ctx, "d", "RQ", plan.IDs, false))
	if res.Count != 1 || res.Left != 1 || len(res.Missing) != 0 {
		t.Fatalf("result %+v: want the planned entry reinjected, the late one left", res)
	}
	if n := e.QuarantineLen(); n != 2 {
		t.Fatalf("%d entries quarantined, want the OLD and the late one", n)
	}
	// Again: the id is gone, reported missing, nothing reinjected.
	res = must[QuarantineReinjectResult](t)(q.ReinjectQuarantineIDs(ctx, "d", "RQ", plan.IDs, false))
	if res.Count != 0 || len(res.Missing) != 1 || !bytes.Equal(res.Missing[0], plan.IDs[0]) {
		t.Fatalf("second reinjection %+v: want the id missing", res)
	}
	if _, err := q.ReinjectQuarantineIDs(ctx, "d", "RQ", nil, false); err == nil || !strings.Contains(err.Error(), "no message id") {
		t.Fatalf("ReinjectQuarantineIDs without ids: %v", err)
	}
}
