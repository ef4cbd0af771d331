package ui

import (
	"fmt"
	"testing"
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
	{name: "tail_placeholder", steps: func(h *harness) { h.key("2", "t") }},
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
