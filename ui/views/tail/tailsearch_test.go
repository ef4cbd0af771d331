package tail_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"ilinkdash/ui/internal/fakes"
	"ilinkdash/ui/views/tail"
)

// searchTailer is the fake tailer plus a search the test drives by hand.
type searchTailer struct {
	*fakes.Tailer
	mu    sync.Mutex
	specs []tail.SearchSpec
	run   *fakeSearch
}

func (s *searchTailer) StartSearch(_ context.Context, spec tail.SearchSpec) (tail.SearchRun, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.specs = append(s.specs, spec)
	s.run = &fakeSearch{ch: make(chan tail.Record, 16)}
	return s.run, nil
}

type fakeSearch struct {
	ch        chan tail.Record
	mu        sync.Mutex
	prog      tail.SearchProgress
	cancelled bool
}

func (f *fakeSearch) Records() <-chan tail.Record { return f.ch }
func (f *fakeSearch) Progress() tail.SearchProgress {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.prog
}
func (f *fakeSearch) Cancel() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.cancelled {
		f.cancelled = true
		f.prog.Done, f.prog.Cancelled = true, true
		close(f.ch)
	}
}
func (f *fakeSearch) set(p tail.SearchProgress) {
	f.mu.Lock()
	f.prog = p
	f.mu.Unlock()
}

func TestTailSearchProgressStreamingAndCancel(t *testing.T) {
	st := &searchTailer{Tailer: fakes.NewTailer(fakes.TailerOptions{})}
	r := newTailRigOver(t, 0, st, st.Tailer)
	r.open("ORDER.EVENT", 20)
	r.MustShow("● live", "20 total")

	r.Key("S")
	r.MustShow("Search beyond the buffer", "ORDER.EVENT")
	r.Key("enter", "enter") // edit the focused field (the dialog opens navigating), submit
	r.MustShow("give a key, a value, a regex, a header or a decoded field to look for")
	r.TypeText("order-42")
	r.Key("tab", "tab")
	r.TypeText("(")
	r.Key("enter")
	r.MustShow("value regex: error parsing regexp")
	r.Key("backspace")
	r.Key("tab", "tab")
	r.TypeText("soon") // From: replaces the selected "earliest"; "soon" is no position
	r.Key("enter")
	r.MustShow("position")
	r.Key("ctrl+u")
	r.TypeText("-1h")
	r.Key("enter")
	if len(st.specs) != 1 || string(st.specs[0].Key) != "order-42" || st.specs[0].From != "-1h" || st.specs[0].Target != "ORDER.EVENT" {
		t.Fatalf("search specs %+v", st.specs)
	}
	if !st.Last().Closed() {
		t.Fatal("the live tail was not closed for the search")
	}
	// Progress while it runs; the matches stream into the (cleared) list.
	run := st.run
	run.set(tail.SearchProgress{Topic: "ORDER.EVENT", Scanned: 400_000, Total: 1_000_000, Matches: 1, Rate: 200_000, ETA: 3 * time.Second})
	run.ch <- tail.Record{Topic: "ORDER.EVENT", Partition: 2, Offset: 123456, Key: []byte("order-42"), Value: []byte(`{"id":42}`)}
	r.Advance(200 * time.Millisecond)
	r.MustShow("◌ search", "40% · 400,000 of 1,000,000 scanned · 200k/s · 3s left · 1 match · x cancels", "key=order-42 from -1h to the end",
		"order-42", "123456", "1 total")
	r.MustNotShow("20 total")
	// x cancels: the outcome stays on screen with what was found.
	r.Key("x")
	r.Advance(200 * time.Millisecond)
	r.MustShow("· cancelled: 1 match in 400,000 records · r reopens the live tail", "order-42")
	if !run.cancelled {
		t.Fatal("x did not cancel the search")
	}
	// r reopens the live tail (on an empty buffer: TestTailSearchIsItsOwnList).
	r.Key("r")
	r.MustShow("● live")
	r.MustNotShow("cancelled:")
}
