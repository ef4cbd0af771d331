package admin

import (
	"slices"
	"testing"

	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/wire"
)

// ALTER TOPIC through the admin client against the engine.
func TestAlterTopicThroughAdmin(t *testing.T) {
	t.Parallel()
	_, _, q, ctx := startAdmin(t, engine.Config{}, 2)
	noErr(t, q.CreateTopic(ctx, "ALT.T", "partitions=2,retention.ms=60000"))
	for i := 0; i < 2; i++ {
		must[PublishResult](t)(q.Publish(ctx, "ALT.T", nil, []byte("before")))
	}

	if err := q.AlterTopic(ctx, "ALT.T", "partitions=4,minSync=2,retention.ms=120000,retention.bytes=1048576"); err != nil {
		t.Fatalf("AlterTopic: %v", err)
	}
	d := must[TopicDescription](t)(q.DescribeTopic(ctx, "ALT.T"))
	if d.Partitions != 4 || len(d.PartitionList) != 4 || d.Replicas != 3 || d.MinSync != 2 ||
		d.RetentionMs != 120000 || d.RetentionBytes != 1048576 || d.Epoch != 1 || d.Offline != 0 || d.EndOffsetSum != 2 {
		t.Fatalf("describe after the alter: %+v", d.TopicInfo)
	}
	for i, p := range d.PartitionList {
		if p.Partition != int32(i) || p.Leader != i%3+1 || len(p.Replicas) != 3 || len(p.InSync) != 3 || p.LeaderEpoch != 1 {
			t.Fatalf("partition %d after the alter: %+v", i, p)
		}
		if i >= 2 && (p.StartOffset != 0 || p.EndOffset != 0) {
			t.Fatalf("new partition %d is not empty: %+v", i, p)
		}
	}
	var listed *TopicInfo
	for _, ti := range must[[]TopicInfo](t)(q.Topics(ctx)) {
		if ti.Name == "ALT.T" {
			listed = &ti
		}
	}
	if listed == nil || listed.Partitions != 4 || listed.MinSync != 2 || listed.RetentionMs != 120000 || listed.RetentionBytes != 1048576 {
		t.Fatalf("topic list after the alter: %+v", listed)
	}
	// PUBLISH goes round-robin over the new partition count.
	var parts []int32
	for i := 0; i < 4; i++ {
		parts = append(parts, must[PublishResult](t)(q.Publish(ctx, "ALT.T", nil, []byte("after"))).Partition)
	}
	slices.Sort(parts)
	if !slices.Equal(parts, []int32{0, 1, 2, 3}) {
		t.Fatalf("publish after the growth went to partitions %v", parts)
	}

	// Refusals, with their exact texts.
	for _, tc := range []struct {
		topic, props, name, tail string
	}{
		{"ALT.T", "partitions=3", wire.ErrInvalidArgument, "partitions can only grow: 4 -> 3"},
		{"ALT.T", "replicas=1", wire.ErrInvalidArgument, "replicas cannot be altered: ALT.T has replicas=3 (fixed at creation)"},
		{"ALT.T", "minSync=4", wire.ErrInvalidArgument, "minSync: 4 out of range 1..3 (the topic's replicas)"},
		{wire.GroupsTopic, "partitions=8", wire.ErrInvalidArgument, "topic SYSTEM.GROUPS is internal: its layout is fixed"},
		{"NOPE", "retention.ms=1", wire.ErrUnknownTopic, "NOPE"},
	} {
		if err := wantErr(t, q.AlterTopic(ctx, tc.topic, tc.props), tc.name, tc.tail); err.Tail != tc.tail {
			t.Fatalf("AlterTopic(%s, %q): tail %q, want %q", tc.topic, tc.props, err.Tail, tc.tail)
		}
	}
	d = must[TopicDescription](t)(q.DescribeTopic(ctx, "ALT.T"))
	if d.Partitions != 4 || d.MinSync != 2 {
		t.Fatalf("refused alters changed the topic: %+v", d.TopicInfo)
	}
}
