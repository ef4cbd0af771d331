package cli

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/position"
	"ilinkdash/ui/sanitize"
)

type quarantineDirJSON struct {
	Dir     string `json:"dir"`
	Queue   string `json:"queue"`
	Entries int    `json:"entries"`
	New     int    `json:"new"`
	Old     int    `json:"old"`
	Oldest  string `json:"oldest"`
	Newest  string `json:"newest"`
}

type quarantineEntryJSON struct {
	Time  string `json:"time"`
	Kind  string `json:"kind"` // NEW or OLD
	ID    string `json:"id"`
	Bytes int    `json:"bytes"`
	Dir   string `json:"dir"`
	Queue string `json:"queue"`
}

type quarantineScanJSON struct {
	Entries []quarantineEntryJSON `json:"entries"`
	Total   int                   `json:"total"`
	New     int                   `json:"new"`
	Old     int                   `json:"old"`
}

type reinjectJSON struct {
	Queue      string `json:"queue"`
	Dir        string `json:"dir"`
	IncludeOld bool   `json:"include_old"`
	Executed   bool   `json:"executed"`
	Selected   int    `json:"selected"` // entries the reinjection takes (plan)
	New        int    `json:"new"`
	Old        int    `json:"old"` // OLD entries selected (0 without --include-old)
	Skipped    int    `json:"skipped_old"`
	Beyond     int    `json:"beyond_plan"` // entries beyond the plan's bound (admin.MaxMoveIDs)
	Warning    string `json:"warning"`     // the duplicate warning, "" when no OLD entry is taken
	// Entries are the ones the plan takes, by id: what --execute names.
	Entries    []quarantineEntryJSON `json:"entries"`
	Count      int64                 `json:"count"` // executed: messages appended
	Leader     int                   `json:"leader"`
	StopReason string                `json:"stop_reason"`
	// Executed: the planned ids no longer quarantined, and the entries
	// of the selection not in the plan (quarantined since), left there.
	Missing []string `json:"missing"`
	Left    int64    `json:"left"`
}

func timeText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func (a *app) quarantineCommand() *cobra.Command {
	var f adminFlags
	cmd := &cobra.Command{
		Use:   "quarantine",
		Short: "List, scan and reinject quarantined queue messages",
		Long: "The quarantine holds messages a queue manager set aside, per directory and queue.\n" +
			"Entries marked OLD are messages the queue had already delivered: reinjecting them\n" +
			"delivers them again (spec Q-23), so reinject takes them only with --include-old,\n" +
			"after printing a warning.",
	}
	f.register(cmd)
	cmd.AddCommand(a.quarantineListCommand(&f), a.quarantineScanCommand(&f), a.quarantineReinjectCommand(&f))
	return cmd
}

// quarantineListCommand is `quarantine list`: f are the parent's flags.
func (a *app) quarantineListCommand(f *adminFlags) *cobra.Command {
	var raw bool
	list := &cobra.Command{
		Use:   "list",
		Short: "Directories and queues with entries: how many, NEW and OLD, oldest and newest",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := rawOrJSON(raw, f); err != nil {
				return err
			}
			return a.withAdmin(cmd, f, func(t *adminTarget) error { return t.quarantineList(raw) })
		},
	}
	list.Flags().BoolVar(&raw, "raw", false, "print the engine's text as it came (sanitized)")

	return list
}

// rawOrJSON refuses --raw with -o json: the engine's text is not JSON
// (it printed the text, -o json unsaid).
func rawOrJSON(raw bool, f *adminFlags) error {
	if raw && f.output == "json" {
		return usageErr("--raw and -o json disagree (--raw prints the engine's text as it came)")
	}
	return nil
}

// quarantineList prints the directories and queues with entries.
func (t *adminTarget) quarantineList(raw bool) error {
	text, err := t.qm.QuarantineList(t.ctx)
	if err != nil {
		return err
	}
	if raw {
		return t.printRaw(text)
	}
	dirs, err := admin.ParseQuarantineList(text)
	if err != nil {
		return err
	}
	out := make([]quarantineDirJSON, len(dirs))
	for i, d := range dirs {
		out[i] = quarantineDirJSON{d.Dir, d.Queue, d.Entries, d.New, d.Old, timeText(d.Oldest), timeText(d.Newest)}
	}
	return t.emit(out, func(w *table) {
		w.row("DIR", "QUEUE", "ENTRIES", "NEW", "OLD", "OLDEST", "NEWEST")
		for _, d := range out {
			w.row(sanitize.String(d.Dir), sanitize.String(d.Queue), d.Entries, d.New, d.Old, d.Oldest, d.Newest)
		}
	})
}

// quarantineScanCommand is `quarantine scan`.
func (a *app) quarantineScanCommand(f *adminFlags) *cobra.Command {
	var sel quarantineSel
	scan := &cobra.Command{
		Use:   "scan [--dir D] [--queue Q] [--since TIME]",
		Short: "The entries (time, NEW/OLD, message id, size, directory, queue)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := rawOrJSON(sel.raw, f); err != nil {
				return err
			}
			since, err := sel.sinceTime()
			if err != nil {
				return err
			}
			return a.withAdmin(cmd, f, func(t *adminTarget) error { return t.quarantineScan(sel, since) })
		},
	}
	sel.register(scan, false)

	return scan
}

// quarantineScan prints the entries sel and since select.
func (t *adminTarget) quarantineScan(sel quarantineSel, since time.Time) error {
	text, err := t.qm.ScanQuarantine(t.ctx, sel.dir, sel.queue, since)
	if err != nil {
		return err
	}
	if sel.raw {
		return t.printRaw(text)
	}
	s, err := admin.ParseQuarantineScan(text)
	if err != nil {
		return err
	}
	out := scanToJSON(s)
	return t.emit(out, func(w *table) {
		w.row(fmt.Sprintf("%d entries (%d NEW, %d OLD)", out.Total, out.New, out.Old))
		w.row("TIME", "KIND", "ID", "BYTES", "DIR", "QUEUE")
		for _, e := range out.Entries {
			w.row(e.Time, e.Kind, e.ID, e.Bytes, sanitize.String(e.Dir), sanitize.String(e.Queue))
		}
	})
}

// printRaw is --raw of list and scan: the engine's text as it came,
// sanitized.
func (t *adminTarget) printRaw(text string) error {
	_, err := io.WriteString(t.out, sanitize.Multiline([]byte(text)))
	return err
}

// quarantineReinjectCommand is `quarantine reinject`: the plan from a
// scan, the entries it takes by id, and with --execute the request.
func (a *app) quarantineReinjectCommand(f *adminFlags) *cobra.Command {
	var rsel quarantineSel
	var includeOld, execute bool
	var planFile string
	reinject := &cobra.Command{
		Use:   "reinject --queue Q [--dir D] [--since TIME] [--include-old] [--execute [--plan FILE]]",
		Short: "Plan (or, with --execute, run) the reinjection of entries at the tail of their queue",
		Long: "Prints what the reinjection would take — the NEW entries, and the OLD ones with\n" +
			"--include-old, with the duplicate warning — and changes nothing unless --execute.\n" +
			"With --execute the warning is printed (on stderr) before the request is sent, then\n" +
			"the result: messages appended, the leader, and why it stopped early (e.g. the queue\n" +
			"is full). TIME: RFC 3339, 2026-11-30 10:00, 10:00 or a relative time (-2h).",
		Example: "  ilinkdash quarantine reinject --queue ORDERS\n" +
			"  ilinkdash quarantine reinject --queue ORDERS --include-old --execute\n" +
			"  ilinkdash quarantine reinject --queue ORDERS -o json > plan.json\n" +
			"  ilinkdash quarantine reinject --queue ORDERS --execute --plan plan.json",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if rsel.queue == "" {
				return usageErr("reinject needs --queue (the queue the entries go back to)")
			}
			if planFile != "" && !execute {
				return usageErr("--plan executes a saved plan: add --execute (without it, reinject prints a plan)")
			}
			since, err := rsel.sinceTime()
			if err != nil {
				return err
			}
			var saved *reinjectJSON
			if planFile != "" {
				if saved, err = readReinjectPlan(cmd, planFile, rsel.queue, rsel.dir, includeOld); err != nil {
					return err
				}
			}
			t, err := a.openAdmin(cmd, f)
			if err != nil {
				return err
			}
			defer t.close()
			if saved != nil {
				ids := make([][]byte, len(saved.Entries))
				for i, e := range saved.Entries {
					ids[i], _ = hex.DecodeString(e.ID) // checked by readReinjectPlan
				}
				return a.reinjectIDs(cmd, t, *saved, ids)
			}
			text, err := t.qm.ScanQuarantine(t.ctx, rsel.dir, rsel.queue, since)
			if err != nil {
				return err
			}
			s, err := admin.ParseQuarantineScan(text)
			if err != nil {
				return err
			}
			plan := admin.PlanReinject(s, rsel.dir, rsel.queue, includeOld)
			out := reinjectJSON{Queue: rsel.queue, Dir: rsel.dir, IncludeOld: includeOld, New: plan.New, Old: plan.Old,
				Selected: len(plan.IDs), Skipped: plan.OldLeft, Beyond: plan.Beyond, Warning: admin.DuplicateWarning(plan.Old, rsel.queue),
				Entries: []quarantineEntryJSON{}, Missing: []string{}}
			taken := map[string]bool{}
			for _, id := range plan.IDs {
				taken[string(id)] = true
			}
			for _, e := range scanToJSON(s).Entries {
				if id, _ := hex.DecodeString(e.ID); taken[string(id)] && (rsel.dir == "" || e.Dir == rsel.dir) && e.Queue == rsel.queue {
					out.Entries = append(out.Entries, e)
				}
			}
			if execute {
				// The entries the plan shows, by id: not whatever is quarantined by then.
				return a.reinjectIDs(cmd, t, out, plan.IDs)
			}
			return t.emit(out, func(w *table) { printReinject(w, out) })
		},
	}
	rsel.register(reinject, true)
	reinject.Flags().BoolVar(&includeOld, "include-old", false, "also take OLD entries (already delivered: they come back as duplicates)")
	reinject.Flags().BoolVar(&execute, "execute", false, "reinject (default: only print the plan)")
	reinject.Flags().StringVar(&planFile, "plan", "", "with --execute: reinject exactly the entries of this plan (the -o json of a reinject without --execute; - = stdin)")
	return reinject
}

// readReinjectPlan reads a plan saved with reinject -o json; it must be
// for the queue, directory and --include-old given, and not executed.
func readReinjectPlan(cmd *cobra.Command, file, queue, dir string, includeOld bool) (*reinjectJSON, error) {
	b, err := readPlanFile(cmd, file)
	if err != nil {
		return nil, err
	}
	var p reinjectJSON
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, usageErr("--plan %s: not a reinject plan (-o json): %v", file, err)
	}
	if miss := missingPlanFields(b, "queue", "dir", "include_old", "entries"); miss != "" {
		return nil, usageErr("--plan %s: not a reinject plan (-o json): it has no %s", file, miss)
	}
	switch {
	case p.Executed:
		return nil, usageErr("--plan %s: that is the result of an executed reinjection, not a plan", file)
	case p.Queue != queue:
		return nil, usageErr("--plan %s: the plan is for %s, not --queue %s", file, sanitize.String(p.Queue), sanitize.String(queue))
	case p.Dir != dir:
		return nil, usageErr("--plan %s: the plan is for --dir %q, not %q", file, sanitize.String(p.Dir), sanitize.String(dir))
	case p.IncludeOld != includeOld:
		return nil, usageErr("--plan %s: the plan was made with --include-old=%t: give the same", file, p.IncludeOld)
	case len(p.Entries) > admin.MaxMoveIDs:
		return nil, usageErr("--plan %s: %d entries; at most %d per reinjection", file, len(p.Entries), admin.MaxMoveIDs)
	}
	for i, e := range p.Entries {
		if id, err := hex.DecodeString(e.ID); err != nil || len(id) == 0 {
			return nil, usageErr("--plan %s: entry %d: id %q is not hex", file, i+1, sanitize.String(e.ID))
		}
	}
	return &p, nil
}

// reinjectIDs reinjects exactly the entries ids of the plan out (by id:
// not whatever is quarantined by then) and reports against it; with no
// entry, nothing is sent.
func (a *app) reinjectIDs(cmd *cobra.Command, t *adminTarget, out reinjectJSON, ids [][]byte) error {
	out.Executed, out.Missing = true, []string{}
	if len(ids) > 0 {
		if out.Warning != "" {
			fmt.Fprintln(cmd.ErrOrStderr(), "ilinkdash: warning:", sanitize.String(out.Warning))
		}
		res, err := t.qm.ReinjectQuarantineIDs(t.ctx, out.Dir, out.Queue, ids, out.IncludeOld)
		if err != nil {
			return err
		}
		out.Count, out.Leader, out.StopReason, out.Left = res.Count, res.Leader, res.StopReason, res.Left
		for _, id := range res.Missing {
			out.Missing = append(out.Missing, hex.EncodeToString(id))
		}
	}
	return t.emit(out, func(w *table) { printReinject(w, out) })
}

type quarantineSel struct {
	dir, queue, since string
	raw               bool
}

func (s *quarantineSel) register(c *cobra.Command, reinject bool) {
	c.Flags().StringVar(&s.dir, "dir", "", "only this quarantine directory (default: every one)")
	if reinject {
		c.Flags().StringVar(&s.queue, "queue", "", "the queue whose entries are reinjected (required)")
	} else {
		c.Flags().StringVar(&s.queue, "queue", "", "only this queue (default: every one)")
		c.Flags().BoolVar(&s.raw, "raw", false, "print the engine's text as it came (sanitized)")
	}
	c.Flags().StringVar(&s.since, "since", "", "only entries quarantined at or after this time")
}

func (s *quarantineSel) sinceTime() (time.Time, error) {
	if s.since == "" {
		return time.Time{}, nil
	}
	t, err := position.ParseTime(s.since, time.Now())
	if err != nil {
		return time.Time{}, usageErr("--since: %v", err)
	}
	return t, nil
}

func scanToJSON(s admin.QuarantineScan) quarantineScanJSON {
	out := quarantineScanJSON{Entries: []quarantineEntryJSON{}, Total: s.Total}
	out.New, out.Old = s.Counts()
	for _, e := range s.Entries {
		kind := "NEW"
		if e.Old {
			kind = "OLD"
		}
		out.Entries = append(out.Entries, quarantineEntryJSON{timeText(e.Time), kind, hex.EncodeToString(e.MsgID), e.Bytes, e.Dir, e.Queue})
	}
	return out
}

func printReinject(w *table, out reinjectJSON) {
	q := sanitize.String(out.Queue)
	if !out.Executed {
		line := fmt.Sprintf("reinject into %s would take %d entries (%d NEW, %d OLD)", q, out.Selected, out.New, out.Old)
		if out.Skipped > 0 {
			line += fmt.Sprintf("; %d OLD entries left out (--include-old takes them, as duplicates)", out.Skipped)
		}
		w.row(line)
		if out.Beyond > 0 {
			w.row(fmt.Sprintf("%d more entries are beyond this plan's %d and stay (reinject again after)", out.Beyond, admin.MaxMoveIDs))
		}
		w.row("nothing changed; add --execute to reinject")
		if out.Warning != "" {
			w.row("warning: " + sanitize.String(out.Warning))
		}
	} else {
		line := fmt.Sprintf("reinject into %s: %d planned, %d reinjected (leader node %d)", q, out.Selected, out.Count, out.Leader)
		if out.Selected == 0 {
			line = fmt.Sprintf("reinject into %s: nothing planned, nothing sent", q) // no request: no leader to name
		}
		if n := len(out.Missing); n > 0 {
			line += fmt.Sprintf("; %d planned no longer quarantined", n)
		}
		if out.Left > 0 {
			line += fmt.Sprintf("; %d not in the plan left in the quarantine", out.Left)
		}
		w.row(line)
		if out.StopReason != "" {
			w.row("stopped early: " + sanitize.String(out.StopReason))
		}
		for _, id := range out.Missing {
			w.row("missing: " + id)
		}
	}
	w.row("TIME", "KIND", "ID", "BYTES", "DIR")
	for _, e := range out.Entries {
		w.row(e.Time, e.Kind, e.ID, e.Bytes, sanitize.String(e.Dir))
	}
}
