package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink/engine"
)

// runWithConfig runs ilinkdash with the config file file (runCLIResult
// runs without one).
func runWithConfig(t *testing.T, file string, args ...string) cliResult {
	t.Helper()
	for _, v := range []string{"ILINKDASH_ADDR", "ILINKDASH_ADMIN", "ILINKDASH_CONTEXT", "ILINKDASH_READ_ONLY", "ILINKDASH_CONFIG", "ILINKDASH_DEBUG", "ILINKDASH_LOG_FILE"} {
		t.Setenv(v, "")
	}
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	code, err := newRootCommand().execute(ctx, append(args, "--config", file), strings.NewReader(""), &out, &errb)
	return cliResult{out.String(), errb.String(), code, err}
}

// Three contexts: a healthy cluster, one with a stopped group (CRITICAL)
// and one that cannot be reached (UNKNOWN): one line each, worst first,
// the exit status the worst; -o json an array.
func TestCheckOverSeveralContexts(t *testing.T) {
	healthy := startTestEngine(t, engine.Config{})
	broken := startTestEngine(t, engine.Config{})
	_, q := adminAt(t, broken.AdminAddrs()[0])
	topicWithRecords(t, q, "ORDERS", "partitions=1", 5)
	groupCommittedAt(t, q, "billing", "ORDERS", 1)
	file := filepath.Join(t.TempDir(), "config.yaml")
	h := "health: {window: 300ms, stall-after: 300ms}"
	cfg := fmt.Sprintf("contexts:\n  healthy: {admin: '%s', %s}\n  gone: {admin: '127.0.0.1:1', %s}\n  broken: {admin: '%s', %s}\n",
		healthy.AdminAddrs()[0], h, h, broken.AdminAddrs()[0], h)
	if err := os.WriteFile(file, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	window := []string{"--window", "300ms", "--timeout", "3s"}
	r := runWithConfig(t, file, append([]string{"check", "--all-contexts"}, window...)...)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if r.code != checkCritical || len(lines) != 3 || !strings.HasPrefix(lines[0], "broken: CRITICAL: ") || !strings.Contains(lines[0], "stopped") ||
		!strings.HasPrefix(lines[1], "gone: UNKNOWN: cannot reach 127.0.0.1:1") || !strings.HasPrefix(lines[2], "healthy: OK: ") {
		t.Fatalf("check --all-contexts: exit %d\n%s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	r = runWithConfig(t, file, append([]string{"check", "--context", "healthy,gone", "-o", "json"}, window...)...)
	var arr []checkContextJSON
	if err := json.Unmarshal([]byte(r.stdout), &arr); err != nil || r.code != checkUnknown || len(arr) != 2 ||
		arr[0].Context != "gone" || arr[0].ExitCode != checkUnknown || arr[1].Context != "healthy" || arr[1].Status != "OK" {
		t.Fatalf("check --context healthy,gone -o json: exit %d, %v\n%s", r.code, err, r.stdout)
	}
	if !strings.HasPrefix(r.stdout, "[") || !strings.Contains(r.stdout, `"context": "gone"`) {
		t.Fatalf("JSON over contexts is an array with the context first: %s", r.stdout)
	}
	r = runWithConfig(t, file, append([]string{"check", "--context", "healthy"}, window...)...)
	if r.code != checkOK || !strings.HasPrefix(r.stdout, "OK: ") {
		t.Fatalf("one context keeps the single check's output: exit %d %q", r.code, r.stdout)
	}
	r = runWithConfig(t, file, append([]string{"check", "--all-contexts", "--embedded"}, window...)...)
	if r.code != checkUnknown || !strings.Contains(r.stdout, "--embedded with several contexts") {
		t.Fatalf("--embedded over contexts: exit %d %q", r.code, r.stdout)
	}
}
