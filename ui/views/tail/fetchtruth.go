package tail

import (
	tea "charm.land/bubbletea/v2"

	"time"

	"ilinkdash/ilink/admin/health"
	"ilinkdash/ui/common"
)

// stallAfter is how long a running, unpaused stream may go without a
// fetch reply or a record before the header stops saying live: ten of the
// consumer's long polls. (An idle topic's long polls keep the replies
// coming; a full buffer holds fetching back only while records flow.)
const stallAfter = 5 * time.Second

// fetchTruth is what the tail knows about whether its stream still
// fetches: the stream's own word (Stream.Fetching, sampled at every
// drain), when records last came, and the poller's connection truth (the
// root fans every poll's outcome out to every tab).
type fetchTruth struct {
	f          FetchState
	lastRecord time.Time
	// since is when the stream went live, resumed or jumped: a silence
	// counts from there (nothing was fetched while paused).
	since time.Time
	// unreachSince is when the polls began failing to reach the cluster;
	// zero while they reach it.
	unreachSince time.Time
}

// observe takes a poll's outcome.
func (t *fetchTruth) observe(msg tea.Msg) {
	switch m := msg.(type) {
	case common.PollErrMsg:
		if health.Unreachable(m.Err) && t.unreachSince.IsZero() {
			t.unreachSince = m.At
		}
	case common.DataMsg:
		t.unreachSince = time.Time{}
	}
}

// stalled reports since when the stream has not been fetching: its
// consumer fails to fetch (since its first failure), the cluster is
// unreachable (since the polls said so) or no fetch reply came for
// stallAfter; false while records or fetch replies keep coming.
func (t *fetchTruth) stalled(now time.Time) (time.Time, bool) {
	good := latest(t.f.OK, t.lastRecord, t.since)
	switch {
	case t.f.Err != nil && t.f.FailingSince.After(t.lastRecord):
		return t.f.FailingSince, true
	case !t.unreachSince.IsZero() && t.unreachSince.After(good):
		return t.unreachSince, true
	case !t.f.OK.IsZero() && now.Sub(good) > stallAfter:
		return good, true // (a stream that cannot tell, OK zero, is never stalled by silence)
	}
	return time.Time{}, false
}

func latest(ts ...time.Time) time.Time {
	var l time.Time
	for _, t := range ts {
		if t.After(l) {
			l = t
		}
	}
	return l
}
