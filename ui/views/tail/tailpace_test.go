package tail_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"ilinkdash/ui/internal/viewtest"

	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
)

// tailScreens runs a tail at rate records/s for d on the rig's fake clock
// (records arrive every 10 ms, drains every 50 ms, as in the program) and
// returns every distinct screen, in order.
func tailScreens(r *tailRig, s *fakes.TailStream, rate int, d time.Duration) []string {
	var out []string
	sent := 0
	for t := time.Duration(0); t < d; t += 10 * time.Millisecond {
		due := int((t + 10*time.Millisecond) * time.Duration(rate) / time.Second)
		s.Emit(due - sent)
		sent = due
		r.Advance(10 * time.Millisecond)
		if sc := r.Screen(); len(out) == 0 || sc != out[len(out)-1] {
			out = append(out, sc)
		}
	}
	return out
}

// headLine is the tail's state line (counters); rows are the record rows.
func headLine(screen string) string { return strings.Split(screen, "\n")[1] }

func changes(screens []string, part func(string) string) int {
	n := 0
	for i := 1; i < len(screens); i++ {
		if part(screens[i]) != part(screens[i-1]) {
			n++
		}
	}
	return n
}

// The bandwidth budget on a fake clock: at 2,000 records/s the table
// advances at most 4×/s by default and 2×/s in low-bandwidth mode, where
// it moves by whole pages (new rows appended below the old ones, or a new
// page: never a scroll that rewrites every row), and the counters change
// at most 4×/s and 1×/s. Once the stream is quiet nothing is redrawn.
func TestTailFramePacing(t *testing.T) {
	for _, low := range []bool{false, true} {
		name := "default"
		if low {
			name = "low-bandwidth"
		}
		t.Run(name, func(t *testing.T) {
			r := newTailRig(t, 0, fakes.TailerOptions{})
			r.Ctx.Pace.LowBandwidth = low
			s := r.open("ORDER.EVENT", 0)
			const secs = 5
			screens := tailScreens(r, s, 2000, secs*time.Second)
			maxTable, maxCounters := 4*secs+1, 4*secs+1
			if low {
				maxTable, maxCounters = 2*secs+1, secs+1
			}
			if n := changes(screens, rowsOf); n > maxTable || n < maxTable/2 {
				t.Errorf("the table changed %d times in %d s, want at most %d (and not stuck)", n, secs, maxTable)
			}
			if n := changes(screens, headLine); n > maxCounters || n < maxCounters/2 {
				t.Errorf("the counters changed %d times in %d s, want at most %d (and not stuck)", n, secs, maxCounters)
			}
			if low {
				// At 20 records/s the new rows fit below the old ones for
				// a few turns before the page turns.
				slow := tailScreens(r, s, 20, 10*time.Second)
				appends, flips := 0, 0
				screens := append(screens, slow...)
				for i := 1; i < len(screens); i++ {
					prev, cur := strings.Split(rowsOf(screens[i-1]), "\n"), strings.Split(rowsOf(screens[i]), "\n")
					if rowsOf(screens[i-1]) == rowsOf(screens[i]) || len(prev) == 0 || prev[0] == "" {
						continue
					}
					appended := len(cur) >= len(prev) && strings.Join(cur[:len(prev)], "\n") == strings.Join(prev, "\n")
					flipped := !strings.Contains(rowsOf(screens[i]), prev[len(prev)-1])
					if !appended && !flipped {
						t.Fatalf("the table scrolled instead of appending or turning the page:\n%s\n---\n%s", rowsOf(screens[i-1]), rowsOf(screens[i]))
					}
					if appended {
						appends++
					} else {
						flips++
					}
				}
				if appends < 5 || flips < 5 {
					t.Fatalf("%d appends and %d page turns: the test did not see both", appends, flips)
				}
			}
			// Quiet: after the rate has decayed, nothing changes any more.
			r.Advance(5 * time.Second)
			before := r.Screen()
			r.Advance(3 * time.Second)
			if after := r.Screen(); after != before {
				t.Fatalf("a quiet tail redraws:\n%s\n---\n%s", before, after)
			}
			// Everything received is on screen in the end.
			if _, total, _, _ := r.v.Counts(); !strings.Contains(headLine(before), thousands(total)+" total") {
				t.Fatalf("total %d, shown: %s", total, headLine(before))
			}
			t.Logf("%d screens, table changes %d, counter changes %d", len(screens), changes(screens, rowsOf), changes(screens, headLine))
		})
	}
}

func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// The detail pane pins its record (topic, partition, offset): records
// arriving underneath, even enough to push it out of the buffer, do not
// change what it shows or what c copies, until the operator moves.
func TestTailPinnedDetailSurvivesIncomingRecords(t *testing.T) {
	r := newTailRig(t, 100, fakes.TailerOptions{})
	s := r.open("ORDER.EVENT", 60)
	r.Key("k", "k", "enter") // the third newest: id 57, P3@4009
	r.MustShow("◆ pinned · ORDER.EVENT · P3 @ 4,009", `"id":57`)
	for i := 0; i < 4; i++ {
		s.Emit(10)
		r.Advance(300 * time.Millisecond)
		r.MustShow("◆ pinned · ORDER.EVENT · P3 @ 4,009", "◆ detail pinned", `"id":57`)
	}
	r.MustShow("42 newer (G follows)")
	// 200 records in a 100-record buffer: the pinned one left it, the
	// pane still shows it and c still copies it.
	s.Emit(100)
	r.Advance(300 * time.Millisecond)
	r.MustShow("◆ pinned (left the buffer) · ORDER.EVENT · P3 @ 4,009", `"id":57`)
	// c asks what to copy; records arriving while it asks change
	// nothing either.
	r.Key("c")
	r.MustShow("Copy from record P3@4009")
	s.Emit(10)
	r.Advance(300 * time.Millisecond)
	r.Key("enter")
	var copied bool
	for _, f := range viewtest.Took[common.FlashMsg](r.Rig) {
		copied = copied || strings.Contains(f.Text, "P3@4009")
	}
	if !copied {
		t.Fatal("c did not copy the pinned record")
	}
	// Moving pins the record under the cursor instead.
	r.Key("j")
	r.MustNotShow("P3 @ 4,009")
	r.MustShow("◆ pinned · ORDER.EVENT")
	// G follows again: the pane shows the newest record, unpinned.
	r.Key("G")
	r.MustNotShow("◆ pinned")
	r.MustShow(`"id":199`)
}
