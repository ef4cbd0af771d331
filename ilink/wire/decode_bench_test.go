package wire

import (
	"fmt"
	"testing"
)

// pollReplies are the two big poll replies with many small nested arrays,
// whose decoders share backing arrays (readArrayFrom): 2,000 topics of 3
// partitions, and 2,000 groups of one topic each.
func pollReplies() (rs, gl []byte) {
	var r ReplicationStatusReply
	var g GroupListReply
	for i := 0; i < 2000; i++ {
		t := TopicReplicationEntry{Topic: fmt.Sprintf("T%04d", i)}
		for p := int32(0); p < 3; p++ {
			t.Partitions = append(t.Partitions, PartitionReplicationEntry{Partition: p, Leader: 1, InSync: []int{1, 2},
				Followers: []FollowerEntry{{Node: 2, InSync: true}, {Node: 3, LagRecords: 4}}})
		}
		r.Topics = append(r.Topics, t)
		g.Groups = append(g.Groups, GroupEntry{Name: fmt.Sprintf("G%04d", i), State: "Stable", Members: 1,
			Offsets: []GroupTopicOffsets{{Topic: t.Topic, Partitions: []GroupPartitionOffsets{{0, 1, 0, 2}, {1, 1, 0, 2}, {2, -1, 0, 2}}}}})
	}
	return Encode(nil, &r), Encode(nil, &g)
}

func BenchmarkDecodePollReplies(b *testing.B) {
	rs, gl := pollReplies()
	for _, c := range []struct {
		name string
		body []byte
		msg  func() Message
	}{
		{"ReplicationStatus", rs, func() Message { return &ReplicationStatusReply{} }},
		{"GroupList", gl, func() Message { return &GroupListReply{} }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if err := Decode(c.body, c.msg()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
