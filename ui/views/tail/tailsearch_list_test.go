package tail_test

import (
	"strings"
	"testing"
	"time"

	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
	"ilinkdash/ui/internal/viewtest"
	"ilinkdash/ui/views/tail"
)

// Search results are a list of their own: the live tail's filter does not
// hide them (it is cleared, and a flash says so), the count shown is the
// rows the list received (not a match the scanner counted and could not
// hand over), and r reopens a clean live tail: the buffer empty, no
// search row, the header true.
func TestTailSearchIsItsOwnList(t *testing.T) {
	st := &searchTailer{Tailer: fakes.NewTailer(fakes.TailerOptions{})}
	r := newTailRigOver(t, 0, st, st.Tailer)
	r.open("ORDER.EVENT", 20)
	// A filter that none of the search's hits passes.
	r.Filter("v:SHIPPED")
	r.MustShow("/v:SHIPPED", "of 20 match")

	r.Key("S")
	r.TypeText("order-42")
	r.Key("enter")
	if len(st.specs) != 1 {
		t.Fatalf("search not started: %+v", st.specs)
	}
	if fl := viewtest.Took[common.FlashMsg](r.Rig); len(fl) == 0 || !containsText(fl, "the filter /v:SHIPPED is cleared") {
		t.Fatalf("flashes %+v; want the filter's clearing said", fl)
	}
	run := st.run
	for i, id := range []string{"DELIVERED-1", "DELIVERED-2"} {
		run.ch <- tail.Record{Topic: "ORDER.EVENT", Partition: 1, Offset: int64(700 + i), Key: []byte("order-42"), Value: []byte(`{"status":"` + id + `"}`)}
	}
	// The scanner counted a third match it never handed over (cancelled
	// while sending it).
	run.set(tail.SearchProgress{Topic: "ORDER.EVENT", Scanned: 900, Total: 1000, Matches: 3})
	r.Advance(200 * time.Millisecond)
	r.MustShow("DELIVERED-1", "DELIVERED-2", "2 matches")
	r.MustNotShow("/v:SHIPPED", "of 2 match", "3 matches")
	r.Key("x")
	r.Advance(200 * time.Millisecond)
	r.MustShow("cancelled: 2 matches in 900 records", "2 total", "DELIVERED-2")
	r.MustNotShow("3 matches")

	// r: the live tail from the latest records, empty, never mixed with
	// the results.
	r.Key("r")
	r.MustShow("● live", "from latest", "0 total", "buffer 0/")
	r.MustNotShow("DELIVERED", "cancelled:")
	if b, total, _, _ := r.v.Counts(); b != 0 || total != 0 {
		t.Fatalf("after r: %d buffered, %d total; want a clean live tail", b, total)
	}
	st.Last().Emit(3)
	r.Advance(300 * time.Millisecond)
	r.MustShow("3 total")
	r.MustNotShow("DELIVERED")
}

func containsText(fl []common.FlashMsg, s string) bool {
	for _, f := range fl {
		if strings.Contains(f.Text, s) {
			return true
		}
	}
	return false
}
