package tail_test

import (
	"testing"
	"time"

	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
	"ilinkdash/ui/internal/viewtest"
	"ilinkdash/ui/views/tail"
)

// releasingTailer is serve's kind of Tailer: its closed tails drop their
// records (tail.ClosedTailReleaser).
type releasingTailer struct{ *fakes.Tailer }

func (releasingTailer) ReleaseClosedTails() bool { return true }

// Under serve a closed tail keeps no records, so a session cannot hold
// several full buffers on one --max-tails slot; the dashboard's own tails
// keep theirs to read after closing.
func TestClosedTailReleasesItsBufferUnderServe(t *testing.T) {
	for _, release := range []bool{false, true} {
		fk := fakes.NewTailer(fakes.TailerOptions{})
		var tl tail.Tailer = fk
		if release {
			tl = releasingTailer{fk}
		}
		var s *tail.Tabs
		r := viewtest.New(t, false, func(ctx *common.Context, _ *fakes.Source) common.View {
			s = tail.NewTabs(ctx, tl)
			return s
		})
		r.Run(s.Open("ORDER.EVENT"))
		fk.Last().Emit(40)
		r.Advance(300 * time.Millisecond)
		if n, _, _, _ := s.Active().Counts(); n != 40 {
			t.Fatalf("release %v: %d records buffered before closing, want 40", release, n)
		}
		r.Key("x")
		n, total, _, _ := s.Active().Counts()
		switch {
		case release && (n != 0 || total != 40):
			t.Fatalf("a serve session's closed tail holds %d records (total %d), want 0 (its count kept)", n, total)
		case !release && n != 40:
			t.Fatalf("the dashboard's closed tail holds %d records, want its 40 kept", n)
		}
		if release {
			r.MustShow("buffer released")
		}
	}
}
