package admin

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink/wire"
)

// The engine's lines (wire.AppendSubscriptionLine, the one formatter)
// parse back to what was written.
func TestSubscriptionListFormat(t *testing.T) {
	lines := []SubscriptionLine{
		{Group: "billing", State: GroupStable, Partition: 0, Commit: 51, Lag: 4, Members: 2},
		{Group: "billing", State: GroupStable, Partition: 1, Commit: -1, Lag: -1, Members: 2},
		{Group: "정산", State: GroupEmpty, Partition: 2, Commit: 0, Lag: 0, Members: 0},
	}
	var b []byte
	for i, l := range lines {
		if i > 0 {
			b = append(b, '\n')
		}
		b = wire.AppendSubscriptionLine(b, l.Group, string(l.State), l.Partition, l.Commit, l.Lag, l.Members)
	}
	text := string(b)
	want := "billing|Stable|0|51|4|members=2\n" +
		"billing|Stable|1|-1|-1|members=2\n" + // spec: A-19 — assigned, never committed
		"정산|Empty|2|0|0|members=0"
	if text != want { // spec: A-17 — group|state|partition|commit|lag|members=N
		t.Fatalf("format:\n%s\nwant:\n%s", text, want)
	}
	got, err := ParseSubscriptionList(text)
	if err != nil || !reflect.DeepEqual(got, lines) {
		t.Fatalf("parse: %+v, %v", got, err)
	}
	// A trailing newline or CRLF from another writer parses the same.
	got, err = ParseSubscriptionList(strings.ReplaceAll(text, "\n", "\r\n") + "\n")
	if err != nil || !reflect.DeepEqual(got, lines) {
		t.Fatalf("parse CRLF: %+v, %v", got, err)
	}
	// The empty string (what the engine sends when no group qualifies,
	// checked end to end in groups_engine_test) is no line, not an error.
	got, err = ParseSubscriptionList("")
	if err != nil || got == nil || len(got) != 0 {
		t.Fatalf("parse empty: %#v, %v", got, err)
	}
	for _, bad := range []string{
		"billing|Stable|0|51|4",              // five fields
		"billing|Stable|0|51|4|members=x",    // bad count
		"billing|Stable|0|51|4|2",            // missing members=
		"billing|Stable|p|51|4|members=1",    // bad partition
		"billing|Stable|0|-2|4|members=1",    // commit below -1
		"|Stable|0|1|1|members=1",            // empty group
		"billing|Stable|0|51|4|members=2|xx", // seven fields
	} {
		if _, err := ParseSubscriptionList(bad); err == nil {
			t.Errorf("ParseSubscriptionList(%q) accepted", bad)
		}
	}
}

func TestParseLeadTable(t *testing.T) {
	text := strings.Join([]string{
		"ILLT1|C1|1700000000000",
		"node|1|leader|running|3",
		"node|2|follower|syncing|3",
		"partition|ORDER.EVENT|0|1|2|1,2,3|1,2",
		"partition|ORDER.EVENT|1|0|2|2,3|-",
		"bundle|QM1.QUEUES|1|3|1,2",
		"election|1700000000100|auto|cluster|C1|-|3|1|leader node 3 lost",
		"election|1700000000200|forced|partition|ORDER.EVENT|0|2|1|admin forced election",
		"offline|node|3|-|1700000000050",
		"offline|partition|ORDER.EVENT|1|-",
		"offline|bundle|QM1.QUEUES|-|-",
		"future|row|kinds|are|skipped",
		"node|x|leader|running|3", // unparsable: skipped
		"partition|too|few",
		"",
	}, "\n")
	lt, err := ParseLeadTable(text)
	if err != nil {
		t.Fatal(err)
	}
	ms := func(v int64) time.Time { return time.UnixMilli(v) }
	want := []LeadRow{
		{Kind: "node", Node: 1, Partition: -1, Role: RoleLeader, State: NodeRunning, Epoch: 3},
		{Kind: "node", Node: 2, Partition: -1, Role: RoleFollower, State: NodeSyncing, Epoch: 3},
		{Kind: "partition", Topic: "ORDER.EVENT", Partition: 0, Node: 1, Epoch: 2, Replicas: []int{1, 2, 3}, InSync: []int{1, 2}},
		{Kind: "partition", Topic: "ORDER.EVENT", Partition: 1, Node: 0, Epoch: 2, Replicas: []int{2, 3}},
		{Kind: "bundle", Bundle: "QM1.QUEUES", Partition: -1, Node: 1, Epoch: 3, Members: []int{1, 2}},
		{Kind: "election", Time: ms(1700000000100), Scope: "cluster", Bundle: "C1", Partition: -1, From: 3, Node: 1, Detail: "leader node 3 lost"},
		{Kind: "election", Time: ms(1700000000200), Forced: true, Scope: "partition", Topic: "ORDER.EVENT", Partition: 0, From: 2, Node: 1, Detail: "admin forced election"},
		{Kind: "offline", Scope: "node", Node: 3, Partition: -1, Time: ms(1700000000050)},
		{Kind: "offline", Scope: "partition", Topic: "ORDER.EVENT", Partition: 1},
		{Kind: "offline", Scope: "bundle", Bundle: "QM1.QUEUES", Partition: -1},
	}
	// spec: — node, partition, bundle, election and offline rows; unknown lines skipped.
	if lt.Format != "ILLT1" || !reflect.DeepEqual(lt.Rows, want) {
		t.Fatalf("rows:\n%+v\nwant:\n%+v", lt.Rows, want)
	}
	for _, bad := range []string{"ILLT2|C1|1\nnode|1|leader|running|1", "node|1|leader|running|1", "", "ILLT|C1"} {
		if _, err := ParseLeadTable(bad); err == nil || !strings.Contains(err.Error(), "ILLT1") { // spec: A-31
			t.Errorf("ParseLeadTable(%q) = %v, want a format error", bad, err)
		}
	}
}

func TestTextForms(t *testing.T) {
	li := LoadInfo{Level: 2, At: time.UnixMilli(5), Sessions: 3, Requests: 10, RequestsPerSec: 1.25, Topics: 1, Partitions: 3,
		Queues: 1, QueueDepth: 4,
		Nodes:     []NodeLoad{{ID: 1, Up: true, Running: true, Leader: true, DataSessions: 1, AdminSessions: 2, Requests: 10, RequestsPerSec: 1.25, PartitionsLed: 3}},
		QueueLoad: []QueueLoad{{Name: "Q", Depth: 4, InFlight: 1, PutRate: 2, GetRate: 0.5}}}
	want := "VIEW LOAD|2|5\n" +
		"service|sessions=3|requests=10|req/s=1.2|topics=1|partitions=3|queues=1|depth=4\n" +
		"node|1|up|running|leader|data=1|admin=2|requests=10|req/s=1.2|led=3\n" +
		"queue|Q|depth=4|inflight=1|put/s=2.0|get/s=0.5\n"
	if got := li.Text(); got != want {
		t.Fatalf("LoadInfo.Text:\n%s\nwant:\n%s", got, want)
	}
	rs := ReplicationStatus{Cluster: "C1", Leader: 1,
		Nodes:      []NodeReplication{{ID: 2, QueueManager: "QM1", Role: RoleFollower, State: NodeRunning, LagRecords: 5, Lag: 1500 * time.Millisecond}},
		Partitions: []PartitionReplication{{Topic: "T", Partition: 0, Leader: 1, InSync: []int{1}, Followers: []FollowerLag{{Node: 2, LagRecords: 5, Lag: 1500 * time.Millisecond}}}, {Topic: "U", Partition: 1}}}
	want = "REPLICATION|C1|leader=1\n" +
		"node|2|QM1|follower|running|lag=5|lag.ms=1500\n" +
		"partition|T|0|leader=1|isr=1|followers=2:out:5:1500\n" +
		"partition|U|1|leader=0|isr=-|followers=-\n"
	if got := rs.Text(); got != want {
		t.Fatalf("ReplicationStatus.Text:\n%s\nwant:\n%s", got, want)
	}
}
