package e2e

import (
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/ilinktest"
)

// tailGroupsOf are the tails' temporary groups at the engine.
func tailGroupsOf(e *engine.Engine) []string {
	var out []string
	for _, g := range e.Groups() {
		if strings.HasPrefix(g.Name, "ilinkdash-tail-") {
			out = append(out, g.Name)
		}
	}
	return out
}

// TestTailRunsInTheBackground: a tail keeps running while another tab is
// shown: the tab bar says so ("6 Tail ●"), the consumer keeps fetching
// and the records produced meanwhile are counted when the tail tab comes
// back. Paused, it fetches nothing even in the background ("6 Tail ⏸"),
// and its count does not move. x closes it: the temporary group is left.
func TestTailRunsInTheBackground(t *testing.T) {
	t.Parallel()
	const topic = "E2E.BACKGROUND"
	e, d, fetches := tailing(t, topic, 100)

	// Away on Groups: still live, still fetching.
	d.keys("3")
	d.waitText(" 6 Tail ● ", "ilinkdash-tail-")
	before := fetches.Load()
	produce(t, e, topic, 100, 300)
	ilinktest.WaitFor(t, deadline, "the background tail to fetch", func() bool { return fetches.Load() > before })
	if len(tailGroupsOf(e)) != 1 {
		t.Fatalf("tail groups while away: %v", tailGroupsOf(e))
	}
	d.keys("6")
	s := d.waitText("● live", "400 total", "k-399")
	if strings.Contains(s, "closed") {
		t.Fatalf("the tail closed while away:\n%s", s)
	}

	// Paused, then away: no FETCH however many records arrive; the count
	// stays, and the tail says what waits once back.
	d.keys("space")
	d.waitFor("the pause in effect", func(s string) bool {
		return strings.Contains(s, "⏸ PAUSED · 0 newer waiting") && !strings.Contains(s, "counting")
	})
	d.keys("3")
	d.waitText(" 6 Tail ⏸ ")
	before = fetches.Load()
	produce(t, e, topic, 400, 250)
	time.Sleep(time.Second) // letting several of the consumer's fetch intervals pass: no FETCH may come in them
	if n := fetches.Load() - before; n != 0 {
		t.Fatalf("%d FETCH requests reached the engine from a paused tail in the background", n)
	}
	d.keys("6")
	d.waitText("⏸ PAUSED · 250 newer waiting", "400 total")
	if n := fetches.Load() - before; n != 0 {
		t.Fatalf("%d FETCH requests from the paused tail", n)
	}

	// x closes it: the temporary group goes, the tab bar mark too, and
	// the closed tail is neither paused nor reading at a rate.
	d.keys("x")
	s = d.waitText("■ closed · r reopens it", "— rec/s", "400 total")
	if strings.Contains(s, "PAUSED") {
		t.Fatalf("a closed tail says PAUSED:\n%s", s)
	}
	ilinktest.WaitFor(t, deadline, "the temporary group to be left", func() bool { return len(tailGroupsOf(e)) == 0 })
	d.keys("3")
	s = d.waitText(" 3 Groups ")
	if strings.Contains(s, "Tail ●") || strings.Contains(s, "Tail ⏸") {
		t.Fatalf("the tab bar marks a closed tail:\n%s", s)
	}
}

// TestTwoTailsAndQuit: `:tail A` then `:tail B` keeps both (two
// temporary groups), ] switches, and quitting closes both.
func TestTwoTailsAndQuit(t *testing.T) {
	t.Parallel()
	e := engineWithTopic(t, "E2E.TWO.A", "partitions=1,replicas=1")
	createTopic(t, e, "E2E.TWO.B", "partitions=1,replicas=1")
	d := startDash(t, e, dashOpts{})
	d.tailLive("E2E.TWO.A")
	d.tailLive("E2E.TWO.B", "tail 2 of 2 ([ ])")
	produce(t, e, "E2E.TWO.A", 0, 7)
	ilinktest.WaitFor(t, deadline, "two temporary groups", func() bool { return len(tailGroupsOf(e)) == 2 })
	d.keys("]")
	d.waitText("Tail E2E.TWO.A", "tail 1 of 2 ([ ])", "7 total")
	d.keys("1")
	d.waitText(" 6 Tail ●2 ")
	d.quit()
	ilinktest.WaitFor(t, deadline, "both temporary groups to be left", func() bool { return len(tailGroupsOf(e)) == 0 })
}
