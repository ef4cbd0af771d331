package views_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"ilinkdash/ui/common"
	"ilinkdash/ui/fakes"
	"ilinkdash/ui/views"
)

// searchTailer is the fake tailer plus a search the test drives by hand.
type searchTailer struct {
	*fakes.Tailer
	mu    sync.Mutex
	specs []views.SearchSpec
	run   *fakeSearch
}

func (s *searchTailer) StartSearch(_ context.Context, spec views.SearchSpec) (views.SearchRun, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.specs = append(s.specs, spec)
	s.run = &fakeSearch{ch: make(chan views.TailRecord, 16)}
	return s.run, nil
}

type fakeSearch struct {
	ch        chan views.TailRecord
	mu        sync.Mutex
	prog      views.SearchProgress
	cancelled bool
}

func (f *fakeSearch) Records() <-chan views.TailRecord { return f.ch }
func (f *fakeSearch) Progress() views.SearchProgress {
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
func (f *fakeSearch) set(p views.SearchProgress) {
	f.mu.Lock()
	f.prog = p
	f.mu.Unlock()
}

func TestTailSearchProgressStreamingAndCancel(t *testing.T) {
	st := &searchTailer{Tailer: fakes.NewTailer(fakes.TailerOptions{})}
	var v *views.Tail
	r := newRig(t, false, func(ctx *common.Context, _ *fakes.Source) common.View {
		v = views.NewTail(ctx, st)
		return v
	})
	r.run(v.Open("ORDER.EVENT"))
	st.Last().Emit(20)
	r.advance(300 * time.Millisecond)
	r.mustShow("● live", "20 total")

	r.key("S")
	r.mustShow("Search beyond the buffer", "ORDER.EVENT")
	r.key("enter")
	r.mustShow("give a key, a value, a regex or a header to look for")
	r.typeText("order-42")
	r.key("tab", "tab")
	r.typeText("(")
	r.key("enter")
	r.mustShow("value regex: error parsing regexp")
	r.key("backspace")
	r.key("tab", "tab")
	r.typeText("soon") // From: replaces the selected "earliest"; "soon" is no position
	r.key("enter")
	r.mustShow("position")
	r.key("ctrl+u")
	r.typeText("-1h")
	r.key("enter")
	if len(st.specs) != 1 || string(st.specs[0].Key) != "order-42" || st.specs[0].From != "-1h" || st.specs[0].Target != "ORDER.EVENT" {
		t.Fatalf("search specs %+v", st.specs)
	}
	if !st.Last().Closed() {
		t.Fatal("the live tail was not closed for the search")
	}
	// Progress while it runs; the matches stream into the (cleared) list.
	run := st.run
	run.set(views.SearchProgress{Topic: "ORDER.EVENT", Scanned: 400_000, Total: 1_000_000, Matches: 1, Rate: 200_000, ETA: 3 * time.Second})
	run.ch <- views.TailRecord{Topic: "ORDER.EVENT", Partition: 2, Offset: 123456, Key: []byte("order-42"), Value: []byte(`{"id":42}`)}
	r.advance(200 * time.Millisecond)
	r.mustShow("◌ search", "40% · 400,000 of 1,000,000 scanned · 200k/s · 3s left · 1 match · x cancels", "key=order-42 from -1h to the end",
		"order-42", "123456", "1 total")
	r.mustNotShow("20 total")
	// x cancels: the outcome stays on screen with what was found.
	r.key("x")
	r.advance(200 * time.Millisecond)
	r.mustShow("· cancelled: 1 match in 400,000 records · r reopens the live tail", "order-42")
	if !run.cancelled {
		t.Fatal("x did not cancel the search")
	}
	// r reopens the live tail, keeping the results in the buffer.
	r.key("r")
	r.mustShow("● live")
	r.mustNotShow("cancelled:")
}
