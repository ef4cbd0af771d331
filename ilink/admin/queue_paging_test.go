package admin

import (
	"fmt"
	"testing"
	"time"

	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/wire"
)

// Issue 23, queues: a browse pages through every message (from a
// sequence number on, the page before one, the last page) and says where
// each page is; a put carries headers that the browse shows; a quarantine
// scan naming an entry returns its headers and body, and a reinjection
// keeps them.
func TestBrowsePagesPutHeadersAndQuarantineBodies(t *testing.T) {
	t.Parallel()
	e, _, q, ctx := startAdmin(t, engine.Config{}, 1)
	defineQueues(t, ctx, q, "PG", "OTHER")
	bodies := make([][]byte, 450)
	for i := range bodies {
		bodies[i] = []byte(fmt.Sprintf("m-%03d", i))
	}
	// A put on another queue in between: sequence numbers are not
	// positions, the index is.
	putOnce(t, ctx, e, "PG", nil, bodies[:200]...)
	putOnce(t, ctx, e, "OTHER", nil, []byte("x"))
	hdr := []wire.RecordHeader{{Key: "origin", Value: []byte("web-7")}, {Key: "empty", Value: nil}}
	putOnce(t, ctx, e, "PG", hdr, bodies[200:]...)

	first := must[QueueBrowse](t)(q.BrowseQueueAt(ctx, "PG", BrowseAt{Max: 200}))
	if len(first.Messages) != 200 || first.Index != 0 || !first.More || first.Depth != 450 {
		t.Fatalf("first page: %d messages, index %d, more %v, depth %d", len(first.Messages), first.Index, first.More, first.Depth)
	}
	second := must[QueueBrowse](t)(q.BrowseQueueAt(ctx, "PG", BrowseAt{From: first.NextSeq(0), Max: 200}))
	if second.Index != 200 || string(second.Messages[0].Payload) != "m-200" || second.Messages[0].Header("origin") != "web-7" {
		t.Fatalf("second page starts at index %d with %q (origin %q)", second.Index, second.Messages[0].Payload, second.Messages[0].Header("origin"))
	}
	if h := first.Messages[0].Headers; len(h) != 0 {
		t.Fatalf("a message put without headers browses with %v", h)
	}
	last := must[QueueBrowse](t)(q.BrowseQueueAt(ctx, "PG", BrowseAt{Before: BrowseLast, Max: 200}))
	if n := len(last.Messages); n != 200 || last.Index != 250 || last.More || string(last.Messages[n-1].Payload) != "m-449" {
		t.Fatalf("last page: %d messages from index %d, more %v", n, last.Index, last.More)
	}
	back := must[QueueBrowse](t)(q.BrowseQueueAt(ctx, "PG", BrowseAt{Before: last.Messages[0].Seq, Max: 200}))
	if n := len(back.Messages); n != 200 || back.Index != 50 || !back.More || string(back.Messages[n-1].Payload) != "m-249" {
		t.Fatalf("the page before the last: %d messages from index %d, more %v", n, back.Index, back.More)
	}
	head := must[QueueBrowse](t)(q.BrowseQueueAt(ctx, "PG", BrowseAt{Before: first.Messages[10].Seq, Max: 200}))
	if len(head.Messages) != 10 || head.Index != 0 {
		t.Fatalf("the page before the 11th message: %d messages from index %d", len(head.Messages), head.Index)
	}

	// The quarantine: a plain scan lists; a scan naming an entry returns
	// its headers and body, and a reinjection keeps the headers.
	id := make([]byte, wire.MsgIDLen)
	id[0] = 0x42
	if err := e.AddQuarantine(
		engine.QuarantineEntry{Dir: "qd", Queue: "OTHER", MsgID: id, Payload: []byte("held|body\nline 2"), Headers: []wire.RecordHeader{{Key: "why", Value: []byte("bad|schema")}}},
		engine.QuarantineEntry{Dir: "qd", Queue: "OTHER", Payload: []byte("other")},
	); err != nil {
		t.Fatal(err)
	}
	plain := must[QuarantineScan](t)(ParseQuarantineScan(must[string](t)(q.ScanQuarantine(ctx, "qd", "OTHER", time.Time{}))))
	if len(plain.Entries) != 2 || plain.Entries[0].HasBody || plain.Entries[1].HasBody {
		t.Fatalf("plain scan %+v: want two entries without bodies", plain.Entries)
	}
	opened := must[QuarantineScan](t)(ParseQuarantineScan(must[string](t)(q.ScanQuarantineBodies(ctx, "qd", "OTHER", [][]byte{id}))))
	if len(opened.Entries) != 2 || opened.Total != 2 {
		t.Fatalf("scan with an id: %+v", opened)
	}
	en := opened.Entries[0]
	if !en.HasBody || string(en.Payload) != "held|body\nline 2" || len(en.Headers) != 1 || string(en.Headers[0].Value) != "bad|schema" || opened.Entries[1].HasBody {
		t.Fatalf("opened entry %+v (the other %+v)", en, opened.Entries[1])
	}
	if _, err := q.ReinjectQuarantineIDs(ctx, "qd", "OTHER", [][]byte{id}, false); err != nil {
		t.Fatal(err)
	}
	other := must[QueueBrowse](t)(q.BrowseQueueAt(ctx, "OTHER", BrowseAt{Before: BrowseLast, Max: 1}))
	if len(other.Messages) != 1 || other.Messages[0].Header("why") != "bad|schema" {
		t.Fatalf("the reinjected message browses as %+v", other.Messages)
	}
}
