package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"ilinkdash/config"
)

// A `spokes: all` hub that does not answer at start, among other
// contexts, is said and followed with no spokes yet, so serve and the
// exporter watch every other cluster: it stopped them both (exit 2).
// Alone, or with only hubs as down, it is the error it was.
func TestExpandHubsOneHubDownAtStart(t *testing.T) {
	prod := config.Resolved{Context: config.Context{Name: "prod", Admin: "ilink-1.example:5001"}}
	plants := config.Resolved{Context: config.Context{Name: "plants", Hub: "127.0.0.1:1", AllSpokes: true}}
	plants2 := plants
	plants2.Context.Name = "plants2"
	var warn bytes.Buffer
	out, hubs, err := expandHubs(context.Background(), []config.Resolved{prod, plants}, maxSpokes, &warn, nil)
	if err != nil || len(out) != 1 || out[0].Context.Name != "prod" || len(hubs) != 1 || hubs[0].r.Context.Name != "plants" || len(hubs[0].known) != 0 {
		t.Fatalf("out %v, hubs %v, err %v; want prod watched and plants followed", out, hubs, err)
	}
	if w := warn.String(); !strings.HasPrefix(w, "ilinkdash: context plants: the spokes of hub 127.0.0.1:1: ") || !strings.HasSuffix(w, "; following it: its spokes are watched once it lists them\n") {
		t.Fatalf("warning %q", w)
	}
	for _, rs := range [][]config.Resolved{{plants}, {plants, plants2}} {
		if _, _, err := expandHubs(context.Background(), rs, maxSpokes, &warn, nil); err == nil || !strings.Contains(err.Error(), "the spokes of hub 127.0.0.1:1") {
			t.Errorf("%d hubs down and nothing else: err %v, want the hub's", len(rs), err)
		}
	}
}
