package tail_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
	"ilinkdash/ui/internal/viewtest"
)

// The save dialog reads its path with the one "~" rule (config.ExpandHome):
// ~/ is the home directory, ~user is refused by name and nothing is written.
func TestTailSaveUnderHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	r := newTailRig(t, 0, fakes.TailerOptions{})
	s := r.open("ORDER.EVENT", 0)
	s.Emit(5)
	r.Advance(300 * time.Millisecond)

	save := func(path string) []common.FlashMsg {
		t.Helper()
		r.Key("w")
		r.MustShow("Save the tail buffer")
		r.Key("enter", "ctrl+u")
		r.TypeText(path)
		r.Key("enter")
		return viewtest.Took[common.FlashMsg](r.Rig)
	}
	if f := save("~/out.jsonl"); len(f) != 1 || !strings.Contains(f[0].Text, "saved 5 records") {
		t.Fatalf("flashes %+v", f)
	}
	if b, err := os.ReadFile(filepath.Join(home, "out.jsonl")); err != nil || strings.Count(string(b), "\n") != 5 {
		t.Fatalf("~/out.jsonl: %v, %q", err, b)
	}
	r.Rig.Out = nil
	save("~nobody/out.jsonl")
	// The dialog stays open with the error under the path.
	if !r.v.Capturing() {
		t.Fatal("the dialog closed on a refused path")
	}
	r.MustShow(`only "~" and "~/" are expanded, not`)
	if _, err := os.Stat("~nobody"); err == nil {
		t.Fatal("a ~nobody directory was written")
	}
}
