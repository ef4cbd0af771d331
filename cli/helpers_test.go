package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// cliResult is one run of the command line.
type cliResult struct {
	stdout, stderr string
	code           int
	err            error
}

// runCLIResult runs the command line like Main does (the same output path,
// error print and exit status), with no config file and no ILINKDASH_*
// environment.
func runCLIResult(t *testing.T, stdin string, args ...string) cliResult {
	t.Helper()
	for _, v := range []string{"ILINKDASH_ADDR", "ILINKDASH_ADMIN", "ILINKDASH_CONTEXT", "ILINKDASH_READ_ONLY", "ILINKDASH_CONFIG", "ILINKDASH_DEBUG", "ILINKDASH_LOG_FILE"} {
		t.Setenv(v, "")
	}
	a := newRootCommand()
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	code, err := a.execute(ctx, append(args, "--config", ""), strings.NewReader(stdin), &out, &errb)
	return cliResult{out.String(), errb.String(), code, err}
}

// runCLI is runCLIResult's streams and error.
func runCLI(t *testing.T, stdin string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	r := runCLIResult(t, stdin, args...)
	return r.stdout, r.stderr, r.err
}

// envMain makes the test binary run ilinkdash's Main (cliProcess).
const envMain = "ILINKDASH_CLI_TEST_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(envMain) == "1" {
		os.Exit(Main())
	}
	os.Exit(m.Run())
}

// cliProcess returns the command that runs ilinkdash with args as a
// separate process (this test binary, running Main), with no config file
// and no ILINKDASH_* environment: real signals, a real stdout.
func cliProcess(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], append(args, "--config=")...)
	// GORACE: under -race the runtime sleeps 1 s at exit by default
	// (atexit_sleep_ms), which the stop tests would count against us.
	env := []string{envMain + "=1", "GORACE=atexit_sleep_ms=0 " + os.Getenv("GORACE")}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ILINKDASH_") && !strings.HasPrefix(kv, "GORACE=") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	return cmd
}
