package viewtest

import (
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
