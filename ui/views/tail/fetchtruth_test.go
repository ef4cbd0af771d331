package tail_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
	"ilinkdash/ui/views/tail"
)

// The header says "● live" only while the stream fetches: when its
// consumer fails to fetch, it says it is reconnecting and for how long
// (in the warning style), and it is live again once fetching works.
func TestTailHeaderSaysReconnectingWhileTheConsumerCannotFetch(t *testing.T) {
	r := newTailRig(t, 0, fakes.TailerOptions{})
	s := r.open("ORDER.EVENT", 5)
	s.SetFetching(tail.FetchState{OK: r.Now})
	r.Advance(300 * time.Millisecond)
	r.MustShow("● live")

	failing := r.Now
	s.SetFetching(tail.FetchState{OK: failing.Add(-time.Second), Err: errors.New("MIMQE_CONNECT_FAILED"), FailingSince: failing})
	r.Advance(3 * time.Second)
	r.MustShow("◌ reconnecting · no fetch for 3s")
	r.MustNotShow("● live")
	// The warning style (the plain rig shows no style: render in colour).
	r.Ctx.Mode = common.FullColor
	r.Ctx.Rebuild()
	if want := r.Ctx.Styles.Warn.Render("◌ reconnecting · no fetch for 3s"); !strings.Contains(r.V.View(), want) {
		t.Fatalf("the reconnecting note is not in the warning style:\n%q", r.V.View())
	}
	r.Ctx.Mode = common.Plain
	r.Ctx.Rebuild()

	// Fetching again: live.
	s.SetFetching(tail.FetchState{OK: r.Now})
	r.Advance(300 * time.Millisecond)
	r.MustShow("● live")
	r.MustNotShow("reconnecting")
}

// No fetch reply and no record for longer than the consumer's long polls
// explain is a stall too (a consumer that found no leader sends no
// fetch); records arriving make it live again.
func TestTailHeaderSaysReconnectingAfterASilence(t *testing.T) {
	r := newTailRig(t, 0, fakes.TailerOptions{})
	s := r.open("ORDER.EVENT", 5)
	s.SetFetching(tail.FetchState{OK: r.Now})
	r.Advance(4 * time.Second)
	r.MustShow("● live") // within the long polls' margin
	r.Advance(3 * time.Second)
	r.MustShow("◌ reconnecting · no fetch for 7s")
	r.emit(3)
	r.MustShow("● live", "8 total")
	// Paused, nothing is fetched on purpose: no stall then, nor right
	// after resuming.
	r.Key("space")
	r.Advance(10 * time.Second)
	r.MustNotShow("reconnecting")
	r.Key("space")
	r.Advance(300 * time.Millisecond)
	r.MustShow("● live")
}

// The poller's connection truth counts too: while the polls cannot reach
// the cluster and nothing was fetched since, the tail is reconnecting;
// a fetch reply after that (or the polls reaching it again) is live.
func TestTailHeaderFollowsThePollersConnectionTruth(t *testing.T) {
	r := newTailRig(t, 0, fakes.TailerOptions{})
	s := r.open("ORDER.EVENT", 5)
	fetched := r.Now
	s.SetFetching(tail.FetchState{OK: fetched})
	r.Advance(time.Second)
	down := &ilink.Error{Name: ilink.NameConnectFailed, Tail: "127.0.0.1:1: connection refused", Kind: ilink.KindSession}
	r.Send(common.PollErrMsg{Res: common.ResSummary, At: r.Now, Err: down})
	r.Advance(2 * time.Second)
	r.MustShow("◌ reconnecting · no fetch for 2s")
	// A fetch reply after the polls failed: the data path works.
	s.SetFetching(tail.FetchState{OK: r.Now})
	r.Advance(300 * time.Millisecond)
	r.MustShow("● live")
	// A poll error that is not about reaching the cluster says nothing.
	r.Send(common.DataMsg{Res: common.ResSummary, At: r.Now})
	r.Send(common.PollErrMsg{Res: common.ResTopics, At: r.Now, Err: errors.New("MIMQE_NOT_AUTHORIZED")})
	r.Advance(300 * time.Millisecond)
	r.MustShow("● live")
}
