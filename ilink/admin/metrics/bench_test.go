package metrics

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/admin/health"
	"ilinkdash/ilink/admin/watch"
)

// bigSnapshot is a synthetic cluster of topics topics of 4 partitions and
// groups groups, each consuming 5 topics (20 partitions), judged by the
// real Monitor (through a Watcher, returned too: what an exporter holds
// beside the snapshot), so the statuses are the rules' own. It observes
// the lists bigRounds times 2 s apart: the history a watcher holds on the
// default interval (2 s) and window (10 s).
const bigRounds = 6

func bigSnapshot(topics, groups int, at time.Time) (*watch.Watcher, *watch.Snapshot) {
	w := watch.New(watch.Config{Context: "bench", Target: "ilink-1.example:5000", Health: health.DefaultConfig()}, watch.Source{})
	nodes := []admin.NodeInfo{{ID: 1, QueueManager: "QM1", Role: admin.RoleLeader, State: admin.NodeRunning},
		{ID: 2, QueueManager: "QM2", Role: admin.RoleFollower, State: admin.NodeRunning},
		{ID: 3, QueueManager: "QM3", Role: admin.RoleFollower, State: admin.NodeDown}}
	ts := make([]admin.TopicInfo, topics)
	for i := range ts {
		ts[i] = admin.TopicInfo{Name: fmt.Sprintf("topic.%05d", i), Partitions: 4, Replicas: 3, UnderReplicated: i % 3}
	}
	qs := make([]admin.QueueInfo, 200)
	for i := range qs {
		qs[i] = admin.QueueInfo{Name: fmt.Sprintf("Q.%03d", i), Depth: int64(i * 100)}
	}
	// As admin.GroupList cuts them: one array of topics and one of
	// partitions for the whole list.
	groupList := func(round int) []admin.GroupInfo {
		gs := make([]admin.GroupInfo, groups)
		names := make([]string, 0, groups*5)
		parts := make([]admin.PartitionOffsets, 0, groups*5*4)
		for i := range gs {
			g := admin.GroupInfo{Name: fmt.Sprintf("group-%04d", i), State: admin.GroupStable, Members: 1 + i%3, Durable: true, Generation: 1}
			if i%10 == 0 {
				g.State, g.Members = admin.GroupEmpty, 0
			}
			t0, p0 := len(names), len(parts)
			for t := range 5 {
				topic := ts[(i*5+t)%topics].Name
				names = append(names, topic)
				for p := range int32(4) {
					end := int64(1000 + round*100)
					parts = append(parts, admin.PartitionOffsets{Topic: topic, Partition: p, Committed: end - int64(i%7)*10, LogStart: 0, End: end})
				}
			}
			g.Topics, g.Partitions = names[t0:len(names):len(names)], parts[p0:len(parts):len(parts)]
			gs[i] = g
		}
		return gs
	}
	for round := range bigRounds {
		t := at.Add(time.Duration(round-bigRounds) * 2 * time.Second)
		w.Observe(watch.Nodes, nodes, nil, t)
		w.Observe(watch.Topics, ts, nil, t)
		w.Observe(watch.Queues, qs, nil, t)
		w.Observe(watch.Groups, groupList(round), nil, t)
	}
	// Observe marked the lists not polled (an empty Source): mark them
	// polled, as a watcher over a real source has them.
	s := *w.Snapshot()
	for l := range watch.NumLists {
		s.Lists[l].Polled = l != watch.Definition
	}
	return w, &s
}

// BenchmarkScrape10kTopics2kGroups: one scrape (collect, gather, encode
// the text exposition) of a 10,000-topic, 2,000-group snapshot, per
// partition series on (the heaviest: ~40,000 lag and ~40,000 end-offset
// series) and off. The goal: ≤ 100 ms and modest memory (issue 26).
func BenchmarkScrape10kTopics2kGroups(b *testing.B) {
	now := time.Now()
	_, s := bigSnapshot(10000, 2000, now)
	for _, c := range []struct {
		per  bool
		gzip bool
	}{{true, false}, {false, false}, {true, true}} {
		b.Run(fmt.Sprintf("per-partition=%v/gzip=%v", c.per, c.gzip), func(b *testing.B) {
			e := New("bench", func() *watch.Snapshot { return s }, Options{PerPartition: c.per, Now: func() time.Time { return now }})
			h := e.Handler(Probes{})
			req := httptest.NewRequest("GET", "/metrics", nil)
			if c.gzip {
				req.Header.Set("Accept-Encoding", "gzip")
			}
			w := &discardWriter{h: http.Header{}}
			h.ServeHTTP(w, req) // a first scrape, as the RSS benchmark measures from the second
			runtime.GC()
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				w.n = 0
				h.ServeHTTP(w, req)
			}
			b.StopTimer()
			var after runtime.MemStats
			runtime.ReadMemStats(&after)
			out, _ := e.Scrape(nil)
			b.ReportMetric(float64(countSeries(string(out))), "series")
			b.ReportMetric(float64(w.n)/(1<<20), "body-MiB")
			b.ReportMetric(float64(after.HeapInuse)/(1<<20), "heap-inuse-MiB")
			b.ReportMetric(float64(after.Sys)/(1<<20), "sys-MiB")
		})
	}
}

// discardWriter is an http.ResponseWriter that counts the body's bytes.
type discardWriter struct {
	h http.Header
	n int
}

func (w *discardWriter) Header() http.Header { return w.h }
func (w *discardWriter) WriteHeader(int)     {}
func (w *discardWriter) Write(p []byte) (int, error) {
	w.n += len(p)
	return len(p), nil
}

func countSeries(text string) int {
	n, start := 0, true
	for i := 0; i < len(text); i++ {
		if start && text[i] != '#' && text[i] != '\n' {
			n++
		}
		start = text[i] == '\n'
	}
	return n
}
