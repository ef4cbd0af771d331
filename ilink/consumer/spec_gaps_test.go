package consumer

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/wire"
)

// Checks of rules no other test cites, against the in-process engine.

func engineTopics(e *engine.Engine) []string {
	var out []string
	for _, ti := range e.Topics() {
		out = append(out, ti.Name)
	}
	return out
}

// TestSpecClientsNeverCreateTopics: a producer sending to, and consumers
// subscribing to or assigning, an unknown topic leave the engine's topic
// list as it was.
func TestSpecClientsNeverCreateTopics(t *testing.T) {
	t.Parallel()
	e := startGroupEngine(t)
	if err := e.CreateTopic("T", "partitions=1"); err != nil {
		t.Fatal(err)
	}
	before := engineTopics(e)
	if !slices.Contains(before, "T") || slices.Contains(before, "GHOST") {
		t.Fatalf("topics %v", before)
	}
	unchanged := func(after string) {
		t.Helper()
		if got := engineTopics(e); !slices.Equal(got, before) { // spec: T-03
			t.Fatalf("topics after %s: %v, was %v", after, got, before)
		}
	}
	ctx := testCtx(t, 10*time.Second)
	p := newTestProducer(t, e, ilink.ProducerConfig{})
	if _, err := p.SendSync(ctx, &ilink.ProducerRecord{Topic: "GHOST", Value: []byte("x")}); !ilink.HasName(err, wire.ErrUnknownTopic) {
		t.Fatalf("send to an unknown topic: %v, want %s", err, wire.ErrUnknownTopic)
	}
	unchanged("a send to GHOST")
	if c, err := Subscribe(ctx, engineAddrs(e), "GHOST", testOptions(t, "ghosts")); err == nil {
		c.Close()
		t.Fatal("Subscribe(GHOST) succeeded")
	}
	unchanged("Subscribe(GHOST)")
	if c, err := Assign(ctx, engineAddrs(e), "GHOST", nil, testOptions(t, "ghosts")); err == nil {
		c.Close()
		t.Fatal("Assign(GHOST) succeeded")
	}
	unchanged("Assign(GHOST)")
	// A pattern that matches nothing yet subscribes to nothing.
	c := mustSubscribe(t, engineAddrs(e), "GHOST.*", testOptions(t, "ghost-pattern"))
	if got := c.Topics(); len(got) != 0 {
		t.Fatalf("pattern GHOST.* subscribed to %v", got)
	}
	c.Close()
	unchanged("Subscribe(GHOST.*)")
}

func values(rs []*Record) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = fmt.Sprintf("%d@%d=%s", r.Partition, r.Offset, r.Value)
	}
	return out
}

// TestSpecConsumingNeverDeletes: a group reads and commits every record;
// a later member of the group starts after the commit, seeks back and
// reads the same records again.
func TestSpecConsumingNeverDeletes(t *testing.T) {
	t.Parallel()
	e := startGroupEngine(t)
	if err := e.CreateTopic("T", "partitions=1"); err != nil {
		t.Fatal(err)
	}
	const n = 10
	produceN(t, newTestProducer(t, e, ilink.ProducerConfig{}), "T", 0, n)
	o := testOptions(t, "keepers")
	o.Commit = CommitManual
	c1 := mustSubscribe(t, engineAddrs(e), "T", o)
	first := readN(t, c1, n, 10*time.Second)
	if err := c1.Commit(testCtx(t, 10*time.Second), first[n-1]); err != nil {
		t.Fatal(err)
	}
	if got := e.GroupCommits("keepers")["T"][0]; got != n {
		t.Fatalf("commit %d, want %d", got, n)
	}
	c1.Close()

	c2 := mustSubscribe(t, engineAddrs(e), "T", o)
	if pos := c2.Position("T", 0); pos != n {
		t.Fatalf("second member starts at %d, want the commit %d", pos, n)
	}
	if err := c2.SeekToOffset("T", 0, 0); err != nil {
		t.Fatal(err)
	}
	again := readN(t, c2, n, 10*time.Second)
	if !slices.Equal(values(again), values(first)) { // spec: T-05
		t.Fatalf("read after seeking back:\n%v\nfirst read:\n%v", values(again), values(first))
	}
	// The log itself still starts at 0 and holds every record.
	start, end := e.TopicOffsets("T")
	recs, err := e.ReadPartition("T", 0, 0, 0)
	if err != nil || start[0] != 0 || end[0] != n || len(recs) != n { // spec: T-05
		t.Fatalf("log [%d, %d) with %d records (%v) after the group consumed it", start[0], end[0], len(recs), err)
	}
}

// TestSpecGroupsHaveOwnCursors: two groups on one topic each receive every
// record, and one group's commits never move the other's.
func TestSpecGroupsHaveOwnCursors(t *testing.T) {
	t.Parallel()
	e := startGroupEngine(t)
	if err := e.CreateTopic("T", "partitions=2"); err != nil {
		t.Fatal(err)
	}
	const n = 40
	produceN(t, newTestProducer(t, e, ilink.ProducerConfig{}), "T", 0, n)
	all := map[string]bool{}
	for i := range n {
		all[fmt.Sprintf("T-%d", i)] = true
	}
	readAllOf := func(group string) (*Consumer, map[int32]*Record) {
		t.Helper()
		o := testOptions(t, group)
		o.Commit = CommitManual
		c := mustSubscribe(t, engineAddrs(e), "T", o)
		got := map[string]bool{}
		last := map[int32]*Record{}
		for _, r := range readN(t, c, n, 10*time.Second) {
			got[string(r.Value)] = true
			last[r.Partition] = r
		}
		if !maps.Equal(got, all) { // spec: T-06
			t.Fatalf("group %s received %d distinct of %d records", group, len(got), n)
		}
		return c, last
	}
	ctx := testCtx(t, 10*time.Second)

	a, lastA := readAllOf("group-a")
	for _, r := range lastA {
		if err := a.Commit(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	commitsA := e.GroupCommits("group-a")
	for part, r := range lastA {
		if commitsA["T"][part] != r.Offset+1 || len(commitsA["T"]) != 2 {
			t.Fatalf("group-a commits %v, last record of partition %d at offset %d", commitsA, part, r.Offset)
		}
	}
	// group-b starts from the beginning although group-a consumed and
	// committed everything, and has no commit of its own.
	if got := e.GroupCommits("group-b"); len(got["T"]) != 0 { // spec: T-06
		t.Fatalf("group-b has commits %v before committing", got)
	}
	b, _ := readAllOf("group-b")
	if got := e.GroupCommits("group-b"); len(got["T"]) != 0 { // spec: T-06
		t.Fatalf("group-b has commits %v after group-a committed", got)
	}
	// group-b commits an early offset: group-a's commits stay where they are.
	if err := b.CommitOffset(ctx, "T", 0, 0); err != nil {
		t.Fatal(err)
	}
	if got := e.GroupCommits("group-b")["T"]; got[0] != 1 || len(got) != 1 {
		t.Fatalf("group-b commits %v, want partition 0 at 1", got)
	}
	if got := e.GroupCommits("group-a"); !maps.Equal(got["T"], commitsA["T"]) { // spec: T-06
		t.Fatalf("group-a commits %v after group-b committed, were %v", got["T"], commitsA["T"])
	}
}
