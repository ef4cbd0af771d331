package admin

// Lag accounting (docs/HEALTH.md, "Lag"). This file is the one place that
// turns a partition's offsets into a lag: the group list, describe, the
// seek preview, the dashboard, `get`/`describe` and `check` all call it, so
// the figures they show cannot disagree.

// PartitionOffsets are one partition of a group's topics: its commit and
// the log's bounds, as the engine reported them together.
type PartitionOffsets struct {
	Topic     string
	Partition int32
	Committed int64 // next offset the group reads; -1 = no commit
	LogStart  int64 // first offset still in the log; -1 = unknown (no leader)
	End       int64 // high watermark; -1 = unknown (deleted topic)
}

// PartLag is a partition's lag.
type PartLag struct {
	// Records the group has not consumed; meaningful unless Unknown.
	Records int64
	// NoCommit: the group never committed on the partition, so it counts
	// from the log start (every record still in the log is unread).
	NoCommit bool
	// Unknown: an offset the rule needs is unknown (the partition has no
	// leader, or its topic was deleted). Shown as "-", never as -1.
	Unknown bool
}

// PartitionLag is the lag rule:
//
//   - a committed partition: end − committed (0 when the commit is past
//     the end, which only a truncated log can do);
//   - a partition without a commit: end − log start, flagged NoCommit,
//     since the group has read none of it;
//   - unknown when the end, or without a commit the log start, is.
//
// A commit below the log start still counts end − committed: the records
// retention deleted were never read either (the consumer will meet an
// out-of-range offset and reset).
func PartitionLag(committed, logStart, end int64) PartLag {
	switch {
	case end < 0:
		return PartLag{Unknown: true, NoCommit: committed < 0}
	case committed >= 0:
		return PartLag{Records: max(end-committed, 0)}
	case logStart < 0:
		return PartLag{Unknown: true, NoCommit: true}
	}
	return PartLag{Records: max(end-logStart, 0), NoCommit: true}
}

// Lag is the partition's lag (PartitionLag).
func (p PartitionOffsets) Lag() PartLag { return PartitionLag(p.Committed, p.LogStart, p.End) }

// LagTotal is a group's lag over its partitions.
type LagTotal struct {
	// Records is the sum over the partitions whose lag is known.
	Records    int64
	Partitions int // partitions counted
	NoCommit   int // partitions without a commit (their lag counts from the log start)
	Unknown    int // partitions whose lag is unknown (left out of Records)
}

// Known reports whether any partition's lag is known: a group whose every
// partition is unknown (or that has none) has no lag to show ("-").
func (t LagTotal) Known() bool { return t.Partitions > t.Unknown }

// GroupLag sums PartitionLag over a group's partitions.
func GroupLag(ps []PartitionOffsets) LagTotal {
	t := LagTotal{Partitions: len(ps)}
	for _, p := range ps {
		l := p.Lag()
		if l.NoCommit {
			t.NoCommit++
		}
		if l.Unknown {
			t.Unknown++
			continue
		}
		t.Records += l.Records
	}
	return t
}

// Skip is the records a seek makes the group skip (negative: read again):
// its lag before the change minus its lag after, both by PartitionLag, so a
// seek to the latest offset skips exactly the lag the group list shows.
// ok is false when the partition's offsets are unknown.
func (c OffsetChange) Skip() (n int64, ok bool) {
	before := PartitionLag(c.Old, c.LogStart, c.End)
	after := PartitionLag(c.New, c.LogStart, c.End)
	if before.Unknown || after.Unknown {
		return 0, false
	}
	return before.Records - after.Records, true
}
