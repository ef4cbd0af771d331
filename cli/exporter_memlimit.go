package cli

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"

	"ilinkdash/config"
)

// The exporter's soft memory limit (--memory-limit, issue 26): Go's
// collector lets the heap grow to twice what is live before it collects
// (GOGC=100), so a 10,000-topic exporter that keeps about 30 MB live
// peaks near 90 MB of RSS; under a soft limit the collector runs as the
// heap nears it instead (runtime/debug.SetMemoryLimit: GOMEMLIMIT's
// setting). It is soft: a cluster whose live state is above it still
// runs, with the collector busier (the runtime bounds its share of CPU).

// minMemoryLimit is the smallest limit taken: below it the runtime and
// the HTTP server alone would keep the collector running.
const minMemoryLimit = 16 << 20

// applyMemoryLimit sets the process's soft memory limit from
// --memory-limit when it was given (else GOMEMLIMIT, the runtime's, is
// left as it is), and returns what puts the previous one back (the
// command may run inside a longer-lived process: the tests).
func applyMemoryLimit(cmd *cobra.Command, value string) (restore func(), err error) {
	if !cmd.Flags().Changed("memory-limit") {
		return func() {}, nil
	}
	n, err := config.ParseBytes(value)
	if err != nil {
		return nil, usageErr("--memory-limit: %v", err)
	}
	if n < minMemoryLimit {
		return nil, usageErr("--memory-limit %s: below %s, where the collector would never stop", value, config.FormatBytes(minMemoryLimit))
	}
	prev := debug.SetMemoryLimit(n)
	fmt.Fprintf(cmd.ErrOrStderr(), "ilinkdash exporter: soft memory limit %s\n", config.FormatBytes(n))
	return func() { debug.SetMemoryLimit(prev) }, nil
}
