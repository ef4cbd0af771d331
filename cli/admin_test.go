package cli

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"ilinkdash/ilink"
	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/engine"
)

// runAdminCLI runs the root command with args, no config file and no
// ILINKDASH_* environment.
func runAdminCLI(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	return runCLI(t, "", args...)
}

// jsonOf runs a command with -o json and decodes its output.
func jsonOf[T any](t *testing.T, args ...string) T {
	t.Helper()
	out, stderr, err := runAdminCLI(t, append(args, "-o", "json")...)
	if err != nil {
		t.Fatalf("%v: %v\n%s", args, err, stderr)
	}
	var v T
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%v: output does not decode: %v\n%s", args, err, out)
	}
	return v
}

func TestGetEmbeddedJSON(t *testing.T) {
	topics := jsonOf[[]topicJSON](t, "get", "topics", "--embedded")
	if len(topics) != 3 || topics[0].Name != "AUDIT.LOG" || topics[1].Name != "ORDER.EVENT" || topics[1].EndOffsetSum != 12 || topics[1].Partitions != 3 {
		t.Fatalf("topics %+v", topics)
	}
	all := jsonOf[[]topicJSON](t, "get", "topics", "--embedded", "--all")
	if len(all) <= len(topics) {
		t.Fatalf("--all lists %d topics, want the SYSTEM.* ones too", len(all))
	}
	queues := jsonOf[[]queueJSON](t, "get", "queues", "--embedded")
	if len(queues) != 2 || queues[0].Name != "ORDER.IN" || queues[0].Depth != 5 || !queues[0].PutEnabled {
		t.Fatalf("queues %+v", queues)
	}
	nodes := jsonOf[[]nodeJSON](t, "get", "nodes", "--embedded")
	if len(nodes) != 3 || nodes[0].Role != "leader" || nodes[0].State != "running" || nodes[1].DataAddr == "" {
		t.Fatalf("nodes %+v", nodes)
	}
	cl := jsonOf[clusterJSON](t, "get", "cluster", "--embedded")
	if cl.Name != "C1" || cl.Version != 1 || len(cl.Nodes) != 3 || !cl.Placement {
		t.Fatalf("cluster %+v", cl)
	}
	rep := jsonOf[replicationJSON](t, "get", "replication", "--embedded")
	if rep.Leader != 1 || len(rep.Nodes) != 3 || len(rep.Partitions) < 6 || rep.Partitions[0].Topic != "AUDIT.LOG" {
		t.Fatalf("replication %+v", rep)
	}
	groups := jsonOf[[]groupJSON](t, "get", "groups", "--embedded")
	if groups == nil {
		t.Fatal("groups: null, want []")
	}
	// Field names are the documented ones (docs/CLI.md).
	out, _, err := runAdminCLI(t, "get", "nodes", "--embedded", "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"id"`, `"queue_manager"`, `"data_addr"`, `"admin_addr"`, `"role"`, `"state"`, `"partitions_led"`, `"lag_records"`, `"lag_ms"`} {
		if !strings.Contains(out, k) {
			t.Fatalf("get nodes -o json lacks %s:\n%s", k, out)
		}
	}
	// The table form has a header row.
	out, _, err = runAdminCLI(t, "get", "topics", "--embedded")
	if err != nil || !strings.HasPrefix(out, "NAME") || !strings.Contains(out, "ORDER.EVENT") {
		t.Fatalf("table: %v\n%s", err, out)
	}
}

func TestDescribeEmbeddedJSON(t *testing.T) {
	d := jsonOf[topicDescJSON](t, "describe", "topic", "ORDER.EVENT", "--embedded")
	if d.Name != "ORDER.EVENT" || len(d.PartitionList) != 3 || d.PartitionList[0].EndOffset != 4 || len(d.PartitionList[0].Replicas) != 3 {
		t.Fatalf("describe topic %+v", d)
	}
	// An unknown group still prints its (Dead) JSON, and exits 1 (issue 23).
	r := runCLIResult(t, "", "describe", "group", "nobody", "--embedded", "-o", "json")
	var g groupDescJSON
	if err := json.Unmarshal([]byte(r.stdout), &g); err != nil || r.code != exitError1 || g.Name != "nobody" || g.State != "Dead" || g.Members == nil || g.Offsets == nil {
		t.Fatalf("describe unknown group: exit %d, %v, %+v", r.code, err, g)
	}
	_, _, err := runAdminCLI(t, "describe", "topic", "NOPE", "--embedded")
	if err == nil || err.Error() != "topic NOPE: no such topic" || !ilink.HasName(err, "MIMQE_UNKNOWN_TOPIC") {
		t.Fatalf("unknown topic: %v", err)
	}
	_, _, err = runAdminCLI(t, "describe", "queue", "X", "--embedded")
	var ue *usageError
	if !errors.As(err, &ue) {
		t.Fatalf("describe queue: %v, want a usage error", err)
	}
}

func TestNodeAndGroupCommandsAgainstEngine(t *testing.T) {
	t.Parallel()
	e := startTestEngine(t, engine.Config{QueueManager: "QMCLI", Cluster: "CCLI"})
	adm := e.AdminAddrs()[0]

	// --read-only refuses before anything is sent.
	_, _, err := runAdminCLI(t, "node", "stop", "2", "--admin", adm, "--read-only")
	if err == nil || !strings.Contains(err.Error(), "MIMQE_READ_ONLY (StopNode refused: read-only mode)") || !e.Nodes()[1].Running {
		t.Fatalf("read-only node stop: %v (node 2 running %v)", err, e.Nodes()[1].Running)
	}
	res := jsonOf[nodeActionJSON](t, "node", "stop", "2", "--admin", adm)
	if res != (nodeActionJSON{2, "stop", true}) || e.Nodes()[1].Running {
		t.Fatalf("node stop: %+v, node 2 %+v", res, e.Nodes()[1])
	}
	jsonOf[nodeActionJSON](t, "node", "start", "2", "--admin", adm)
	jsonOf[nodeActionJSON](t, "node", "kill", "3", "--admin", adm)
	if st := e.Nodes(); !st[1].Running || st[2].Up {
		t.Fatalf("after start 2, kill 3: %+v", st)
	}
	// Without any target the commands run against a fresh in-process engine, and say so.
	if _, stderr, err := runAdminCLI(t, "node", "stop", "2"); err != nil || !strings.Contains(stderr, "fresh in-process engine") {
		t.Fatalf("node stop without a target: %v, stderr %q", err, stderr)
	}

	// A group with a commit and no member: seek plans, then executes.
	ctx := context.Background()
	_, q := adminAt(t, adm)
	topicWithRecords(t, q, "CLI.T", "partitions=1", 5)
	groupCommittedAt(t, q, "g1", "CLI.T", 4)
	plan := jsonOf[seekJSON](t, "group", "seek", "g1", "--to", "earliest", "--topic", "CLI.T", "--admin", adm)
	if c := plan.Changes; plan.Executed || len(c) != 1 || c[0].Topic != "CLI.T" || c[0].Old != 4 || c[0].New != 0 ||
		*c[0].LogStart != 0 || *c[0].EndOffset != 5 || *c[0].Skip != -4 || plan.Skip != -4 {
		t.Fatalf("plan %+v", plan)
	}
	d, _ := q.DescribeGroup(ctx, "g1")
	if len(d.Offsets) != 1 || d.Offsets[0].Committed != 4 {
		t.Fatalf("the plan changed the group: %+v", d.Offsets)
	}
	out, _, err := runAdminCLI(t, "group", "seek", "g1", "--to", "2", "--admin", adm)
	if err != nil || !strings.Contains(out, "planned (nothing changed; add --execute to apply)") || !strings.Contains(out, "CLI.T  0          4    ->  2    -2") {
		t.Fatalf("table plan: %v\n%s", err, out)
	}
	done := jsonOf[seekJSON](t, "group", "seek", "g1", "--to", "latest", "--execute", "--admin", adm)
	if !done.Executed || done.Changes[0].New != 5 {
		t.Fatalf("execute %+v", done)
	}
	d, _ = q.DescribeGroup(ctx, "g1")
	if d.Offsets[0].Committed != 5 {
		t.Fatalf("after --execute: %+v", d.Offsets)
	}
	del := jsonOf[groupDeleteJSON](t, "group", "delete", "g1", "--admin", adm)
	if !del.Deleted {
		t.Fatalf("delete %+v", del)
	}
	if d, _ := q.DescribeGroup(ctx, "g1"); d.State != admin.GroupDead {
		t.Fatalf("after group delete: %+v", d)
	}
	_, _, err = runAdminCLI(t, "group", "seek", "g1", "--to", "yesterday", "--admin", adm)
	var ue *usageError
	if !errors.As(err, &ue) {
		t.Fatalf("--to yesterday: %v, want a usage error", err)
	}
}
