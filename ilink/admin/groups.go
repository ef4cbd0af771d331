package admin

import (
	"context"
	"fmt"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/wire"
)

// Group administration (spec §3.7, 0.19.2). GroupList, DescribeGroup,
// PlanSeekGroup, SeekGroup, SeekGroupToTime and DeleteGroup each open a
// short connection to the queue manager's DATA port (HELLO mode 3) and
// close it afterwards (spec A-10); SubscriptionList uses the admin
// connection.

// Coordinator retry of the group calls: the engine may answer LOADING
// (REPORT 4176) or NOT_COORDINATOR (4175) while a coordinator moves; the
// call is retried after 100 ms doubling to 1 s, for 10 s at most (the
// consumer's rule, spec C-33).
const (
	groupRetryMin    = 100 * time.Millisecond
	groupRetryMax    = time.Second
	groupRetryBudget = 10 * time.Second
)

// dataAddrs returns where the group calls may connect: Options.DataAddrs,
// else the queue manager's data address from QMGR LIST followed by the
// running nodes of the handshake's node list, leader first.
func (q *Qmgr) dataAddrs(ctx context.Context) ([]string, error) {
	if len(q.svc.opt.DataAddrs) > 0 {
		return q.svc.opt.DataAddrs, nil
	}
	var out []string
	add := func(a string) {
		if a != "" && !contains(out, a) {
			out = append(out, a)
		}
	}
	qs, err := q.svc.QmgrList(ctx)
	if err != nil {
		return nil, err
	}
	for _, m := range qs {
		if m.Name == q.qmgr() && m.Running {
			add(m.DataAddr)
		}
	}
	h := q.svc.Hello()
	if h.QueueManager == q.qmgr() {
		for _, n := range h.Nodes {
			if n.Leader && n.Up {
				add(n.Addr)
			}
		}
		for _, n := range h.Nodes {
			if n.Up {
				add(n.Addr)
			}
		}
		for _, n := range h.Nodes {
			add(n.Addr) // last resort: the node list may be stale
		}
	}
	if len(out) == 0 {
		return nil, &ilink.Error{Name: ilink.NameConnectFailed, Tail: "no data address known for queue manager " + q.qmgr(), Kind: ilink.KindSession}
	}
	return out, nil
}

// groupCall sends one request over a short data connection.
func (q *Qmgr) groupCall(ctx context.Context, code wire.Code, req, resp wire.Message) error {
	addrs, err := q.dataAddrs(ctx)
	if err != nil {
		return err
	}
	var c *ilink.Conn
	var first error
	for _, a := range addrs {
		c, err = ilink.DialConn(ctx, a, q.svc.opt.connConfig(wire.ModeConsumer, q.qmgr()))
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return err
		}
		if first == nil {
			first = err
		}
	}
	if c == nil {
		return first
	}
	defer c.Close()
	deadline := time.Now().Add(groupRetryBudget)
	wait := groupRetryMin
	for {
		err := c.Do(ctx, code, 0, req, resp)
		e := ilink.AsError(err)
		if e == nil || (e.Report != wire.ReportLoading && e.Report != wire.ReportNotCoordinator) || time.Now().Add(wait).After(deadline) {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		wait = min(2*wait, groupRetryMax)
	}
}

// GroupList is getGroupList: every group with its state, member count,
// topics and, per partition of those topics, its commit, log start and end
// (GroupInfo.Lag sums them with the one lag rule, PartitionLag).
func (q *Qmgr) GroupList(ctx context.Context) ([]GroupInfo, error) {
	var rep wire.GroupListReply
	if err := q.groupCall(ctx, wire.CodeGroupList, &wire.Empty{}, &rep); err != nil {
		return nil, err
	}
	// One array of topic names and one of partitions for the whole list,
	// cut per group: the list is polled every few seconds.
	nt, np := 0, 0
	for i := range rep.Groups {
		nt += len(rep.Groups[i].Offsets)
		for _, t := range rep.Groups[i].Offsets {
			np += len(t.Partitions)
		}
	}
	topics := make([]string, 0, nt)
	parts := make([]PartitionOffsets, 0, np)
	out := make([]GroupInfo, len(rep.Groups))
	for i := range rep.Groups {
		g := &rep.Groups[i]
		gi := GroupInfo{Name: g.Name, State: GroupState(g.State), Members: g.Members,
			Durable: g.Durable, Generation: g.Generation}
		t0, p0 := len(topics), len(parts)
		for _, t := range g.Offsets {
			topics = append(topics, t.Topic)
			for _, p := range t.Partitions {
				parts = append(parts, PartitionOffsets{Topic: t.Topic, Partition: p.Partition,
					Committed: p.Committed, LogStart: p.LogStart, End: p.End})
			}
		}
		if len(topics) > t0 {
			gi.Topics = topics[t0:len(topics):len(topics)]
		}
		if len(parts) > p0 {
			gi.Partitions = parts[p0:len(parts):len(parts)]
		}
		out[i] = gi
	}
	return out, nil
}

// DescribeGroup is describeGroup: members (client name, host, assignment)
// and per partition the committed offset, log start and end (its lag is
// GroupOffset.Lag). An unknown
// group is state Dead, not an error (spec A-11).
func (q *Qmgr) DescribeGroup(ctx context.Context, group string) (GroupDescription, error) {
	var rep wire.GroupDescriptionReply
	if err := q.groupCall(ctx, wire.CodeDescribeGroup, &wire.GroupRequest{Group: group}, &rep); err != nil {
		return GroupDescription{}, err
	}
	d := GroupDescription{Name: rep.Name, State: GroupState(rep.State), Generation: rep.Generation,
		Coordinator: rep.Coordinator, Durable: rep.Durable}
	if d.Name == "" {
		d.Name = group
	}
	if d.State == "" {
		d.State = GroupDead
	}
	for _, m := range rep.Members {
		gm := GroupMember{MemberID: m.MemberID, ClientName: m.ClientName, Host: m.Host, LastSeen: msTime(m.LastSeenMs)}
		for _, a := range m.Assignment {
			gm.Assignment = append(gm.Assignment, TopicPartitions{Topic: a.Topic, Partitions: a.Partitions})
		}
		d.Members = append(d.Members, gm)
	}
	for _, o := range rep.Offsets {
		d.Offsets = append(d.Offsets, GroupOffset{MemberID: o.MemberID, PartitionOffsets: PartitionOffsets{
			Topic: o.Topic, Partition: o.Partition, Committed: o.Committed, LogStart: o.LogStart, End: o.EndOffset}})
	}
	return d, nil
}

func seekRequest(group, topic string, to SeekTarget, dryRun bool) (*wire.SeekGroupRequest, error) {
	req := &wire.SeekGroupRequest{Group: group, Topic: topic, DryRun: dryRun, Partitions: to.Partitions}
	if len(to.Partitions) > 0 && topic == "" {
		return nil, &ilink.Error{Name: ilink.NameBadConfig, Tail: "seek target: a seek of one partition (P@OFFSET) needs the topic", Kind: ilink.KindConfig}
	}
	for _, c := range to.Planned {
		req.Planned = append(req.Planned, wire.OffsetChangeEntry{Topic: c.Topic, Partition: c.Partition, Old: c.Old, New: c.New, LogStart: c.LogStart, End: c.End})
	}
	n := 0
	if to.Earliest {
		req.Mode, n = wire.SeekToEarliest, n+1
	}
	if to.Latest {
		req.Mode, n = wire.SeekToLatest, n+1
	}
	if !to.Time.IsZero() {
		req.Mode, req.TimeMs, n = wire.SeekToTime, to.Time.UnixMilli(), n+1
	}
	switch {
	case n > 1:
		return nil, &ilink.Error{Name: ilink.NameBadConfig, Tail: "seek target: choose one of earliest, latest, time or offset", Kind: ilink.KindConfig}
	case n == 0:
		if to.Offset < 0 {
			return nil, &ilink.Error{Name: ilink.NameBadConfig, Tail: "seek target: negative offset", Kind: ilink.KindConfig}
		}
		req.Mode, req.Offset = wire.SeekToOffset, to.Offset
	}
	return req, nil
}

func (q *Qmgr) seek(ctx context.Context, group, topic string, to SeekTarget, dryRun bool) ([]OffsetChange, error) {
	req, err := seekRequest(group, topic, to, dryRun)
	if err != nil {
		return nil, err
	}
	var rep wire.SeekGroupReply
	if err := q.groupCall(ctx, wire.CodeSeekGroup, req, &rep); err != nil {
		return nil, err
	}
	out := make([]OffsetChange, len(rep.Changes))
	for i, c := range rep.Changes {
		out[i] = OffsetChange{Topic: c.Topic, Partition: c.Partition, Old: c.Old, New: c.New, LogStart: c.LogStart, End: c.End}
	}
	return out, nil
}

// PlanSeekGroup returns the offset changes SeekGroup would make, and
// changes nothing (a dry run the engine computes; allowed with active
// members). topic "" = every topic the group has commits on.
func (q *Qmgr) PlanSeekGroup(ctx context.Context, group, topic string, to SeekTarget) ([]OffsetChange, error) {
	return q.seek(ctx, group, topic, to, true)
}

// SeekGroup moves the group's committed offsets (seekGroup) and returns
// the changes made. The engine refuses while the group has an active
// member: MIMQE_GROUP_NOT_EMPTY (N active members) (spec ).
func (q *Qmgr) SeekGroup(ctx context.Context, group, topic string, to SeekTarget) ([]OffsetChange, error) {
	if err := q.svc.mutate("SeekGroup"); err != nil {
		return nil, err
	}
	return q.seek(ctx, group, topic, to, false)
}

// SeekDifferences compares an applied seek with its preview: one line per
// partition whose applied offset or previous commit is not the
// preview's, or that only one of them has; none when the seek did what
// the preview showed.
func SeekDifferences(planned, applied []OffsetChange) []string {
	type tp struct {
		topic string
		part  int32
	}
	plan := make(map[tp]OffsetChange, len(planned))
	for _, c := range planned {
		plan[tp{c.Topic, c.Partition}] = c
	}
	var out []string
	for _, a := range applied {
		k := tp{a.Topic, a.Partition}
		p, ok := plan[k]
		delete(plan, k)
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s [%d]: moved to %d, not in the preview", a.Topic, a.Partition, a.New))
		case p.New != a.New:
			out = append(out, fmt.Sprintf("%s [%d]: moved to %d, the preview said %d (the log changed since)", a.Topic, a.Partition, a.New, p.New))
		case p.Old != a.Old:
			out = append(out, fmt.Sprintf("%s [%d]: the commit was %d, the preview saw %d (committed since)", a.Topic, a.Partition, a.Old, p.Old))
		}
	}
	for _, p := range planned {
		if _, left := plan[tp{p.Topic, p.Partition}]; left {
			out = append(out, fmt.Sprintf("%s [%d]: in the preview, not moved", p.Topic, p.Partition))
		}
	}
	return out
}

// SeekGroupToTime is seekGroupToTime: SeekGroup to the first offset at or
// after t (LIST_OFFSETS rules, spec A-13).
func (q *Qmgr) SeekGroupToTime(ctx context.Context, group, topic string, t time.Time) ([]OffsetChange, error) {
	if err := q.svc.mutate("SeekGroupToTime"); err != nil {
		return nil, err
	}
	if t.IsZero() {
		return nil, &ilink.Error{Name: ilink.NameBadConfig, Tail: "seek to a zero time", Kind: ilink.KindConfig}
	}
	return q.seek(ctx, group, topic, SeekTarget{Time: t}, false)
}

// DeleteGroup is deleteGroup: the group and its commits go, after which
// DescribeGroup reports Dead. Refused while the group has an active
// member: MIMQE_GROUP_NOT_EMPTY (N active members).
func (q *Qmgr) DeleteGroup(ctx context.Context, group string) error {
	if err := q.svc.mutate("DeleteGroup"); err != nil {
		return err
	}
	return q.groupCall(ctx, wire.CodeAdminDeleteGroup, &wire.GroupRequest{Group: group}, nil)
}

// SubscriptionListText is getSubscriptionList(topic) exactly as the
// engine gives it: one line group|state|partition|commit|lag|members=N
// per group × partition, commit and lag -1 for a partition assigned but
// never committed, and the empty string when no group qualifies
// (spec A-17..A-20).
func (q *Qmgr) SubscriptionListText(ctx context.Context, topic string) (string, error) {
	var rep wire.TextReply
	if err := q.svc.read(ctx, wire.CodeSubscriptionList, &wire.SubscriptionListRequest{Qmgr: q.qmgr(), Topic: topic}, &rep); err != nil {
		return "", err
	}
	return rep.Text, nil
}

// SubscriptionList is SubscriptionListText parsed (ParseSubscriptionList);
// an empty slice when no group qualifies.
func (q *Qmgr) SubscriptionList(ctx context.Context, topic string) ([]SubscriptionLine, error) {
	text, err := q.SubscriptionListText(ctx, topic)
	if err != nil {
		return nil, err
	}
	return ParseSubscriptionList(text)
}
