package engine

import "testing"

// The leadership log keeps the last maxElectionRecords elections: a
// cluster whose leaders flap for a day holds 64 records, the newest.
func TestLeadershipLogKeepsTheLastElections(t *testing.T) {
	var l leadLog
	l.init(3)
	for i := range 1000 {
		l.partitionElection("T", int32(i), 1, 2, true, "test")
		l.elected("C", 1+i%3)
	}
	snap := l.snapshot()
	if len(snap.elections) != maxElectionRecords || cap(l.elections) > 2*maxElectionRecords {
		t.Fatalf("%d records (capacity %d) after 2,000 elections, want %d", len(snap.elections), cap(l.elections), maxElectionRecords)
	}
	last := snap.elections[len(snap.elections)-1]
	prev := snap.elections[len(snap.elections)-2]
	if last.scope != "cluster" || prev.partition != 999 {
		t.Fatalf("the log does not end with the newest elections: %+v, %+v", prev, last)
	}
	if snap.epoch != 1+1000 {
		t.Fatalf("epoch %d after 1,000 cluster elections, want 1001", snap.epoch)
	}
}
