package cli

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"ilinkdash/ilink/admin"
)

// adminOf connects to the engine of queueEngine's target, to check what
// the commands did (or did not do) without the CLI.
func adminOf(t *testing.T, tgt []string) (*admin.Service, *admin.Qmgr) {
	t.Helper()
	return adminAt(t, tgt[1])
}

// topic create plans, checks its flags with ilink/topicrules naming the
// flag, and creates only with --execute (issue 23 item 6).
func TestTopicCreatePlansThenExecutes(t *testing.T) {
	_, tgt := queueEngine(t)
	ctx := context.Background()
	_, q := adminOf(t, tgt)
	args := []string{"topic", "create", "LC.NEW", "--partitions", "4", "--replicas", "2", "--min-sync", "2", "--retention", "7d", "--retention-bytes", "10k"}

	plan := jsonOf[topicCreateJSON](t, with(tgt, args...)...)
	if plan.Executed || plan.Created != nil || plan.Properties != "partitions=4,replicas=2,minSync=2,retention.ms=604800000,retention.bytes=10240" {
		t.Fatalf("plan %+v", plan)
	}
	if _, err := q.DescribeTopic(ctx, "LC.NEW"); err == nil {
		t.Fatal("the plan created the topic")
	}
	out, _, err := runAdminCLI(t, with(tgt, args...)...)
	if err != nil || !strings.Contains(out, "planned (nothing created; add --execute") || !strings.Contains(out, "10KiB per partition") {
		t.Fatalf("plan table: %v\n%s", err, out)
	}
	// Read-only refuses the execution in the client's choke point, not the plan.
	_, _, err = runAdminCLI(t, with(tgt, append(args, "--execute", "--read-only")...)...)
	if err == nil || !strings.Contains(err.Error(), "CreateTopic refused: read-only mode") {
		t.Fatalf("--read-only --execute: %v", err)
	}

	done := jsonOf[topicCreateJSON](t, with(tgt, append(args, "--execute")...)...)
	d, err := q.DescribeTopic(ctx, "LC.NEW")
	if err != nil || !done.Executed || done.Created == nil || done.Created.Partitions != 4 ||
		d.Partitions != 4 || d.Replicas != 2 || d.MinSync != 2 || d.RetentionMs != 604800000 || d.RetentionBytes != 10240 {
		t.Fatalf("execute: %+v, %+v, %v", done, d.TopicInfo, err)
	}
	_, _, err = runAdminCLI(t, with(tgt, "topic", "create", "LC.NEW")...)
	wantExit(t, err, 1, "topic LC.NEW: already exists")

	// Forever is 0 everywhere (topicrules.Forever).
	f := jsonOf[topicCreateJSON](t, with(tgt, "topic", "create", "LC.KEEP", "--retention", "forever", "--execute")...)
	if f.RetentionMs == nil || *f.RetentionMs != 0 || f.Created.RetentionMs != 0 || f.Properties != "partitions=3,retention.ms=0" {
		t.Fatalf("forever: %+v", f)
	}

	for _, c := range []cliCase{
		{[]string{"LC.X", "--partitions", "1025"}, "topic create: --partitions: 1025 out of range 1..1024"},
		{[]string{"LC.X", "--replicas", "5"}, "topic create: --replicas: 5 but the cluster has 3 nodes"},
		{[]string{"LC.X", "--replicas", "2", "--min-sync", "3"}, "topic create: --min-sync: 3 out of range 1..2"},
		{[]string{"LC.X", "--min-sync", "0"}, "topic create: --min-sync: 0; at least 1"},
		{[]string{"LC.X", "--retention", "99999999d"}, "topic create: --retention: 99999999d is more than 36500d"},
		{[]string{"LC.X", "--retention-bytes", "1GB"}, "topic create: --retention-bytes: invalid size \"1GB\": GB is ambiguous"},
		{[]string{"SYSTEM.MINE"}, "topic create: name: the SYSTEM. prefix is reserved"},
		{[]string{"A B"}, `topic create: name: ' ' at 1 is not allowed`},
		{[]string{"LC.X", "--partitions", "x"}, `--partitions "x": want a whole number of partitions (1..1024)`},
	} {
		_, _, err := runAdminCLI(t, with(tgt, append([]string{"topic", "create"}, c.args...)...)...)
		wantExit(t, err, 2, c.want)
	}
	if ts, err := q.Topics(ctx); err != nil || len(ts) == 0 {
		t.Fatal(err)
	} else {
		for _, x := range ts {
			if x.Name == "LC.X" {
				t.Fatal("a refused create created LC.X")
			}
		}
	}
}

// topic flush and delete say what is lost and change nothing without
// --execute (issue 23 item 6).
func TestTopicFlushDeletePlanThenExecute(t *testing.T) {
	_, tgt := queueEngine(t)
	ctx := context.Background()
	_, q := adminOf(t, tgt)
	topicWithRecords(t, q, "LC.DATA", "partitions=2", 6)
	groupCommittedAt(t, q, "lc-reader", "LC.DATA", 1)
	held := func() int64 {
		d, err := q.DescribeTopic(ctx, "LC.DATA")
		if err != nil {
			t.Fatal(err)
		}
		return d.EndOffsetSum - d.StartOffsetSum
	}

	plan := jsonOf[topicRemoveJSON](t, with(tgt, "topic", "flush", "LC.DATA")...)
	if plan.Executed || plan.Action != "flush" || plan.Records != 6 || plan.Partitions != 2 || len(plan.Groups) != 1 || plan.Groups[0] != "lc-reader" {
		t.Fatalf("flush plan %+v", plan)
	}
	if n := held(); n != 6 {
		t.Fatalf("the flush plan removed records: %d left", n)
	}
	out, _, err := runAdminCLI(t, with(tgt, "topic", "flush", "LC.DATA", "--execute")...)
	if err != nil || !strings.Contains(out, "topic LC.DATA: flush 2 partitions, 6 records; flushed") {
		t.Fatalf("flush: %v\n%s", err, out)
	}
	if n := held(); n != 0 {
		t.Fatalf("after the flush %d records left", n)
	}

	del := jsonOf[topicRemoveJSON](t, with(tgt, "topic", "delete", "LC.DATA")...)
	if del.Executed || del.Action != "delete" {
		t.Fatalf("delete plan %+v", del)
	}
	if _, err := q.DescribeTopic(ctx, "LC.DATA"); err != nil {
		t.Fatalf("the delete plan deleted the topic: %v", err)
	}
	if del = jsonOf[topicRemoveJSON](t, with(tgt, "topic", "delete", "LC.DATA", "--execute")...); !del.Executed {
		t.Fatalf("delete %+v", del)
	}
	if _, err := q.DescribeTopic(ctx, "LC.DATA"); err == nil {
		t.Fatal("the topic is still there after delete --execute")
	}
	_, _, err = runAdminCLI(t, with(tgt, "topic", "delete", "LC.DATA", "--execute")...)
	wantExit(t, err, 1, "topic LC.DATA: no such topic")
	_, _, err = runAdminCLI(t, with(tgt, "topic", "flush", "LC.DATA")...)
	wantExit(t, err, 1, "topic LC.DATA: no such topic")
}

// cluster set, add-node and remove-node plan against the definition's
// version and change it only with --execute (issue 23 item 6).
func TestClusterDefinitionEditsPlanThenExecute(t *testing.T) {
	_, tgt := queueEngine(t)
	ctx := context.Background()
	s, _ := adminOf(t, tgt)
	def := func() admin.ClusterProperty {
		p, err := s.ClusterProperty(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	before := def()

	plan := jsonOf[clusterSetJSON](t, with(tgt, "cluster", "set", "replicas=2", "minSync=2", "placement=off")...)
	if plan.Executed || plan.BaseVersion != before.Version || len(plan.Changes) != 3 || plan.Changes[0] != (clusterChangeJSON{"replicas", "unset", "2", true}) ||
		plan.Changes[2] != (clusterChangeJSON{"placement", "on", "off", true}) {
		t.Fatalf("set plan %+v", plan)
	}
	if p := def(); p.Version != before.Version || p.Replicas != 0 || !p.Placement {
		t.Fatalf("the set plan changed the definition: %+v", p)
	}
	done := jsonOf[clusterSetJSON](t, with(tgt, "cluster", "set", "replicas=2", "minSync=2", "--execute")...)
	if p := def(); !done.Executed || done.Version <= before.Version || p.Version != done.Version || p.Replicas != 2 || p.MinSync != 2 {
		t.Fatalf("set --execute %+v, definition %+v", done, p)
	}
	for _, c := range []cliCase{
		{[]string{"replicas=9"}, "cluster set: replicas=9: 9 but the cluster has 3 nodes"},
		{[]string{"replicas=x"}, "replicas=x: want a whole number from 0 to 64"},
		{[]string{"placement=maybe"}, "placement=maybe: want on or off"},
		{[]string{"speed=1"}, "unknown key speed"},
		{[]string{"minSync=1", "minsync=2"}, "minSync given twice"},
		{[]string{"replicas"}, `"replicas": want KEY=VALUE`},
	} {
		_, _, err := runAdminCLI(t, with(tgt, append([]string{"cluster", "set"}, c.args...)...)...)
		wantExit(t, err, 2, c.want)
	}

	v := def().Version
	add := []string{"cluster", "add-node", "--qmgr", "QM9", "--host", "ilink-9.example", "--port", "5000"}
	ap := jsonOf[clusterNodeChangeJSON](t, with(tgt, add...)...)
	if ap.Executed || ap.Action != "add" || ap.Nodes != 4 || ap.Node.QueueManager != "QM9" || ap.Node.IlccPort == 0 || ap.BaseVersion != v {
		t.Fatalf("add plan %+v", ap)
	}
	if p := def(); len(p.Nodes) != 3 || p.Version != v {
		t.Fatalf("the add plan changed the definition: %+v", p)
	}
	ad := jsonOf[clusterNodeChangeJSON](t, with(tgt, append(add, "--execute")...)...)
	p := def()
	if !ad.Executed || len(p.Nodes) != 4 || ad.Node.Number == 0 || ad.Version != p.Version {
		t.Fatalf("add --execute %+v, definition %+v", ad, p)
	}
	_, _, err := runAdminCLI(t, with(tgt, add...)...)
	wantExit(t, err, 1, "cluster add-node: queue manager QM9 is node")
	_, _, err = runAdminCLI(t, with(tgt, "cluster", "add-node", "--qmgr", "QM8", "--host", "ilink-8.example")...)
	wantExit(t, err, 2, "--port 0: want a port number (1..65535); it is required")
	_, _, err = runAdminCLI(t, with(tgt, "cluster", "add-node", "--qmgr", "QM8", "--host", "h", "--port", "http")...)
	wantExit(t, err, 2, `--port "http": want a port number (1..65535)`)

	n := ad.Node.Number
	rp := jsonOf[clusterNodeChangeJSON](t, with(tgt, "cluster", "remove-node", strconv.Itoa(n))...)
	if rp.Executed || rp.Action != "remove" || rp.Node.QueueManager != "QM9" || rp.Nodes != 3 {
		t.Fatalf("remove plan %+v", rp)
	}
	if len(def().Nodes) != 4 {
		t.Fatal("the remove plan removed the node")
	}
	rd := jsonOf[clusterNodeChangeJSON](t, with(tgt, "cluster", "remove-node", strconv.Itoa(n), "--execute")...)
	if p := def(); !rd.Executed || len(p.Nodes) != 3 {
		t.Fatalf("remove --execute %+v, definition %+v", rd, p)
	}
	_, _, err = runAdminCLI(t, with(tgt, "cluster", "remove-node", strconv.Itoa(n))...)
	wantExit(t, err, 1, "no such node in cluster")
	_, _, err = runAdminCLI(t, with(tgt, "cluster", "remove-node", "two")...)
	wantExit(t, err, 2, `node "two": want a node number`)
	_, _, err = runAdminCLI(t, with(tgt, "cluster", "set", "replicas=1", "--execute", "--read-only")...)
	if err == nil || !strings.Contains(err.Error(), "SetClusterProperty refused: read-only mode") {
		t.Fatalf("--read-only: %v", err)
	}
}
