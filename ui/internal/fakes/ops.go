package fakes

import (
	"cmp"
	"context"
	"crypto/sha256"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/wire"
)

// Operator actions of the fake: topic configuration, leadership, queue
// browse/put/take/moves and the quarantine, all in memory.

func fakeID(queue string, seq uint64) []byte {
	h := sha256.Sum256([]byte(queue + "/" + strconv.FormatUint(seq, 10)))
	return h[:wire.MsgIDLen]
}

func (s *Source) newMessage(queue string, at time.Time, body string) admin.QueueMessage {
	m := admin.QueueMessage{Seq: s.seq, ID: fakeID(queue, s.seq), PutTime: at, Payload: []byte(body)}
	s.seq++
	return m
}

// seedQueues gives every queue its first messages (at most 30) and the
// dead-letter queue its dead letters; and the quarantine three entries.
func (s *Source) seedQueues() {
	for _, q := range s.queues {
		n := int(min(q.info.Depth, 30))
		name := q.info.Name
		for i := 0; i < n; i++ {
			at := Epoch.Add(-time.Duration(n-i) * 47 * time.Second)
			var m admin.QueueMessage
			switch {
			case strings.HasSuffix(name, ".DLQ"):
				m = s.newMessage(name, at, fmt.Sprintf(`{"payment":%d,"error":"schema validation failed"}`, 9100+i))
				m.Redeliveries = 4
				m.Headers = []wire.RecordHeader{
					{Key: "dlq.source", Value: []byte("PAYMENTS.IN")},
					{Key: "dlq.reason", Value: []byte("redelivered 4 times (max 3)")},
					{Key: "dlq.time", Value: []byte(at.Add(2 * time.Second).UTC().Format(time.RFC3339Nano))},
				}
			case strings.HasPrefix(name, "ORDERS"):
				m = s.newMessage(name, at, fmt.Sprintf(`{"order":"order-%06d","amount":%d,"currency":"KRW"}`, 4100+i, (i*7919)%90000+1000))
			case strings.HasPrefix(name, "PAYMENTS"):
				m = s.newMessage(name, at, fmt.Sprintf(`{"payment":%d,"status":"pending"}`, 8800+i))
			default:
				m = s.newMessage(name, at, fmt.Sprintf("audit record %d", i))
			}
			if i == 0 && name == "ORDERS.IN" {
				m.InFlight = true // taken by a transaction not yet committed
			}
			q.msgs = append(q.msgs, m)
		}
		q.seeded = len(q.msgs)
	}
	s.quar = []admin.QuarantineEntry{
		{Time: Epoch.Add(-40 * time.Minute), MsgID: fakeID("q", 1), Bytes: 41, Dir: "qdir1", Queue: "ORDERS.IN",
			Payload: []byte(`{"order":"order-004093","amount":1200000}`), Headers: []wire.RecordHeader{{Key: "origin", Value: []byte("web")}}},
		{Time: Epoch.Add(-39 * time.Minute), MsgID: fakeID("q", 2), Bytes: 41, Dir: "qdir1", Queue: "ORDERS.IN", Old: true,
			Payload: []byte(`{"order":"order-004094","amount":1200500}`)},
		{Time: Epoch.Add(-5 * time.Minute), MsgID: fakeID("q", 3), Bytes: 17, Dir: "qdir2", Queue: "PAYMENTS.IN",
			Payload: []byte(`{"payment":88120}`)},
	}
}

func (s *Source) queueLocked(name string) (*queue, error) {
	for _, q := range s.queues {
		if q.info.Name == name {
			return q, nil
		}
	}
	return nil, fmt.Errorf("MIMQE_UNKNOWN_QUEUE (%s)", name)
}

func (s *Source) topicLocked(name string) (*topic, error) {
	if t, ok := s.topics[name]; ok {
		return t, nil
	}
	return nil, fmt.Errorf("MIMQE_UNKNOWN_TOPIC (%s)", name)
}

// enterTopic, enterGroup and enterQueue are enter, then the named topic,
// group or queue looked up; the lock is held only when they return no
// error (the caller defers the unlock after its error check).
func (s *Source) enterTopic(ctx context.Context, method, name string) (*topic, error) {
	return enterOn(s, ctx, method, name, s.topicLocked)
}

func (s *Source) enterGroup(ctx context.Context, method, name string) (*group, error) {
	return enterOn(s, ctx, method, name, func(name string) (*group, error) {
		if g, ok := s.groups[name]; ok {
			return g, nil
		}
		return nil, fmt.Errorf("MIMQE_GROUP_NOT_FOUND (%s)", name)
	})
}

func (s *Source) enterQueue(ctx context.Context, method, name string) (*queue, error) {
	return enterOn(s, ctx, method, name, s.queueLocked)
}

func enterOn[T any](s *Source, ctx context.Context, method, name string, find func(string) (T, error)) (T, error) {
	var zero T
	if err := s.enter(ctx, method); err != nil {
		return zero, err
	}
	x, err := find(name)
	if err != nil {
		s.mu.Unlock()
		return zero, err
	}
	return x, nil
}

// AlterTopic implements tab.TopicAdmin (the key=value text of
// admin.PlanTopicAlter).
func (s *Source) AlterTopic(ctx context.Context, name, props string) error {
	t, err := s.enterTopic(ctx, "AlterTopic", name)
	if err != nil {
		return err
	}
	defer s.mu.Unlock()
	next := t.info
	for _, kv := range strings.Split(props, ",") {
		k, v, _ := strings.Cut(kv, "=")
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("MIMQE_INVALID_ARGUMENT (topic property %s: %q is not an integer)", k, v)
		}
		switch strings.ToLower(k) {
		case "retention.ms":
			next.RetentionMs = n
		case "retention.bytes":
			next.RetentionBytes = n
		case "minsync":
			if n < 1 || int(n) > next.Replicas {
				return fmt.Errorf("MIMQE_INVALID_ARGUMENT (minSync %d out of range 1..%d (replicas of %s))", n, next.Replicas, name)
			}
			next.MinSync = int(n)
		case "partitions":
			if int(n) < next.Partitions {
				return fmt.Errorf("MIMQE_INVALID_ARGUMENT (partitions can only grow: %d -> %d)", next.Partitions, n)
			}
			next.Partitions = int(n)
		case "replicas":
		default:
			return fmt.Errorf("MIMQE_INVALID_ARGUMENT (unknown topic property %s)", k)
		}
	}
	for i := len(t.parts); i < next.Partitions; i++ {
		leader := i%3 + 1
		reps := []int{leader, leader%3 + 1, (leader+1)%3 + 1}
		t.parts = append(t.parts, &partition{leader: leader, replicas: reps, inSync: slices.Clone(reps), epoch: 1})
	}
	t.info = next
	return nil
}

// RebalanceLeaders implements tab.ClusterAdmin.
func (s *Source) RebalanceLeaders(ctx context.Context, apply bool) (admin.LeaderRebalance, error) {
	if err := s.enter(ctx, "RebalanceLeaders"); err != nil {
		return admin.LeaderRebalance{}, err
	}
	defer s.mu.Unlock()
	var out admin.LeaderRebalance
	for _, t := range byName(s.topics) {
		if t.info.Internal {
			continue
		}
		for i, p := range t.parts {
			out.Partitions++
			pref := p.replicas[0]
			if p.leader == pref {
				out.Preferred++
				continue
			}
			m := admin.LeaderMove{Topic: t.info.Name, Partition: int32(i), From: p.leader, To: pref}
			switch {
			case s.nodes[pref-1].State != admin.NodeRunning:
				m.Skipped = fmt.Sprintf("preferred node %d is not running", pref)
			case !slices.Contains(p.inSync, pref):
				m.Skipped = fmt.Sprintf("preferred node %d is not in sync yet", pref)
			case apply:
				p.leader = pref
				p.epoch++
			}
			out.Moves = append(out.Moves, m)
		}
	}
	return out, nil
}

// MovePartitionLeader implements tab.ClusterAdmin.
func (s *Source) MovePartitionLeader(ctx context.Context, topic string, partition int32, node int) error {
	if err := s.enter(ctx, "MovePartitionLeader"); err != nil {
		return err
	}
	defer s.mu.Unlock()
	t, ok := s.topics[topic]
	if !ok || int(partition) >= len(t.parts) || partition < 0 {
		return fmt.Errorf("MIMQE_INVALID_ARGUMENT (no partition %d in %s)", partition, topic)
	}
	p := t.parts[partition]
	if node == 0 {
		for _, n := range p.inSync {
			if n != p.leader {
				node = n
				break
			}
		}
	}
	if !slices.Contains(p.inSync, node) {
		return fmt.Errorf("MIMQE_INVALID_ARGUMENT (node %d is not in sync for %s/%d)", node, topic, partition)
	}
	if p.leader != node {
		p.leader = node
		p.epoch++
	}
	return nil
}

// BrowseQueue reads up to max messages from position from on.
func (s *Source) BrowseQueue(ctx context.Context, name string, from uint64, max int) (admin.QueueBrowse, error) {
	return s.BrowseQueueAt(ctx, name, admin.BrowseAt{From: from, Max: max})
}

// BrowseQueueAt implements tab.QueueAdmin like the engine's BROWSE
// QUEUE: a page from at.From on, or the one ending before at.Before, with
// the index of its first message (MaxBytes is not modelled).
func (s *Source) BrowseQueueAt(ctx context.Context, name string, at admin.BrowseAt) (admin.QueueBrowse, error) {
	q, err := s.enterQueue(ctx, "BrowseQueue", name)
	if err != nil {
		return admin.QueueBrowse{}, err
	}
	defer s.mu.Unlock()
	max := at.Max
	if max <= 0 || max > 1000 {
		max = 1000
	}
	search := func(seq uint64) int {
		i, _ := slices.BinarySearchFunc(q.msgs, seq, func(m admin.QueueMessage, seq uint64) int { return cmp.Compare(m.Seq, seq) })
		return i
	}
	lo, hi := 0, 0
	if at.Before > 0 {
		hi = search(at.Before)
		lo = hi - min(hi, max)
	} else {
		lo = search(at.From)
		hi = min(lo+max, len(q.msgs))
	}
	return admin.QueueBrowse{Depth: int64(len(q.msgs)), Index: int64(lo), More: hi < len(q.msgs),
		Messages: slices.Clone(q.msgs[lo:hi])}, nil
}

// PutMessages implements tab.QueueAdmin.
func (s *Source) PutMessages(ctx context.Context, name string, bodies [][]byte, headers []wire.RecordHeader) (int, error) {
	q, err := s.enterQueue(ctx, "PutMessages", name)
	if err != nil {
		return 0, err
	}
	defer s.mu.Unlock()
	for i, b := range bodies {
		if md := q.info.Property.MaxDepth; md > 0 && int64(len(q.msgs)) >= md {
			return i, fmt.Errorf("MIMQE_QUEUE_FULL (%s max depth %d)", name, md)
		}
		m := s.newMessage(name, s.now, string(b))
		m.Headers = slices.Clone(headers)
		q.msgs = append(q.msgs, m)
	}
	return len(bodies), nil
}

// TakeMessage implements tab.QueueAdmin.
func (s *Source) TakeMessage(ctx context.Context, name string, id []byte) (*admin.QueueMessage, error) {
	q, err := s.enterQueue(ctx, "TakeMessage", name)
	if err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	for i, m := range q.msgs {
		if !m.InFlight && (id == nil || string(m.ID) == string(id)) {
			q.msgs = slices.Delete(q.msgs, i, i+1)
			return &m, nil
		}
	}
	return nil, nil
}

// MoveMessages implements tab.QueueAdmin like the engine's MOVE
// MESSAGES: a plan of no ids takes every message (the first
// admin.MaxMoveIDs), an execution exactly its ids.
func (s *Source) MoveMessages(ctx context.Context, from, to string, sel admin.MoveSelection, apply bool) (admin.MoveResult, error) {
	src, err := s.enterQueue(ctx, "MoveMessages", from)
	if err != nil {
		return admin.MoveResult{}, err
	}
	defer s.mu.Unlock()
	ids := sel.IDs
	if apply && len(ids) == 0 {
		return admin.MoveResult{}, fmt.Errorf("MIMQE_INVALID_ARGUMENT (MOVE MESSAGES moves by id: msg_ids is empty)")
	}
	want := map[string]bool{}
	for _, id := range ids {
		want[string(id)] = false
	}
	out := admin.MoveResult{NextSeq: s.seq}
	var keep []admin.QueueMessage
	for _, m := range src.msgs {
		if _, named := want[string(m.ID)]; (ids != nil && !named) || (ids == nil && len(out.Moves) >= admin.MaxMoveIDs) {
			if ids != nil && sel.PlanNext > 0 && m.Seq >= sel.PlanNext {
				out.Arrived++
			}
			out.Unselected++
			keep = append(keep, m)
			continue
		}
		want[string(m.ID)] = true
		target := to
		if target == "" {
			target = m.Header("dlq.source")
		}
		mv := admin.MessageMove{ID: m.ID, To: target}
		dst, derr := s.queueLocked(target)
		switch {
		case m.InFlight:
			mv.Skipped = "in flight (locked by a transaction)"
		case target == "":
			mv.Skipped = "no source queue recorded: give a target queue"
		case derr != nil:
			mv.Skipped = "queue " + target + " is not defined"
		}
		out.Moves = append(out.Moves, mv)
		if mv.Skipped != "" {
			keep = append(keep, m)
			continue
		}
		out.Moved++
		if apply {
			dst.msgs = append(dst.msgs, s.newMessage(target, s.now, string(m.Payload)))
		} else {
			keep = append(keep, m)
		}
	}
	for _, id := range ids {
		if !want[string(id)] {
			out.Moves = append(out.Moves, admin.MessageMove{ID: id, Skipped: "not in " + from})
			want[string(id)] = true
		}
	}
	src.msgs = keep
	return out, nil
}

// QuarantineList implements tab.QueueAdmin.
func (s *Source) QuarantineList(ctx context.Context) ([]admin.QuarantineDir, error) {
	if err := s.enter(ctx, "QuarantineList"); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	var out []admin.QuarantineDir
	for _, e := range s.quar {
		i := slices.IndexFunc(out, func(d admin.QuarantineDir) bool { return d.Dir == e.Dir && d.Queue == e.Queue })
		if i < 0 {
			out = append(out, admin.QuarantineDir{Dir: e.Dir, Queue: e.Queue, Oldest: e.Time, Newest: e.Time})
			i = len(out) - 1
		}
		d := &out[i]
		d.Entries++
		if e.Old {
			d.Old++
		} else {
			d.New++
		}
		if e.Time.Before(d.Oldest) {
			d.Oldest = e.Time
		}
		if e.Time.After(d.Newest) {
			d.Newest = e.Time
		}
	}
	return out, nil
}

// ScanQuarantine implements tab.QueueAdmin.
func (s *Source) ScanQuarantine(ctx context.Context, dir, queue string) (admin.QuarantineScan, error) {
	if err := s.enter(ctx, "ScanQuarantine"); err != nil {
		return admin.QuarantineScan{}, err
	}
	defer s.mu.Unlock()
	out := admin.QuarantineScan{Entries: []admin.QuarantineEntry{}}
	for _, e := range s.quar {
		if (dir == "" || e.Dir == dir) && (queue == "" || e.Queue == queue) {
			e.HasBody, e.Headers, e.Payload = false, nil, nil // a scan lists; OpenQuarantineEntry reads
			out.Entries = append(out.Entries, e)
		}
	}
	out.Total = len(out.Entries)
	return out, nil
}

// OpenQuarantineEntry implements tab.QueueAdmin: the entry of dir and
// queue with id, with its headers and body (nil when it is gone).
func (s *Source) OpenQuarantineEntry(ctx context.Context, dir, queue string, id []byte) (*admin.QuarantineEntry, error) {
	if err := s.enter(ctx, "OpenQuarantineEntry"); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	for _, e := range s.quar {
		if e.Dir == dir && e.Queue == queue && string(e.MsgID) == string(id) {
			e.HasBody = true
			return &e, nil
		}
	}
	return nil, nil
}

// ReinjectQuarantine implements tab.QueueAdmin: exactly the entries of
// plan, by id.
func (s *Source) ReinjectQuarantine(ctx context.Context, plan admin.ReinjectPlan) (admin.QuarantineReinjectResult, error) {
	if err := s.enter(ctx, "ReinjectQuarantine"); err != nil {
		return admin.QuarantineReinjectResult{}, err
	}
	defer s.mu.Unlock()
	q, err := s.queueLocked(plan.Queue)
	if err != nil {
		return admin.QuarantineReinjectResult{Leader: s.leader, StopReason: "queue " + plan.Queue + " is not defined"}, nil
	}
	named := map[string]bool{}
	for _, id := range plan.IDs {
		named[string(id)] = false
	}
	res := admin.QuarantineReinjectResult{Leader: s.leader}
	var keep []admin.QuarantineEntry
	for _, e := range s.quar {
		if (plan.Dir == "" || e.Dir == plan.Dir) && e.Queue == plan.Queue && (plan.IncludeOld || !e.Old) {
			if _, ok := named[string(e.MsgID)]; ok {
				named[string(e.MsgID)] = true
				m := s.newMessage(plan.Queue, s.now, string(e.Payload))
				m.ID, m.Headers = e.MsgID, e.Headers // reinjected with its id and headers, as the engine does
				q.msgs = append(q.msgs, m)
				res.Count++
				continue
			}
			res.Left++
		}
		keep = append(keep, e)
	}
	for _, id := range plan.IDs {
		if !named[string(id)] {
			res.Missing = append(res.Missing, id)
			named[string(id)] = true
		}
	}
	s.quar = keep
	return res, nil
}
