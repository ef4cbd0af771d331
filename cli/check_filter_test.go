package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/admin/health"
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

func TestGroupJSONCarriesRebalances(t *testing.T) {
	st := health.GroupStatus{Info: admin.GroupInfo{Name: "flappy", State: admin.GroupStable, Members: 2}, Word: health.OK, Rate: -1, Rebalances: 4}
	b, err := json.Marshal(groupStatusJSON(st))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"rebalances_in_window":4`) || !strings.Contains(string(b), `"rate_per_sec":null`) {
		t.Fatalf("group JSON %s", b)
	}
}
