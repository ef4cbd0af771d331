package admin

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/wire"
)

func TestParseQueueDefinition(t *testing.T) {
	d, err := ParseQueueDefinition(" maxDepth=1000, DLQ=ORDERS.DLQ ,maxRedeliveries=3,description=the orders")
	if err != nil {
		t.Fatal(err)
	}
	want := QueueDefinition{MaxDepth: 1000, DeadLetterQueue: "ORDERS.DLQ", MaxRedeliveries: 3, Description: "the orders"}
	if d != want {
		t.Fatalf("parsed %+v, want %+v", d, want)
	}
	if back, _ := ParseQueueDefinition(d.String()); back != d {
		t.Fatalf("String %q parses to %+v", d.String(), back)
	}
	if d, err := ParseQueueDefinition(""); err != nil || d != (QueueDefinition{}) {
		t.Fatalf("empty: %+v %v", d, err)
	}
	for in, msg := range map[string]string{
		"maxDepth=-1":                 `maxDepth="-1": want a whole number`,
		"maxDepth=lots":               `maxDepth="lots": want a whole number`,
		"depth=3":                     `unknown queue property "depth" (want maxDepth, dlq, maxRedeliveries or description)`,
		"maxDepth":                    `queue property "maxDepth": want key=value`,
		"dlq=":                        "dlq: empty queue name",
		"maxDepth=1,maxdepth=2":       "maxdepth given twice",
		"dlq=A,deadLetterQueue=B":     "deadLetterQueue given twice",
		"maxRedeliveries=99999999999": "maxRedeliveries=\"99999999999\"",
	} {
		if _, err := ParseQueueDefinition(in); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: error %v, want …%s…", in, err, msg)
		}
	}
}

func TestQueueDefineBrowseDeadLetterAndMoveBack(t *testing.T) {
	t.Parallel()
	e, _, q, ctx := startAdmin(t, engine.Config{}, 2) // a follower's admin listener: the queue state is the leader's

	wantErr(t, errOf(q.DefineQueue(ctx, "ORDERS", QueueDefinition{DeadLetterQueue: "ORDERS.DLQ"})), wire.ErrInvalidProperty, "dlq=ORDERS.DLQ needs maxRedeliveries")
	p := must[QueueProperty](t)(q.DefineQueue(ctx, "ORDERS", QueueDefinition{MaxDepth: 100, DeadLetterQueue: "ORDERS.DLQ", MaxRedeliveries: 1, Description: "orders"}))
	if p.Name != "ORDERS" || p.MaxDepth != 100 || p.DeadLetterQueue != "ORDERS.DLQ" || p.MaxRedeliveries != 1 || p.Description != "orders" {
		t.Fatalf("property after define %+v", p)
	}
	qs := must[[]QueueInfo](t)(q.Queues(ctx))
	if len(qs) != 2 || qs[0].Name != "ORDERS" || qs[1].Name != "ORDERS.DLQ" || qs[0].Property != p {
		t.Fatalf("queues %+v", qs)
	}

	sess, oq := dialQueue(t, ctx, e, false, "ORDERS")
	id := must[ilink.MsgID](t)(oq.Put(ctx, []byte(`{"order":42}`)))
	must[ilink.MsgID](t)(oq.Put(ctx, []byte("second")))
	noErr(t, sess.Commit(ctx))

	// Browse reads without consuming.
	for i := 0; i < 2; i++ {
		b := must[QueueBrowse](t)(q.BrowseQueue(ctx, "ORDERS", 0, 0))
		if b.Depth != 2 || len(b.Messages) != 2 || b.More || !bytes.Equal(b.Messages[0].ID, id[:]) || string(b.Messages[0].Payload) != `{"order":42}` {
			t.Fatalf("browse %d: %+v", i, b)
		}
	}
	page := must[QueueBrowse](t)(q.BrowseQueue(ctx, "ORDERS", 0, 1))
	if len(page.Messages) != 1 || !page.More {
		t.Fatalf("page of 1: %+v", page)
	}
	rest := must[QueueBrowse](t)(q.BrowseQueue(ctx, "ORDERS", page.NextSeq(0), 10))
	if len(rest.Messages) != 1 || string(rest.Messages[0].Payload) != "second" {
		t.Fatalf("next page: %+v", rest)
	}

	// Two returns of the head exceed maxRedeliveries=1: it moves to the DLQ.
	for i := 0; i < 2; i++ {
		m := must[*ilink.Message](t)(oq.Get(ctx, time.Second))
		if m.ID != id {
			t.Fatalf("round %d took %s", i, m.ID)
		}
		noErr(t, sess.Rollback(ctx))
	}
	dead := must[QueueBrowse](t)(q.BrowseQueue(ctx, "ORDERS.DLQ", 0, 0))
	if len(dead.Messages) != 1 {
		t.Fatalf("DLQ %+v", dead)
	}
	dm := dead.Messages[0]
	if !bytes.Equal(dm.ID, id[:]) || dm.Redeliveries != 2 || dm.Header("dlq.source") != "ORDERS" || !strings.Contains(dm.Header("dlq.reason"), "redelivered 2 times") {
		t.Fatalf("dead letter %+v", dm)
	}

	// Move back: a plan first, then the move.
	plan := must[MoveResult](t)(q.PlanMoveMessages(ctx, "ORDERS.DLQ", "", nil))
	if plan.Moved != 1 || len(plan.Moves) != 1 || plan.Moves[0].To != "ORDERS" || plan.Moves[0].Skipped != "" {
		t.Fatalf("plan %+v", plan)
	}
	if d := must[QueueBrowse](t)(q.BrowseQueue(ctx, "ORDERS.DLQ", 0, 0)); d.Depth != 1 {
		t.Fatalf("the plan moved the message: DLQ depth %d", d.Depth)
	}
	res := must[MoveResult](t)(q.MoveMessages(ctx, "ORDERS.DLQ", "", plan.Planned(), plan.NextSeq))
	if res.Moved != 1 || res.StopReason != "" {
		t.Fatalf("move %+v", res)
	}
	back := must[QueueBrowse](t)(q.BrowseQueue(ctx, "ORDERS", 0, 0))
	if len(back.Messages) != 2 || !bytes.Equal(back.Messages[1].ID, id[:]) || back.Messages[1].Redeliveries != 0 {
		t.Fatalf("ORDERS after the move back (at the tail, count reset): %+v", back.Messages)
	}

	wantErr(t, errOf(q.BrowseQueue(ctx, "NOPE", 0, 0)), wire.ErrUnknownQueue, "NOPE")
	wantErr(t, q.DeleteQueue(ctx, "ORDERS.DLQ"), wire.ErrInvalidArgument, "dead-letter queue of ORDERS")
	must[QueueProperty](t)(q.DefineQueue(ctx, "ORDERS", QueueDefinition{}))
	noErr(t, q.DeleteQueue(ctx, "ORDERS.DLQ"))
	if qs := must[[]QueueInfo](t)(q.Queues(ctx)); len(qs) != 1 || qs[0].Property.DeadLetterQueue != "" {
		t.Fatalf("queues after delete %+v", qs)
	}
}

func TestQuarantineTexts(t *testing.T) {
	list, err := ParseQuarantineList("QUARANTINE|QM1|5\ndir|d1|Q|3|2|1|1000|2000\nfuture|x\ndir|bad|Q|x|0|0|0|0\n")
	if err != nil || len(list) != 1 || list[0] != (QuarantineDir{Dir: "d1", Queue: "Q", Entries: 3, New: 2, Old: 1, Oldest: time.UnixMilli(1000), Newest: time.UnixMilli(2000)}) {
		t.Fatalf("list %+v %v", list, err)
	}
	if _, err := ParseQuarantineList("nope"); err == nil {
		t.Fatal("a text without the head line parsed")
	}
	scan, err := ParseQuarantineScan("SCAN|*|Q|0\nentry|1000|NEW|0102|5|d1|Q\nentry|2000|OLD|0a0b|7|d1|Q\nentry|3|MAYBE|00|1|d|Q\ntotal|2\n")
	if err != nil || len(scan.Entries) != 2 || scan.Total != 2 || !scan.Entries[1].Old || !bytes.Equal(scan.Entries[0].MsgID, []byte{1, 2}) || scan.Entries[1].Bytes != 7 {
		t.Fatalf("scan %+v %v", scan, err)
	}
	if n, o := scan.Counts(); n != 1 || o != 1 {
		t.Fatalf("counts %d %d", n, o)
	}
	if w := DuplicateWarning(2, "Q"); !strings.Contains(w, "2 OLD entries") || !strings.Contains(w, "duplicates are not removed") {
		t.Fatalf("warning %q", w)
	}
	if DuplicateWarning(0, "Q") != "" {
		t.Fatal("a warning without OLD entries")
	}
}
