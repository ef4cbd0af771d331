package engine

import (
	"net"
	"slices"
	"testing"
	"time"

	"ilinkdash/ilink/wire"
)

// Shared setup and checks of the engine tests: one home for what many
// tests start with and assert, so a test reads as its scenario. Every
// check calls t.Helper, so a failure names the line of the test.

// ---- setup ----

// dialTest connects to addr, closed when the test ends.
func dialTest(t testing.TB, addr string) net.Conn {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, ioTimeout)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { nc.Close() })
	return nc
}

// queueEngine starts an engine with the default config and the queues.
func queueEngine(t testing.TB, queues ...string) *Engine {
	t.Helper()
	e := startEngine(t, Config{})
	for _, q := range queues {
		mustCreate(t, e, q)
	}
	return e
}

// localSession opens a session in mode on node 1 (the first leader).
func localSession(t testing.TB, e *Engine, mode wire.SessionMode) *rawClient {
	t.Helper()
	return openSession(t, e.DataAddrs()[0], mode)
}

// spokeHub starts an engine of nodes nodes serving spokes, and returns it
// with the spoke listener's address.
func spokeHub(t testing.TB, nodes int) (*Engine, string) {
	t.Helper()
	e := startEngine(t, Config{Nodes: nodes})
	addr, err := e.ServeSpokes("")
	if err != nil {
		t.Fatalf("ServeSpokes: %v", err)
	}
	return e, addr
}

// ---- queue checks ----

// wantDepth fails unless queue q holds want committed messages; when
// says at which point of the test.
func wantDepth(t testing.TB, e *Engine, q string, want int, when string) {
	t.Helper()
	if d := depth(t, e, q); d != want {
		t.Fatalf("%s depth %d %s, want %d", q, d, when, want)
	}
}

// wantGet gets the next message of q with no wait and fails unless its
// payload is payload; what names the get.
func (c *rawClient) wantGet(q, payload, what string) *wire.GetReply {
	c.t.Helper()
	m := c.get(q, 0)
	if m == nil || string(m.Payload) != payload {
		c.t.Fatalf("%s: GET %s = %+v, want payload %q", what, q, m, payload)
	}
	return m
}

// wantNoMessage fails if a get of q with no wait returns a message; what
// says why none may be there.
func (c *rawClient) wantNoMessage(q, what string) {
	c.t.Helper()
	if m := c.get(q, 0); m != nil {
		c.t.Fatalf("%s: GET %s = %+v, want none", what, q, m)
	}
}

// wantErrName fails unless eb is an error reply named name.
func wantErrName(t testing.TB, eb *wire.ErrorBody, name, what string) {
	t.Helper()
	if eb == nil || eb.Name != name {
		t.Fatalf("%s: %s, want %s", what, errText(eb), name)
	}
}

// ---- group checks ----

// wantOK fails on a failure reply.
func wantOK(t testing.TB, f *failure, what string) {
	t.Helper()
	if f != nil {
		t.Fatalf("%s: %v", what, f)
	}
}

// wantReport fails unless f is a failure with REPORT code report.
func wantReport(t testing.TB, f *failure, report uint16, what string) {
	t.Helper()
	if f == nil || f.report != report {
		t.Fatalf("%s: %v, want REPORT %d", what, f, report)
	}
}

// wantAssigned fails unless the assignment gives exactly parts of topic.
func wantAssigned(t testing.TB, a []wire.TopicPartitions, topic string, parts []int32, whose string) {
	t.Helper()
	if got := assigned(a, topic); !slices.Equal(got, parts) {
		t.Fatalf("%s: %s partitions %v (assignment %+v), want %v", whose, topic, got, a, parts)
	}
}

// wantState fails unless group g is in state.
func wantState(t testing.TB, e *Engine, g string, state, when string) {
	t.Helper()
	if d := describe(t, e, g); d.State != state {
		t.Fatalf("group %s state %s %s, want %s", g, d.State, when, state)
	}
}

// wantCommitted fails unless OFFSET FETCH reads want for topic/p.
func (c *rawClient) wantCommitted(g, topic string, p int32, want int64, when string) {
	c.t.Helper()
	if got := c.committed(g, topic, p); got != want {
		c.t.Fatalf("OFFSET FETCH %s %s/%d %s: %d, want %d", g, topic, p, when, got, want)
	}
}

// wantRejoined fails unless rejoin is the same member as old at the next
// generation.
func wantRejoined(t testing.TB, old, rejoin *wire.JoinGroupReply, what string) {
	t.Helper()
	if rejoin.Generation != old.Generation+1 || rejoin.MemberID != old.MemberID {
		t.Fatalf("%s: %+v, want member %s at generation %d (old %+v)", what, rejoin, old.MemberID, old.Generation+1, old)
	}
}

// commitFailure is commitAs for the checks that need only its failure.
func (c *rawClient) commitFailure(group string, j *wire.JoinGroupReply, offs ...wire.OffsetEntry) *failure {
	c.t.Helper()
	_, f := c.commitAs(group, j, offs...)
	return f
}

// topicEngine starts an engine with cfg and one topic.
func topicEngine(t testing.TB, cfg Config, topic, props string) *Engine {
	t.Helper()
	e := startEngine(t, cfg)
	mustCreateTopic(t, e, topic, props)
	return e
}

// groupEngine starts an engine with fast group timings and one topic.
func groupEngine(t testing.TB, topic, props string) *Engine {
	t.Helper()
	return topicEngine(t, groupConfig(), topic, props)
}

// groupClient starts a group engine with one topic and opens a consumer
// session on the coordinator of group.
func groupClient(t testing.TB, topic, props, group string) (*Engine, *rawClient) {
	t.Helper()
	e := groupEngine(t, topic, props)
	return e, coordSession(t, e, group)
}

// groupPair is groupClient with topic T and two sessions, a and b, for
// two members of group.
func groupPair(t testing.TB, props, group string) (e *Engine, a, b *rawClient) {
	t.Helper()
	e, a = groupClient(t, "T", props, group)
	return e, a, coordSession(t, e, group)
}

// idempotentProducer opens a producer session on node 1 with a producer
// id of its own.
func idempotentProducer(t testing.TB, e *Engine) (*rawClient, int64) {
	t.Helper()
	c := localSession(t, e, wire.ModeProducer)
	return c, c.initProducer()
}

// unpulledRecord starts an engine with one two-replica partition T/0 whose
// follower (node 2) does not pull, and appends value on the leader (node
// 1): the record stays uncommitted until node 2 drops out of the in-sync
// set after lagMax.
func unpulledRecord(t testing.TB, lagMax time.Duration, value string) *Engine {
	t.Helper()
	e := topicEngine(t, Config{ReplicaLagMax: lagMax}, "T", "partitions=1,replicas=2")
	if err := e.SetReplicaDelay(2, time.Hour); err != nil {
		t.Fatal(err)
	}
	localSession(t, e, wire.ModeProducer).mustProduce("T", 1, 0, plainBatch(t, value))
	return e
}

// ---- topic checks ----

// wantRoundRobin fails unless the partitions are placed round-robin over
// three nodes with two replicas: partition i led by node i%3+1 at leader
// epoch 1, replicas {i%3+1, (i+1)%3+1}, all in sync.
func wantRoundRobin(t testing.TB, parts []wire.PartitionMeta) {
	t.Helper()
	for i, pm := range parts {
		first, second := uint16(i%3+1), uint16((i+1)%3+1)
		if pm.ID != int32(i) || pm.Leader != first || pm.LeaderEpoch != 1 ||
			!slices.Equal(pm.Replicas, []uint16{first, second}) || !slices.Equal(pm.InSync, pm.Replicas) {
			t.Fatalf("partition %d: %+v, want leader %d replicas [%d %d] all in sync at leader epoch 1", i, pm, first, first, second)
		}
	}
}

// wantValues fails unless partition p of topic holds exactly want (read
// with readValues); when says at which point of the test.
func wantValues(t testing.TB, e *Engine, topic string, p int, want []string, when string) {
	t.Helper()
	if got := readValues(t, e, topic, p); !slices.Equal(got, want) {
		t.Fatalf("%s/%d holds %v %s, want %v", topic, p, got, when, want)
	}
}
