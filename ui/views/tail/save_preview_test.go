package tail_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
	"ilinkdash/ui/internal/viewtest"
)

// The save dialog's count is what is saved: records that arrive while it
// is open are not written, and counted records a full buffer dropped
// meanwhile are said in the flash (a warning), not silently replaced.
func TestTailSaveWritesWhatTheDialogCounted(t *testing.T) {
	dir := t.TempDir()
	save := func(r *tailRig, name string, arriving int) (common.FlashMsg, int) {
		t.Helper()
		r.Key("w")
		r.Key("enter", "ctrl+u")
		path := filepath.Join(dir, name)
		r.TypeText(path)
		r.emit(arriving) // the tail runs on while the dialog is open
		r.Key("enter")
		fl := viewtest.Took[common.FlashMsg](r.Rig)
		if len(fl) != 1 {
			t.Fatalf("%s: flashes %+v", name, fl)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return fl[0], strings.Count(string(b), "\n")
	}

	r := newTailRig(t, 0, fakes.TailerOptions{})
	r.open("ORDER.EVENT", 63)
	r.Key("w")
	r.MustShow("Save the tail buffer", "63 records.")
	r.Key("esc")
	fl, lines := save(r, "open.jsonl", 20)
	if lines != 63 || fl.Level != common.LevelOK || !strings.Contains(fl.Text, "saved 63 records") {
		t.Errorf("saved %d lines, flash %+v; want the 63 counted, not the 20 that came after", lines, fl)
	}

	// A full buffer of 50: the 10 arriving push 10 counted ones out.
	r = newTailRig(t, 50, fakes.TailerOptions{})
	r.open("ORDER.EVENT", 80)
	r.Key("w")
	r.MustShow("50 records.")
	r.Key("esc")
	fl, lines = save(r, "full.jsonl", 10)
	if lines != 40 || fl.Level != common.LevelWarn || !strings.Contains(fl.Text, "saved 40 records") ||
		!strings.Contains(fl.Text, "10 records counted had left the full buffer") {
		t.Errorf("saved %d lines, flash %+v; want 40 and the 10 dropped said", lines, fl)
	}
}
