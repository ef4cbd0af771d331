package engine

import (
	"strings"
	"testing"

	"ilinkdash/ilink/wire"
)

// SEEK GROUP moves one partition of a topic (P@OFFSET) and leaves the
// others; with Planned it applies the preview's offsets, not a "latest"
// resolved again after more records arrived (issue 22, defect 10).
func TestSeekGroupOnePartitionAndPlannedOffsets(t *testing.T) {
	t.Parallel()
	e := groupEngine(t, "T", "partitions=3")
	now := fillPartitions(t, e, "T", 8, 6, 4)
	if _, err := e.SeekGroup(wire.SeekGroupRequest{Group: "g", Topic: "T", Mode: wire.SeekToOffset, Offset: 1}); err != nil {
		t.Fatal(err)
	}
	c := coordSession(t, e, "g")

	// One partition: 2@5 moves T/2 only (clamped to its end, 4); 1@5 then T/1.
	changes, f := c.seek(wire.SeekGroupRequest{Group: "g", Topic: "T", Mode: wire.SeekToOffset, Offset: 5, Partitions: []int32{2}})
	if f != nil || changesText(changes) != "T/2:1->4" {
		t.Fatalf("seek of partition 2: %s %v", changesText(changes), f)
	}
	if _, f = c.seek(wire.SeekGroupRequest{Group: "g", Topic: "T", Mode: wire.SeekToOffset, Offset: 5, Partitions: []int32{1}}); f != nil {
		t.Fatal(f)
	}
	if got := e.GroupCommits("g")["T"]; got[0] != 1 || got[1] != 5 || got[2] != 4 {
		t.Fatalf("commits after the one-partition seeks: %v, want [1 5 4]", got)
	}
	// A dry run of one partition plans that partition only.
	changes, _ = c.seek(wire.SeekGroupRequest{Group: "g", Topic: "T", Mode: wire.SeekToEarliest, Partitions: []int32{0}, DryRun: true})
	if changesText(changes) != "T/0:1->0" {
		t.Fatalf("dry run of partition 0: %s", changesText(changes))
	}
	for _, tc := range []struct {
		req  wire.SeekGroupRequest
		tail string
	}{
		{wire.SeekGroupRequest{Group: "g", Topic: "T", Partitions: []int32{3}}, "topic T has 3 partitions: no partition 3"},
		{wire.SeekGroupRequest{Group: "g", Partitions: []int32{0}}, "name their topic"},
		{wire.SeekGroupRequest{Group: "g", Topic: "T", Planned: []wire.OffsetChangeEntry{{Topic: "T", Partition: 0, New: -2}}}, "is negative"},
		{wire.SeekGroupRequest{Group: "g", Topic: "T", Planned: []wire.OffsetChangeEntry{{Topic: "T", Partition: 0, New: 1}, {Topic: "T", Partition: 0, New: 2}}}, "given twice"},
		{wire.SeekGroupRequest{Group: "g", Topic: "T", Partitions: []int32{1}, Planned: []wire.OffsetChangeEntry{{Topic: "T", Partition: 0, New: 1}}}, "is not of partitions [1]"},
	} {
		_, f := c.seek(tc.req)
		if f == nil || !strings.HasPrefix(f.text, wire.ErrInvalidArgument) || !strings.Contains(f.text, tc.tail) {
			t.Errorf("seek %+v: %+v, want INVALID_ARGUMENT …%s…", tc.req, f, tc.tail)
		}
	}

	// Planned: the preview of "latest" said T/0 -> 8; records arrive
	// before the apply; the apply moves to 8, not to the new end 11.
	plan, f := c.seek(wire.SeekGroupRequest{Group: "g", Topic: "T", Mode: wire.SeekToLatest, Partitions: []int32{0}, DryRun: true})
	if f != nil || changesText(plan) != "T/0:1->8" {
		t.Fatalf("plan: %s %v", changesText(plan), f)
	}
	produceAt(t, e, "T", 0, now, 3)
	applied, f := c.seek(wire.SeekGroupRequest{Group: "g", Topic: "T", Mode: wire.SeekToLatest, Partitions: []int32{0}, Planned: plan})
	if f != nil || changesText(applied) != "T/0:1->8" || applied[0].End != 11 {
		t.Fatalf("apply of the plan: %s (end %d) %v, want T/0:1->8 with end 11", changesText(applied), applied[0].End, f)
	}
	if got := e.GroupCommits("g")["T"]; got[0] != 8 || got[1] != 5 || got[2] != 4 {
		t.Fatalf("commits after the planned apply: %v, want [8 5 4]", got)
	}
}
