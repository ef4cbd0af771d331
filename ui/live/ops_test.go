package live

import (
	"testing"
	"time"

	"ilinkdash/ui/views/tail"
)

// The queue detail's operations on a real queue: put, browse (nothing
// taken), take the oldest.
func TestSourcesQueueOperations(t *testing.T) {
	t.Parallel()
	e := startEngine(t)
	if err := e.CreateQueue("LIVE.OPS"); err != nil {
		t.Fatal(err)
	}
	src := sources(t, e, false)
	ctx := callCtx(t)
	if n, err := src.PutMessages(ctx, "LIVE.OPS", [][]byte{[]byte("one"), []byte("two"), []byte("three")}, nil); err != nil || n != 3 {
		t.Fatalf("put %d: %v; want the 3", n, err)
	}
	b, err := src.BrowseQueue(ctx, "LIVE.OPS", 0, 10)
	if err != nil || b.Depth != 3 || len(b.Messages) != 3 || string(b.Messages[0].Payload) != "one" {
		t.Fatalf("browse %+v, %v: want the 3 messages, oldest first", b, err)
	}
	m, err := src.TakeMessage(ctx, "LIVE.OPS", nil)
	if err != nil || m == nil || string(m.Payload) != "one" {
		t.Fatalf("take: %+v, %v; want the oldest, one", m, err)
	}
	if d, err := e.QueueDepth("LIVE.OPS"); err != nil || d != 2 {
		t.Fatalf("depth after a take %d (%v), want 2", d, err)
	}
}

// A search through the adapter finds the one matching record among many,
// and says it is done.
func TestSourcesSearchFindsARecord(t *testing.T) {
	t.Parallel()
	e := engineWithTopic(t, "LIVE.FIND", "partitions=2")
	produce(t, e, "LIVE.FIND", 0, 200)
	src := sources(t, e, false)
	run, err := src.StartSearch(callCtx(t), tail.SearchSpec{Target: "LIVE.FIND", ValueContains: "v137"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	timeout := time.After(deadline)
	for ended := false; !ended; {
		select {
		case r, ok := <-run.Records():
			if ended = !ok; ok {
				got = append(got, string(r.Value))
			}
		case <-timeout:
			t.Fatalf("search still running after %v", deadline)
		}
	}
	p := run.Progress()
	if len(got) != 1 || got[0] != "v137" || !p.Done || p.Err != nil || p.Matches != 1 || p.Scanned != 200 {
		t.Fatalf("found %q, progress %+v: want v137 alone, 200 scanned", got, p)
	}
	if _, err := src.StartSearch(callCtx(t), tail.SearchSpec{Target: "LIVE.FIND", ValueRegex: "("}); err == nil {
		t.Fatal("a bad regex was accepted")
	}
}
