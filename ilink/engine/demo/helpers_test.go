package demo

import (
	"testing"
	"time"

	"ilinkdash/ilink/engine"
)

// startEngine starts an in-process engine for a demo test (ElectionDelay
// 300 ms unless cfg sets one), closed when the test ends.
func startEngine(t *testing.T, cfg engine.Config) *engine.Engine {
	t.Helper()
	if cfg.ElectionDelay == 0 {
		cfg.ElectionDelay = 300 * time.Millisecond
	}
	e, err := engine.Start(cfg)
	if err != nil {
		t.Fatalf("engine.Start: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}
