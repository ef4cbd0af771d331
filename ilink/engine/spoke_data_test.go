package engine

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/consumer"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/wire"
)

// Publish and tail round trip on a three-node spoke with no inbound port
// at all: every connection of the producer and the consumer goes to the
// hub's admin address and switches to the node its address belongs to
// (SPOKE SWITCH NODE), so each partition's leader is reached although the
// leaders are on different nodes. A failed switch leaves no socket open.
// Not parallel: the closed ports must not be taken by another test.
func TestSpokeDataThroughHub(t *testing.T) {
	hub, hubSpokes := spokeHub(t, 1)
	spoke := startEngine(t, Config{Nodes: 3, QueueManager: "QM_DATA", CoordinatorLoadTime: 20 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := spoke.WaitLeader(ctx); err != nil {
		t.Fatal(err)
	}
	const topic, n = "DATA.T", 60
	if err := spoke.CreateTopic(topic, "partitions=3"); err != nil {
		t.Fatal(err)
	}
	leaders := map[int]bool{}
	for p := range 3 {
		leaders[spoke.PartitionLeader(topic, p)] = true
	}
	if len(leaders) < 2 {
		t.Fatalf("partition leaders %v: the test needs them on several nodes", leaders)
	}
	var closed []string
	for _, nd := range spoke.nodes {
		closed = append(closed, nd.data.addr, nd.admin.addr)
		nd.data.closeListener()
		nd.admin.closeListener()
	}
	if err := spoke.LinkToHub(hubSpokes, "DATA", ""); err != nil {
		t.Fatal(err)
	}
	if err := hub.WaitSpoke(ctx, "DATA"); err != nil {
		t.Fatal(err)
	}
	hubAdmin := hub.AdminAddrs()[0]
	route, err := ilink.NewHubRoute(hubAdmin, "DATA", "")
	if err != nil {
		t.Fatal(err)
	}

	p, err := ilink.NewProducer(ctx, hubAdmin, ilink.ProducerConfig{ClientName: "via-hub", Acks: ilink.AcksAll, Hub: route})
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, n)
	for i := range n {
		p.Send(&ilink.ProducerRecord{Topic: topic, Key: fmt.Appendf(nil, "k%d", i), Value: fmt.Appendf(nil, "v%d", i)},
			func(_ ilink.RecordMetadata, err error) {
				if err != nil {
					errs <- err
				}
			})
	}
	if err := p.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	p.Close()
	close(errs)
	for err := range errs {
		t.Fatalf("a record through the hub failed: %v", err)
	}
	stored := 0
	for part := range 3 {
		rs, err := spoke.ReadPartition(topic, part, 0, n)
		if err != nil {
			t.Fatal(err)
		}
		stored += len(rs)
	}
	if stored != n {
		t.Fatalf("the spoke stored %d records, want %d", stored, n)
	}

	opt := consumer.NewOptions()
	opt.Group, opt.ClientName, opt.Hub = "VIA.HUB", "via-hub", route
	c, err := consumer.Subscribe(ctx, hubAdmin, topic, opt)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for len(seen) < n {
		r, err := c.Read(ctx, 10*time.Second)
		if err != nil {
			t.Fatalf("tail through the hub after %d of %d records: %v", len(seen), n, err)
		}
		seen[string(r.Value)] = true
	}
	c.Close()
	for _, a := range closed { // nothing was dialled on the spoke itself
		if nc, err := net.DialTimeout("tcp", a, time.Second); err == nil {
			nc.Close()
			t.Fatalf("the spoke's port %s accepts connections", a)
		}
	}

	// spec: A-34 — a failed switch closes the connection: after it, the
	// hub holds no session of ours.
	ilinktest.WaitFor(t, 10*time.Second, "the round trip's connections to close at the hub", func() bool { return hub.SessionCount(1) == 0 })
	nope, err := ilink.NewHubRoute(hubAdmin, "NOPE", "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = ilink.DialConn(ctx, hubAdmin, ilink.ConnConfig{Mode: wire.ModeProducer, Hub: nope})
	if !ilink.HasName(err, wire.ErrUnknownSpoke) {
		t.Fatalf("switch to an unknown spoke: %v, want %s", err, wire.ErrUnknownSpoke)
	}
	_, err = ilink.NewProducer(ctx, hubAdmin, ilink.ProducerConfig{Hub: nope})
	if err == nil {
		t.Fatal("a producer through a failed switch started")
	}

	// A switch to a node of the spoke that is down: the hub answers the
	// switch, the spoke answers the HELLO that follows with why, as a node
	// refusing it would (the client saw "connection lost").
	down := 1
	if spoke.Leader() == down {
		down = 2
	}
	downAddr := spoke.nodes[down-1].data.addr
	if route.NodeOf(downAddr) != uint16(down) {
		t.Fatalf("the route did not learn node %d's address %s", down, downAddr)
	}
	if err := spoke.KillNode(down); err != nil {
		t.Fatal(err)
	}
	_, err = ilink.DialConn(ctx, downAddr, ilink.ConnConfig{Mode: wire.ModeProducer, Hub: route})
	if want := fmt.Sprintf("node %d of spoke DATA is not running", down); !ilink.HasName(err, wire.ErrUnknownNode) || !strings.Contains(err.Error(), want) {
		t.Fatalf("switch to a node that is down: %v, want %s (%s)", err, wire.ErrUnknownNode, want)
	}
	ilinktest.WaitFor(t, 10*time.Second, "the failed switches' sockets to close at the hub", func() bool { return hub.SessionCount(1) == 0 })
}
