package viewtest

import (
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"

	"ilinkdash/ui/common"
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

// FlashTexts returns and forgets the texts of the flashes the view emitted
// (its refusals among them).
func FlashTexts(r *Rig) []string {
	var out []string
	for _, f := range Took[common.FlashMsg](r) {
		out = append(out, f.Text)
	}
	return out
}
