package queues

import (
	"context"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"ilinkdash/config"
	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/wire"
	"ilinkdash/ui/common"
	"ilinkdash/ui/views/tab"
)

// memQueue is an in-memory queue for the detail's browse/put flow: a test
// double whose browse answers what was put so far.
type memQueue struct {
	tab.QueueAdmin // the calls this test does not make
	mu             sync.Mutex
	msgs           []admin.QueueMessage
	browses        int
}

func (q *memQueue) BrowseQueueAt(context.Context, string, admin.BrowseAt) (admin.QueueBrowse, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.browses++
	return admin.QueueBrowse{Depth: int64(len(q.msgs)), Messages: append([]admin.QueueMessage(nil), q.msgs...)}, nil
}

func (q *memQueue) PutMessages(_ context.Context, _ string, bodies [][]byte, _ []wire.RecordHeader) (int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, b := range bodies {
		q.msgs = append(q.msgs, admin.QueueMessage{Seq: uint64(len(q.msgs) + 1), Payload: b})
	}
	return len(bodies), nil
}

// collect runs cmd and its batches, returning the view messages.
func collect(cmd tea.Cmd) []common.ViewMsg {
	if cmd == nil {
		return nil
	}
	switch m := cmd().(type) {
	case tea.BatchMsg:
		var out []common.ViewMsg
		for _, c := range m {
			out = append(out, collect(c)...)
		}
		return out
	case common.ViewMsg:
		return []common.ViewMsg{m}
	}
	return nil
}

// A put that answers while the detail's browse is still out must be
// followed by a browse that sees it: the one in flight may have been read
// before the put (seen on a loaded machine: the detail kept "1 of 1" while
// the queue held 3).
func TestQueueDetailBrowsesAgainAfterAChangeDuringABrowse(t *testing.T) {
	q := &memQueue{msgs: []admin.QueueMessage{{Seq: 1, Payload: []byte("old")}}}
	v := New(common.NewContext(config.DefaultContext(), false, func(string) string { return "" }), q)
	v.SetSize(120, 40)
	v.setQueues([]admin.QueueInfo{{Name: "Q", Depth: 1}}, time.Now())
	open := v.openQueue("Q") // the browse command, not run yet: in flight
	if !v.qd.paging {
		t.Fatal("no browse in flight after opening")
	}
	first := collect(open) // read now, before the put is answered below…
	if _, err := q.PutMessages(context.Background(), "Q", [][]byte{[]byte("a"), []byte("b")}, nil); err != nil {
		t.Fatal(err)
	}
	// …the put's answer arrives while that browse is still out.
	refresh := v.actionReply(queueActionMsg{verb: "put", name: "Q", n: 2})
	if got := collect(refresh); len(got) != 0 {
		t.Fatalf("a second browse went while one was in flight: %+v", got)
	}
	// The stale browse answers (1 message); the view asks again.
	if len(first) != 1 {
		t.Fatalf("open gave %d view messages", len(first))
	}
	again := v.handleViewMsg(first[0])
	if v.qd.win.depth != 1 {
		t.Fatalf("first browse depth %d", v.qd.win.depth)
	}
	second := collect(again)
	if len(second) != 1 {
		t.Fatal("no browse after the put answered during one")
	}
	if cmd := v.handleViewMsg(second[0]); collect(cmd) != nil || v.qd.win.depth != 3 || q.browses != 2 {
		t.Fatalf("after the second browse: depth %d, %d browses", v.qd.win.depth, q.browses)
	}
}
