package admin

import (
	"strings"
	"testing"
)

func TestPlanTopicAlter(t *testing.T) {
	cur := TopicInfo{Name: "T", Partitions: 3, Replicas: 3, MinSync: 1, RetentionMs: 3_600_000, RetentionBytes: 0}
	props, ch, err := PlanTopicAlter(cur, []string{"retention=7d", "partitions=6", "retention.bytes=512MiB", "minsync=2"})
	if err != nil {
		t.Fatal(err)
	}
	if props != "retention.ms=604800000,retention.bytes=536870912,minSync=2,partitions=6" {
		t.Fatalf("props %q", props)
	}
	want := []TopicConfigChange{{"retention.ms", 3_600_000, 604_800_000}, {"retention.bytes", 0, 536870912}, {"minSync", 1, 2}, {"partitions", 3, 6}}
	if len(ch) != len(want) {
		t.Fatalf("changes %+v", ch)
	}
	for i := range want {
		if ch[i] != want[i] || !ch[i].Changed() {
			t.Fatalf("change %d: %+v, want %+v", i, ch[i], want[i])
		}
	}
	if _, ch, _ := PlanTopicAlter(cur, []string{"partitions=3"}); len(ch) != 1 || ch[0].Changed() {
		t.Fatalf("same value: %+v", ch)
	}
	if p, ch, err := PlanTopicAlter(cur, []string{"retention.ms=forever"}); err != nil || p != "retention.ms=0" || ch[0].New != 0 {
		t.Fatalf("forever: %q %+v %v", p, ch, err)
	}
	for _, c := range []struct {
		sets []string
		msg  string
	}{
		{nil, "nothing to change"},
		{[]string{"colour=red"}, `unknown topic property "colour"`},
		{[]string{"partitions=2"}, "partitions can only grow: 3 -> 2"},
		{[]string{"minSync=4"}, "minSync: 4 out of range 1..3"},
		{[]string{"replicas=1"}, "replicas cannot be altered"},
		{[]string{"retention.ms=soon"}, `retention.ms: "soon": want a duration`},
		{[]string{"retention.bytes=-1"}, "retention.bytes: invalid size"},
		{[]string{"partitions=4", "partitions=5"}, "partitions given twice"},
		{[]string{"partitions"}, "want key=value"},
	} {
		if _, _, err := PlanTopicAlter(cur, c.sets); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%v: %v, want …%s…", c.sets, err, c.msg)
		}
	}
	if s := FormatTopicValue("retention.ms", 604_800_000); s != "7d" { // the form the inputs accept, as the topic list says it
		t.Fatalf("format %q", s)
	}
	if s := FormatTopicValue("retention.bytes", 536870912); s != "512MiB" {
		t.Fatalf("format %q", s)
	}
}

func TestFormatTopicInputReadsBack(t *testing.T) {
	cur := TopicInfo{Name: "T", Partitions: 3, Replicas: 3, MinSync: 1}
	for _, c := range []struct {
		key  string
		v    int64
		want string
	}{{"retention.ms", 0, "forever"}, {"retention.ms", 604_800_000, "7d"}, {"retention.ms", 1_209_600_000, "14d"}, {"retention.ms", 7_200_000, "2h"}, {"retention.ms", 1500, "1500ms"},
		{"retention.bytes", 0, "unlimited"}, {"retention.bytes", 1 << 30, "1GiB"}, {"retention.bytes", 3 << 20, "3MiB"}, {"retention.bytes", 1000, "1000B"},
		{"partitions", 6, "6"}} {
		got := FormatTopicInput(c.key, c.v)
		if got != c.want {
			t.Errorf("%s %d: %q, want %q", c.key, c.v, got, c.want)
		}
		_, ch, err := PlanTopicAlter(cur, []string{c.key + "=" + got})
		if err != nil || ch[0].New != c.v {
			t.Errorf("%s=%s reads back as %+v, %v", c.key, got, ch, err)
		}
	}
}
