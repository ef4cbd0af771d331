package viewtest

import (
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"

	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
)

// AssertNoMutatingHelp fails when the view's help offers a mutating key
// (a read-only dashboard must not).
func AssertNoMutatingHelp(t *testing.T, r *Rig) {
	t.Helper()
	mut := map[string]bool{}
	for _, b := range r.Ctx.Keys.Mutating() {
		mut[b.Help().Desc] = true
	}
	check := func(bs []key.Binding) {
		for _, b := range bs {
			if b.Enabled() && mut[b.Help().Desc] {
				t.Fatalf("read-only help offers %q", b.Help().Desc)
			}
		}
	}
	check(r.V.ShortHelp())
	for _, g := range r.V.FullHelp() {
		check(g)
	}
}

// FirstRow is the name on the table's first body line below the header
// that contains head.
func FirstRow(t *testing.T, screen, head string) string {
	t.Helper()
	lines := strings.Split(screen, "\n")
	for i, l := range lines {
		if strings.Contains(l, head) && i+1 < len(lines) {
			return strings.Fields(lines[i+1])[0]
		}
	}
	t.Fatalf("no header %q in\n%s", head, screen)
	return ""
}

// RowOf is the table line whose first cell is name, under the cursor (▸)
// or not; "" when there is none.
func RowOf(screen, name string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(l, "▸ "+name+" ") || strings.HasPrefix(l, "  "+name+" ") {
			return l
		}
	}
	return ""
}

// FlashTexts returns and forgets the texts of the flashes the view emitted
// (its refusals among them).
func FlashTexts(r *Rig) []string {
	var out []string
	for _, f := range Took[common.FlashMsg](r) {
		out = append(out, f.Text)
	}
	return out
}

// AssertReadOnlyKeys presses keys (mutating ones) on the read-only view
// mk makes, after a poll: no dialog may open, and its help offers no
// mutating key. name names the view in the failure.
func AssertReadOnlyKeys(t *testing.T, name string, mk func(*common.Context, *fakes.Source) common.View, keys ...string) {
	t.Helper()
	r := Polled(t, true, mk)
	r.Key(keys...)
	if r.V.Capturing() {
		t.Fatalf("%s: a mutating dialog opened read-only:\n%s", name, r.Screen())
	}
	AssertNoMutatingHelp(t, r)
}
