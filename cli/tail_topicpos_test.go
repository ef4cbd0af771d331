package cli

import (
	"strings"
	"testing"
)

// TOPIC:P@OFFSET on a pattern: tail and search read that partition of
// that topic alone; P@OFFSET alone on a pattern is refused naming the form
// to use; on a topic, a position naming another topic is refused.
func TestTopicPartitionOffsetOnPatterns(t *testing.T) {
	e := startStopEngine(t, "TPO.A", 20) // 2 partitions each
	if err := e.CreateTopic("TPO.B", "partitions=2"); err != nil {
		t.Fatal(err)
	}
	produce(t, e, "TPO.B", 20)
	addr := strings.Join(e.DataAddrs(), ",")

	res := runCLIResult(t, "", "tail", "TPO.*", "--from", "TPO.B:1@2", "--count", "3", "--addr", addr)
	if res.code != 0 {
		t.Fatalf("tail TPO.* --from TPO.B:1@2: exit %d %s", res.code, res.stderr)
	}
	lines := strings.Split(strings.TrimSpace(res.stdout), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 lines, got %q", res.stdout)
	}
	for i, line := range lines {
		if want := "TPO.B/1@" + string(rune('2'+i)); !strings.Contains(line, want) {
			t.Errorf("line %d %q: want %s", i, line, want)
		}
	}
	if len(tempGroups(t, e)) != 0 {
		t.Errorf("TOPIC:P@OFFSET joined a group: %v", tempGroups(t, e))
	}

	res = runCLIResult(t, "", "search", "TPO.*", "--from", "TPO.A:0@1", "--value-contains", "record", "--addr", addr)
	if res.code != 0 {
		t.Fatalf("search --from TPO.A:0@1: exit %d %s", res.code, res.stderr)
	}
	lines = strings.Split(strings.TrimSpace(res.stdout), "\n")
	if len(lines) == 0 || !strings.Contains(lines[0], "TPO.A/0@1") {
		t.Fatalf("search --from TPO.A:0@1 printed %q", res.stdout)
	}
	for _, line := range lines {
		if !strings.Contains(line, "TPO.A/0@") {
			t.Fatalf("search --from TPO.A:0@1 printed a record of another partition: %q", line)
		}
	}

	for _, c := range []cliCase{
		{[]string{"tail", "TPO.*", "--from", "1@2"}, "TOPIC:P@OFFSET"},
		{[]string{"tail", "TPO.*", "--from", "OTHER.X:1@2"}, "does not match the pattern TPO.*"},
		{[]string{"tail", "TPO.A", "--from", "TPO.B:1@2"}, "names topic TPO.B, not TPO.A"},
		{[]string{"search", "TPO.*", "--key", "k1", "--from", "1@2"}, "TOPIC:P@OFFSET"},
		{[]string{"search", "TPO.*", "--key", "k1", "--to", "1@2"}, "--to"},
	} {
		res := runCLIResult(t, "", append(c.args, "--addr", addr)...)
		if res.code != exitUsage || !strings.Contains(res.stderr, c.want) {
			t.Errorf("%v: exit %d %q; want a usage error with %q", c.args, res.code, res.stderr, c.want)
		}
	}
}
