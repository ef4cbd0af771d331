package tail_test

import (
	"strings"
	"testing"

	"ilinkdash/ui/internal/fakes"
)

// At 70 columns a pattern tail keeps TOPIC (it says which stream a record
// is of): the time and the partition go first.
func TestPatternTailAt70KeepsTopic(t *testing.T) {
	r := newTailRig(t, 0, fakes.TailerOptions{})
	r.V.SetSize(70, 20)
	r.open("ORDER.*", 5)
	s := r.Screen()
	var head string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, "OFFSET") {
			head = l
		}
	}
	if !strings.Contains(head, "TOPIC") || strings.Contains(head, "TIME") {
		t.Fatalf("header at 70 columns %q\n%s", head, s)
	}
}
