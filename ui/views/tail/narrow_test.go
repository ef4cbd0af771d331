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

// At 60 columns the tail's dialogs keep every hint of their footer: the
// search dialog's ended "… tab/↓ next field  esc ┘", its esc cancel cut.
func TestTailDialogFootersAt60(t *testing.T) {
	st := &searchTailer{Tailer: fakes.NewTailer(fakes.TailerOptions{})}
	r := newTailRigOver(t, 0, st, st.Tailer)
	r.V.SetSize(60, 30)
	r.open("ORDER.EVENT", 5)
	for _, k := range []string{"S", "o", "w"} {
		r.Key(k)
		s := r.Screen()
		var last string
		for _, l := range strings.Split(s, "\n") {
			if strings.Contains(l, "└") {
				last = strings.TrimSpace(l)
			}
		}
		if !strings.HasPrefix(last, "└ ") || !strings.Contains(last, "esc cancel ─") {
			t.Fatalf("%s: the dialog's bottom border %q lacks esc cancel:\n%s", k, last, s)
		}
		r.Key("esc")
	}
}
