package cli

import (
	"testing"

	"ilinkdash/ilink/admin"
)

// A named group the list lacks is DEAD, unless it was listed earlier in
// the run: then the monitor judges its absence (a moving coordinator).
func TestGroupFilterNamedButMissing(t *testing.T) {
	f, err := parseGroupFilter("billing,ship*")
	if err != nil {
		t.Fatal(err)
	}
	list := []admin.GroupInfo{{Name: "shipping"}, {Name: "other"}}
	never := func(string) bool { return false }
	out, unmatched := f.apply(list, never)
	if len(out) != 2 || out[0].Name != "shipping" || out[1].Name != "billing" || out[1].State != admin.GroupDead || len(unmatched) != 0 {
		t.Fatalf("never listed: %+v, unmatched %v", out, unmatched)
	}
	out, _ = f.apply(list, func(n string) bool { return n == "billing" })
	if len(out) != 1 || out[0].Name != "shipping" {
		t.Fatalf("listed earlier: %+v, want billing left to the monitor", out)
	}
	if _, unmatched := f.apply([]admin.GroupInfo{{Name: "billing"}}, never); len(unmatched) != 1 || unmatched[0] != "ship*" {
		t.Fatalf("a pattern matching nothing: unmatched %v", unmatched)
	}
}
