package e2e

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink"
)

// publishTo opens the publish tab's form, edits it (e: it opens
// navigating) and types topic into its Topic field, which stays focused.
func (d *dash) publishTo(topic string) {
	d.t.Helper()
	d.keys("7")
	d.waitText("navigating (enter or e edits a field)")
	d.keys("e")
	d.waitText("✎ Topic")
	d.typeText(topic)
}

// openTail opens a tail of target from `from` through the tail tab's `t`
// dialog (topic, from, group left blank: a temporary group).
func (d *dash) openTail(target, from string) {
	d.t.Helper()
	d.keys("6")
	d.waitText("Nothing tailed yet.")
	d.keys("t")
	d.waitText("Tail a topic or a pattern", "Topic or pattern")
	d.keys("enter") // the dialog opens navigating: enter edits
	d.typeText(target)
	d.keys("tab")
	for range len("latest") {
		d.keys("backspace")
	}
	d.typeText(from)
	d.keys("enter")
	d.waitText("Tail "+target, "temporary group · from "+from, "● live")
}

// tailTotal reads "N total" from the tail's state line.
var tailTotalRE = regexp.MustCompile(`([0-9,]+) total`)

func tailTotal(screen string) string {
	if m := tailTotalRE.FindStringSubmatch(screen); m != nil {
		return m[1]
	}
	return ""
}

// TestTailWhilePublishing: `:tail TOPIC` opens a live tail (from the latest
// records) through the real consumer; records published from outside by
// a real producer then appear in the table with their keys and values, at
// 120×40 and at 80×24.
func TestTailWhilePublishing(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) { tailWhilePublishing(t, size[0], size[1]) })
	}
}

func tailWhilePublishing(t *testing.T, w, h int) {
	const topic = "E2E.TAIL"
	e, _ := topicWithRecords(t, topic, "partitions=3,replicas=2", 5) // before the tail: not shown (latest)

	d := startDash(t, e, dashOpts{w: w, h: h})
	d.tailLive(topic, "temporary group · from latest", "waiting for records…")

	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	p := newProducer(ctx, t, e, ilink.ProducerConfig{ClientName: "e2e-producer", Acks: ilink.AcksAll})
	defer p.Close()
	const n = 12
	want := []string{"12 total"}
	for i := 0; i < n; i++ {
		k, v := fmt.Sprintf("live-key-%02d", i), fmt.Sprintf(`{"n":%d,"tag":"live-value-%02d"}`, i, i)
		if _, err := p.SendSync(ctx, &ilink.ProducerRecord{Topic: topic, Key: []byte(k), Value: []byte(v)}); err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
		want = append(want, k, v)
	}
	s := d.waitText(want...)
	if old := regexp.MustCompile(`\bk-[0-4]\b|\bvalue-[0-4]\b`).FindString(s); old != "" {
		t.Fatalf("%q, published before the tail (from latest), is shown:\n%s", old, s)
	}
	t.Logf("tail:\n%s", s)
}

// TestPublishFormThenTail: the publish tab's form (topic, a `{{seq}}`
// value, count 25) sends through the real producer and reports
// "25/25 acknowledged"; a tail from the earliest record then shows the 25
// records with their expanded values.
func TestPublishFormThenTail(t *testing.T) {
	t.Parallel()
	const topic = "E2E.FORM"
	e := engineWithTopic(t, topic, "partitions=2,replicas=3")
	const n = 25

	d := startDash(t, e, dashOpts{})
	d.publishTo(topic)
	d.keys("tab")
	d.typeText("key-{{seq}}")
	d.keys("tab")
	d.typeText("rec-{{seq}}-end")
	d.keys("tab", "tab", "tab") // file, headers → count
	d.keys("backspace")
	d.typeText(fmt.Sprint(n))
	d.waitText("✎ Count", "rec-{{seq}}-end", "key-{{seq}}")
	d.keys("enter")
	d.waitText("Send 25 records to E2E.FORM?")
	t0 := time.Now()
	d.keys("enter") // confirm
	s := d.waitText(fmt.Sprintf("%d/%d acknowledged", n, n), "✓ done")
	t.Logf("published in %v", time.Since(t0))
	if !strings.Contains(s, "Publish to "+topic) {
		t.Fatalf("the summary does not name the topic:\n%s", s)
	}
	if _, ends := lagSum(e, "", topic); ends[0]+ends[1] != n {
		t.Fatalf("the engine has %v records, want %d", ends, n)
	}

	d.openTail(topic, "earliest")
	want := []string{fmt.Sprintf("%d total", n)}
	for i := 0; i < n; i++ {
		want = append(want, fmt.Sprintf(" key-%d ", i), fmt.Sprintf(" rec-%d-end", i))
	}
	d.waitText(want...)
	if strings.Contains(d.fr.latest().plain, "{{seq}}") {
		t.Fatalf("an unexpanded template in the tail:\n%s", d.fr.latest().plain)
	}
}
