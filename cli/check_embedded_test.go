package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink/engine"
)

// check takes --embedded like the other commands that talk to a cluster
// (it was "unknown flag"): a fresh in-process engine, judged.
func TestCheckEmbedded(t *testing.T) {
	t.Parallel()
	r := runCLIResult(t, "", "check", "--embedded", "--window", "300ms", "--stall-after", "300ms")
	if r.code != checkOK || r.stdout != "OK: 3 nodes, 3 topics, 0 groups, 2 queues judged over 300ms\n" {
		t.Fatalf("check --embedded: exit %d\nstdout %q\nstderr %q", r.code, r.stdout, r.stderr)
	}
	// A stall-after longer than the window is how long the check
	// samples, and the line says so.
	r = runCLIResult(t, "", "check", "--embedded", "--window", "300ms", "--stall-after", "700ms")
	if r.code != checkOK || r.stdout != "OK: 3 nodes, 3 topics, 0 groups, 2 queues judged over 300ms, stalls over 700ms\n" {
		t.Fatalf("check --embedded --stall-after 700ms: exit %d\nstdout %q\nstderr %q", r.code, r.stdout, r.stderr)
	}
	r = runCLIResult(t, "", "check", "--embedded", "--window", "300ms", "--stall-after", "700ms", "-o", "json")
	var cj checkJSON
	if err := json.Unmarshal([]byte(r.stdout), &cj); err != nil || r.code != checkOK || cj.Status != "OK" || !strings.HasPrefix(cj.Target, "127.0.0.1:") ||
		cj.WindowMs != 300 || cj.SampledMs != 700 {
		t.Fatalf("check --embedded -o json: exit %d, %v, %+v", r.code, err, cj)
	}
	// Without any target it still names the way out.
	r = runCLIResult(t, "", "check", "--window", "300ms", "--stall-after", "300ms")
	if r.code != checkUnknown || !strings.Contains(r.stdout, "UNKNOWN: no admin address: give --admin, a context with an admin address, or --embedded") {
		t.Fatalf("check without a target: exit %d, %q", r.code, r.stdout)
	}
}

// An interrupted check is UNKNOWN and says it was interrupted (it said
// "UNKNOWN: context canceled").
func TestCheckInterrupted(t *testing.T) {
	t.Parallel()
	e := startTestEngine(t, engine.Config{})
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	stop := time.AfterFunc(300*time.Millisecond, func() { cancel(errInterrupted) }) // (the 10 s window is still sampling then)
	defer stop.Stop()
	var out, errb bytes.Buffer
	code, _ := newTestApp(t, nil).execute(ctx, []string{"check", "--admin", e.AdminAddrs()[0], "--window", "10s", "--config", ""}, strings.NewReader(""), &out, &errb)
	if code != checkUnknown || out.String() != "UNKNOWN: interrupted\n" {
		t.Fatalf("interrupted check: exit %d\nstdout %q\nstderr %q; want 3 and UNKNOWN: interrupted", code, out.String(), errb.String())
	}
}
