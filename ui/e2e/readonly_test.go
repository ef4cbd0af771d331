package e2e

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/wire"
	"ilinkdash/ui/views/publish"
	"ilinkdash/ui/views/tab"
	"ilinkdash/ui/views/tail"
)

// countRequests counts every request any node receives until the test
// ends.
func countRequests(t testing.TB, e *engine.Engine) *atomic.Int64 {
	var n atomic.Int64
	remove := e.Control(func(*engine.ControlEvent) engine.ControlAction {
		n.Add(1)
		return engine.ControlAction{}
	})
	t.Cleanup(remove)
	return &n
}

// mutations are every mutating call of the adapters.
func mutations(src interface {
	tab.TopicAdmin
	tab.GroupAdmin
	tab.ClusterAdmin
	publish.Publisher
	tail.Tailer
}) map[string]func(context.Context) error {
	return map[string]func(context.Context) error{
		"CreateTopic": func(c context.Context) error {
			return src.CreateTopic(c, tab.TopicSpec{Name: "E2E.NEW", Partitions: 1, Replicas: 1})
		},
		"DeleteTopic": func(c context.Context) error { return src.DeleteTopic(c, "E2E.RO") },
		"FlushTopic":  func(c context.Context) error { return src.FlushTopic(c, "E2E.RO") },
		"SeekGroup": func(c context.Context) error {
			_, err := src.SeekGroup(c, "e2e-ro", "", admin.SeekTarget{Latest: true}, true)
			return err
		},
		"SeekGroupToTime": func(c context.Context) error {
			_, err := src.SeekGroupToTime(c, "e2e-ro", "", time.Now(), true)
			return err
		},
		"DeleteGroup":        func(c context.Context) error { return src.DeleteGroup(c, "e2e-ro") },
		"SetClusterProperty": func(c context.Context) error { return src.SetClusterProperty(c, admin.ClusterPropertyChange{}) },
		"AddNode":            func(c context.Context) error { return src.AddNode(c, admin.ClusterNode{}) },
		"RemoveNode":         func(c context.Context) error { return src.RemoveNode(c, 3) },
		"StartPublish": func(c context.Context) error {
			_, err := src.StartPublish(c, publish.Spec{Topic: "E2E.RO", Count: 1, Record: func(int64, *publish.Record) {}})
			return err
		},
		"StartTail(named group)": func(c context.Context) error {
			_, err := src.StartTail(c, tail.Spec{Target: "E2E.RO", Group: "e2e-ro"})
			return err
		},
	}
}

// TestReadOnlyAdapterRefusesBeforeTheEngine: every mutating call of the
// read-only adapters fails with MIMQE_READ_ONLY and no request reaches the
// engine — neither on fresh adapters (nothing dialled yet) nor on
// adapters whose admin connection is open.
func TestReadOnlyAdapterRefusesBeforeTheEngine(t *testing.T) {
	t.Parallel()
	e := engineWithTopic(t, "E2E.RO", "partitions=1,replicas=1")
	reqs := countRequests(t, e)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	check := func(what string, call func(context.Context) error) {
		t.Helper()
		before := reqs.Load()
		err := call(ctx)
		if err == nil || !strings.Contains(err.Error(), wire.ErrReadOnly) {
			t.Errorf("%s: err %v, want %s", what, err, wire.ErrReadOnly)
		}
		if n := reqs.Load() - before; n != 0 {
			t.Errorf("%s: %d request(s) reached the engine before the refusal", what, n)
		}
	}
	names := slices.Sorted(maps.Keys(mutations(liveSources(t, e, true))))
	// Fresh adapters: nothing dialled yet, and nothing may be.
	for _, name := range names {
		src := liveSources(t, e, true)
		check("fresh adapters: "+name, mutations(src)[name])
		_ = src.Close()
	}
	// Adapters with an open admin connection.
	src := liveSources(t, e, true)
	defer src.Close()
	if _, err := src.ListTopics(ctx); err != nil {
		t.Fatalf("list topics: %v", err)
	}
	for _, name := range names {
		check("connected adapters: "+name, mutations(src)[name])
	}
	if ts := e.Topics(); len(ts) == 0 {
		t.Fatal("no topic left")
	}
}

// noFrameWith fails when a frame since the mark shows one of texts.
func (d *dash) noFrameWith(what string, texts ...string) {
	d.t.Helper()
	for _, f := range d.fr.since(d.mark) {
		for _, x := range texts {
			if strings.Contains(f.plain, x) {
				d.t.Fatalf("%s: a frame shows %q:\n%s", what, x, f.plain)
			}
		}
	}
}

// pressNothingHappens presses keys that must do nothing, then `?`: help
// opening proves the keys were handled (messages are processed in order)
// and that no dialog took the keyboard; no frame in between may show any
// of titles. It returns the help screen (closed again).
func (d *dash) pressNothingHappens(keys []string, titles ...string) string {
	d.t.Helper()
	d.press(keys...)
	d.keys("?")
	help, ok := d.tryWait(deadline, func(s string) bool {
		return containsAll(s, "Keys —", "read-only: actions that change the cluster are hidden")
	})
	d.noFrameWith(fmt.Sprintf("keys %q in read-only", keys), titles...)
	if !ok {
		d.t.Fatalf("keys %q in read-only: `?` did not open the help (did a key open a dialog?); last frame:\n%s", keys, d.fr.latest().plain)
	}
	d.keys("esc")
	return help.plain
}

// TestReadOnlyDashboard: a read-only context shows the RO badge, has no
// Publish tab, and its mutating keys (create / delete / flush topic,
// publish, seek / delete group, in the lists and in the details) neither
// open anything nor appear in `?` help or the hint line; the engine's
// topics and commits are unchanged.
func TestReadOnlyDashboard(t *testing.T) {
	t.Parallel()
	const topic = "E2E.RO"
	e, _ := topicWithRecords(t, topic, "partitions=2,replicas=2", 6)
	idleGroup(t, e, "e2e-ro", topic, 1)
	commits := fmt.Sprint(e.GroupCommits("e2e-ro"))

	d := startDash(t, e, dashOpts{readOnly: true})
	s := d.waitText(" RO ", "NODE", "leader")
	tabs := strings.SplitN(s, "\n", 2)[0]
	if !strings.Contains(tabs, "6 Tail") || strings.Contains(tabs, "Publish") || !strings.HasSuffix(strings.TrimRight(tabs, " "), " RO") {
		t.Fatalf("tab bar %q: want tabs 1-6, no Publish, the RO badge", tabs)
	}

	// 7 (the publish tab) and :publish do nothing but say why.
	d.press("7")
	d.command("publish " + topic)
	d.waitFor(":publish's flash", func(s string) bool {
		return strings.Contains(s, "read-only: publishing is off") && !strings.Contains(s, "tab 7 is absent")
	})
	d.noFrameWith("publish in read-only", "Publish to", "▸ Topic", "Publishing is disabled")

	mutatingHelp := []string{"new topic", "delete topic", "flush topic", "publish to topic", "seek offsets", "delete group", "edit properties", "add node", "remove node"}

	// Topics: n, D, F, p on the selected topic.
	d.keys("2")
	d.waitText(topic, "END OFFSETS")
	help := d.pressNothingHappens([]string{"n", "D", "F", "p"}, "Create topic", "Delete topic", "Flush topic", "Publish to", "▸ Topic")
	if !strings.Contains(help, "tail topic") {
		t.Fatalf("the topics help lacks its read-only keys:\n%s", help)
	}
	for _, m := range mutatingHelp {
		if strings.Contains(help, m) {
			t.Fatalf("the topics help offers %q in read-only:\n%s", m, help)
		}
	}
	// ... and in the topic's detail.
	d.keys("enter")
	d.waitText("Topic "+topic, "LEADER")
	d.pressNothingHappens([]string{"D", "F", "p"}, "Delete topic", "Flush topic", "Publish to", "▸ Topic")
	d.keys("esc")

	// Groups: o and D on the group, in the list and in its detail.
	d.keys("3")
	d.waitFor("e2e-ro in the groups table", func(s string) bool { return groupRow(s, "e2e-ro") != nil })
	d.filter("e2e-ro")
	hint := d.waitFor("the filtered groups table", func(s string) bool { return strings.Contains(s, "/e2e-ro") && groupRow(s, "e2e-ro") != nil })
	help = d.pressNothingHappens([]string{"o", "D"}, "Seek group", "Delete group")
	d.keys("enter")
	hint += d.waitText("Group e2e-ro", "COMMITTED")
	help += d.pressNothingHappens([]string{"o", "D"}, "Seek group", "Delete group")
	for _, m := range mutatingHelp {
		if strings.Contains(help, m) || strings.Contains(hint, m) {
			t.Fatalf("the groups help or hint line offers %q in read-only:\n%s\n%s", m, help, hint)
		}
	}

	if got := fmt.Sprint(e.GroupCommits("e2e-ro")); got != commits {
		t.Fatalf("commits changed in read-only: %s → %s", commits, got)
	}
	if _, ends := e.TopicOffsets(topic); ends[0]+ends[1] != 6 {
		t.Fatalf("records changed in read-only: %v", ends)
	}
}
