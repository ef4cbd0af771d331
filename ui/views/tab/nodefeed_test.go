package tab

import (
	"errors"
	"net"
	"testing"
	"time"

	"ilinkdash/config"
	"ilinkdash/ilink"
	"ilinkdash/ilink/wire"
	"ilinkdash/ui/common"
)

// The node rows go stale when their own poll fails, and also when any
// other list found no node serving it (unreachable, or no running queue
// manager) after the node list last answered: a node killed between two
// node polls must not go on reading "leader running" under a "stale: data
// from" alert heading.
func TestNodeFeedStaleWhenTheClusterIsUnreachable(t *testing.T) {
	ctx := common.NewContext(config.DefaultContext(), false, nil)
	t0 := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
	cases := []struct {
		name  string
		err   common.PollErrMsg
		stale bool
	}{
		{"the node list's own poll fails", common.PollErrMsg{Res: common.ResSummary, At: t0.Add(time.Second), Err: errors.New("MIMQE_QMGR_NOT_RUNNING")}, true},
		{"the topic list cannot reach the cluster", common.PollErrMsg{Res: common.ResTopics, At: t0.Add(time.Second), Err: refused}, true},
		{"the topic list finds no running queue manager (every node tried)", common.PollErrMsg{Res: common.ResTopics, At: t0.Add(time.Second),
			Err: &ilink.Error{Name: wire.ErrQmgrNotRunning, Tail: "QM1", Kind: ilink.KindRejected}}, true},
		{"the topic list gets an engine error (the cluster answers)", common.PollErrMsg{Res: common.ResTopics, At: t0.Add(time.Second),
			Err: &ilink.Error{Name: wire.ErrUnknownTopic, Tail: "T", Kind: ilink.KindRejected}}, false},
		{"a connection failure from before the node list answered", common.PollErrMsg{Res: common.ResTopics, At: t0.Add(-time.Second), Err: refused}, false},
	}
	for _, c := range cases {
		var f NodeFeed
		f.Update(common.DataMsg{Res: common.ResSummary, At: t0})
		f.Update(c.err)
		if got := f.Stale(ctx, t0.Add(2*time.Second)); got != c.stale {
			t.Errorf("%s: stale %v, want %v", c.name, got, c.stale)
		}
		f.Update(common.DataMsg{Res: common.ResSummary, At: t0.Add(3 * time.Second)})
		if f.Stale(ctx, t0.Add(3*time.Second)) {
			t.Errorf("%s: still stale after the node list answered again", c.name)
		}
	}
}
