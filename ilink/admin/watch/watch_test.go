package watch

import (
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/admin/health"
	"ilinkdash/ilink/ilinktest"
)

// Run polls every list of the Source on its interval, one read of a list
// at a time; each answer is judged by the Monitor and published, and
// OnPoll and OnSnapshot hear it.
func TestRunPollsAndJudges(t *testing.T) {
	var reads [NumLists]atomic.Int32
	var inFlight atomic.Int32
	src := Source{
		Nodes: func(context.Context) ([]admin.NodeInfo, error) {
			reads[Nodes].Add(1)
			if inFlight.Add(1) > 1 {
				t.Error("two node reads at once")
			}
			defer inFlight.Add(-1)
			return []admin.NodeInfo{{ID: 1, QueueManager: "QM1", Role: admin.RoleLeader, State: admin.NodeRunning},
				{ID: 2, QueueManager: "QM2", State: admin.NodeDown}}, nil
		},
		Groups: func(context.Context) ([]admin.GroupInfo, error) {
			reads[Groups].Add(1)
			return []admin.GroupInfo{{Name: "g", State: admin.GroupEmpty, Durable: true,
				Partitions: []admin.PartitionOffsets{{Topic: "t", Partition: 0, Committed: 1, LogStart: 0, End: 5}}}}, nil
		},
	}
	var mu sync.Mutex
	var polls, snaps int
	cfg := Config{Context: "c", Target: "ilink-1.example:5000", Health: health.DefaultConfig(),
		OnPoll:     func(List, time.Duration, error) { mu.Lock(); polls++; mu.Unlock() },
		OnSnapshot: func(*Snapshot) { mu.Lock(); snaps++; mu.Unlock() }}
	for l := range cfg.Interval {
		cfg.Interval[l] = 20 * time.Millisecond
	}
	w := New(cfg, src)
	if s := w.Snapshot(); s.Reachable() || !s.Lists[Nodes].Polled || s.Lists[Topics].Polled {
		t.Fatalf("before a poll: reachable %v, lists %+v", s.Reachable(), s.Lists)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	ilinktest.WaitFor(t, 10*time.Second, "three reads of each polled list", func() bool {
		return reads[Nodes].Load() >= 3 && reads[Groups].Load() >= 3
	})
	cancel()
	<-done
	s := w.Snapshot()
	now := s.Lists[Groups].OKAt
	if !s.Reachable() || !s.Fresh(Nodes, now) || s.Fresh(Topics, now) || reads[Topics].Load() != 0 {
		t.Errorf("after polling: reachable %v, fresh nodes %v, topics %v", s.Reachable(), s.Fresh(Nodes, now), s.Fresh(Topics, now))
	}
	if len(s.Groups) != 1 || s.Groups[0].Word != health.Stopped || s.Groups[0].Lag.Records != 4 {
		t.Errorf("the group: %+v", s.Groups)
	}
	kinds := map[health.Kind]bool{}
	for _, a := range s.Alerts {
		kinds[a.Kind] = true
	}
	if !kinds[health.KindNodeDown] || !kinds[health.KindGroupStopped] {
		t.Errorf("alerts: %+v", s.Alerts)
	}
	mu.Lock()
	defer mu.Unlock()
	if polls < 6 || snaps != polls {
		t.Errorf("OnPoll heard %d polls, OnSnapshot %d snapshots", polls, snaps)
	}
}

// A failed read keeps the list's last data but marks it failing; the
// unreachable alert comes first while a read cannot reach the cluster,
// and goes when it answers again.
func TestFailingList(t *testing.T) {
	fail := true
	src := Source{Nodes: func(context.Context) ([]admin.NodeInfo, error) {
		if fail {
			return nil, &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
		}
		return []admin.NodeInfo{{ID: 1, Role: admin.RoleLeader, State: admin.NodeRunning}}, nil
	}}
	w := New(Config{Target: "ilink-1.example:5000"}, src)
	ctx := context.Background()
	if err := w.Poll(ctx, Nodes); err == nil {
		t.Fatal("the failing read returned no error")
	}
	s := w.Snapshot()
	if s.Reachable() || len(s.Alerts) != 1 || s.Alerts[0].Kind != health.KindUnreachable ||
		s.Alerts[0].Text != "cannot reach ilink-1.example:5000: dial tcp: connection refused" {
		t.Fatalf("unreachable: reachable %v, alerts %+v", s.Reachable(), s.Alerts)
	}
	fail = false
	if err := w.Poll(ctx, Nodes); err != nil {
		t.Fatal(err)
	}
	if s := w.Snapshot(); !s.Reachable() || len(s.Alerts) != 0 || s.Lists[Nodes].Err != nil {
		t.Fatalf("back: reachable %v, alerts %+v", s.Reachable(), s.Alerts)
	}
	// An engine answering with an error was reached: no unreachable alert.
	w.Observe(Nodes, nil, errors.New("MIMQE_SOMETHING"), time.Now())
	if s := w.Snapshot(); !s.Reachable() || len(s.Alerts) != 0 || s.Fresh(Nodes, time.Now()) {
		t.Fatalf("an error answer: reachable %v, alerts %+v", s.Reachable(), s.Alerts)
	}
	if w.LastPoll().IsZero() || w.MaxPollGap() != 2*2*time.Second+w.Timeout(Nodes) {
		t.Errorf("last poll %v, max gap %v", w.LastPoll(), w.MaxPollGap())
	}
}

func TestAlertList(t *testing.T) {
	for k, want := range map[health.Kind]List{health.KindNodeDown: Nodes, health.KindNoLeader: Nodes, health.KindNodeAbsent: Nodes,
		health.KindOffline: Topics, health.KindUnderReplicated: Topics, health.KindQueueFull: Queues, health.KindDLQGrowing: Queues,
		health.KindGroupStalled: Groups, health.KindGroupUnlisted: Groups} {
		if l, ok := AlertList(k); !ok || l != want {
			t.Errorf("%s: %v %v, want %v", k, l, ok, want)
		}
	}
	if _, ok := AlertList(health.KindUnreachable); ok {
		t.Error("the unreachable alert has a list")
	}
}
