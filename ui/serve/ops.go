package serve

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"

	"ilinkdash/ui/views/tail"

	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/wire"
)

// The operator actions of the queues, topics and cluster views, for a
// session: reads and plans go to the role's Backend unaudited; every
// mutation passes act (audit log, status line, poller invalidation).

func (ss *sessionSources) AlterTopic(ctx context.Context, topic, props string) error {
	return ss.act(ctx, "alter-topic", topic, props, func(c context.Context) error { return ss.b.AlterTopic(c, topic, props) })
}

func (ss *sessionSources) RebalanceLeaders(ctx context.Context, apply bool) (admin.LeaderRebalance, error) {
	if !apply {
		return call(ss, ctx, func(c context.Context) (admin.LeaderRebalance, error) { return ss.b.RebalanceLeaders(c, false) })
	}
	var out admin.LeaderRebalance
	err := ss.act(ctx, "rebalance-leaders", "cluster", "", func(c context.Context) error {
		var err error
		out, err = ss.b.RebalanceLeaders(c, true)
		return err
	})
	return out, err
}

func (ss *sessionSources) MovePartitionLeader(ctx context.Context, topic string, partition int32, node int) error {
	target := topic + "/" + strconv.Itoa(int(partition))
	return ss.act(ctx, "move-leader", target, "to=node "+strconv.Itoa(node), func(c context.Context) error {
		return ss.b.MovePartitionLeader(c, topic, partition, node)
	})
}

func (ss *sessionSources) BrowseQueueAt(ctx context.Context, queue string, at admin.BrowseAt) (admin.QueueBrowse, error) {
	return call(ss, ctx, func(c context.Context) (admin.QueueBrowse, error) { return ss.b.BrowseQueueAt(c, queue, at) })
}

func (ss *sessionSources) PutMessages(ctx context.Context, queue string, bodies [][]byte, headers []wire.RecordHeader) (int, error) {
	detail := fmt.Sprintf("count=%d", len(bodies))
	if len(headers) > 0 {
		detail += fmt.Sprintf(" headers=%d", len(headers))
	}
	put := 0
	err := ss.actDetail(ctx, "queue-put", queue, detail, func(c context.Context) (string, error) {
		var err error
		put, err = ss.b.PutMessages(c, queue, bodies, headers)
		if err != nil {
			// Those before the failing one were committed: the line says how many.
			return fmt.Sprintf("%s put=%d", detail, put), err
		}
		return detail, nil
	})
	return put, err
}

func (ss *sessionSources) TakeMessage(ctx context.Context, queue string, id []byte) (*admin.QueueMessage, error) {
	var out *admin.QueueMessage
	detail := ""
	if id != nil {
		detail = "id=" + hex.EncodeToString(id)
	}
	err := ss.act(ctx, "queue-take", queue, detail, func(c context.Context) error {
		var err error
		out, err = ss.b.TakeMessage(c, queue, id)
		return err
	})
	return out, err
}

func (ss *sessionSources) MoveMessages(ctx context.Context, from, to string, sel admin.MoveSelection, apply bool) (admin.MoveResult, error) {
	if !apply {
		return call(ss, ctx, func(c context.Context) (admin.MoveResult, error) { return ss.b.MoveMessages(c, from, to, sel, false) })
	}
	detail := "to=" + to
	if to == "" {
		detail = "to=source"
	}
	if len(sel.IDs) == 1 {
		detail += " id=" + hex.EncodeToString(sel.IDs[0])
	} else {
		detail += fmt.Sprintf(" ids=%d", len(sel.IDs))
	}
	var out admin.MoveResult
	err := ss.act(ctx, "queue-move", from, detail, func(c context.Context) error {
		var err error
		out, err = ss.b.MoveMessages(c, from, to, sel, true)
		return err
	})
	return out, err
}

func (ss *sessionSources) QuarantineList(ctx context.Context) ([]admin.QuarantineDir, error) {
	return call(ss, ctx, func(c context.Context) ([]admin.QuarantineDir, error) { return ss.b.QuarantineList(c) })
}

func (ss *sessionSources) ScanQuarantine(ctx context.Context, dir, queue string) (admin.QuarantineScan, error) {
	return call(ss, ctx, func(c context.Context) (admin.QuarantineScan, error) { return ss.b.ScanQuarantine(c, dir, queue) })
}

func (ss *sessionSources) OpenQuarantineEntry(ctx context.Context, dir, queue string, id []byte) (*admin.QuarantineEntry, error) {
	return call(ss, ctx, func(c context.Context) (*admin.QuarantineEntry, error) {
		return ss.b.OpenQuarantineEntry(c, dir, queue, id)
	})
}

func (ss *sessionSources) ReinjectQuarantine(ctx context.Context, plan admin.ReinjectPlan) (admin.QuarantineReinjectResult, error) {
	var out admin.QuarantineReinjectResult
	err := ss.act(ctx, "reinject", plan.Queue, fmt.Sprintf("dir=%s include-old=%t ids=%d", plan.Dir, plan.IncludeOld, len(plan.IDs)), func(c context.Context) error {
		var err error
		out, err = ss.b.ReinjectQuarantine(c, plan)
		return err
	})
	return out, err
}

// StartSearch runs a tail search of the session's role (a read: a direct
// consumer, no group; not audited), bound to the session's life.
func (ss *sessionSources) StartSearch(ctx context.Context, spec tail.SearchSpec) (tail.SearchRun, error) {
	sr, ok := ss.b.(tail.Searcher)
	if !ok {
		return nil, errors.New("search is not available on this server")
	}
	ctx, release := ss.bind(ctx)
	run, err := sr.StartSearch(ctx, spec)
	if err != nil {
		release()
		return nil, err
	}
	return &sessionSearch{SearchRun: run, release: onceRelease{release: release}}, nil
}

// sessionSearch releases the search's session binding once it is over.
type sessionSearch struct {
	tail.SearchRun
	release onceRelease
}

func (s *sessionSearch) Progress() tail.SearchProgress {
	p := s.SearchRun.Progress()
	s.release.when(p.Done)
	return p
}

func (s *sessionSearch) Cancel() {
	s.SearchRun.Cancel()
	s.release.when(true)
}

var _ tail.Searcher = (*sessionSources)(nil)
