package ui

import (
	"fmt"
	"testing"
	"time"

	"ilinkdash/ui/sanitize/sanitizetest"

	"ilinkdash/ui/views/tail"

	"ilinkdash/ui/internal/fakes"
)

type screenCase struct {
	name  string
	opts  []harnessOpt
	steps func(h *harness)
}

var screenCases = []screenCase{
	{name: "overview", steps: func(h *harness) {}},
	{name: "topics", steps: func(h *harness) { h.key("2") }},
	{name: "topic_detail", steps: func(h *harness) { h.key("2", "enter") }},
	{name: "topic_consumers", steps: func(h *harness) { h.key("2", "j", "j", "j", "enter", "v") }},
	{name: "groups", steps: func(h *harness) { h.key("3") }},
	{name: "group_detail", steps: func(h *harness) { h.key("3", "j", "j", "j", "enter"); h.warm(2) }},
	{name: "group_members", steps: func(h *harness) { h.key("3", "j", "j", "j", "enter", "v") }},
	{name: "cluster", steps: func(h *harness) { h.key("4") }},
	{name: "cluster_partitions", steps: func(h *harness) { h.key("4", "v") }},
	{name: "cluster_leaders", steps: func(h *harness) { h.key("4", "v", "v") }},
	{name: "queues", steps: func(h *harness) { h.key("5") }},
	{name: "queue_detail", steps: func(h *harness) { h.key("5", "enter") }},
	{name: "tail", steps: func(h *harness) { openTail(h, 60) }},
	{name: "tail_detail", steps: func(h *harness) { openTail(h, 60); h.key("k", "k", "enter") }},
	{name: "tail_json", steps: func(h *harness) { openTail(h, 60); h.key("k", "enter", "f") }},
	{name: "tail_hex", steps: func(h *harness) { openTail(h, 60); h.key("k", "enter", "f", "f") }},
	{name: "tail_paused_filter", opts: []harnessOpt{tailBuffer(100)}, steps: func(h *harness) {
		openTail(h, 60)
		h.key("space")
		h.tailer.Last().Emit(90)
		h.advance(300 * time.Millisecond)
		h.key("/")
		h.typeText("v:paid")
		h.key("enter")
	}},
	{name: "tail_hostile", steps: func(h *harness) { openHostileTail(h, 40); h.key("k", "enter") }},
	{name: "tail_jump", steps: func(h *harness) { openTail(h, 10); h.key("o") }},
	{name: "tail_save", steps: func(h *harness) { openTail(h, 10); h.key("w") }},
	{name: "tail_new", steps: func(h *harness) { h.key("6", "t") }},
	{name: "tail_unavailable", opts: []harnessOpt{noStreams()}, steps: func(h *harness) { h.key("6") }},
	{name: "publish_form", steps: func(h *harness) {
		h.key("2", "j", "j", "p", "enter") // the form opens navigating: enter edits the key
		h.typeText("order-{{seq}}")
		h.key("tab")
		h.typeText(`{"id":{{seq}},"at":"{{now}}"}`)
	}},
	{name: "publish_error", steps: func(h *harness) {
		h.key("2", "j", "j", "p", "enter")
		h.typeText("k-{{rand x}}")
		h.key("enter")
	}},
	{name: "publish_confirm", steps: func(h *harness) { publishPlan(h) }},
	{name: "publish_results", steps: func(h *harness) { publishRun(h) }},
	{name: "publish_unavailable", opts: []harnessOpt{noStreams()}, steps: func(h *harness) { h.key("7") }},
	{name: "help", steps: func(h *harness) { h.key("2", "?") }},
	{name: "help_readonly", opts: []harnessOpt{readOnly()}, steps: func(h *harness) { h.key("3", "?") }},
	{name: "topics_readonly", opts: []harnessOpt{readOnly()}, steps: func(h *harness) { h.key("2") }},
	{name: "command_line", steps: func(h *harness) { h.key(":"); h.typeText("t") }},
	{name: "filter", steps: func(h *harness) { h.key("2", "/"); h.typeText("order") }},
	{name: "seek_form", steps: func(h *harness) { h.key("3", "o") }},
	{name: "delete_topic", steps: func(h *harness) { h.key("2", "D") }},
	{name: "cluster_edit", steps: func(h *harness) { h.key("4", "e") }},
}

// TestGoldenScreens renders every view at 120×40 and 80×24 from the
// deterministic demo after 12 polling rounds and compares the plain-text
// screen with testdata/golden (go test ./ui -run TestGoldenScreens -update).
func TestGoldenScreens(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		for _, c := range screenCases {
			name := fmt.Sprintf("%s_%dx%d", c.name, size[0], size[1])
			t.Run(name, func(t *testing.T) {
				h := newHarness(t, size[0], size[1], c.opts...)
				h.warm(12)
				c.steps(h)
				v := h.m.View()
				assertFrame(t, v.Content, size[0], size[1])
				golden(t, name, h.screen())
			})
		}
	}
}

// openTail tails ORDER.EVENT from the topics tab and lets n records in.
func openTail(h *harness, n int) {
	h.key("2", "j", "j", "t")
	h.tailer.Last().Emit(n)
	h.advance(300 * time.Millisecond)
}

// openHostileTail tails a pattern whose records are all hostile payloads.
func openHostileTail(h *harness, n int) {
	h.command("tail EVIL.*")
	s := h.tailer.Last()
	for i, p := range sanitizetest.Hostile() {
		if i >= n {
			break
		}
		s.EmitRecords(tail.Record{
			Topic: "EVIL." + string(p.Bytes), Partition: int32(i % 3), Offset: int64(100 + i),
			Timestamp: fakes.Epoch.Add(time.Duration(i) * time.Second),
			Key:       p.Bytes, Value: p.Bytes,
			Headers: []tail.Header{{Key: string(p.Bytes), Value: p.Bytes}, {Key: "name", Value: []byte(p.Name)}},
		})
	}
	h.advance(300 * time.Millisecond)
}

// publishRun sends 1,000 templated records to ORDER.EVENT with the form
// and lets the manual fake run acknowledge 400 of them (every 50th fails).
func publishRun(h *harness) {
	publishPlan(h)
	h.key("enter") // confirm
	h.pub.Last().Step(400)
	h.advance(250 * time.Millisecond)
}

// publishPlan fills the publish form (1,000 templated records to
// ORDER.EVENT at 100/s) and opens its confirmation.
func publishPlan(h *harness) {
	h.pub.FailEvery = 50
	h.key("2", "j", "j", "p", "enter")
	h.typeText("order-{{seq}}")
	h.key("tab")
	h.typeText(`{"id":{{seq}}}`)
	h.key("tab", "tab")
	h.typeText("source=ilinkdash, run={{seq}}")
	h.key("tab", "ctrl+u")
	h.typeText("1000")
	h.key("tab", "ctrl+u")
	h.typeText("100")
	h.key("tab", "right", "tab", "right")
	h.key("enter")
}
