package demo

import (
	"context"
	"testing"
	"time"

	"ilinkdash/ilink/engine"
)

func TestDemoGivesEveryViewSomethingToShow(t *testing.T) {
	e, err := engine.Start(engine.Config{ElectionDelay: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	d, err := Start(e, Options{Rate: 1000, LeaderMoveEvery: -1, RebalanceEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	want := map[string]bool{"billing": false, "analytics": false, "shipping": false, "archiver": false, "fraud-check": false, "legacy-export": false}
	for {
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
		if all && sum(e, "ORDER.EVENT") > 100 && sum(e, "AUDIT.LOG") > 10 {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("after 20s: groups seen %v, ORDER.EVENT end sum %d", want, sum(e, "ORDER.EVENT"))
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, q := range Queues {
		for _, name := range []string{q.Name, q.Cfg.DeadLetterQueue} {
			if _, err := e.QueueDepth(name); err != nil {
				t.Errorf("queue %s: %v", name, err)
			}
		}
	}
	for d, _ := e.QueueDepth("PAYMENT.DLQ"); d == 0; d, _ = e.QueueDepth("PAYMENT.DLQ") {
		if ctx.Err() != nil {
			t.Fatal("PAYMENT.DLQ stayed empty: the poison message was not dead-lettered")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if e.QuarantineLen() != 3 {
		t.Errorf("quarantine holds %d entries, want 3", e.QuarantineLen())
	}
	// The caught-up group commits close to the end; the stalled one does not move.
	time.Sleep(3 * time.Second)
	arch1 := commitSum(e, "archiver", "AUDIT.LOG")
	time.Sleep(2500 * time.Millisecond)
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
