package admin

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"ilinkdash/ilink/engine"
)

// Issue 5 acceptance: with 10,000 topics and 2,000 groups in the engine,
// one full poll of topics + groups + replication takes under 250 ms.
//
//	go test -run XXX -bench FullPoll -benchtime 20x ./ilink/admin/

const (
	benchTopics = 10000
	benchGroups = 2000
)

var (
	pollOnce    sync.Once
	pollEngine  *engine.Engine
	pollService *Service
	pollErr     error
)

func pollFixture(b *testing.B) (*engine.Engine, *Service) {
	pollOnce.Do(func() {
		start := time.Now()
		pollEngine, pollErr = engine.Start(engine.Config{ElectionDelay: time.Second, QueueManager: "QMBENCH", Cluster: "CBENCH"})
		if pollErr != nil {
			return
		}
		for i := 0; i < benchTopics; i++ {
			if pollErr = pollEngine.CreateTopic(fmt.Sprintf("BENCH.TOPIC.%05d", i), "partitions=1"); pollErr != nil {
				return
			}
		}
		ctx := context.Background()
		if pollService, pollErr = Connect(ctx, pollEngine.AdminAddrs()[0], Options{}); pollErr != nil {
			return
		}
		q := pollService.AccessAdminQmgr("")
		// Each group gets a commit on its own topic (a group with a commit
		// and no member), in parallel to keep the setup short.
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for w := 0; w < 8; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				for g := w; g < benchGroups; g += 8 {
					if _, err := q.SeekGroup(ctx, fmt.Sprintf("bench-group-%04d", g), fmt.Sprintf("BENCH.TOPIC.%05d", g), SeekTarget{Offset: 0}); err != nil {
						errs <- err
						return
					}
				}
			}(w)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			pollErr = err
			return
		}
		b.Logf("fixture: %d topics, %d groups in %v", benchTopics, benchGroups, time.Since(start).Round(time.Millisecond))
	})
	if pollErr != nil {
		b.Fatal(pollErr)
	}
	return pollEngine, pollService
}

// BenchmarkFullPoll is one dashboard poll: topic list, group list and
// replication status, sequentially, as ms/poll.
func BenchmarkFullPoll(b *testing.B) {
	_, s := pollFixture(b)
	q := s.AccessAdminQmgr("")
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	var worst time.Duration
	for i := 0; i < b.N; i++ {
		start := time.Now()
		ts, err := q.Topics(ctx)
		if err != nil {
			b.Fatal(err)
		}
		gs, err := q.GroupList(ctx)
		if err != nil {
			b.Fatal(err)
		}
		rs, err := q.ReplicationStatus(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if len(ts) < benchTopics || len(gs) != benchGroups || len(rs.Partitions) < benchTopics {
			b.Fatalf("poll saw %d topics, %d groups, %d partitions", len(ts), len(gs), len(rs.Partitions))
		}
		worst = max(worst, time.Since(start))
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/poll")
	b.ReportMetric(float64(worst.Microseconds())/1000, "worst-ms")
}

// BenchmarkPollParts times each part of the poll alone.
func BenchmarkPollParts(b *testing.B) {
	_, s := pollFixture(b)
	q := s.AccessAdminQmgr("")
	ctx := context.Background()
	for _, part := range []struct {
		name string
		fn   func() error
	}{
		{"Topics", func() error { _, err := q.Topics(ctx); return err }},
		{"GroupList", func() error { _, err := q.GroupList(ctx); return err }},
		{"ReplicationStatus", func() error { _, err := q.ReplicationStatus(ctx); return err }},
		{"Nodes", func() error { _, err := q.Nodes(ctx); return err }},
	} {
		b.Run(part.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if err := part.fn(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
		})
	}
}
