package serve

import (
	"testing"
	"time"

	"ilinkdash/ilink/ilinktest"
)

// twoSessionsOneTail starts a rig of maxTails tails with the topics ONE
// and TWO, and two sessions on it: a (an operator's) tailing ONE, and b
// (a viewer's).
func twoSessionsOneTail(t *testing.T, maxTails int) (r *rig, a, b *client) {
	t.Helper()
	r = startRig(t, rigOpts{maxTails: maxTails})
	r.createTopics("partitions=1", "ONE", "TWO")
	a = r.openShown(r.operator, "a's overview")
	b = r.openShown(r.viewer, "b's overview")
	a.openTail("ONE")
	return r, a, b
}

// TestSessionTailsCountAgainstMaxTails: the tails a session keeps each
// take a --max-tails slot (a session with two leaves none to another),
// keep running while the session looks at another tab, and all leave
// their temporary groups when the session ends.
func TestSessionTailsCountAgainstMaxTails(t *testing.T) {
	t.Parallel()
	r, a, b := twoSessionsOneTail(t, 2)
	a.openTail("TWO")
	a.waitText("tail 2 of 2 ([ ])")
	ilinktest.WaitFor(t, deadline, "two temporary groups", func() bool { return len(tailGroups(r)) == 2 })
	b.send(":tail ONE\r")
	b.waitText("every tail of this server is in use")
	a.send("3") // Groups: a's tails keep running
	a.waitText(" 6 Tail ●2 ")
	if g := tailGroups(r); len(g) != 2 {
		t.Fatalf("tail groups after a left the tail tab: %v", g)
	}
	a.send("q")
	a.exitStatus()
	ilinktest.WaitFor(t, deadline, "a's temporary groups to be left", func() bool { return len(tailGroups(r)) == 0 })
	b.send(":tail ONE\r")
	b.waitText("Tail ONE", "● live")
}

// A --max-tails slot that a closing tail is giving back is waited for;
// with none closing, a full server refuses at once.
func TestTakeTailSlotWaitsForAClosingTail(t *testing.T) {
	t.Parallel()
	s := &Server{tails: make(chan struct{}, 1)}
	s.tails <- struct{}{} // the one slot, taken
	if s.takeTailSlot(t.Context()) {
		t.Fatal("a slot taken with every slot in use and none closing")
	}
	s.tailsClosing.Add(1) // a tail is closing: its slot comes back
	go func() {
		time.Sleep(50 * time.Millisecond) // the slot comes back later: takeTailSlot must wait for it
		<-s.tails
		s.tailsClosing.Add(-1)
	}()
	if !s.takeTailSlot(t.Context()) {
		t.Fatal("the slot a closing tail gave back was not taken")
	}
}
