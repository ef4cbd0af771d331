package serve

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/wire"
	"ilinkdash/ui/common"
	"ilinkdash/ui/views/publish"
	"ilinkdash/ui/views/tab"
	"ilinkdash/ui/views/tail"
)

// Backend is one role's client-layer objects: the admin adapters, the
// tail and the publisher (ui/live.Sources). The viewer's is configured
// read-only, so its admin client's guard (admin.Service.mutate) and its
// producer's refuse every mutating call; the operator's is writable
// (unless the served context is read-only).
type Backend interface {
	tab.Sources
	tail.Tailer
	publish.Publisher
}

// sessionSources is what one session's dashboard reads and calls: the
// polled resources from the shared poller, everything else from its
// role's Backend. It is the one place a session's actions pass, so it is
// where they are audited (who, what, target, outcome) whatever view asked,
// and it binds every call and stream to the session's life: when the
// session ends, its calls are cancelled and its tails closed (leaving
// their temporary groups).
type sessionSources struct {
	// Lists are the viewer's: the session's poller reads every polled
	// resource through the shared cache (Polled), never through these,
	// which only make the type a tab.Sources; a direct read can only read.
	tab.Lists
	s    *Server
	sess *session
	c    *served // the cluster these sources read and act on
	b    Backend
	// readOnly: the session's role, or the cluster's context, allows no
	// change (b is then the viewer's backend).
	readOnly bool
}

// ReleaseClosedTails implements tail.ClosedTailReleaser: a session's closed
// tail drops its records, so the server's tails hold at most --max-tails
// full buffers (one per open stream), whatever a session opens and closes.
func (ss *sessionSources) ReleaseClosedTails() bool { return true }

var (
	_ tab.Sources       = (*sessionSources)(nil)
	_ tab.PolledSource  = (*sessionSources)(nil)
	_ tail.Tailer       = (*sessionSources)(nil)
	_ publish.Publisher = (*sessionSources)(nil)
)

// bind returns ctx, also cancelled when the session ends.
func (ss *sessionSources) bind(ctx context.Context) (context.Context, context.CancelFunc) {
	c, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(ss.sess.ctx, cancel)
	return c, func() { stop(); cancel() }
}

// Polled implements tab.PolledSource: the session's poller reads every
// declared resource (tab.Polled) through the cluster's shared cache, so a
// new declaration needs nothing here.
func (ss *sessionSources) Polled(ctx context.Context, id common.ResID) (any, error) {
	ctx, cancel := ss.bind(ctx)
	defer cancel()
	return ss.c.polls.get(ctx, id)
}

func polled[T any](ss *sessionSources, ctx context.Context, id common.ResID) (T, error) {
	v, err := ss.Polled(ctx, id)
	t, _ := v.(T)
	return t, err
}

// detail reads through the shared cache (polls.detail) from the viewer's
// client, which can only read: a detail several sessions have open is
// read once per its interval, whoever asks.
func detail[T any](ss *sessionSources, ctx context.Context, key string, like common.ResID, fn func(tab.Sources, context.Context) (T, error)) (T, error) {
	ctx, cancel := ss.bind(ctx)
	defer cancel()
	reader := ss.c.Viewer
	v, err := ss.c.polls.detail(ctx, key, like, func(c context.Context) (any, error) { return fn(reader, c) })
	t, _ := v.(T)
	return t, err
}

func call[T any](ss *sessionSources, ctx context.Context, fn func(context.Context) (T, error)) (T, error) {
	ctx, cancel := ss.bind(ctx)
	defer cancel()
	return fn(ctx)
}

// act runs a mutating call, records its outcome in the audit log and on
// the session's status line, and invalidates the shared poller so the
// refresh that follows shows the change.
func (ss *sessionSources) act(ctx context.Context, action, target, detail string, fn func(context.Context) error) error {
	return ss.actDetail(ctx, action, target, detail, func(c context.Context) (string, error) { return detail, fn(c) })
}

// actDetail is act whose call gives the audit detail it did, which may
// say more than the one asked (a put stopped partway: how many went).
func (ss *sessionSources) actDetail(ctx context.Context, action, target, detail string, fn func(context.Context) (string, error)) error {
	ctx, cancel := ss.bind(ctx)
	defer cancel()
	// The key is checked at the act itself, not only by the watcher's
	// tick: an action after its key left the files never runs.
	if why := ss.s.lostRights(ss.sess); why != "" {
		err := &rightsError{action: action, why: why}
		ss.record(action, target, detail, err)
		ss.sess.stop(why)
		return err
	}
	done, err := fn(ctx)
	ss.c.polls.invalidate()
	ss.record(action, target, done, err)
	return err
}

func (ss *sessionSources) record(action, target, detail string, err error) {
	e := ss.sess.entry(EventAction)
	e.Time, e.Context = time.Now(), ss.c.Context.Name
	e.Action, e.Target, e.Detail, e.Outcome = action, target, detail, OutcomeOK
	switch {
	case ilink.HasName(err, wire.ErrReadOnly), errors.As(err, new(*rightsError)):
		e.Outcome, e.Error = OutcomeRefused, err.Error()
	case err != nil:
		e.Outcome, e.Error = OutcomeError, err.Error()
	}
	ss.s.audit.write(e)
	ss.sess.note(e)
}

// rightsError refuses an action whose session's key lost its rights.
type rightsError struct{ action, why string }

func (e *rightsError) Error() string {
	if e.why == reasonDemoted {
		return e.action + " refused: this key is no longer an operator's"
	}
	return e.action + " refused: this key was removed from the server's key files"
}

// ---- polled ----

func (ss *sessionSources) ClusterSummary(ctx context.Context) (tab.ClusterSummary, error) {
	return polled[tab.ClusterSummary](ss, ctx, common.ResSummary)
}

func (ss *sessionSources) StatSeries(ctx context.Context, scope string) (admin.StatSeries, error) {
	if scope == "" {
		return polled[admin.StatSeries](ss, ctx, common.ResStats)
	}
	return detail(ss, ctx, "stats/"+scope, common.ResStats, func(r tab.Sources, c context.Context) (admin.StatSeries, error) {
		return r.StatSeries(c, scope)
	})
}

func (ss *sessionSources) ClusterProperty(ctx context.Context) (admin.ClusterProperty, error) {
	return polled[admin.ClusterProperty](ss, ctx, common.ResCluster)
}

func (ss *sessionSources) ReplicationStatus(ctx context.Context) (admin.ReplicationStatus, error) {
	return polled[admin.ReplicationStatus](ss, ctx, common.ResReplication)
}

func (ss *sessionSources) ClusterLeadTable(ctx context.Context) (admin.ClusterLeadTable, error) {
	return polled[admin.ClusterLeadTable](ss, ctx, common.ResLeaders)
}

// ---- details (shared: asked by the user, re-read by the open view) ----

func (ss *sessionSources) DescribeTopic(ctx context.Context, topic string) (admin.TopicDescription, error) {
	return detail(ss, ctx, "topic/"+topic, common.ResTopics, func(r tab.Sources, c context.Context) (admin.TopicDescription, error) {
		return r.DescribeTopic(c, topic)
	})
}

func (ss *sessionSources) SubscriptionList(ctx context.Context, topic string) ([]admin.SubscriptionLine, error) {
	return detail(ss, ctx, "subscriptions/"+topic, common.ResTopics, func(r tab.Sources, c context.Context) ([]admin.SubscriptionLine, error) {
		return r.SubscriptionList(c, topic)
	})
}

func (ss *sessionSources) DescribeGroup(ctx context.Context, group string) (admin.GroupDescription, error) {
	return detail(ss, ctx, "group/"+group, common.ResGroups, func(r tab.Sources, c context.Context) (admin.GroupDescription, error) {
		return r.DescribeGroup(c, group)
	})
}

// ---- mutations ----

func (ss *sessionSources) CreateTopic(ctx context.Context, spec tab.TopicSpec) error {
	detail := spec.Props() // the property text sent, as the review showed it
	return ss.act(ctx, "create-topic", spec.Name, detail, func(c context.Context) error { return ss.b.CreateTopic(c, spec) })
}

func (ss *sessionSources) DeleteTopic(ctx context.Context, topic string) error {
	return ss.act(ctx, "delete-topic", topic, ss.topicSeen(topic), func(c context.Context) error { return ss.b.DeleteTopic(c, topic) })
}

func (ss *sessionSources) FlushTopic(ctx context.Context, topic string) error {
	return ss.act(ctx, "flush-topic", topic, ss.topicSeen(topic), func(c context.Context) error { return ss.b.FlushTopic(c, topic) })
}

// topicSeen is what a delete or flush takes as the last topic list showed
// it (the list its preview was made from, or a later one), for the audit
// line: "records=N partitions=P seen=TIME"; "" when the list has none.
// It asks the cluster nothing.
func (ss *sessionSources) topicSeen(topic string) string {
	t, at, ok := lastListed(ss.c.polls, common.ResTopics, func(t admin.TopicInfo) bool { return t.Name == topic })
	if !ok {
		return ""
	}
	return fmt.Sprintf("records=%d partitions=%d seen=%s", t.EndOffsetSum-t.StartOffsetSum, t.Partitions, at.UTC().Format(time.RFC3339))
}

// groupSeen is topicSeen for a group: its state, members and lag.
func (ss *sessionSources) groupSeen(group string) string {
	g, at, ok := lastListed(ss.c.polls, common.ResGroups, func(g admin.GroupInfo) bool { return g.Name == group })
	if !ok {
		return ""
	}
	return fmt.Sprintf("state=%s members=%d lag=%d seen=%s", g.State, g.Members, g.Lag().Records, at.UTC().Format(time.RFC3339))
}

// lastListed is the row of the list id last polled that is, and when
// that list was asked for.
func lastListed[T any](p *polls, id common.ResID, is func(T) bool) (T, time.Time, bool) {
	var zero T
	v, at, ok := p.last(id)
	list, _ := v.([]T)
	if !ok {
		return zero, at, false
	}
	for _, row := range list {
		if is(row) {
			return row, at, true
		}
	}
	return zero, at, false
}

// SeekGroup: a plan (apply false) changes nothing and is not audited.
func (ss *sessionSources) SeekGroup(ctx context.Context, group, topic string, to admin.SeekTarget, apply bool) ([]admin.OffsetChange, error) {
	if !apply {
		return call(ss, ctx, func(c context.Context) ([]admin.OffsetChange, error) {
			return ss.b.SeekGroup(c, group, topic, to, false)
		})
	}
	var out []admin.OffsetChange
	err := ss.act(ctx, "seek-group", group, seekDetail(topic, to), func(c context.Context) error {
		var err error
		out, err = ss.b.SeekGroup(c, group, topic, to, true)
		return err
	})
	return out, err
}

func (ss *sessionSources) SeekGroupToTime(ctx context.Context, group, topic string, t time.Time, apply bool) ([]admin.OffsetChange, error) {
	if !apply {
		return call(ss, ctx, func(c context.Context) ([]admin.OffsetChange, error) {
			return ss.b.SeekGroupToTime(c, group, topic, t, false)
		})
	}
	var out []admin.OffsetChange
	err := ss.act(ctx, "seek-group", group, seekDetail(topic, admin.SeekTarget{Time: t}), func(c context.Context) error {
		var err error
		out, err = ss.b.SeekGroupToTime(c, group, topic, t, true)
		return err
	})
	return out, err
}

func seekDetail(topic string, to admin.SeekTarget) string {
	var d string
	switch {
	case !to.Time.IsZero():
		d = "to=" + to.Time.UTC().Format(time.RFC3339Nano)
	case to.Earliest:
		d = "to=earliest"
	case to.Latest:
		d = "to=latest"
	default:
		d = "to=" + strconv.FormatInt(to.Offset, 10)
	}
	if topic != "" {
		d += " topic=" + topic
	}
	return d
}

// changeDetail renders the fields a cluster property change sets.
func changeDetail(c admin.ClusterPropertyChange) string {
	d := "base-version=" + strconv.FormatInt(c.BaseVersion, 10)
	if c.Replicas != nil {
		d += " replicas=" + strconv.Itoa(*c.Replicas)
	}
	if c.MinSync != nil {
		d += " min-sync=" + strconv.Itoa(*c.MinSync)
	}
	if c.Placement != nil {
		d += " placement=" + strconv.FormatBool(*c.Placement)
	}
	if c.AutoStart != nil {
		d += " auto-start=" + strconv.FormatBool(*c.AutoStart)
	}
	return d
}

func (ss *sessionSources) DeleteGroup(ctx context.Context, group string) error {
	return ss.act(ctx, "delete-group", group, ss.groupSeen(group), func(c context.Context) error { return ss.b.DeleteGroup(c, group) })
}

func (ss *sessionSources) SetClusterProperty(ctx context.Context, change admin.ClusterPropertyChange) error {
	return ss.act(ctx, "set-cluster-property", "cluster", changeDetail(change), func(c context.Context) error {
		return ss.b.SetClusterProperty(c, change)
	})
}

func (ss *sessionSources) AddNode(ctx context.Context, node admin.ClusterNode) error {
	target := fmt.Sprintf("node %d", node.Number)
	detail := fmt.Sprintf("qmgr=%s host=%s port=%d ilcc-port=%d", node.QueueManager, node.Host, node.Port, node.IlccPort)
	return ss.act(ctx, "add-node", target, detail, func(c context.Context) error { return ss.b.AddNode(c, node) })
}

func (ss *sessionSources) RemoveNode(ctx context.Context, n int) error {
	return ss.act(ctx, "remove-node", "node "+strconv.Itoa(n), "", func(c context.Context) error { return ss.b.RemoveNode(c, n) })
}

// StartPublish is audited when the run starts (its outcome is whether it
// started); the run's context ends with the session.
func (ss *sessionSources) StartPublish(ctx context.Context, spec publish.Spec) (publish.Run, error) {
	var run publish.Run
	detail := fmt.Sprintf("count=%d rate=%g compression=%s acks=%s", spec.Count, spec.Rate, spec.Compression, spec.Acks)
	ctx, release := ss.bind(ctx)
	err := ss.act(ctx, "publish", spec.Topic, detail, func(context.Context) error {
		var err error
		run, err = ss.b.StartPublish(ctx, spec) // the run lives on ctx, not on act's call context
		return err
	})
	if err != nil {
		release()
		return nil, err
	}
	return &sessionRun{Run: run, release: onceRelease{release: release}}, nil
}

// ReadsFiles implements publish.FileReader: the form's File field would
// read a file on the jump host, which a session never names (save.go), so
// it is refused before anything is read, for operators too.
func (ss *sessionSources) ReadsFiles() error {
	return errors.New("file: a served dashboard reads no file on the server; put the value in Value instead")
}

var _ publish.FileReader = (*sessionSources)(nil)

// sessionRun releases the run's session binding once it is done.
type sessionRun struct {
	publish.Run
	release onceRelease
}

func (r *sessionRun) Progress() publish.Progress {
	p := r.Run.Progress()
	r.release.when(p.Done)
	return p
}

// onceRelease releases a run's session binding the first time it is over
// (a publish or a search, read by its view's progress polls).
type onceRelease struct {
	once    sync.Once
	release func()
}

func (o *onceRelease) when(over bool) {
	if over {
		o.once.Do(o.release)
	}
}

// ---- tails ----

// errTailsBusy is the refusal when every tail slot of the server is taken.
var errTailsBusy = errors.New("every tail of this server is in use (serve --max-tails); close one and try again")

// StartTail runs a tail in the session: each stream takes one of the
// --max-tails slots of the server, however many a session keeps (the
// dashboard keeps up to tail.MaxTails; one it replaces is closed before
// its replacement starts). A tail with a named group commits offsets, a
// mutation: it is audited (and refused for viewers by the client layer).
func (ss *sessionSources) StartTail(ctx context.Context, spec tail.Spec) (tail.Stream, error) {
	if ss.s.tails == nil {
		return nil, errors.New("tailing is disabled on this server (serve --max-tails 0)")
	}
	if !ss.s.takeTailSlot(ctx) {
		return nil, errTailsBusy
	}
	ctx, release := ss.bind(ctx)
	free := func() { release(); <-ss.s.tails }
	var st tail.Stream
	start := func(context.Context) error {
		var err error
		st, err = ss.b.StartTail(ctx, spec) // the stream lives on ctx, not on act's call context
		return err
	}
	var err error
	if spec.Group != "" {
		err = ss.act(ctx, "tail-group", spec.Group, "target="+spec.Target+" from="+spec.From.String(), start)
	} else {
		err = start(ctx)
	}
	if err != nil {
		free()
		return nil, err
	}
	t := &sessionTail{Stream: st, srv: ss.s, sess: ss.sess, free: free}
	if !ss.sess.addTail(t) { // the session ended meanwhile
		_ = t.Close()
		return nil, context.Canceled
	}
	return t, nil
}

// tailSlotWait bounds the wait for a slot that a closing tail is giving
// back (its consumer leaves its group first).
const tailSlotWait = 5 * time.Second

// takeTailSlot takes a --max-tails slot. When none is free but a tail is
// closing, it waits for that one's, so that closing a tail and opening
// another (the operator's "[x" then ":tail") is not refused while the
// first consumer leaves its group.
func (s *Server) takeTailSlot(ctx context.Context) bool {
	select {
	case s.tails <- struct{}{}:
		return true
	default:
	}
	if s.tailsClosing.Load() == 0 {
		return false
	}
	t := time.NewTimer(tailSlotWait)
	defer t.Stop()
	select {
	case s.tails <- struct{}{}:
		return true
	case <-ctx.Done():
	case <-t.C:
	}
	return false
}

// sessionTail gives the tail's slot back when it closes.
type sessionTail struct {
	tail.Stream
	srv  *Server
	sess *session
	once sync.Once
	free func()
}

func (t *sessionTail) Close() error {
	t.srv.tailsClosing.Add(1)
	defer t.srv.tailsClosing.Add(-1) // after the slot is back
	err := t.Stream.Close()
	t.once.Do(func() {
		t.sess.dropTail(t)
		t.free()
	})
	return err
}
