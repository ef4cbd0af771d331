package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// A flag value pflag cannot parse is said in our words, naming the flag
// and what it wants (issue 23 item 6), never strconv's error; a usage
// error (exit 2).
func TestFlagValueErrorsInOurWords(t *testing.T) {
	for _, c := range []cliCase{
		{[]string{"publish", "T", "--rate", "abc", "--embedded"}, `--rate "abc": want a whole number of records per second`},
		{[]string{"get", "topics", "--timeout", "5x", "--embedded"}, `--timeout "5x": want a duration such as 500ms, 30s, 5m or 1h30m`},
		{[]string{"publish", "T", "--count", "99999999999999999999"}, `--count "99999999999999999999": want a whole number of records (this one is out of range)`},
		{[]string{"tail", "T", "--count", "many"}, `--count "many": want a whole number`},
	} {
		r := runCLIResult(t, "", c.args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, "ilinkdash: "+c.want+"\n") || strings.Contains(r.stderr, "strconv") || strings.Contains(r.stderr, "invalid argument") {
			t.Errorf("%v: exit %d, stderr\n%s\nwant exit 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

// Not found is exit 1 with one clear line; -o json still prints the
// command's JSON (issue 23 item 6).
func TestNotFoundExitsOne(t *testing.T) {
	_, tgt := topicEngine(t, "NF.T", "partitions=1")
	for _, c := range []cliCase{
		{[]string{"describe", "group", "NOSUCH"}, "group NOSUCH: no such group"},
		{[]string{"group", "seek", "NOSUCH", "--to", "earliest"}, "group NOSUCH: no such group"},
		{[]string{"group", "seek", "NOSUCH", "--to", "earliest", "--execute"}, "group NOSUCH: no such group"},
		{[]string{"group", "delete", "NOSUCH"}, "group NOSUCH: no such group"},
		{[]string{"describe", "topic", "NOSUCH"}, "topic NOSUCH: no such topic"},
		{[]string{"topic", "alter", "NOSUCH", "--set", "minSync=1"}, "topic NOSUCH: no such topic"},
		{[]string{"tail", "NOSUCH"}, "topic NOSUCH: no such topic"},
		{[]string{"tail", "NOSUCH", "--partition", "0"}, "topic NOSUCH: no such topic"},
		{[]string{"search", "NOSUCH"}, "topic NOSUCH: no such topic"},
		{[]string{"queue", "browse", "NOSUCH"}, "queue NOSUCH: no such queue"},
		{[]string{"queue", "get", "NOSUCH"}, "queue NOSUCH: no such queue"},
		{[]string{"queue", "put", "NOSUCH", "--value", "x"}, "queue NOSUCH: no such queue"},
		{[]string{"queue", "delete", "NOSUCH"}, "queue NOSUCH: no such queue"},
	} {
		r := runCLIResult(t, "", with(tgt, c.args...)...)
		if r.code != exitError1 || r.stderr != "ilinkdash: "+c.want+"\n" {
			t.Errorf("%v: exit %d, stderr %q; want exit 1 and %q", c.args, r.code, r.stderr, c.want)
		}
	}

	r := runCLIResult(t, "", with(tgt, "describe", "group", "NOSUCH", "-o", "json")...)
	var g groupDescJSON
	if err := json.Unmarshal([]byte(r.stdout), &g); err != nil || r.code != exitError1 || g.Name != "NOSUCH" || g.State != "Dead" ||
		!strings.Contains(r.stderr, "group NOSUCH: no such group") {
		t.Fatalf("describe group NOSUCH -o json: exit %d, %v, %+v\n%s%s", r.code, err, g, r.stdout, r.stderr)
	}
	r = runCLIResult(t, "", with(tgt, "group", "seek", "NOSUCH", "--to", "earliest", "-o", "json")...)
	var s seekJSON
	if err := json.Unmarshal([]byte(r.stdout), &s); err != nil || r.code != exitError1 || s.Group != "NOSUCH" || s.Executed || len(s.Changes) != 0 {
		t.Fatalf("group seek NOSUCH -o json: exit %d, %v, %+v\n%s%s", r.code, err, s, r.stdout, r.stderr)
	}
	// With --topic an unknown group's seek makes its first commits: a
	// plan, not a not-found.
	s = jsonOf[seekJSON](t, with(tgt, "group", "seek", "NEWGROUP", "--to", "earliest", "--topic", "NF.T")...)
	if len(s.Changes) != 1 || s.Changes[0].Old != -1 {
		t.Fatalf("seek of a new group on a topic: %+v", s)
	}
	// A known group still describes and exits 0.
	if _, _, err := runAdminCLI(t, with(tgt, "group", "seek", "NEWGROUP", "--to", "earliest", "--topic", "NF.T", "--execute")...); err != nil {
		t.Fatal(err)
	}
	if d := jsonOf[groupDescJSON](t, with(tgt, "describe", "group", "NEWGROUP")...); d.State == "Dead" || len(d.Offsets) != 1 {
		t.Fatalf("describe of a group with commits: %+v", d)
	}
}

// Every command that talks to a cluster takes --embedded; serve, the
// exporter and the dashboard start the embedded engine themselves when
// nothing is configured, and config, version, engine and gen-man talk to
// none.
func TestEveryClusterCommandTakesEmbedded(t *testing.T) {
	a := newTestApp(t, nil)
	noCluster := map[string]bool{"ilinkdash": true, "ilinkdash serve": true, "ilinkdash exporter": true, "ilinkdash config init": true, "ilinkdash config path": true,
		"ilinkdash version": true, "ilinkdash engine": true, "ilinkdash gen-man": true,
		// completion prints a script; its names come from the configured cluster, never an embedded one
		"ilinkdash completion bash": true, "ilinkdash completion zsh": true, "ilinkdash completion fish": true, "ilinkdash completion powershell": true}
	n := 0
	forEachCommand(a.root, func(c *cobra.Command) {
		if c.HasSubCommands() || c.Hidden || noCluster[c.CommandPath()] {
			return
		}
		n++
		if c.Flag("embedded") == nil {
			t.Errorf("%s has no --embedded", c.CommandPath())
		}
	})
	if n < 25 {
		t.Fatalf("only %d commands checked", n)
	}
}
