package engine

import (
	"fmt"
	"testing"

	"ilinkdash/ilink/wire"
)

// groupsLog is the number of records and bytes SYSTEM.GROUPS partition p
// holds on its leader.
func groupsLog(t testing.TB, e *Engine, p int) (records, bytes int64) {
	t.Helper()
	pi := partitionInfo(t, e, wire.GroupsTopic, p)
	return pi.EndOffset - pi.StartOffset, pi.Bytes
}

// compactMin is the GroupCompactMin of compactingEngine: low, so that a
// test reaches it in a few hundred commits.
const compactMin = 100

// compactingEngine is a group engine that compacts SYSTEM.GROUPS from
// compactMin records on, with one topic T.
func compactingEngine(t testing.TB, props string) *Engine {
	t.Helper()
	cfg := groupConfig()
	cfg.GroupCompactMin = compactMin
	return topicEngine(t, cfg, "T", props)
}

// Many commits over time leave SYSTEM.GROUPS bounded by the number of
// groups (the latest commit per group/topic/partition and the group and
// membership records), and the compacted state is what a new coordinator
// loads: after a move and after the coordinator's node dies.
func TestGroupsCompactionBoundsTheLog(t *testing.T) {
	t.Parallel()
	e := compactingEngine(t, "partitions=4")
	g := groupOn(t, e, 1, "compact")
	gp := groupPartition(g, e.Config().GroupPartitions)
	c := coordSession(t, e, g)
	j := c.mustJoin(g, "", true, "T")
	const rounds, perRound = 20, 100
	var maxHeld int64
	for r := 0; r < rounds; r++ {
		for i := 0; i < perRound; i++ {
			n := int64(r*perRound + i + 1)
			if _, f := c.commitAs(g, j, off("T", int32(i%4), n)); f != nil {
				t.Fatalf("commit %d: %v", n, f)
			}
		}
		held, _ := groupsLog(t, e, gp)
		maxHeld = max(maxHeld, held)
	}
	pi := partitionInfo(t, e, wire.GroupsTopic, gp)
	if pi.EndOffset < rounds*perRound {
		t.Fatalf("log end %d: the commits were not all written", pi.EndOffset)
	}
	// The live state is 1 group record + 1 membership record + 4 commits;
	// a compaction starts once GroupCompactMin records are held, so
	// afterwards the log holds that snapshot and what came after it.
	const bound = compactMin + 6
	eventually(t, "the log compacted", func() bool {
		held, _ := groupsLog(t, e, gp)
		return held <= bound
	})
	// Every commit checks the bound: the log never runs far past it.
	if maxHeld > 2*compactMin+perRound {
		t.Errorf("the log held up to %d records during the commits", maxHeld)
	}
	t.Logf("%d records written, at most %d held", pi.EndOffset, maxHeld)
	want := map[int32]int64{0: 1997, 1: 1998, 2: 1999, 3: 2000}
	check := func(when string, s *rawClient) {
		t.Helper()
		for p, o := range want {
			if got := s.committed(g, "T", p); got != o {
				t.Fatalf("%s: commit of T/%d is %d, want %d", when, p, got, o)
			}
		}
		if f := s.heartbeat(g, j); f != nil {
			t.Fatalf("%s: heartbeat of the member: %v", when, f)
		}
		if d := describe(t, e, g); d.State != GroupStable || len(d.Members) != 1 || d.Members[0].MemberID != j.MemberID {
			t.Fatalf("%s: %+v", when, d)
		}
	}
	check("compacted", c)
	// Every running replica dropped its head.
	gpart := e.topics.lookup(wire.GroupsTopic).partitions()[gp]
	gpart.mu.Lock()
	for _, r := range gpart.reps {
		if n := r.log.end - r.log.start; n > bound {
			t.Errorf("replica on node %d holds %d records (%d..%d)", r.node, n, r.log.start, r.log.end)
		}
	}
	gpart.mu.Unlock()
	// loaded waits until the group's coordinator answers OFFSET FETCH.
	loaded := func(what string) *rawClient {
		t.Helper()
		var nc *rawClient
		node := 0
		eventually(t, what, func() bool {
			if e.CoordinatorOf(g) == 0 {
				return false
			}
			if nc == nil || node != e.CoordinatorOf(g) {
				node = e.CoordinatorOf(g)
				nc = coordSession(t, e, g)
			}
			var rep wire.OffsetsReply
			return nc.call(wire.CodeOffsetFetch, 0, &wire.OffsetFetchRequest{Group: g}, &rep) == nil
		})
		return nc
	}
	// A move loads the snapshot.
	if _, err := e.MoveCoordinator(g); err != nil {
		t.Fatal(err)
	}
	check("after the move", loaded("the new coordinator loaded"))
	// And when the coordinator's node dies, the next replica loads it too.
	if err := e.KillNode(e.CoordinatorOf(g)); err != nil {
		t.Fatal(err)
	}
	check("after the kill", loaded("a coordinator after the kill"))
}

// Temporary groups come and go (every dashboard tail is one): each that
// ends with its last member leaves nothing in the coordinator's memory
// (no group, no kept generation) and, once compacted, nothing in
// SYSTEM.GROUPS, however many there were.
func TestTemporaryGroupChurnLeavesNothing(t *testing.T) {
	t.Parallel()
	e := compactingEngine(t, "partitions=2")
	sessions := map[int]*rawClient{}
	const churn = 300
	for i := 0; i < churn; i++ {
		g := fmt.Sprintf("tmp-%d", i)
		n := e.CoordinatorOf(g)
		c := sessions[n]
		if c == nil {
			c = coordSession(t, e, g)
			sessions[n] = c
		}
		j := c.mustJoin(g, "", false, "T")
		if _, f := c.commitAs(g, j, off("T", 0, int64(i+1))); f != nil {
			t.Fatalf("commit of %s: %v", g, f)
		}
		if f := c.leave(g, j); f != nil {
			t.Fatalf("leave %s: %v", g, f)
		}
	}
	for _, s := range e.groups.shards {
		s.mu.Lock()
		groups, gens := len(s.groups), len(s.gens)
		s.mu.Unlock()
		if groups != 0 || gens != 0 {
			t.Errorf("SYSTEM.GROUPS/%d: %d groups and %d kept generations after %d temporary groups ended", s.idx, groups, gens, churn)
		}
	}
	for p := 0; p < e.Config().GroupPartitions; p++ {
		eventually(t, fmt.Sprintf("SYSTEM.GROUPS/%d compacted", p), func() bool {
			held, _ := groupsLog(t, e, p)
			return held < compactMin
		})
	}
}
