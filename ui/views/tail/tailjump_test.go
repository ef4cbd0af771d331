package tail_test

import (
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink/position"
	"ilinkdash/ui/internal/fakes"
	"ilinkdash/ui/views/tail"
)

// A jump is back pressure: the view asks the stream to fill the buffer
// from the target and no more, so the record at the target stays the
// first row (nothing drops it), the header says the tail holds and how
// many records wait beyond the buffer; space resumes (the bound lifts, the
// oldest drop as usual), and G after a hold goes to the end.
func TestTailJumpFillsTheBufferThenHolds(t *testing.T) {
	const buffer = 100
	r := newTailRig(t, buffer, fakes.TailerOptions{})
	s := r.open("ORDER.EVENT", 30)
	r.Key("o")
	r.MustShow("filled from there, then the tail holds")
	r.Key("enter") // the dialog opens navigating: enter edits
	r.TypeText("500")
	r.Key("enter")
	seeks, fills := s.Seeks(), s.Fills()
	if len(seeks) != 1 || seeks[0].Kind != position.Offset || seeks[0].Offset != 500 {
		t.Fatalf("seeks %+v", seeks)
	}
	if len(fills) != 1 || fills[0].Records != buffer || fills[0].Bytes <= 0 {
		t.Fatalf("the jump asked fill %+v; want the buffer's bounds (%d records)", fills, buffer)
	}
	r.MustShow("reading from the jump · holds when the buffer is full")
	r.emit(1000) // far more than the buffer: the stream holds the rest back
	r.MustShow("⏸ HELD at the jump · 900 newer waiting · space resumes · G: end", "130 total", "buffer 100/100")
	r.MustNotShow("dropped", "● live")
	if !strings.Contains(r.v.Status(), "held at the jump") {
		t.Fatalf("status %q", r.v.Status())
	}
	// The first row is the record at the target, and it stays there.
	r.Key("g")
	top := firstRow(r.Screen())
	if !strings.Contains(top, " 500 ") {
		t.Fatalf("first row after the jump %q; want offset 500", top)
	}
	r.emit(50)
	r.MustShow("950 newer waiting", "130 total")
	if b, total, dropped, _ := r.v.Counts(); b != buffer || total != 30+buffer || dropped != 0 {
		t.Fatalf("while held: buffered %d, total %d, dropped %d", b, total, dropped)
	}
	// space resumes: the bound is lifted, the waiting records arrive and
	// the oldest leave the buffer.
	r.Key("space")
	r.Advance(300 * time.Millisecond)
	if p := s.Pauses(); len(p) == 0 || p[len(p)-1] {
		t.Fatalf("space while held did not resume the stream: %v", p)
	}
	r.MustShow("1,080 total", "dropped 950")
	r.MustNotShow("HELD")

	// Another jump, held again; G then goes to the end: a seek to the
	// latest records with no bound, the buffer cleared, live.
	r.Key("o", "enter")
	r.TypeText("earliest")
	r.Key("enter")
	r.emit(300)
	r.MustShow("⏸ HELD at the jump", "200 newer waiting")
	r.Key("G")
	r.Advance(300 * time.Millisecond)
	seeks, fills = s.Seeks(), s.Fills()
	if last := seeks[len(seeks)-1]; last.Kind != position.Latest || fills[len(fills)-1] != (tail.Fill{}) {
		t.Fatalf("G while held: seek %+v fill %+v; want latest, no bound", last, fills[len(fills)-1])
	}
	r.MustShow("from the latest records", "● live")
	r.MustNotShow("HELD", "jumped to")
	if b, _, _, _ := r.v.Counts(); b != 0 {
		t.Fatalf("G while held kept %d records", b)
	}
	r.emit(5)
	if b, _, _, _ := r.v.Counts(); b != 5 {
		t.Fatalf("live after G: %d records, want 5", b)
	}
}

// On a pattern every topic has its own partition P: a jump names one
// (TOPIC:P@OFFSET); P@OFFSET alone is refused with the form to use.
func TestTailPatternJumpNamesTheTopic(t *testing.T) {
	r := newTailRig(t, 0, fakes.TailerOptions{})
	s := r.open("ORDER.*", 30)
	r.Key("o")
	r.MustShow("ORDER.KR:3@1234 (partition 3 of ORDER.KR)")
	r.Key("enter")
	r.TypeText("2@5")
	r.Key("enter")
	r.MustShow("write TOPIC:P@OFFSET")
	if n := len(s.Seeks()); n != 0 {
		t.Fatalf("P@OFFSET on a pattern was sent as a seek (%d)", n)
	}
	r.Key("ctrl+u")
	r.TypeText("ORDER.EVENT:2@5")
	r.Key("enter")
	seeks := s.Seeks()
	if len(seeks) != 1 || seeks[0].Topic != "ORDER.EVENT" || seeks[0].Partition != 2 || seeks[0].Offset != 5 {
		t.Fatalf("seeks %+v", seeks)
	}
	r.MustShow("jumped to offset 5 of ORDER.EVENT partition 2")
}

// firstRow is the first record row of a tail screen.
func firstRow(screen string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(l, "10:") {
			return l
		}
	}
	return ""
}
