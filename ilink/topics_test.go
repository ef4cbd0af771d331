package ilink

import (
	"sync/atomic"
	"testing"

	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/wire"
)

func TestCreateTopicIfMissing(t *testing.T) {
	t.Parallel()
	e := startTopicEngine(t, engine.Config{}, map[string]string{"OLD": "partitions=2"})
	var reqs atomic.Int32
	e.Control(func(*engine.ControlEvent) engine.ControlAction {
		reqs.Add(1)
		return engine.ControlAction{}
	})
	cfg := ConnConfig{ClientName: "create-test", Mode: wire.ModeProducer}
	// Read-only: refused with nothing sent, and no topic made.
	created, err := CreateTopicIfMissing(testCtx(t), e.DataAddrs(), cfg, true, "NEW", "partitions=3")
	if created || !HasName(err, wire.ErrReadOnly) || AsError(err).Tail != "CreateTopic refused: read-only mode" || reqs.Load() != 0 {
		t.Fatalf("read-only: created %v, %v, %d requests", created, err, reqs.Load())
	}
	// A dead address first: the next one answers.
	addrs := append([]string{"127.0.0.1:1"}, e.DataAddrs()...)
	if created, err := CreateTopicIfMissing(testCtx(t), addrs, cfg, false, "NEW", "partitions=3"); !created || err != nil {
		t.Fatalf("NEW: created %v, %v", created, err)
	}
	if _, end := e.TopicOffsets("NEW"); len(end) != 3 {
		t.Fatalf("NEW has %d partitions, want 3", len(end))
	}
	// An existing topic is no error and is left as it is.
	if created, err := CreateTopicIfMissing(testCtx(t), e.DataAddrs(), cfg, false, "OLD", "partitions=5"); created || err != nil {
		t.Fatalf("OLD: created %v, %v", created, err)
	}
	if _, end := e.TopicOffsets("OLD"); len(end) != 2 {
		t.Fatalf("OLD has %d partitions, want 2", len(end))
	}
	// A bad property names what was wrong.
	if _, err := CreateTopicIfMissing(testCtx(t), e.DataAddrs(), cfg, false, "BAD", "partitions=x"); err == nil || !HasName(err, wire.ErrInvalidArgument) {
		t.Fatalf("bad props: %v", err)
	}
}
