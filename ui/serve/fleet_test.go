package serve

import (
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/wire"
	"ilinkdash/ui/internal/viewtest"
)

// fleetShown: the Fleet tab of two clusters, both rows reached.
func fleetShown(s string) bool {
	return strings.Contains(s, "Fleet · 2 clusters") &&
		strings.Contains(viewtest.RowOf(s, "alpha"), "OK") && strings.Contains(viewtest.RowOf(s, "bravo"), "OK")
}

// serve over two contexts (issue 27 point 5), two engines behind them: a
// session without a command starts on the Fleet tab with both rows; `ssh
// HOST bravo` lands on bravo's tabs (0 goes back to the fleet) and acts
// on bravo only, audited with its context; an unknown context is refused
// naming the served ones, sanitized; with both sessions open each engine
// sees one shared poller's requests, not one per session.
func TestServeTwoContexts(t *testing.T) {
	t.Parallel()
	const interval = 200 * time.Millisecond
	r := startRig(t, rigOpts{refresh: interval, contexts: []string{"alpha", "bravo"}})
	alpha, bravo := r.engines[0], r.engines[1]
	for _, e := range r.engines {
		if err := e.CreateTopic("DROP.ME", "partitions=1"); err != nil {
			t.Fatal(err)
		}
	}

	fl := r.open(r.viewer, sessOpts{})
	fl.waitScreen("the Fleet tab with alpha's and bravo's rows", fleetShown)

	op := r.open(r.operator, sessOpts{cmd: "bravo"})
	op.waitText("0 Fleet › bravo", "Overview")
	connect := r.waitAudit("the operator's connect", func(e AuditEntry) bool {
		return e.Event == EventConnect && e.Fingerprint == r.operator.fingerprint()
	})
	if connect.Context != "bravo" {
		t.Errorf("the connect of ssh HOST bravo names context %q", connect.Context)
	}
	op.send("2")
	op.waitText("DROP.ME")
	op.send("D")
	op.waitText("Delete topic DROP.ME")
	op.send("\r")
	op.send("DROP.ME")
	op.send("\r")
	e := r.waitAudit("the delete in the audit log", func(e AuditEntry) bool { return e.Action == "delete-topic" })
	if e.Outcome != OutcomeOK || e.Context != "bravo" || e.Target != "DROP.ME" {
		t.Fatalf("audit entry %+v, want an ok delete-topic DROP.ME on context bravo", e)
	}
	if containsTopic(bravo.Topics(), "DROP.ME") || !containsTopic(alpha.Topics(), "DROP.ME") {
		t.Fatal("the delete on bravo's tabs did not delete bravo's topic, and only bravo's")
	}

	// Both sessions poll both clusters (a Fleet keeps every cluster's
	// poller running): each engine still sees one request per resource
	// per interval.
	polled := map[wire.Code]string{wire.CodeNodeList: "nodes", wire.CodeTopicList: "topics",
		wire.CodeGroupList: "groups", wire.CodeQueueList: "queues", wire.CodeStatSeries: "stats"}
	before := [2]map[wire.Code]int64{alpha.RequestCounts(), bravo.RequestCounts()}
	start := time.Now()
	ilinktest.WaitFor(t, deadline, "15 topic list reads at alpha", func() bool {
		return alpha.RequestCounts()[wire.CodeTopicList]-before[0][wire.CodeTopicList] >= 15
	})
	after := [2]map[wire.Code]int64{alpha.RequestCounts(), bravo.RequestCounts()}
	took := time.Since(start)
	limit := int64(took/interval) + 2
	for i, name := range []string{"alpha", "bravo"} {
		for code, what := range polled {
			d := after[i][code] - before[i][code]
			t.Logf("%s %-7s %3d requests in %v", name, what, d, took.Round(time.Millisecond))
			if d > limit || d == 0 {
				t.Errorf("%s %s: %d requests in %v from two sessions, want 1..%d (one poller's, one per %v)", name, what, d, took, limit, interval)
			}
		}
	}

	op.send("0")
	op.waitScreen("the Fleet tab after 0", fleetShown)

	bad := r.open(r.viewer, sessOpts{cmd: "nosuch\x1b]0;pwned\x07"})
	bad.wantEnd("an unknown context", 1, "this server serves alpha, bravo")
	if msg := bad.stderr.String(); strings.ContainsAny(msg, "\x1b\x07") || !strings.Contains(msg, "no context") {
		t.Fatalf("the refusal of an unknown context: %q", msg)
	}
	quitAll(t, []*client{fl, op})
}
