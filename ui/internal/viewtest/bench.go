package viewtest

import (
	"runtime"
	"testing"

	"ilinkdash/ui/common"
)

// BenchFrames measures frames of v as it stands: one View an iteration,
// allocations reported.
func BenchFrames(b *testing.B, v common.View) {
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = v.View()
	}
}

// LiveHeap is the heap in use, in bytes, after two collections.
func LiveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
