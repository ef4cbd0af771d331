package live

import (
	"context"
	"fmt"
	"testing"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/engine/enginetest"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/position"
	"ilinkdash/ilink/wire"
	"ilinkdash/ui/views/publish"
	"ilinkdash/ui/views/tail"
)

// A spoke context (hub + spoke): the views' lists, a publish run and a
// tail all go through the hub, and reach the spoke, not the hub.
func TestSpokeThroughHubPublishAndTail(t *testing.T) {
	t.Parallel()
	hub := enginetest.Hub(t, "PLANT-7")
	spoke := hub.SpokeEngine("PLANT-7")
	ilinktest.WaitFor(t, deadline, "the spoke linked", spoke.HubLinked)
	const topic, n = "PLANT.T", 40
	if err := spoke.CreateTopic(topic, "partitions=2"); err != nil {
		t.Fatal(err)
	}
	src, err := New(Config{Hub: hub.AdminAddrs()[0], Spoke: "PLANT-7", ClientName: "live-test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	if got := src.Target(); got != "spoke PLANT-7 via "+hub.AdminAddrs()[0] {
		t.Errorf("Target %q", got)
	}
	ctx := callCtx(t)
	ts, err := src.ListTopics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := topicNamed(ts, topic); !ok {
		t.Fatalf("the topics through the hub are not the spoke's: %+v", ts)
	}

	run, err := src.StartPublish(ctx, publish.Spec{Topic: topic, Count: n, Acks: "all",
		Record: func(seq int64, r *publish.Record) { r.Value = fmt.Appendf(r.Value[:0], "v%d", seq) }})
	if err != nil {
		t.Fatal(err)
	}
	ilinktest.WaitFor(t, deadline, "the publish run to end", func() bool { return run.Progress().Done })
	if p := run.Progress(); p.Acked != n || p.Failed != 0 {
		t.Fatalf("publish through the hub: %+v", p)
	}
	if _, err := hub.TopicPartitions(topic); err == nil {
		t.Fatal("the hub has the spoke's topic: the run went to the hub")
	}

	s, err := src.StartTail(context.Background(), tail.Spec{Target: topic, From: position.Position{Kind: position.Earliest, Partition: -1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	seen := map[string]bool{}
	timeout := time.After(deadline)
	for len(seen) < n {
		select {
		case b, ok := <-s.Records():
			if !ok {
				t.Fatalf("tail ended after %d records: %v", len(seen), s.Err())
			}
			for _, r := range b.Records {
				seen[string(r.Value)] = true
			}
		case <-timeout:
			t.Fatalf("tail through the hub: %d of %d records", len(seen), n)
		}
	}

	// The group calls' short connections go through the hub too: the
	// tail's group is listed.
	gs, err := src.ListGroups(ctx)
	if err != nil || len(gs) == 0 {
		t.Fatalf("groups through the hub: %+v, %v", gs, err)
	}

	// A spoke the hub does not know: the error names it and wire's name.
	bad, err := New(Config{Hub: hub.AdminAddrs()[0], Spoke: "NOPE"})
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	if _, err := bad.ListTopics(ctx); !ilink.HasName(err, wire.ErrUnknownSpoke) {
		t.Fatalf("unknown spoke: %v", err)
	}
}
