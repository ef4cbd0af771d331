package admin

import "testing"

func TestPartitionLag(t *testing.T) {
	for _, tc := range []struct {
		name                     string
		committed, logStart, end int64
		want                     PartLag
	}{
		{"committed", 40, 10, 100, PartLag{Records: 60}},
		{"caught up", 100, 10, 100, PartLag{Records: 0}},
		{"commit past a truncated end", 120, 10, 100, PartLag{Records: 0}},
		{"commit below the log start counts the deleted records", 5, 10, 100, PartLag{Records: 95}},
		{"no commit counts from the log start", -1, 10, 100, PartLag{Records: 90, NoCommit: true}},
		{"no commit, empty log", -1, 100, 100, PartLag{Records: 0, NoCommit: true}},
		{"no commit, no leader", -1, -1, 100, PartLag{Unknown: true, NoCommit: true}},
		{"committed, no leader: the end is enough", 40, -1, 100, PartLag{Records: 60}},
		{"deleted topic", 40, -1, -1, PartLag{Unknown: true}},
		{"deleted topic, no commit", -1, -1, -1, PartLag{Unknown: true, NoCommit: true}},
	} {
		if got := PartitionLag(tc.committed, tc.logStart, tc.end); got != tc.want {
			t.Errorf("%s: PartitionLag(%d, %d, %d) = %+v, want %+v", tc.name, tc.committed, tc.logStart, tc.end, got, tc.want)
		}
	}
}

func TestGroupLagCountsEveryPartition(t *testing.T) {
	ps := []PartitionOffsets{
		{"A", 0, 40, 0, 100}, // 60
		{"A", 1, -1, 20, 50}, // 30, no commit
		{"A", 2, -1, -1, 50}, // unknown, no commit
		{"B", 0, 7, -1, -1},  // unknown
		{"B", 1, 10, 10, 10}, // 0
	}
	if got, want := GroupLag(ps), (LagTotal{Records: 90, Partitions: 5, NoCommit: 2, Unknown: 2}); got != want {
		t.Fatalf("GroupLag = %+v, want %+v", got, want)
	}
	if !GroupLag(ps).Known() || GroupLag(nil).Known() || GroupLag(ps[2:4]).Known() {
		t.Fatal("Known: a group is known when one partition is")
	}
}

func TestSkipAgreesWithLag(t *testing.T) {
	// A seek to the end skips the lag, one to the start re-reads the
	// committed records, and a partition without a commit moved to an
	// offset skips what lies before it from the log start.
	for _, tc := range []struct {
		c    OffsetChange
		want int64
	}{
		{OffsetChange{Old: 40, New: 100, LogStart: 0, End: 100}, 60},
		{OffsetChange{Old: -1, New: 100, LogStart: 20, End: 100}, 80},
		{OffsetChange{Old: 40, New: 0, LogStart: 0, End: 100}, -40},
		{OffsetChange{Old: -1, New: 35, LogStart: 20, End: 100}, 15},
		{OffsetChange{Old: -1, New: 20, LogStart: 20, End: 100}, 0},
	} {
		n, ok := tc.c.Skip()
		lag := PartitionLag(tc.c.Old, tc.c.LogStart, tc.c.End).Records
		if !ok || n != tc.want {
			t.Errorf("%+v: skip %d %v, want %d", tc.c, n, ok, tc.want)
		}
		if tc.c.New == tc.c.End && n != lag {
			t.Errorf("%+v: a seek to the end skips %d, the lag is %d", tc.c, n, lag)
		}
	}
	if _, ok := (OffsetChange{Old: -1, New: 3, LogStart: -1, End: 9}).Skip(); ok {
		t.Error("a skip over an unknown log start is unknown")
	}
}
