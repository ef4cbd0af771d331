package groups

import (
	"testing"
	"time"

	"ilinkdash/ilink/admin"
	"ilinkdash/ui/common"
	"ilinkdash/ui/components"
	"ilinkdash/ui/internal/viewtest"
)

// The detail's "producing" counts every partition whose end offsets
// moved, the ones the group never committed on included: their lag grows
// too. It counted only partitions with a commit, so a group whose records
// all went to a partition without one said "producing 0.0/s" while its
// lag grew by 30 a second.
func TestGroupDetailProductionCountsPartitionsWithoutACommit(t *testing.T) {
	ctx := viewtest.BenchContext(common.Plain)
	d := &groupDetail{
		prev: map[string]*partSample{},
		offs: components.NewTable(ctx, func(r offRow) string { return "" }),
		mems: components.NewTable(ctx, func(m admin.GroupMember) string { return m.MemberID }),
	}
	desc := func(end0, end1 int64) admin.GroupDescription {
		return admin.GroupDescription{Name: "g", Offsets: []admin.GroupOffset{
			{PartitionOffsets: admin.PartitionOffsets{Topic: "T", Partition: 0, Committed: -1, LogStart: 0, End: end0}},
			{PartitionOffsets: admin.PartitionOffsets{Topic: "T", Partition: 1, Committed: 1, LogStart: 0, End: end1}},
		}}
	}
	t0 := time.Unix(1_700_000_000, 0)
	d.applyDescribe(desc(100, 50), t0)
	d.applyDescribe(desc(160, 50), t0.Add(2*time.Second)) // 30/s into partition 0, none into 1
	if d.rate != 0 || d.prod != 30 {
		t.Fatalf("consuming %v/s, producing %v/s; want 0 and 30 (partition 0 has no commit, but its end moved)", d.rate, d.prod)
	}
	if r := d.offs.Items()[0]; r.rate != -1 || r.prod != 30 {
		t.Fatalf("partition 0: rate %v, prod %v; want unknown (-1) and 30", r.rate, r.prod)
	}
}
