package cli

import (
	"bytes"
	"context"
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
