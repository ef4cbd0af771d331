package admin

import (
	"strings"
	"testing"

	"ilinkdash/ilink/topicrules"
)

// The config edit reads sizes and "forever" by the one rule of the create
// dialog, the CLI and the engine (ilink/topicrules): 10k is 10,240 bytes
// and 1m 2^20 here too; 1GB is refused, not read as 10^9.
func TestPlanTopicAlterOneUnitRule(t *testing.T) {
	cur := TopicInfo{Name: "T", Partitions: 3, Replicas: 3, MinSync: 1, RetentionMs: 3_600_000}
	for in, want := range map[string]int64{"10k": 10_240, "1m": 1 << 20, "1MiB": 1 << 20, "2g": 2 << 30, "unlimited": topicrules.Forever} {
		_, ch, err := PlanTopicAlter(cur, []string{"retention.bytes=" + in})
		if err != nil || ch[0].New != want {
			t.Errorf("retention.bytes=%s: %+v, %v; want %d", in, ch, err, want)
		}
	}
	for in, want := range map[string]int64{"forever": topicrules.Forever, "0": topicrules.Forever, "7d": 604_800_000} {
		_, ch, err := PlanTopicAlter(cur, []string{"retention.ms=" + in})
		if err != nil || ch[0].New != want {
			t.Errorf("retention.ms=%s: %+v, %v; want %d", in, ch, err, want)
		}
	}
	for set, want := range map[string]string{
		"retention.bytes=1GB":         "retention.bytes: invalid size \"1GB\": GB is ambiguous",
		"retention.ms=99999999d":      "retention.ms: 99999999d is more than 36500d",
		"partitions=5000":             "partitions: 5000 out of range 1..1024",
		"minSync=0":                   "minSync: 0 out of range 1..3",
		"retention.bytes=2000000000g": "retention.bytes: invalid size",
	} {
		if _, _, err := PlanTopicAlter(cur, []string{set}); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v, want %q…", set, err, want)
		}
	}
}
