package cli

import (
	"strings"
	"testing"
)

func TestTopicAlterPlansThenExecutes(t *testing.T) {
	_, tgt := topicEngine(t, "ALT", "partitions=2,retention.ms=3600000")
	plan := jsonOf[topicAlterJSON](t, with(tgt, "topic", "alter", "ALT", "--set", "retention.ms=7d", "--set", "partitions=4", "--set", "minSync=1")...)
	if plan.Executed || plan.Properties != "retention.ms=604800000,minSync=1,partitions=4" || len(plan.Changes) != 3 ||
		!plan.Changes[0].Changed || plan.Changes[1].Changed || plan.Changes[2].Old != 2 || plan.Changes[2].New != 4 {
		t.Fatalf("plan %+v", plan)
	}
	out, _, err := runAdminCLI(t, with(tgt, "topic", "alter", "ALT", "--set", "retention.ms=7d")...)
	if err != nil || !strings.Contains(out, "1 of 1 properties change, planned") || !strings.Contains(out, "1h") || !strings.Contains(out, "7d") || strings.Contains(out, "604800000") {
		t.Fatalf("plan table: %v\n%s", err, out)
	}
	if d := jsonOf[topicDescJSON](t, with(tgt, "describe", "topic", "ALT")...); d.Partitions != 2 || d.RetentionMs != 3600000 {
		t.Fatalf("a plan changed the topic: %+v", d.topicJSON)
	}
	_, _, err = runAdminCLI(t, with(tgt, "topic", "alter", "ALT", "--set", "partitions=1")...)
	wantExit(t, err, 2, "partitions can only grow: 2 -> 1")
	_, _, err = runAdminCLI(t, with(tgt, "topic", "alter", "ALT")...)
	wantExit(t, err, 2, "at least one --set")
	_, _, err = runAdminCLI(t, with(tgt, "topic", "alter", "ALT", "--set", "retention.ms=1", "--execute", "--read-only")...)
	if err == nil || !strings.Contains(err.Error(), "AlterTopic refused: read-only mode") {
		t.Fatalf("--read-only: %v", err)
	}
	done := jsonOf[topicAlterJSON](t, with(tgt, "topic", "alter", "ALT", "--set", "retention.ms=7d", "--set", "partitions=4", "--execute")...)
	if !done.Executed {
		t.Fatalf("executed %+v", done)
	}
	d := jsonOf[topicDescJSON](t, with(tgt, "describe", "topic", "ALT")...)
	if d.Partitions != 4 || d.RetentionMs != 604800000 || len(d.PartitionList) != 4 || d.PartitionList[3].PreferredLeader != d.PartitionList[3].Replicas[0] {
		t.Fatalf("after execute: %+v", d)
	}
	out, _, err = runAdminCLI(t, with(tgt, "describe", "topic", "ALT")...)
	for _, want := range []string{"RETENTION ", "7d", "RETENTION-BYTES", "unlimited", "PREFERRED-LEADERS", "4 of 4 partitions", "INTERNAL", "UNDER-REPLICATED"} {
		if err != nil || !strings.Contains(out, want) {
			t.Fatalf("describe topic lacks %q: %v\n%s", want, err, out)
		}
	}
}
