package demo

import (
	"testing"

	"ilinkdash/ilink/engine"
)

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
