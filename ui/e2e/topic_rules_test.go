package e2e

import (
	"strings"
	"testing"

	"ilinkdash/ilink/engine"
)

// The create-topic form of a real dashboard on a real 3-node engine
// refuses, at the first enter and naming the field, every input the
// engine would refuse only after the review (issue 22, defect 9): the
// form checks with the engine's own rules (ilink/topicrules).

// openCreate opens the topics tab's create dialog on the Name field, once
// the node summary has been polled (the replicas bound comes from it).
func openCreate(t *testing.T, d *dash) {
	t.Helper()
	d.waitText("● nodes") // the overview's status: the summary answered
	d.keys("2")
	d.waitText("● topics")
	d.keys("n")
	d.waitText("Create topic", "Partitions")
	d.keys("enter") // edits Name (a form opens navigating)
}

func topicNamed(e *engine.Engine, name string) (engine.TopicInfo, bool) {
	for _, ti := range e.Topics() {
		if ti.Name == name {
			return ti, true
		}
	}
	return engine.TopicInfo{}, false
}

func TestCreateTopicRefusesBeforeTheReview(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("n", 300)
	for _, tc := range []struct {
		what   string
		name   string
		fields []string // typed into Partitions, Replicas, Retention, Retention bytes ("" = skip)
		want   string
	}{
		{"CJK name", "主题.测试", nil, "Name: '主' at 0 is not allowed (only A-Z a-z 0-9 . _ -)"},
		{"300-character name", long, nil, "characters; at most 249"},
		{"replicas beyond the nodes", "E2E.REPL", []string{"", "5"}, "Replicas: 5 but the cluster has 3 nodes"},
		{"retention that overflows", "E2E.RET", []string{"", "", "99999999d"}, "Retention: 99999999d is more than 36500d"},
		{"decimal size unit", "E2E.GB", []string{"", "", "", "1GB"}, `Retention bytes: invalid size "1GB": GB is ambiguous`},
		{"partitions beyond the engine's", "E2E.PARTS", []string{"5000"}, "Partitions: 5000 out of range 1..1024"},
	} {
		t.Run(tc.what, func(t *testing.T) {
			e := startEngine(t, engineOpts{})
			d := startDash(t, e, dashOpts{})
			openCreate(t, d)
			d.typeText(tc.name)
			for _, v := range tc.fields {
				d.keys("tab")
				d.typeText(v)
			}
			d.press("enter")
			screen := d.waitText(tc.want)
			if strings.Contains(screen, "Enter creates it") || strings.Contains(screen, "confirm: create") {
				t.Fatalf("the review was shown with the error:\n%s", screen)
			}
			for _, ti := range e.Topics() {
				if !ti.Internal {
					t.Fatalf("topic %.20q was created", ti.Name)
				}
			}
		})
	}
}

// One unit rule and one forever in the create form: 10k is 10,240 bytes
// (as in the config edit and config files), forever is retention.ms=0
// (the engine's and the config edit's), and the review shows the very
// properties sent.
func TestCreateTopicUnitsAndForeverAsTheEngine(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engineOpts{})
	d := startDash(t, e, dashOpts{})
	openCreate(t, d)
	d.typeText("E2E.UNITS")
	for _, v := range []string{"2", "", "forever", "10k"} {
		d.keys("tab")
		d.typeText(v)
	}
	d.keys("enter")
	d.waitText("Create E2E.UNITS: 2 partitions", "kept forever", "10KiB per partition", "Sends", "partitions=2,retention.ms=0,retention.bytes=10240.")
	if _, ok := topicNamed(e, "E2E.UNITS"); ok {
		t.Fatal("created before the review was confirmed")
	}
	d.keys("enter")
	d.waitText("topic E2E.UNITS created (partitions=2,retention.ms=0,retention.bytes=10240)")
	ti, ok := topicNamed(e, "E2E.UNITS")
	if !ok || ti.Partitions != 2 || ti.RetentionMs != 0 || ti.RetentionBytes != 10_240 {
		t.Fatalf("engine has %+v (found %v): want 2 partitions, retention.ms 0 (forever), 10,240 bytes", ti, ok)
	}
}
