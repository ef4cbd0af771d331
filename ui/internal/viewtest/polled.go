package viewtest

import (
	"testing"

	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
)

// Polled is New and then one Poll: the view as most tests start it, every
// list of the fake in.
func Polled(t *testing.T, readOnly bool, mk func(*common.Context, *fakes.Source) common.View) *Rig {
	t.Helper()
	r := New(t, readOnly, mk)
	r.Poll()
	return r
}
