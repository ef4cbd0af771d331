package publish

import (
	"fmt"
	"testing"
	"time"
)

// A run's figures stay bounded however long it runs and however varied
// its errors: at most maxDistinctErrors texts (the rest under "(other
// errors)"), latWindow latencies.
func TestMeterKeepsBoundedFigures(t *testing.T) {
	m := NewMeter(1_000_000, nil)
	for i := range 10_000 {
		m.Sent()
		m.Done(0, 0, fmt.Errorf("MIMQE_X (failure %d)", i), 0)
	}
	for i := range 100_000 {
		m.Sent()
		m.Done(int32(i%6), int64(i), nil, time.Duration(i)*time.Microsecond)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.errs) > maxDistinctErrors+1 {
		t.Fatalf("%d distinct error texts kept after 10,000 distinct errors, want at most %d and the rest counted together", len(m.errs), maxDistinctErrors+1)
	}
	if m.errs["(other errors)"] != 10_000-maxDistinctErrors || m.failed != 10_000 {
		t.Fatalf("other errors %d, failed %d: the errors beyond the bound are not all counted", m.errs["(other errors)"], m.failed)
	}
	if n := m.lat.Count(); n != latWindow {
		t.Fatalf("the latency window holds %d latencies after 100,000 records, want %d", n, latWindow)
	}
}
