package cli

import (
	"context"
	"errors"
	"strings"
	"testing"

	"ilinkdash/ilink/engine"
)

// group seek --to 2@5 --topic T moves partition 2 of T alone, in the
// plan and in the execution; TOPIC:P@OFFSET names the topic itself; a
// one-partition seek without a topic is a usage error naming both forms
// (issue 22, defect 10).
func TestGroupSeekOnePartition(t *testing.T) {
	e := startTestEngine(t, engine.Config{})
	adm := e.AdminAddrs()[0]
	ctx := context.Background()
	_, q := adminAt(t, adm)
	topicWithRecords(t, q, "SEEK.P", "partitions=3", 24) // round-robin: 8 records in each partition
	groupCommittedAt(t, q, "gp", "SEEK.P", 1)
	commits := func() []int64 {
		d, err := q.DescribeGroup(ctx, "gp")
		if err != nil {
			t.Fatal(err)
		}
		out := make([]int64, 3)
		for _, o := range d.Offsets {
			out[o.Partition] = o.Committed
		}
		return out
	}

	plan := jsonOf[seekJSON](t, "group", "seek", "gp", "--to", "2@5", "--topic", "SEEK.P", "--admin", adm)
	if plan.Executed || len(plan.Changes) != 1 || plan.Changes[0].Partition != 2 || plan.Changes[0].Old != 1 || plan.Changes[0].New != 5 {
		t.Fatalf("plan of 2@5: %+v", plan)
	}
	if c := commits(); c[0] != 1 || c[1] != 1 || c[2] != 1 {
		t.Fatalf("the plan moved commits: %v", c)
	}
	done := jsonOf[seekJSON](t, "group", "seek", "gp", "--to", "2@5", "--topic", "SEEK.P", "--execute", "--admin", adm)
	if !done.Executed || len(done.Changes) != 1 || done.Changes[0].New != 5 || len(done.Differences) != 0 {
		t.Fatalf("execute of 2@5: %+v", done)
	}
	if c := commits(); c[0] != 1 || c[1] != 1 || c[2] != 5 {
		t.Fatalf("after --to 2@5 --execute: %v, want [1 1 5]", c)
	}
	out, _, err := runAdminCLI(t, "group", "seek", "gp", "--to", "SEEK.P:0@3", "--execute", "--admin", adm)
	if err != nil || !strings.Contains(out, "to offset 3 of SEEK.P partition 0 applied") {
		t.Fatalf("--to SEEK.P:0@3: %v\n%s", err, out)
	}
	if c := commits(); c[0] != 3 || c[1] != 1 || c[2] != 5 {
		t.Fatalf("after --to SEEK.P:0@3: %v, want [3 1 5]", c)
	}
	for _, tc := range []cliCase{
		{[]string{"--to", "2@5"}, "moves one partition (P@OFFSET): name its topic with --topic T or --to T:2@5"},
		{[]string{"--to", "SEEK.P:2@5", "--topic", "OTHER"}, "names topic SEEK.P but --topic is OTHER"},
	} {
		_, _, err := runAdminCLI(t, append([]string{"group", "seek", "gp", "--admin", adm}, tc.args...)...)
		var ue *usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want a usage error …%s…", tc.args, err, tc.want)
		}
	}
	// A partition the topic does not have: the engine's refusal, nothing moved.
	if _, _, err := runAdminCLI(t, "group", "seek", "gp", "--to", "7@1", "--topic", "SEEK.P", "--admin", adm); err == nil || !strings.Contains(err.Error(), "topic SEEK.P has 3 partitions: no partition 7") {
		t.Fatalf("--to 7@1: %v", err)
	}
}
