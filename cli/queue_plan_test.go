package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ilinkdash/ilink/engine"
)

// move-back and reinject execute a plan by id (issue 22): --execute --plan
// moves the messages of a saved plan, and every result is read against
// its plan.

func TestMoveBackExecutesTheSavedPlan(t *testing.T) {
	e, tgt := queueEngine(t)
	for _, q := range []string{"SRC", "DST"} {
		if err := e.CreateQueue(q); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := runAdminCLI(t, with(tgt, "queue", "put", "SRC", "--value", "m{{seq}}", "--count", "2")...); err != nil {
		t.Fatal(err)
	}
	planJSON, _, err := runAdminCLI(t, with(tgt, "queue", "move-back", "SRC", "--to", "DST", "-o", "json")...)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(file, []byte(planJSON), 0o600); err != nil {
		t.Fatal(err)
	}
	if d, _ := e.QueueDepth("SRC"); d != 2 {
		t.Fatalf("the plan moved messages: SRC depth %d", d)
	}
	// Usage errors name the flag.
	_, _, err = runAdminCLI(t, with(tgt, "queue", "move-back", "SRC", "--to", "DST", "--plan", file)...)
	wantExit(t, err, 2, "--plan executes a saved plan: add --execute")
	_, _, err = runAdminCLI(t, with(tgt, "queue", "move-back", "DST", "--execute", "--plan", file)...)
	wantExit(t, err, 2, "the plan is for SRC, not DST")
	_, _, err = runAdminCLI(t, with(tgt, "queue", "move-back", "SRC", "--execute", "--plan", file)...)
	wantExit(t, err, 2, `the plan moves to "DST", not --to ""`)

	// A message arrives after the plan: it stays and is reported.
	if _, _, err := runAdminCLI(t, with(tgt, "queue", "put", "SRC", "--value", "late")...); err != nil {
		t.Fatal(err)
	}
	out, _, err := runAdminCLI(t, with(tgt, "queue", "move-back", "SRC", "--to", "DST", "--execute", "--plan", file)...)
	if err != nil || !strings.Contains(out, "SRC: 2 planned, 2 moved; 1 arrived after the plan, left in place") {
		t.Fatalf("execute the plan: %v\n%s", err, out)
	}
	if s, _ := e.QueueDepth("SRC"); s != 1 {
		t.Fatalf("SRC depth %d after the move, want the late message", s)
	}
	if d, _ := e.QueueDepth("DST"); d != 2 {
		t.Fatalf("DST depth %d after the move, want 2", d)
	}
	// The same plan again: its messages are gone from SRC, so none moves;
	// the late one is still not taken.
	again := jsonOf[moveBackJSON](t, with(tgt, "queue", "move-back", "SRC", "--to", "DST", "--execute", "--plan", file)...)
	if !again.Executed || again.Planned != 2 || again.Moved != 0 || len(again.Missed) != 2 || again.Missed[0].Skipped != "not in SRC" || again.Arrived != 1 {
		t.Fatalf("the plan executed twice: %+v", again)
	}
	// --execute alone plans and executes that plan.
	now := jsonOf[moveBackJSON](t, with(tgt, "queue", "move-back", "SRC", "--to", "DST", "--execute")...)
	if !now.Executed || now.Planned != 1 || now.Moved != 1 || now.Arrived != 0 {
		t.Fatalf("move-back --execute: %+v", now)
	}
}

func TestReinjectExecutesThePlansIDs(t *testing.T) {
	e, tgt := queueEngine(t)
	if err := e.CreateQueue("RQ"); err != nil {
		t.Fatal(err)
	}
	if err := e.AddQuarantine(
		engine.QuarantineEntry{Dir: "d", Queue: "RQ", Payload: []byte("a")},
		engine.QuarantineEntry{Dir: "d", Queue: "RQ", Payload: []byte("b"), Old: true},
	); err != nil {
		t.Fatal(err)
	}
	plan := jsonOf[reinjectJSON](t, with(tgt, "quarantine", "reinject", "--queue", "RQ")...)
	if plan.Executed || plan.Selected != 1 || len(plan.Entries) != 1 || plan.Entries[0].Kind != "NEW" {
		t.Fatalf("plan %+v: want the NEW entry, by id", plan)
	}
	out, _, err := runAdminCLI(t, with(tgt, "quarantine", "reinject", "--queue", "RQ", "--execute")...)
	if err != nil || !strings.Contains(out, "reinject into RQ: 1 planned, 1 reinjected (leader node 1)") || !strings.Contains(out, plan.Entries[0].ID) {
		t.Fatalf("reinject --execute: %v\n%s", err, out)
	}
	if n := e.QuarantineLen(); n != 1 {
		t.Fatalf("%d entries left, want the OLD one", n)
	}
	// A plan of nothing sends nothing: no leader to name (it said "leader node 0").
	out, _, err = runAdminCLI(t, with(tgt, "quarantine", "reinject", "--queue", "RQ", "--execute")...)
	if err != nil || !strings.Contains(out, "reinject into RQ: nothing planned, nothing sent") || strings.Contains(out, "leader node") {
		t.Fatalf("reinject --execute of an empty plan: %v\n%s", err, out)
	}
}

// quarantine reinject --execute --plan FILE reinjects exactly the entries
// of a saved plan, by id: an entry quarantined after the plan stays, and
// the plan must be for the queue, directory and --include-old given.
func TestReinjectExecutesTheSavedPlan(t *testing.T) {
	e, tgt := queueEngine(t)
	if err := e.CreateQueue("RQ"); err != nil {
		t.Fatal(err)
	}
	if err := e.AddQuarantine(engine.QuarantineEntry{Dir: "d", Queue: "RQ", Payload: []byte("a")}); err != nil {
		t.Fatal(err)
	}
	planJSON, _, err := runAdminCLI(t, with(tgt, "quarantine", "reinject", "--queue", "RQ", "-o", "json")...)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(file, []byte(planJSON), 0o600); err != nil {
		t.Fatal(err)
	}
	// Usage errors name the flag and what differs.
	_, _, err = runAdminCLI(t, with(tgt, "quarantine", "reinject", "--queue", "RQ", "--plan", file)...)
	wantExit(t, err, 2, "--plan executes a saved plan: add --execute")
	_, _, err = runAdminCLI(t, with(tgt, "quarantine", "reinject", "--queue", "OTHER", "--execute", "--plan", file)...)
	wantExit(t, err, 2, "the plan is for RQ, not --queue OTHER")
	_, _, err = runAdminCLI(t, with(tgt, "quarantine", "reinject", "--queue", "RQ", "--include-old", "--execute", "--plan", file)...)
	wantExit(t, err, 2, "the plan was made with --include-old=false: give the same")

	// An entry quarantined after the plan is not taken.
	if err := e.AddQuarantine(engine.QuarantineEntry{Dir: "d", Queue: "RQ", Payload: []byte("late")}); err != nil {
		t.Fatal(err)
	}
	out := jsonOf[reinjectJSON](t, with(tgt, "quarantine", "reinject", "--queue", "RQ", "--execute", "--plan", file)...)
	if !out.Executed || out.Selected != 1 || out.Count != 1 || len(out.Missing) != 0 {
		t.Fatalf("execute the plan: %+v", out)
	}
	if n := e.QuarantineLen(); n != 1 {
		t.Fatalf("%d entries left, want the late one", n)
	}
	// The same plan again: its entry is no longer quarantined.
	again := jsonOf[reinjectJSON](t, with(tgt, "quarantine", "reinject", "--queue", "RQ", "--execute", "--plan", file)...)
	if again.Count != 0 || len(again.Missing) != 1 {
		t.Fatalf("the plan executed twice: %+v", again)
	}
	if n := e.QuarantineLen(); n != 1 {
		t.Fatalf("%d entries left after the plan again, want the late one", n)
	}
}

// A --plan file is read at most to its bound: a larger one is refused
// naming it, not read whole.
func TestPlanFileIsBounded(t *testing.T) {
	t.Parallel()
	_, tgt := queueEngine(t)
	file := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(file, make([]byte, maxPlanFile+1), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err := runAdminCLI(t, with(tgt, "quarantine", "reinject", "--queue", "RQ", "--execute", "--plan", file)...)
	wantExit(t, err, 2, "more than 16 MiB: not a plan")
}

// A --plan file that is not a plan ({}, another command's JSON) is said
// as such, naming what it lacks, not read as a plan for queue "".
func TestMoveBackPlanThatIsNotAPlanNamesWhatIsMissing(t *testing.T) {
	_, tgt := queueEngine(t)
	for content, want := range map[string]string{
		"{}":              `not a move-back plan (-o json): it has no "queue", "to", "next_seq" or "moves"`,
		`{"queue":"SRC"}`: `not a move-back plan (-o json): it has no "to", "next_seq" or "moves"`,
		`{"queue":"SRC","to":"","next_seq":3,"moves":null}`: `not a move-back plan (-o json): it has no "moves"`,
	} {
		file := filepath.Join(t.TempDir(), "plan.json")
		if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		_, _, err := runAdminCLI(t, with(tgt, "queue", "move-back", "SRC", "--execute", "--plan", file)...)
		wantExit(t, err, 2, "--plan "+file+": "+want)
	}
}

// The same for quarantine reinject --plan.
func TestReinjectPlanThatIsNotAPlanNamesWhatIsMissing(t *testing.T) {
	_, tgt := queueEngine(t)
	for content, want := range map[string]string{
		"{}":             `not a reinject plan (-o json): it has no "queue", "dir", "include_old" or "entries"`,
		`{"queue":"RQ"}`: `not a reinject plan (-o json): it has no "dir", "include_old" or "entries"`,
	} {
		file := filepath.Join(t.TempDir(), "plan.json")
		if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		_, _, err := runAdminCLI(t, with(tgt, "quarantine", "reinject", "--queue", "RQ", "--execute", "--plan", file)...)
		wantExit(t, err, 2, "--plan "+file+": "+want)
	}
}
