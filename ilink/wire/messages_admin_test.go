package wire

import (
	"bytes"
	"math"
	"reflect"
	"testing"
)

// adminMessages is one filled value of every admin body.
func adminMessages() []Message {
	tp := []TopicPartitions{{Topic: "ORDER.EVENT", Partitions: []int32{0, 2}}}
	return []Message{
		&QmgrRequest{Qmgr: "QM1"},
		&TextReply{Text: "ILLT1|C1|1\nnode|1|leader|running|1\n"},
		&QmgrListReply{Qmgrs: []QmgrEntry{{Name: "QM1", Running: true, DataAddr: "h:1", Clustered: true, Cluster: "C1"}}},
		&NodeListReply{Nodes: []NodeEntry{{ID: 1, QueueManager: "QM1", DataAddr: "h:1", AdminAddr: "h:2", Role: "leader", State: "running", Partitions: 3, LagRecords: -1, LagMs: 1 << 40}}},
		&NodeControlRequest{Qmgr: "QM1", Node: 2, Action: NodeActionKill},
		&ForceElectionRequest{Qmgr: "QM1", Topic: "T", Partition: 3, Node: 2},
		&TopicListRequest{Qmgr: "QM1", Internal: true},
		&TopicListReply{Topics: []TopicEntry{{Name: "T", Internal: true, Partitions: 3, Replicas: 2, MinSync: 1, RetentionMs: 604800000,
			RetentionBytes: -5, Epoch: 7, UnderReplicated: 1, Offline: 1, StartOffsetSum: 10, EndOffsetSum: 1 << 50,
			RecordsInPerSec: 1.5, RecordsOutPerSec: 2.25, BytesInPerSec: 100, BytesOutPerSec: 0.5}}},
		&TopicRequest{Qmgr: "QM1", Topic: "T"},
		&TopicPropsRequest{Qmgr: "QM1", Topic: "T", Properties: "partitions=3"},
		&TopicDescriptionReply{Topic: TopicEntry{Name: "T"}, Partitions: []PartitionEntry{{Partition: 1, Leader: 2, LeaderEpoch: 3,
			Replicas: []int{2, 3, 1}, InSync: []int{2}, StartOffset: 1, EndOffset: 9, HighWatermark: 8}}},
		&QueueNameRequest{Qmgr: "QM1", Queue: "Q"},
		&QueuePropertyReply{Property: QueuePropertyEntry{Name: "Q", Description: "d", MaxDepth: 5, MaxMsgSize: 1024, PutEnabled: true, Persistent: true, CreatedMs: 1700000000000}},
		&QueueListReply{Queues: []QueueEntry{{Depth: 3, InFlight: 1, PutRate: 0.5, GetRate: 4, Property: QueuePropertyEntry{Name: "Q", GetEnabled: true}}}},
		&ReloadQueueReply{Depth: 42},
		&RebalanceRequest{Qmgr: "QM1", DryRun: true},
		&RebalanceReply{Partitions: 6, Preferred: 4, Moves: []LeaderMoveEntry{{Topic: "T", Partition: 2, From: 1, To: 3}, {Topic: "T", Partition: 5, From: 2, To: 3, Skipped: "preferred node 3 is not running"}}},
		&QueuePropertyReply{Property: QueuePropertyEntry{Name: "Q", DeadLetterQueue: "Q.DLQ", MaxRedeliveries: 3}},
		&QueueDefineRequest{Qmgr: "QM1", Queue: "Q", Description: "d", MaxDepth: 1000, DeadLetterQueue: "Q.DLQ", MaxRedeliveries: 3},
		&QueueBrowseRequest{Qmgr: "QM1", Queue: "Q", FromSeq: 1 << 40, Max: 100, MaxBytes: 1 << 20},
		&QueueBrowseReply{Depth: 9, More: true, Messages: []BrowsedMessage{{Seq: 7, MsgID: []byte{1, 2}, PutTimeMs: 1700000000000, Redeliveries: 3,
			InFlight: true, Headers: []RecordHeader{{Key: "dlq.source", Value: []byte("Q")}, {Key: "n", Value: nil}}, Payload: []byte{}}}},
		&QueueMoveRequest{Qmgr: "QM1", From: "Q.DLQ", To: "", MsgIDs: [][]byte{{1}, {2, 3}}, DryRun: true},
		&QueueMoveReply{Moves: []MessageMoveEntry{{MsgID: []byte{1}, To: "Q"}, {MsgID: []byte{2}, Skipped: "in flight"}}, Moved: 1, StopReason: "full"},
		&ClusterRequest{Cluster: "C1"},
		&ClusterPropertyReply{Name: "C1", IlccPort: 27091, Version: 3, Replicas: 2, MinSync: 1, Placement: true,
			Nodes: []ClusterNodeEntry{{Number: 1, QueueManager: "QM1", Host: "ilink-12.example", Port: 21001, IlccPort: 27091}}},
		&SetClusterPropertyRequest{Cluster: "C1", BaseVersion: 3, Replicas: IntBlank, MinSync: 0, Placement: FlagOn, AutoStart: FlagBlank},
		&ClusterNodeRequest{Cluster: "C1", BaseVersion: 4, Node: ClusterNodeEntry{QueueManager: "QM2", Host: "h", Port: 1}},
		&RemoveNodeRequest{Cluster: "C1", BaseVersion: 4, Number: 2},
		&CreateClusterRequest{Definition: ClusterPropertyReply{Name: "C2", Nodes: []ClusterNodeEntry{{Number: 1}}}},
		&QmgrPropertyRequest{Qmgr: "QM1", Key: PropSubGroupTimeout, Value: "30"},
		&QmgrPropertyReply{Key: PropSubGroupTimeout, Value: "30"},
		&ReplicationStatusReply{Cluster: "C1", Leader: 1,
			Nodes: []NodeReplicationEntry{{ID: 1, QueueManager: "QM1", Role: "leader", State: "running", LagRecords: 3, LagMs: 20}},
			Topics: []TopicReplicationEntry{{Topic: "T", Partitions: []PartitionReplicationEntry{{Partition: 0, Leader: 1, InSync: []int{1},
				Followers: []FollowerEntry{{Node: 2, InSync: false, LagRecords: 5, LagMs: 1500}}}}}}},
		&StatSeriesRequest{Qmgr: "QM1", Topic: "T"},
		&StatSeriesReply{Scope: "T", ResolutionMs: 1000, StartMs: 1700000000000, Points: []StatPointEntry{{RecordsIn: 1, RecordsOut: 2, BytesIn: 3, BytesOut: 4}}},
		&ViewLoadRequest{Qmgr: "QM1", Level: 2},
		&ViewLoadReply{Level: 2, AtMs: 5, Sessions: 3, Requests: 100, RequestsPerSec: 2.5, Topics: 1, Partitions: 3, Queues: 1, QueueDepth: 9,
			Nodes:     []NodeLoadEntry{{ID: 1, Up: true, Running: true, Leader: true, DataSessions: 1, AdminSessions: 2, Requests: 50, RequestsPerSec: 1, PartitionsLed: 3}},
			QueueLoad: []QueueLoadEntry{{Name: "Q", Depth: 9, InFlight: 1, PutRate: 1, GetRate: 2}}},
		&ShutdownRequest{ClusterWide: true},
		&PatchRequest{FileName: "p.bin", Data: []byte{1, 2, 3}},
		&QuarantineRequest{Qmgr: "QM1", Dir: "d", Queue: "Q", SinceMs: 7, IncludeOld: true},
		&ReinjectReply{Count: 2, Leader: 1, StopReason: "queue full"},
		&SpokeListReply{Spokes: []SpokeEntry{{Name: "S1", Key: "K", Running: true, Qmgrs: []string{"QM_S1"}}}},
		&SpokeSwitchRequest{Name: "S1", Key: ""},
		&SpokeRegisterRequest{Name: "S1", Key: "K", Qmgrs: []string{"QM_S1"}},
		&SpokeTunnel{Tunnel: 1 << 40},
		&GroupListReply{Groups: []GroupEntry{{Name: "billing", State: "Stable", Members: 2, Durable: true, Generation: 4,
			Offsets: []GroupTopicOffsets{{Topic: "T", Partitions: []GroupPartitionOffsets{{Partition: 0, Committed: -1, LogStart: 3, End: 9}, {Partition: 1, Committed: 12, LogStart: 0, End: 1 << 40}}},
				{Topic: "GONE"}}}, {Name: "idle", State: "Empty"}}},
		&GroupDescriptionReply{Name: "billing", State: "Stable", Generation: 4, Coordinator: 2, Durable: true,
			Members: []GroupMemberEntry{{MemberID: "m1", ClientName: "svc", Host: "h", Assignment: tp, LastSeenMs: 9}},
			Offsets: []GroupOffsetEntry{{Topic: "T", Partition: 0, Committed: -1, LogStart: 2, EndOffset: 5, MemberID: "m1"}}},
		&SeekGroupRequest{Group: "billing", Topic: "T", Mode: SeekToTime, Offset: 0, TimeMs: 1700000000000, DryRun: true},
		&SeekGroupReply{Changes: []OffsetChangeEntry{{Topic: "T", Partition: 1, Old: -1, New: 0, LogStart: 0, End: 7}}},
		&SubscriptionListRequest{Qmgr: "QM1", Topic: "T"},
	}
}

func TestAdminMessagesRoundTrip(t *testing.T) {
	for _, m := range adminMessages() {
		b := Encode(nil, m)
		got := reflect.New(reflect.TypeOf(m).Elem()).Interface().(Message)
		if err := Decode(b, got); err != nil {
			t.Fatalf("%T: %v", m, err)
		}
		if !reflect.DeepEqual(m, got) {
			t.Fatalf("%T round trip:\n got %+v\nwant %+v", m, got, m)
		}
		// Every strict prefix fails to decode (no silent truncation).
		for n := 0; n < len(b); n++ {
			if err := Decode(b[:n], reflect.New(reflect.TypeOf(m).Elem()).Interface().(Message)); err == nil {
				t.Fatalf("%T: prefix of %d/%d bytes decoded", m, n, len(b))
			}
		}
		if err := Decode(append(b, 0), reflect.New(reflect.TypeOf(m).Elem()).Interface().(Message)); err == nil {
			t.Fatalf("%T: trailing byte accepted", m)
		}
	}
}

func TestVarintAndF32(t *testing.T) {
	var w Writer
	vals := []int64{0, -1, 1, 63, -64, 64, math.MaxInt64, math.MinInt64}
	for _, v := range vals {
		w.Varint(v)
	}
	w.F32(1.25)
	r := NewReader(w.B)
	for _, v := range vals {
		if got := r.Varint(); got != v {
			t.Fatalf("varint %d read as %d", v, got)
		}
	}
	if f := r.F32(); f != 1.25 || r.Err() != nil || r.Remaining() != 0 {
		t.Fatalf("f32 %v err %v rest %d", f, r.Err(), r.Remaining())
	}
	// An overlong varint is an error, not a wrap-around, and so is a
	// non-minimal one.
	for _, b := range [][]byte{bytes.Repeat([]byte{0xff}, 11), {0xc0, 0x00}} {
		r = NewReader(b)
		r.Varint()
		if r.Err() == nil {
			t.Fatalf("varint %x accepted", b)
		}
	}
	// A count larger than int32 for a small int is refused.
	var w2 Writer
	w2.Varint(1 << 40)
	var nc NodeControlRequest
	if err := Decode(append([]byte{0}, w2.B...), &nc); err == nil {
		t.Fatal("node id of 2^40 accepted")
	}
	// Tri-state flags and seek modes are checked.
	if err := Decode(Encode(nil, &SetClusterPropertyRequest{Placement: 3}), &SetClusterPropertyRequest{}); err == nil {
		t.Fatal("tri-state 3 accepted")
	}
	if err := Decode(Encode(nil, &SeekGroupRequest{Mode: 9}), &SeekGroupRequest{}); err == nil {
		t.Fatal("seek mode 9 accepted")
	}
}

func TestAppendSubscriptionLine(t *testing.T) {
	b := AppendSubscriptionLine(nil, "billing", "Stable", 2, -1, -1, 3)
	if string(b) != "billing|Stable|2|-1|-1|members=3" {
		t.Fatalf("%q", b)
	}
}

// FuzzAdminDecode feeds arbitrary bytes to every admin decoder: none may
// panic or allocate beyond the body's size (the Reader bounds every length).
func FuzzAdminDecode(f *testing.F) {
	for _, m := range adminMessages() {
		f.Add(Encode(nil, m))
	}
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, m := range adminMessages() {
			v := reflect.New(reflect.TypeOf(m).Elem()).Interface().(Message)
			if Decode(b, v) == nil {
				// Whatever decoded re-encodes to a body that decodes and
				// re-encodes to itself (lengths may arrive non-minimal).
				enc := Encode(nil, v)
				v2 := reflect.New(reflect.TypeOf(m).Elem()).Interface().(Message)
				if err := Decode(enc, v2); err != nil {
					t.Fatalf("%T: re-encoded body does not decode: %v", v, err)
				}
				if got := Encode(nil, v2); !bytes.Equal(got, enc) {
					t.Fatalf("%T: %x re-encoded as %x", v, enc, got)
				}
			}
		}
	})
}
