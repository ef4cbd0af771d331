// Package enginetest starts in-process engines for the tests of the
// packages above the engine: each closed when its test ends, a failed
// start failing the test. Only tests import it (docs/DESIGN.md §1.3
// rule 7); the engine's own tests cannot, as it imports the engine.
package enginetest

import (
	"fmt"
	"testing"
	"time"

	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/ilinktest"
)

// Start starts an engine of cfg, closed when tb ends.
func Start(tb testing.TB, cfg engine.Config) *engine.Engine {
	tb.Helper()
	e, err := engine.Start(cfg)
	if err != nil {
		tb.Fatalf("engine.Start: %v", err)
	}
	tb.Cleanup(func() { _ = e.Close() })
	return e
}

// small is a one-node cluster that elects and loads its coordinators
// quickly: what a hub or a spoke of a test is.
func small() engine.Config {
	return engine.Config{Nodes: 1, ElectionDelay: 200 * time.Millisecond, CoordinatorLoadTime: 20 * time.Millisecond}
}

// Hub starts a one-node hub with the named spokes (one node each, in the
// hub's process).
func Hub(tb testing.TB, spokes ...string) *engine.Engine {
	tb.Helper()
	cfg := small()
	for _, s := range spokes {
		cfg.Spokes = append(cfg.Spokes, engine.SpokeConfig{Name: s})
	}
	return Start(tb, cfg)
}

// LinkSpoke starts a one-node cluster (queue manager QM_<name>) linked
// to hub as spoke name: a spoke of its own process, as a plant's is.
func LinkSpoke(tb testing.TB, hub *engine.Engine, name string) *engine.Engine {
	tb.Helper()
	cfg := small()
	cfg.QueueManager = "QM_" + name
	e := Start(tb, cfg)
	if err := e.LinkToHub(hub.SpokeAddr(), name, ""); err != nil {
		tb.Fatalf("link spoke %s: %v", name, err)
	}
	return e
}

// WaitHighWatermark waits until topic's high watermarks sum to n: its
// records are readable, and a seek can land on any of them. A publish is
// answered once the leader has the record; the watermark moves once the
// followers have it, and a seek lands at most there.
func WaitHighWatermark(tb testing.TB, e *engine.Engine, topic string, n int64) {
	tb.Helper()
	ilinktest.WaitFor(tb, 30*time.Second, fmt.Sprintf("%s's %d records below the high watermark", topic, n), func() bool {
		for _, t := range e.Topics() {
			if t.Name == topic {
				return t.HighWatermarkSum == n
			}
		}
		return false
	})
}
