package live

import (
	"context"
	"strconv"
	"strings"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/wire"
)

// Operator actions: topic configuration, leadership, queues and the
// quarantine. In a read-only context the admin client refuses its
// mutations before dialling (admin.Service.mutate), as the producer
// (NewProducer), the consumer (a named group) and the one-shot queue put
// and get (ilink.PutOnce, ilink.GetOnce) do.

// AlterTopic implements tab.TopicAdmin.
func (s *Sources) AlterTopic(ctx context.Context, topic, props string) error {
	_, err := withQmgr(s, ctx, func(q *admin.Qmgr) (struct{}, error) { return struct{}{}, q.AlterTopic(ctx, topic, props) })
	return err
}

// RebalanceLeaders implements tab.ClusterAdmin.
func (s *Sources) RebalanceLeaders(ctx context.Context, apply bool) (admin.LeaderRebalance, error) {
	if !apply {
		return withQmgr(s, ctx, func(q *admin.Qmgr) (admin.LeaderRebalance, error) { return q.PlanRebalanceLeaders(ctx) })
	}
	return withQmgr(s, ctx, func(q *admin.Qmgr) (admin.LeaderRebalance, error) { return q.RebalanceLeaders(ctx) })
}

// MovePartitionLeader implements tab.ClusterAdmin (FORCE ELECTION).
func (s *Sources) MovePartitionLeader(ctx context.Context, topic string, partition int32, node int) error {
	_, err := withQmgr(s, ctx, func(q *admin.Qmgr) (struct{}, error) {
		return struct{}{}, q.ForceElection(ctx, topic, partition, node)
	})
	return err
}

// BrowseQueue reads up to max messages of queue from position from on.
func (s *Sources) BrowseQueue(ctx context.Context, queue string, from uint64, max int) (admin.QueueBrowse, error) {
	return s.BrowseQueueAt(ctx, queue, admin.BrowseAt{From: from, Max: max})
}

// BrowseQueueAt implements tab.QueueAdmin.
func (s *Sources) BrowseQueueAt(ctx context.Context, queue string, at admin.BrowseAt) (admin.QueueBrowse, error) {
	return withQmgr(s, ctx, func(q *admin.Qmgr) (admin.QueueBrowse, error) { return q.BrowseQueueAt(ctx, queue, at) })
}

// queueOptions are the options of the short auto-commit queue sessions of
// put and get (rare operator actions: no session is kept between them).
func (s *Sources) queueOptions() ilink.Options {
	return ilink.Options{ClientName: s.cfg.ClientName, AutoCommit: true, ReadOnly: s.cfg.ReadOnly, Hub: s.hub, Logf: s.cfg.Logf}
}

type liveError string

func (e liveError) Error() string { return string(e) }

const errNoData = liveError("queue put and get need a data address (set --addr or the context's addresses)")

// PutMessages implements tab.QueueAdmin.
func (s *Sources) PutMessages(ctx context.Context, queue string, bodies [][]byte, headers []wire.RecordHeader) (int, error) {
	if len(s.cfg.DataAddrs) == 0 {
		return 0, errNoData
	}
	return ilink.PutOnceHeaders(ctx, strings.Join(s.cfg.DataAddrs, ","), s.queueOptions(), queue, bodies, headers)
}

// TakeMessage implements tab.QueueAdmin.
func (s *Sources) TakeMessage(ctx context.Context, queue string, id []byte) (*admin.QueueMessage, error) {
	if len(s.cfg.DataAddrs) == 0 {
		return nil, errNoData
	}
	addrs := strings.Join(s.cfg.DataAddrs, ",")
	var m *ilink.Message
	var err error
	if id == nil {
		m, err = ilink.GetOnce(ctx, addrs, s.queueOptions(), queue)
	} else {
		var mid ilink.MsgID
		if len(id) != len(mid) {
			return nil, liveError("take: a message id of " + strconv.Itoa(len(id)) + " bytes (want " + strconv.Itoa(len(mid)) + ")")
		}
		copy(mid[:], id)
		m, err = ilink.GetOnceMatch(ctx, addrs, s.queueOptions(), queue, mid)
	}
	if m == nil || err != nil {
		return nil, err
	}
	out := &admin.QueueMessage{ID: m.ID[:], PutTime: m.PutTime, Payload: m.Payload}
	if m.Redelivered {
		out.Redeliveries = 1
	}
	return out, nil
}

// MoveMessages implements tab.QueueAdmin.
func (s *Sources) MoveMessages(ctx context.Context, from, to string, sel admin.MoveSelection, apply bool) (admin.MoveResult, error) {
	if !apply {
		return withQmgr(s, ctx, func(q *admin.Qmgr) (admin.MoveResult, error) { return q.PlanMoveMessages(ctx, from, to, sel.IDs) })
	}
	return withQmgr(s, ctx, func(q *admin.Qmgr) (admin.MoveResult, error) {
		return q.MoveMessages(ctx, from, to, sel.IDs, sel.PlanNext)
	})
}

// QuarantineList implements tab.QueueAdmin.
func (s *Sources) QuarantineList(ctx context.Context) ([]admin.QuarantineDir, error) {
	return withQmgr(s, ctx, func(q *admin.Qmgr) ([]admin.QuarantineDir, error) {
		text, err := q.QuarantineList(ctx)
		if err != nil {
			return nil, err
		}
		return admin.ParseQuarantineList(text)
	})
}

// ScanQuarantine implements tab.QueueAdmin.
func (s *Sources) ScanQuarantine(ctx context.Context, dir, queue string) (admin.QuarantineScan, error) {
	return withQmgr(s, ctx, func(q *admin.Qmgr) (admin.QuarantineScan, error) {
		text, err := q.ScanQuarantine(ctx, dir, queue, time.Time{})
		if err != nil {
			return admin.QuarantineScan{}, err
		}
		return admin.ParseQuarantineScan(text)
	})
}

// OpenQuarantineEntry implements tab.QueueAdmin: a scan naming the
// entry, which returns its headers and body.
func (s *Sources) OpenQuarantineEntry(ctx context.Context, dir, queue string, id []byte) (*admin.QuarantineEntry, error) {
	return withQmgr(s, ctx, func(q *admin.Qmgr) (*admin.QuarantineEntry, error) {
		text, err := q.ScanQuarantineBodies(ctx, dir, queue, [][]byte{id})
		if err != nil {
			return nil, err
		}
		scan, err := admin.ParseQuarantineScan(text)
		if err != nil {
			return nil, err
		}
		for i, e := range scan.Entries {
			if e.Dir == dir && string(e.MsgID) == string(id) {
				return &scan.Entries[i], nil
			}
		}
		return nil, nil
	})
}

// ReinjectQuarantine implements tab.QueueAdmin.
func (s *Sources) ReinjectQuarantine(ctx context.Context, plan admin.ReinjectPlan) (admin.QuarantineReinjectResult, error) {
	return withQmgr(s, ctx, func(q *admin.Qmgr) (admin.QuarantineReinjectResult, error) {
		return q.ReinjectQuarantineIDs(ctx, plan.Dir, plan.Queue, plan.IDs, plan.IncludeOld)
	})
}
