package consumer

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/ilinktest"
)

// chaosCluster is what the coordinator-move test needs from a cluster
// (engineChaos, engine_groups_test.go: the engine, whose coordinator the
// fake's used to stand in for).
type chaosCluster interface {
	Addrs() string
	CreateTopic(t testing.TB, topic string, partitions int)
	Produce(t testing.TB, topic string, p int32, n int)
	EndOffsets(t testing.TB, topic string) []int64
	Commit(t testing.TB, group, topic string, p int32) (int64, bool)
	MoveCoordinator(t testing.TB, group string)
	// Faults adds coordinator error bursts if the cluster can; it returns
	// a function that removes them.
	Faults(t testing.TB) func()
	// Owners returns the coordinator's current owner of each partition
	// that some member holds; an error when it shows one partition held by
	// two members.
	Owners(t testing.TB, group string) (map[tp]string, error)
}

// runCoordinatorMoveChaos is anchors §4.2 item 4: a group of 3 members on
// 6 partitions consumes a continuous stream while the coordinator moves
// (plus coordinator error bursts and a member leaving and joining). It
// checks that the group converges, commits never go backwards, the
// coordinator never gives one partition to two members, every record is
// processed at least once, and the final commits are the end offsets.
func runCoordinatorMoveChaos(t *testing.T, cl chaosCluster, sessionTimeout time.Duration) {
	const topic, group, parts = "CHAOS", "chaos", 6
	cl.CreateTopic(t, topic, parts)
	stopProduce := loopUntilStopped(t, func(i int) {
		cl.Produce(t, topic, int32(i%parts), 10)
		time.Sleep(500 * time.Microsecond) // pacing the stream: a continuous load, not a wait for a condition
	})

	var mu sync.Mutex
	processed := map[tp]map[int64]int{}
	var violations []string
	type runner struct {
		c    *Consumer
		done chan struct{}
		stop chan struct{}
	}
	start := func(name string) *runner {
		o := NewOptions()
		o.Group = group
		o.Logf = testLogf(t)
		o.AutoCommitInterval = 100 * time.Millisecond
		o.fetchMaxWait = 100 * time.Millisecond
		c, err := Subscribe(testCtx(t, 30*time.Second), cl.Addrs(), topic, o)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		r := &runner{c: c, done: make(chan struct{}), stop: make(chan struct{})}
		go func() {
			defer close(r.done)
			for {
				select {
				case <-r.stop:
					return
				default:
				}
				rs, err := c.ReadBatch(context.Background(), 500, 50*time.Millisecond)
				if err != nil {
					if !ilink.IsNoMessage(err) {
						t.Errorf("%s: read: %v", name, err)
					}
					continue
				}
				mu.Lock()
				for _, rec := range rs {
					k := tp{rec.Topic, rec.Partition}
					if processed[k] == nil {
						processed[k] = map[int64]int{}
					}
					processed[k][rec.Offset]++
				}
				mu.Unlock()
			}
		}()
		return r
	}
	stopRunner := func(r *runner) {
		close(r.stop)
		<-r.done
	}

	// Commits never go backwards, and the coordinator never shows one
	// partition owned by two members: poll both.
	stopWatch := make(chan struct{})
	var watched sync.WaitGroup
	watched.Add(1)
	go func() {
		defer watched.Done()
		last := map[int32]int64{}
		for {
			select {
			case <-stopWatch:
				return
			case <-time.After(20 * time.Millisecond):
			}
			for p := int32(0); p < parts; p++ {
				if o, ok := cl.Commit(t, group, topic, p); ok {
					if o < last[p] {
						mu.Lock()
						violations = append(violations, fmt.Sprintf("commit of partition %d went back %d -> %d", p, last[p], o))
						mu.Unlock()
					}
					last[p] = o
				}
			}
			if _, err := cl.Owners(t, group); err != nil {
				mu.Lock()
				violations = append(violations, err.Error())
				mu.Unlock()
			}
		}
	}()

	members := []*runner{start("m1"), start("m2"), start("m3")}
	// agreed returns each member's id and generation once the coordinator
	// and the members agree on who holds every partition.
	agreed := func() (map[int]string, map[int]int32, bool) {
		owners, err := cl.Owners(t, group)
		if err != nil || len(owners) != parts {
			return nil, nil, false
		}
		ids, gens := map[int]string{}, map[int]int32{}
		for i, m := range members {
			id, gen := m.c.MemberID()
			for _, a := range m.c.Assignment() {
				for _, p := range a.Partitions {
					if owners[tp{a.Topic, p}] != id {
						return nil, nil, false
					}
				}
			}
			ids[i], gens[i] = id, gen
		}
		return ids, gens, true
	}
	waitAgreed := func(what string) (ids map[int]string, gens map[int]int32) {
		if !ilinktest.Poll(sessionTimeout+5*time.Second, func() bool {
			var ok bool
			ids, gens, ok = agreed()
			return ok
		}) {
			t.Fatalf("%s: the coordinator and the members never agreed on the owners", what)
		}
		return ids, gens
	}
	// consumed waits until the group has processed another 100 records:
	// between two faults the group makes progress, however loaded the
	// machine (the faults are not all piled into the same instant).
	consumed := func(what string) {
		total := func() int {
			mu.Lock()
			defer mu.Unlock()
			n := 0
			for _, offs := range processed {
				n += len(offs)
			}
			return n
		}
		from := total()
		if !ilinktest.Poll(sessionTimeout+5*time.Second, func() bool { return total() >= from+100 }) {
			t.Fatalf("%s: the group processed %d records in %v", what, total()-from, sessionTimeout+5*time.Second)
		}
	}
	idsBefore, gensBefore := waitAgreed("before the move")
	removeFaults := cl.Faults(t)
	cl.MoveCoordinator(t, group)
	// A coordinator move changes no membership: the new coordinator knows
	// every member, so nobody rejoins and no partition changes hands (the
	// members keep their ids and generations).
	idsAfter, gensAfter := waitAgreed("after the move")
	for i := range members {
		if idsAfter[i] != idsBefore[i] || gensAfter[i] != gensBefore[i] {
			t.Errorf("member %d was %s generation %d before the coordinator move, %s generation %d after",
				i+1, idsBefore[i], gensBefore[i], idsAfter[i], gensAfter[i])
		}
	}
	consumed("after the move")
	// A member leaves and another joins.
	stopRunner(members[1])
	members[1].c.Close()
	members[1] = start("m4")
	consumed("after the member change")
	cl.MoveCoordinator(t, group)
	consumed("after the second move")
	removeFaults()
	stopProduce()
	ends := cl.EndOffsets(t, topic)

	// Convergence: within the session timeout + 2 s every record has been
	// processed and the members hold all partitions, disjointly.
	var held map[int32]int
	if !ilinktest.Poll(sessionTimeout+2*time.Second, func() bool {
		done := true
		mu.Lock()
		for p := int32(0); p < parts; p++ {
			got := processed[tp{topic, p}]
			for o := int64(0); o < ends[p]; o++ {
				if got[o] == 0 {
					done = false
					break
				}
			}
		}
		mu.Unlock()
		held = map[int32]int{}
		for _, m := range members {
			for _, a := range m.c.Assignment() {
				for _, p := range a.Partitions {
					held[p]++
					if m.c.Position(topic, p) != ends[p] {
						done = false // the holder has not caught up yet
					}
				}
			}
		}
		for p := int32(0); p < parts; p++ {
			if held[p] != 1 {
				done = false
			}
		}
		// The coordinator agrees: each partition is owned by the member id
		// of the consumer reading it (a member that has not noticed a
		// coordinator move yet still reads partitions it lost).
		if owners, err := cl.Owners(t, group); done && err == nil {
			for _, m := range members {
				id, _ := m.c.MemberID()
				for _, a := range m.c.Assignment() {
					for _, p := range a.Partitions {
						if owners[tp{topic, p}] != id {
							done = false
						}
					}
				}
			}
		} else if err != nil {
			done = false
		}
		return done
	}) {
		t.Fatalf("group did not converge: held %v", held)
	}
	for _, m := range members {
		stopRunner(m)
	}
	for _, m := range members {
		m.c.Close()
	}
	close(stopWatch)
	watched.Wait()
	for p := int32(0); p < parts; p++ {
		// Final commits are the end offsets (commit = next offset).
		if o, _ := cl.Commit(t, group, topic, p); o != ends[p] {
			t.Errorf("partition %d: final commit %d, end offset %d", p, o, ends[p])
		}
	}
	mu.Lock()
	defer mu.Unlock()
	dups := 0
	for _, m := range processed {
		for _, n := range m {
			dups += n - 1
		}
	}
	total := int64(0)
	for _, e := range ends {
		total += e
	}
	t.Logf("%d records, %d processed twice or more", total, dups)
	// Re-reads come only from the two real rebalances (a member leaves,
	// another joins), and a holder commits what it read before it lets a
	// partition go: at most one read window (500 records) each.
	if dups > 2*500 {
		t.Errorf("%d records processed twice, more than two read windows", dups)
	}
	for _, v := range violations {
		t.Error(v)
	}
}
