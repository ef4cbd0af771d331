package engine

import (
	"context"
	"net"
	"testing"
	"time"

	"ilinkdash/ilink/admin"
)

// A spoke whose admin listener is closed (no inbound port at all) is still
// administered through its hub: the tunnel is the spoke's own outbound
// connection, served without the listener. Not parallel: the closed port
// must not be taken by another test's engine while we check it is closed.
func TestSpokeWithoutInboundAdminPort(t *testing.T) {
	hub, hubSpokes := spokeHub(t, 1)
	spoke := startEngine(t, Config{Nodes: 1, QueueManager: "QM_NOIN"})
	if err := spoke.CreateTopic("NOIN.T", "partitions=3"); err != nil {
		t.Fatal(err)
	}
	// Internal hook: close only the spoke's admin listener (the node stays
	// up, unlike KillNode).
	spokeAdmin := spoke.AdminAddrs()[0]
	spoke.nodes[0].admin.closeListener()
	noInbound := func(when string) {
		t.Helper()
		if nc, err := net.DialTimeout("tcp", spokeAdmin, time.Second); err == nil {
			nc.Close()
			t.Fatalf("%s: the spoke's admin port %s accepts connections", when, spokeAdmin)
		}
	}
	noInbound("before linking")

	if err := spoke.LinkToHub(hubSpokes, "NOIN", ""); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := hub.WaitSpoke(ctx, "NOIN"); err != nil {
		t.Fatal(err)
	}
	s, err := admin.ConnectToSpoke(ctx, hub.AdminAddrs()[0], "NOIN", admin.Options{})
	if err != nil { // spec: A-36
		t.Fatalf("ConnectToSpoke with the spoke's admin listener closed: %v", err)
	}
	defer s.Close()
	noInbound("while switched")

	qs, err := s.QmgrList(ctx)
	// spec: A-36 — the call succeeds with the spoke's admin listener closed.
	if err != nil || len(qs) != 1 || qs[0].Name != "QM_NOIN" {
		t.Fatalf("QmgrList through the hub with no inbound admin port: %+v, %v", qs, err)
	}
	d, err := s.AccessAdminQmgr("").DescribeTopic(ctx, "NOIN.T")
	// spec: A-36 — a read call succeeds too, answered by the spoke.
	if err != nil || d.Name != "NOIN.T" || len(d.PartitionList) != 3 {
		t.Fatalf("DescribeTopic through the hub with no inbound admin port: %+v, %v", d, err)
	}
	noInbound("after the calls")
}
