package consumer

import (
	"sync/atomic"
	"testing"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/wire"
)

// A read-only consumer reads through a temporary group or no group, and is
// refused a durable group or a group to commit to before any request.
func TestReadOnlyConsumer(t *testing.T) {
	t.Parallel()
	e := startEngine(t, 1)
	if err := e.CreateTopic("RO.T", "partitions=1"); err != nil {
		t.Fatal(err)
	}
	produceN(t, newTestProducer(t, e, ilink.ProducerConfig{}), "RO.T", 0, 5)
	var reqs atomic.Int32
	e.Control(func(*engine.ControlEvent) engine.ControlAction {
		reqs.Add(1)
		return engine.ControlAction{}
	})
	refused := func(what, wantTail string, err error) {
		t.Helper()
		if ae := ilink.AsError(err); ae == nil || ae.Name != wire.ErrReadOnly || ae.Tail != wantTail {
			t.Fatalf("%s: %v, want MIMQE_READ_ONLY (%s)", what, err, wantTail)
		}
	}
	durable := testOptions(t, "ro-durable")
	durable.ReadOnly = true
	_, err := Subscribe(testCtx(t, 5*time.Second), engineAddrs(e), "RO.T", durable)
	refused("Subscribe, durable group", "join of durable group ro-durable refused: read-only mode", err)
	commits := testOptions(t, "ro-commits")
	commits.ReadOnly = true
	_, err = Assign(testCtx(t, 5*time.Second), engineAddrs(e), "RO.T", nil, commits)
	refused("Assign with a group", "commit to group ro-commits refused: read-only mode", err)
	if n := reqs.Load(); n != 0 {
		t.Fatalf("the refusals sent %d requests", n)
	}
	if gs := e.Groups(); len(gs) != 0 {
		t.Fatalf("groups after the refusals: %v", gs)
	}

	temp := testOptions(t, "ro-temp")
	temp.ReadOnly, temp.Durable = true, false
	if recs := readN(t, mustSubscribe(t, engineAddrs(e), "RO.T", temp), 5, 10*time.Second); len(recs) != 5 {
		t.Fatalf("temporary group: %d records", len(recs))
	}
	plain := testOptions(t, "")
	plain.ReadOnly = true
	if recs := readN(t, mustAssign(t, engineAddrs(e), "RO.T", nil, plain), 5, 10*time.Second); len(recs) != 5 {
		t.Fatalf("assigned without a group: %d records", len(recs))
	}
}
