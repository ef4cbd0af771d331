package consumer

import (
	"testing"
	"time"

	"ilinkdash/ilink/ilinktest"
)

// FetchHealth follows the fetching: fresh while an idle topic's long polls
// come back, failing (with when it started) while the engine is off the
// network, fresh and clear again once it is back.
func TestFetchHealthThroughAnOutage(t *testing.T) {
	t.Parallel()
	e := startEngine(t, 1)
	if err := e.CreateTopic("HEALTH.T", "partitions=1"); err != nil {
		t.Fatal(err)
	}
	c := mustAssign(t, engineAddrs(e), "HEALTH.T", []int32{0}, testOptions(t, ""))
	ilinktest.WaitFor(t, 10*time.Second, "a first fetch reply", func() bool { return !c.FetchHealth().OK.IsZero() })
	first := c.FetchHealth().OK
	ilinktest.WaitFor(t, 10*time.Second, "an idle long poll's reply", func() bool { return c.FetchHealth().OK.After(first) })
	if h := c.FetchHealth(); h.Err != nil || !h.FailingSince.IsZero() {
		t.Fatalf("while fetching: %+v, want no error", h)
	}

	before := time.Now()
	if err := e.Outage(); err != nil {
		t.Fatal(err)
	}
	ilinktest.WaitFor(t, 10*time.Second, "the fetch failing", func() bool { return c.FetchHealth().Err != nil })
	h := c.FetchHealth()
	if h.FailingSince.Before(before) || h.OK.After(h.FailingSince) {
		t.Fatalf("during the outage: %+v, want failing since after %v and no reply since", h, before)
	}

	if err := e.EndOutage(); err != nil {
		t.Fatal(err)
	}
	ilinktest.WaitFor(t, 20*time.Second, "fetching again", func() bool {
		h := c.FetchHealth()
		return h.Err == nil && h.OK.After(before)
	})
	if h := c.FetchHealth(); !h.FailingSince.IsZero() {
		t.Fatalf("after the outage: %+v, want no failure", h)
	}
}
