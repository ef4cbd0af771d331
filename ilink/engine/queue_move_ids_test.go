package engine

import (
	"bytes"
	"strings"
	"testing"

	"ilinkdash/ilink/wire"
)

// Moves and reinjections by id (issue 22): the execution of a plan names
// the plan's messages, and what arrived after the plan stays, counted.

func TestMoveExecutesThePlanByID(t *testing.T) {
	t.Parallel()
	e := queueEngine(t, "SRC", "DST")
	c := localSession(t, e, wire.ModeAutoCommit)
	for i := 1; i <= 3; i++ {
		c.put("SRC", i, "planned")
	}
	plan, err := e.Move(MoveSpec{From: "SRC", To: "DST", DryRun: true})
	if err != nil || plan.Moved != 3 || plan.Unselected != 0 || plan.NextSeq == 0 {
		t.Fatalf("plan %+v: %v", plan, err)
	}
	c.put("SRC", 4, "late") // after the plan
	var ids [][]byte
	for _, m := range plan.Moves {
		ids = append(ids, m.ID)
	}
	ids = append(ids, msgID(99)) // named, not in SRC
	got, err := e.Move(MoveSpec{From: "SRC", To: "DST", IDs: ids, PlanNext: plan.NextSeq})
	if err != nil {
		t.Fatal(err)
	}
	if got.Moved != 3 || got.Arrived != 1 || got.Unselected != 1 {
		t.Fatalf("execution %+v: want the 3 planned moved, the late one counted as arrived", got)
	}
	if last := got.Moves[len(got.Moves)-1]; !bytes.Equal(last.ID, msgID(99)) || last.Skipped != "not in SRC" {
		t.Fatalf("the unknown id is reported as %+v", last)
	}
	if left := c.drain("SRC"); len(left) != 1 || left[0] != "late" {
		t.Fatalf("SRC keeps %q, want the late message", left)
	}
	wantDepth(t, e, "DST", 3, "after the move")
	assertReplicasEqual(t, e)
}

func TestMovePlanAndRequestAreBounded(t *testing.T) {
	t.Parallel()
	e := queueEngine(t, "BIG", "OUT")
	c := localSession(t, e, wire.ModeAutoCommit)
	for i := 1; i <= MaxMoveIDs+5; i++ {
		c.put("BIG", i, "m")
	}
	plan, err := e.Move(MoveSpec{From: "BIG", To: "OUT", DryRun: true})
	if err != nil || len(plan.Moves) != MaxMoveIDs || plan.Moved != MaxMoveIDs || plan.Unselected != 5 {
		t.Fatalf("plan of every message: %d moves, %d would move, %d unselected (%v); want %d, %d, 5",
			len(plan.Moves), plan.Moved, plan.Unselected, err, MaxMoveIDs, MaxMoveIDs)
	}
	tooMany := make([][]byte, MaxMoveIDs+1)
	for i := range tooMany {
		tooMany[i] = msgID(i + 1)
	}
	_, err = e.Move(MoveSpec{From: "BIG", To: "OUT", IDs: tooMany})
	if ee, ok := err.(*Error); !ok || ee.Name != wire.ErrInvalidArgument || !strings.Contains(ee.Tail, "at most 1000") {
		t.Fatalf("%d ids: %v, want MIMQE_INVALID_ARGUMENT naming the bound", len(tooMany), err)
	}
	// Over the wire a move that is not a plan must name its ids.
	adm := openSession(t, e.AdminAddrs()[0], wire.ModeAdmin)
	var rep wire.QueueMoveReply
	eb := adm.call(wire.CodeMoveMessages, 0, &wire.QueueMoveRequest{From: "BIG", To: "OUT"}, &rep)
	if eb == nil || eb.Name != wire.ErrInvalidArgument || !strings.Contains(eb.Tail, "moves by id: msg_ids is empty") {
		t.Fatalf("MOVE MESSAGES without ids: %+v", eb)
	}
	if d := depth(t, e, "BIG"); d != MaxMoveIDs+5 {
		t.Fatalf("a refused move moved messages: BIG depth %d", d)
	}
	// With the plan's ids it moves them, and counts the rest.
	var ids [][]byte
	for _, m := range plan.Moves[:2] {
		ids = append(ids, m.ID)
	}
	eb = adm.call(wire.CodeMoveMessages, 0, &wire.QueueMoveRequest{From: "BIG", To: "OUT", MsgIDs: ids, PlanNextSeq: plan.NextSeq}, &rep)
	if eb != nil || rep.Moved != 2 || rep.Unselected != MaxMoveIDs+3 || rep.Arrived != 0 {
		t.Fatalf("MOVE MESSAGES by id: %+v %+v", rep, eb)
	}
}

func TestReinjectByIDLeavesTheRest(t *testing.T) {
	t.Parallel()
	e := queueEngine(t, "RQ")
	if err := e.AddQuarantine(
		QuarantineEntry{Dir: "d", Queue: "RQ", MsgID: msgID(1), Payload: []byte("a")},
		QuarantineEntry{Dir: "d", Queue: "RQ", MsgID: msgID(2), Payload: []byte("b")},
		QuarantineEntry{Dir: "d", Queue: "RQ", MsgID: msgID(3), Payload: []byte("late")},
	); err != nil {
		t.Fatal(err)
	}
	rep := e.reinject("d", "RQ", 0, false, [][]byte{msgID(1), msgID(2), msgID(7)})
	if rep.Count != 2 || rep.Left != 1 || len(rep.Missing) != 1 || !bytes.Equal(rep.Missing[0], msgID(7)) {
		t.Fatalf("reinject by id: %+v; want 2 reinjected, 1 left, id 7 missing", rep)
	}
	if n := e.QuarantineLen(); n != 1 {
		t.Fatalf("%d entries quarantined, want the one not named", n)
	}
	c := localSession(t, e, wire.ModeAutoCommit)
	if got := c.drain("RQ"); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Fatalf("RQ holds %q", got)
	}
}
