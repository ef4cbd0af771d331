package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"ilinkdash/config"
	"ilinkdash/ui/sanitize"
)

// checkContextJSON is one context's check in `check -o json` over several
// contexts: the single check's object with the context's name first.
type checkContextJSON struct {
	Context string `json:"context"`
	checkJSON
}

// checkRank orders statuses worst first for a fleet: CRITICAL, WARNING,
// UNKNOWN (a cluster that could not be judged), OK — the order of
// aggregating monitoring checks, so the exit status is the worst.
func checkRank(code int) int {
	switch code {
	case checkCritical:
		return 3
	case checkWarning:
		return 2
	case checkUnknown:
		return 1
	}
	return 0
}

// checkContexts judges several contexts at once, each on its own
// connection and window, so an unreachable cluster costs the others
// nothing; it prints one line per context (or a JSON array), worst first
// and then in the order given, and exits with the worst status.
func (a *app) checkContexts(cmd *cobra.Command, f checkFlags, filter groupFilter, rs []config.Resolved, failed map[string]error) error {
	results := make([]checkContextJSON, len(rs))
	var wg sync.WaitGroup
	// A hub's spokes may be many: so many checks at once, not one
	// connection per spoke at the same time.
	slots := make(chan struct{}, checkParallel)
	for i, r := range rs {
		slots <- struct{}{} // a goroutine only once it may run
		wg.Go(func() {
			defer func() { <-slots }()
			res := checkResult{usage: failed[r.Context.Name]}
			if res.usage == nil && r.Context.Admin == "" && r.Context.Hub == "" {
				// Not check's own "give --admin": refused with several contexts.
				res.usage = fmt.Errorf("context %s has no admin address: set admin: HOST:PORT in %s", r.Context.Name, r.File.Path)
			}
			if res.usage == nil {
				res = a.checkOne(cmd.Context(), r, f, filter)
			}
			if res.usage != nil {
				rep := checkReport{target: r.Context.Admin, window: f.window}
				res.v = rep.base("UNKNOWN", checkUnknown, "UNKNOWN: "+res.usage.Error())
			}
			results[i] = checkContextJSON{Context: r.Context.Name, checkJSON: res.v}
		})
	}
	wg.Wait()
	slices.SortStableFunc(results, func(x, y checkContextJSON) int { return checkRank(y.ExitCode) - checkRank(x.ExitCode) })
	out := cmd.OutOrStdout()
	if err := printCheckContexts(out, f.output == "json", results); err != nil {
		return err
	}
	worst := results[0]
	if worst.ExitCode == checkOK {
		return nil
	}
	return &exitError{code: worst.ExitCode, err: errors.New(worst.Context + ": " + worst.Summary), quiet: true}
}

// checkParallel is how many clusters check judges at once.
const checkParallel = 16

// checkSpokes replaces each `spokes: all` context by one context per
// spoke its hub lists, running or not, named CONTEXT/SPOKE: a cron job
// checking a hub wants every spoke judged, the worst one its exit status
// (a spoke that is not linked is UNKNOWN, as an unreachable cluster). A
// hub whose list cannot be read stays one context, failed with why. At
// most maxSpokes a hub are judged, the others said on warn.
func checkSpokes(ctx context.Context, rs []config.Resolved, warn io.Writer) ([]config.Resolved, map[string]error) {
	failed := map[string]error{}
	out, _, _ := expandHubs(ctx, rs, maxSpokes, warn, failed) // no error with failed
	return out, failed
}

func printCheckContexts(w io.Writer, asJSON bool, results []checkContextJSON) error {
	if asJSON {
		return writeJSON(w, results, true)
	}
	var b strings.Builder
	for _, r := range results {
		b.WriteString(sanitize.String(r.Context + ": " + r.Summary))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}
