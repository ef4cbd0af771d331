package demo

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/admin/health"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/wire"
)

func TestDemoGivesEveryViewSomethingToShow(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engine.Config{})
	d, err := Start(e, Options{Rate: 1000, LeaderMoveEvery: -1, RebalanceEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()

	want := map[string]bool{}
	for _, g := range Groups {
		want[g.Name] = false
	}
	if !ilinktest.Poll(20*time.Second, func() bool {
		groups := e.Groups()
		for _, g := range groups {
			if _, ok := want[g.Name]; ok {
				want[g.Name] = true
			}
		}
		all := true
		for _, seen := range want {
			all = all && seen
		}
		return all && sum(e, "ORDER.EVENT") > 100 && sum(e, "AUDIT.LOG") > 10
	}) {
		t.Fatalf("after 20s: groups seen %v, ORDER.EVENT end sum %d", want, sum(e, "ORDER.EVENT"))
	}
	for _, q := range Queues {
		for _, name := range []string{q.Name, q.Cfg.DeadLetterQueue} {
			if _, err := e.QueueDepth(name); err != nil {
				t.Errorf("queue %s: %v", name, err)
			}
		}
	}
	ilinktest.WaitFor(t, 20*time.Second, "the poison message to be dead-lettered to PAYMENT.DLQ", func() bool {
		d, _ := e.QueueDepth("PAYMENT.DLQ")
		return d > 0
	})
	if e.QuarantineLen() != 3 {
		t.Errorf("quarantine holds %d entries, want 3", e.QuarantineLen())
	}
	// The caught-up group commits on; the stalled one committed once and
	// does not move meanwhile: across two of billing's commit rounds,
	// while AUDIT.LOG grows.
	ilinktest.WaitFor(t, 20*time.Second, "the archiver's first commit", func() bool { return commitSum(e, "archiver", "AUDIT.LOG") > 0 })
	arch1, audit1 := commitSum(e, "archiver", "AUDIT.LOG"), sum(e, "AUDIT.LOG")
	for round := 0; round < 2; round++ {
		b := commitSum(e, "billing", "ORDER.EVENT")
		ilinktest.WaitFor(t, 20*time.Second, "billing's next commit", func() bool { return commitSum(e, "billing", "ORDER.EVENT") > b })
	}
	ilinktest.WaitFor(t, 20*time.Second, "AUDIT.LOG to grow", func() bool { return sum(e, "AUDIT.LOG") > audit1 })
	if arch2 := commitSum(e, "archiver", "AUDIT.LOG"); arch2 != arch1 {
		t.Errorf("archiver commits moved %d -> %d; it should be stalled", arch1, arch2)
	}
	if end, c := sum(e, "AUDIT.LOG"), commitSum(e, "archiver", "AUDIT.LOG"); end <= c {
		t.Errorf("archiver has no lag: end %d commit %d", end, c)
	}
	if c := commitSum(e, "billing", "ORDER.EVENT"); c == 0 {
		t.Errorf("billing never committed")
	}
}

func sum(e *engine.Engine, topic string) int64 {
	_, end := e.TopicOffsets(topic)
	var s int64
	for _, v := range end {
		s += v
	}
	return s
}

func commitSum(e *engine.Engine, group, topic string) int64 {
	var s int64
	for _, o := range e.GroupCommits(group)[topic] {
		s += o
	}
	return s
}

// TestDemoShowsEveryHealthWord: every group of Groups shows its word on
// the dashboard's own evaluation (health.Monitor over the admin client's
// group list, as the groups tab and `ilinkdash check` judge), each for the
// reason the word means. The demo and the health window are sped up; the
// rules are the same.
func TestDemoShowsEveryHealthWord(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engine.Config{CoordinatorLoadTime: 100 * time.Millisecond})
	// A 3 s read expiry, which the test outlasts: the stalled member must
	// keep reading to stay (as it does for hours under the consumers' 5
	// minutes in the real demo).
	const readExpiry = 3 * time.Second
	started := time.Now()
	d, err := Start(e, Options{Rate: 600, LeaderMoveEvery: -1, RebalanceEvery: 2 * time.Second, RewindEvery: 4 * time.Second,
		CommitInterval: 300 * time.Millisecond, ReadExpiry: readExpiry})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	svc, err := admin.Connect(ctx, e.AdminAddrs()[0], admin.Options{ClientName: "demo-test"})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	q := svc.AccessAdminQmgr("")
	mon := health.New(health.Config{Window: 3 * time.Second, StallAfter: 3 * time.Second})

	want := map[string]string{}
	for _, g := range Groups {
		want[g.Name] = g.Word
	}
	seen := map[string]string{} // group → why its word was accepted
	bad := map[string]string{}
	deadline := time.Now().Add(40 * time.Second)
	for len(seen) < len(want) && time.Now().Before(deadline) {
		gs, err := q.GroupList(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range mon.ObserveGroups(gs, time.Now()) {
			name := st.Info.Name
			w, ok := want[name]
			if !ok || st.Word.String() != w {
				if ok && st.Word != health.Unknown && st.Word != health.Rebalancing && w != st.Word.String() &&
					(st.Word == health.Stalled || st.Word == health.Stopped || st.Word == health.Dead) {
					bad[name] = fmt.Sprintf("%v (%s)", st.Word, st.Reason)
				}
				continue
			}
			if _, done := seen[name]; done {
				continue
			}
			if why := rightReason(st); why != "" {
				seen[name] = why
			}
		}
		// The monitor's sampling cadence (a dashboard's refresh), not a
		// poll interval: its words depend on the observations it is fed.
		time.Sleep(100 * time.Millisecond)
	}
	for name, w := range want {
		if why, ok := seen[name]; !ok {
			t.Errorf("%s never showed %s for its reason", name, w)
		} else {
			t.Logf("%s %s: %s", name, w, why)
		}
	}
	for name, got := range bad {
		t.Errorf("%s was judged %s; the demo advertises %s", name, got, want[name])
	}
	// Past two read expiries, the stalled member is still there (it reads
	// now and then, committing nothing), so the group stays STALLED.
	for time.Since(started) < 2*readExpiry {
		time.Sleep(100 * time.Millisecond) // letting two read expiries pass: the member must outlast them
	}
	gs, err := q.GroupList(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range mon.ObserveGroups(gs, time.Now()) {
		if st.Info.Name == "archiver" && (st.Info.Members == 0 || st.Word != health.Stalled) {
			t.Errorf("archiver after %v (read expiry %v): %d members, %v (%s)", time.Since(started).Round(time.Second), readExpiry, st.Info.Members, st.Word, st.Reason)
		}
	}
}

// rightReason checks that a status shows its word for the word's reason,
// and says what it saw ("" when not).
func rightReason(st health.GroupStatus) string {
	g, l := st.Info, st.Lag
	switch st.Word {
	case health.OK:
		if g.Members > 0 && st.Rate > 0 {
			return fmt.Sprintf("%d member(s) committing %.0f/s, lag %d", g.Members, st.Rate, l.Records)
		}
	case health.Lagging:
		if g.Members > 0 && st.Rate > 0 && st.Growth > 0 {
			return fmt.Sprintf("committing %.0f/s while the lag grew by %d to %d", st.Rate, st.Growth, l.Records)
		}
	case health.Stalled:
		if g.Members > 0 && l.Records > 0 && st.Rate == 0 && !st.StalledSince.IsZero() {
			return fmt.Sprintf("%d member(s), lag %d, no commit advanced since %s", g.Members, l.Records, st.StalledSince.Format("15:04:05.000"))
		}
	case health.Stopped:
		if g.Members == 0 && l.Records > 0 {
			return fmt.Sprintf("no member, lag %d (%d partitions without a commit)", l.Records, l.NoCommit)
		}
	case health.Empty:
		if g.Members == 0 && l.Known() && l.Records == 0 {
			return "no member, lag 0"
		}
	case health.Rewound:
		if strings.Contains(st.Reason, "moved back") {
			return st.Reason
		}
	case health.Rebalancing:
		if g.State == admin.GroupPreparingRebalance || g.State == admin.GroupCompletingRebalance {
			return "state " + string(g.State)
		}
	}
	return ""
}

// Seed puts a Set into a fresh engine: the Snapshot's records spread
// evenly over the partitions, its queue messages and quarantine entry.
func TestSeedSnapshot(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engine.Config{})
	stop, err := Seed(e, Snapshot)
	if err != nil {
		t.Fatal(err)
	}
	stop()
	stop() // idempotent
	if _, end := e.TopicOffsets("ORDER.EVENT"); len(end) != 3 || end[0] != 4 || end[1] != 4 || end[2] != 4 {
		t.Fatalf("ORDER.EVENT end offsets %v, want 4 per partition", end)
	}
	if n := sum(e, "PAYMENT.RESULT"); n != 4 {
		t.Fatalf("PAYMENT.RESULT holds %d records, want 4", n)
	}
	if n := sum(e, "AUDIT.LOG"); n != 0 {
		t.Fatalf("AUDIT.LOG holds %d records, want none", n)
	}
	if d, err := e.QueueDepth("ORDER.IN"); err != nil || d != 5 {
		t.Fatalf("ORDER.IN depth %d (%v), want 5", d, err)
	}
	if d, err := e.QueueDepth("PAYMENT.OUT"); err != nil || d != 0 {
		t.Fatalf("PAYMENT.OUT depth %d (%v), want 0", d, err)
	}
	if e.QuarantineLen() != 1 {
		t.Fatalf("quarantine holds %d, want 1", e.QuarantineLen())
	}
	// Every tenth seeded record is binary (the sanitizer's demo). Records
	// are read once below the high watermark, which can lag the log end
	// while a follower replicates.
	var binary, read int
	ilinktest.WaitFor(t, 20*time.Second, "ORDER.EVENT's 12 records below the high watermark", func() bool {
		binary, read = 0, 0
		for p := range 3 {
			rs, err := e.ReadPartition("ORDER.EVENT", p, 0, 10)
			if err != nil {
				t.Fatal(err)
			}
			read += len(rs)
			for _, r := range rs {
				if len(r.Value) > 0 && r.Value[0] == 0 {
					binary++
				}
			}
		}
		return read == 12
	})
	if binary != 1 {
		t.Fatalf("%d binary records among ORDER.EVENT's 12, want 1 (the 10th)", binary)
	}
}

// TailSet adds its target topic and keeps feeding every topic until stop.
func TestSeedTailSetFeeds(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engine.Config{})
	if s := TailSet("ORDER.*"); len(s.Topics) != len(TailTopics) {
		t.Fatalf("a pattern target adds a topic: %+v", s.Topics)
	}
	set := TailSet("MY.TOPIC")
	set.Feed = 10 * time.Millisecond
	stop, err := Seed(e, set)
	if err != nil {
		t.Fatal(err)
	}
	for _, topic := range append(TailTopics, "MY.TOPIC") {
		if n := sum(e, topic); n < 20 {
			stop()
			t.Fatalf("%s holds %d records after Seed, want at least 20", topic, n)
		}
	}
	if !ilinktest.Poll(10*time.Second, func() bool { return sum(e, "MY.TOPIC") >= 23 }) {
		stop()
		t.Fatalf("the feed added %d records in 10 s", sum(e, "MY.TOPIC")-20)
	}
	stop()
	after := sum(e, "MY.TOPIC")
	// A stopped feed writes nothing more: 50 feed periods later the count
	// is the same (a sleep that is the thing under test: nothing happens).
	time.Sleep(500 * time.Millisecond)
	if n := sum(e, "MY.TOPIC"); n != after {
		t.Fatalf("the feed wrote %d records after stop", n-after)
	}
}

// A feed's stop returns once its publish in flight is answered: a write
// the engine takes in after stop returned (here held before it is
// handled) would be a record the stopped feed wrote.
func TestSeedFeedStopWaitsForItsWrite(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engine.Config{})
	set := TailSet("MY.TOPIC")
	set.Feed = 10 * time.Millisecond
	stop, err := Seed(e, set)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	var hold atomic.Bool
	held := make(chan struct{}, 1)
	e.Control(func(ev *engine.ControlEvent) engine.ControlAction {
		if ev.Code == wire.CodeAdminPublish && hold.Load() {
			select {
			case held <- struct{}{}:
			default:
			}
			time.Sleep(300 * time.Millisecond) // holding the publish: not handled yet when stop is called
		}
		return engine.ControlAction{}
	})
	total := func() (n int64) {
		for _, topic := range set.Topics {
			n += sum(e, topic.Name)
		}
		return n
	}
	hold.Store(true)
	select {
	case <-held:
	case <-time.After(10 * time.Second):
		t.Fatal("the feed published nothing")
	}
	stop()
	after := total()
	hold.Store(false)
	time.Sleep(500 * time.Millisecond) // the held publish, had it been abandoned, lands by now
	if n := total(); n != after {
		t.Fatalf("the stopped feed wrote %d records after stop returned", n-after)
	}
}

// The demo's topics fit a smaller engine: replicas and minSync at most the
// nodes it has. engine --demo --nodes 1 failed, its 3-replica topics
// refused ("replicas: 3 but the cluster has 1 node").
func TestSeedFitsASmallerCluster(t *testing.T) {
	for _, c := range []struct {
		props string
		nodes int
		want  string
	}{
		{"partitions=6,replicas=3,minSync=2,retention.ms=3600000", 1, "partitions=6,replicas=1,minSync=1,retention.ms=3600000"},
		{"partitions=6,replicas=3,minSync=2", 2, "partitions=6,replicas=2,minSync=2"},
		{"partitions=6,minSync=2,replicas=3", 3, "partitions=6,minSync=2,replicas=3"},
		{"partitions=3", 1, "partitions=3"},
	} {
		if got := fitted(c.props, c.nodes); got != c.want {
			t.Errorf("fitted(%q, %d) = %q, want %q", c.props, c.nodes, got, c.want)
		}
	}
	t.Parallel()
	e := startEngine(t, engine.Config{Nodes: 1})
	stop, err := Seed(e, Set{Topics: Topics, Queues: Queues})
	if err != nil {
		t.Fatalf("the demo on one node: %v", err)
	}
	stop()
	if n := len(e.Topics()); n < len(Topics) {
		t.Fatalf("%d topics on one node, want the demo's %d", n, len(Topics))
	}
	for _, ti := range e.Topics() {
		if ti.Replicas > 1 || ti.MinSync > 1 {
			t.Errorf("%s: replicas %d, minSync %d on one node", ti.Name, ti.Replicas, ti.MinSync)
		}
	}
}
