package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/engine"
)

// check judges the cluster definition against the node list as the
// dashboard does: a node defined but not listed is node-absent (WARNING).
func TestCheckSeesANodeAbsentFromTheNodeList(t *testing.T) {
	e, err := engine.Start(engine.Config{ElectionDelay: 300 * time.Millisecond, QueueManager: "QMCHK", Cluster: "CCHK"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	adm := e.AdminAddrs()[0]
	if r := runCLIResult(t, "", "check", "--admin", adm, "--window", "300ms"); r.code != checkOK {
		t.Fatalf("check before: exit %d, %q", r.code, r.stdout)
	}
	ctx := context.Background()
	svc, err := admin.Connect(ctx, adm, admin.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	if _, err := svc.AddNode(ctx, "", admin.ClusterNode{QueueManager: "QM4", Host: "ilink-4.example", Port: 5004, IlccPort: 7000}); err != nil {
		t.Fatal(err)
	}
	r := runCLIResult(t, "", "check", "--admin", adm, "--window", "300ms")
	if r.code != checkWarning || !strings.HasPrefix(r.stdout, "WARNING") ||
		!strings.Contains(r.stdout, "node 4 (QM4) is in the cluster definition but not in the node list") {
		t.Fatalf("check with a node defined and not running: exit %d\n%s", r.code, r.stdout)
	}
}
