package cli

import (
	"context"
	"strings"
	"testing"

	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/engine"
)

// check judges the cluster definition against the node list as the
// dashboard does: a node defined but not listed is node-absent (WARNING).
func TestCheckSeesANodeAbsentFromTheNodeList(t *testing.T) {
	t.Parallel()
	e := startTestEngine(t, engine.Config{QueueManager: "QMCHK", Cluster: "CCHK"})
	adm := e.AdminAddrs()[0]
	if r := runCLIResult(t, "", "check", "--admin", adm, "--window", "300ms", "--stall-after", "300ms"); r.code != checkOK {
		t.Fatalf("check before: exit %d, %q", r.code, r.stdout)
	}
	svc, _ := adminAt(t, adm)
	if _, err := svc.AddNode(context.Background(), "", admin.ClusterNode{QueueManager: "QM4", Host: "ilink-4.example", Port: 5004, IlccPort: 7000}); err != nil {
		t.Fatal(err)
	}
	r := runCLIResult(t, "", "check", "--admin", adm, "--window", "300ms", "--stall-after", "300ms")
	if r.code != checkWarning || !strings.HasPrefix(r.stdout, "WARNING") ||
		!strings.Contains(r.stdout, "node 4 (QM4) is in the cluster definition but not in the node list") {
		t.Fatalf("check with a node defined and not running: exit %d\n%s", r.code, r.stdout)
	}
}
