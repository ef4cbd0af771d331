package e2e

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"ilinkdash/config"
	"ilinkdash/ui"
	"ilinkdash/ui/live"
)

// TestUnreachableAdminAddress (issue 10, connection truth) runs the
// program on `--admin 127.0.0.1:1`: it says where it connects until the
// first answer, then "cannot reach 127.0.0.1:1: <reason>" in the alert
// list and in the status bar, with an age that grows while nothing
// answers (the clock redraws), and never "nothing to report".
func TestUnreachableAdminAddress(t *testing.T) {
	t.Parallel()
	src, err := live.New(live.Config{AdminAddrs: []string{"127.0.0.1:1"}, ClientName: "ilinkdash-e2e"})
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.DefaultContext()
	cfg.Name = "e2e"
	cfg.Admin = "127.0.0.1:1"
	cfg.Refresh = refreshEvery(400 * time.Millisecond)
	d := &dash{t: t, src: src, fr: &frames{}}
	d.run(ui.New(ui.NewContext(cfg, false, func(string) string { return "" }), src), 120, 40, false)
	t.Cleanup(d.quit)

	d.waitText("connecting to 127.0.0.1:1…")
	const line = "✖ cannot reach 127.0.0.1:1: connect: connection refused"
	s := d.waitFor("the refusal in the alerts and the status bar", func(s string) bool {
		return strings.Contains(s, line+" (for ") && strings.HasPrefix(statusBar(s), " e2e  ") &&
			strings.Contains(statusBar(s), line+" (failing for ")
	})
	if strings.Contains(s, "nothing to report") {
		t.Fatalf("nothing to report without data:\n%s", s)
	}
	// The age grows while nothing answers.
	ageRe := regexp.MustCompile(`failing for ([2-9]|\d\d)s, no data yet\)`)
	d.waitFor("the age of the failure growing", func(s string) bool {
		return ageRe.MatchString(statusBar(s)) && strings.Contains(s, "not connected: cannot reach 127.0.0.1:1") &&
			!strings.Contains(s, "nothing to report")
	})
	for _, f := range d.fr.since(0) {
		if strings.Contains(f.plain, "nothing to report") {
			t.Fatalf("a frame said nothing to report:\n%s", f.plain)
		}
	}
}
