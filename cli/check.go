package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"ilinkdash/config"
	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/admin/health"
	"ilinkdash/ilink/numfmt"
	"ilinkdash/ui/sanitize"
)

// `ilinkdash check`: the dashboard's health rules, once, for cron, systemd
// timers and monitoring agents. It follows the monitoring-plugin
// convention: exit 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN (the cluster
// could not be judged: unreachable, no answer within the timeout, a bad
// flag), and prints one summary line first, then one line per problem.

// Check exit codes.
const (
	checkOK       = 0
	checkWarning  = 1
	checkCritical = 2
	checkUnknown  = 3
)

type checkFlags struct {
	embedded bool
	groups   string
	maxLag   int64
	window   time.Duration
	// stallAfter overrides health.stall-after: check samples for
	// max(window, stall-after), so a short window alone does not make a
	// short check.
	stallAfter time.Duration
	timeout    time.Duration
	output     string
	// allContexts judges every context of the file (--all-contexts).
	allContexts bool
}

type checkAlertJSON struct {
	Level   string `json:"level"`
	Kind    string `json:"kind"`
	Subject string `json:"subject"`
	Since   string `json:"since"`
	Lag     *int64 `json:"lag"`
	Text    string `json:"text"`
}

type checkJSON struct {
	Status   string `json:"status"`
	ExitCode int    `json:"exit_code"`
	Summary  string `json:"summary"`
	Target   string `json:"target"`
	WindowMs int64  `json:"window_ms"`
	// SampledMs is how long the check sampled: the window, or
	// stall-after when that is longer (0 when it could not judge).
	SampledMs int64            `json:"sampled_ms"`
	CheckedAt string           `json:"checked_at"`
	Alerts    []checkAlertJSON `json:"alerts"`
	Groups    []groupJSON      `json:"groups"`
}

func (a *app) checkCommand() *cobra.Command {
	var f checkFlags
	cmd := &cobra.Command{
		Use:   "check [--embedded] [--groups PATTERN] [--max-lag N] [--window D] [--stall-after D] [--timeout D] [-o text|json]",
		Short: "Judge the cluster's health once, for monitoring (exit 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN)",
		Long: "Polls the cluster over one window (the lists at its start and end, the groups every\n" +
			"fifth of it in between) and judges it by the dashboard's rules (docs/HEALTH.md): nodes\n" +
			"down, partitions offline or under-replicated, no leader, queues over their depth limit,\n" +
			"growing dead-letter queues, and every group STOPPED, STALLED, REWOUND or LAGGING past\n" +
			"its threshold. Prints a summary line first (\"CRITICAL: 2 groups stopped, 1 node down\"),\n" +
			"then one line per problem. Exit codes follow the monitoring-plugin convention: 0 OK,\n" +
			"1 WARNING, 2 CRITICAL, 3 UNKNOWN (unreachable within --timeout, or a usage error).",
		Example: "  ilinkdash check --context prod\n" +
			"  ilinkdash check --groups 'billing,payments-*' --max-lag 5000 --window 30s\n" +
			"  ilinkdash check -o json",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return checkUsage(cmd, "unexpected argument %q", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runCheck(cmd, f) },
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.embedded, "embedded", false, "start a fresh in-process engine with demo topics and queues, and judge it")
	fl.StringVar(&f.groups, "groups", "", "only these groups: comma-separated names or glob patterns (a name the cluster does not know is DEAD)")
	fl.Int64Var(&f.maxLag, "max-lag", 0, "a LAGGING group is WARNING from this lag (default: the context's health.max-lag-warning)")
	fl.DurationVar(&f.window, "window", 0, "the window judged over (default: the context's health.window, 10s)")
	fl.DurationVar(&f.stallAfter, "stall-after", 0, "a group whose commits stand still this long is STALLED; check samples for the longer of this and --window (default: the context's health.stall-after, 10s)")
	fl.DurationVar(&f.timeout, "timeout", 10*time.Second, "UNKNOWN when the cluster does not answer within this (beyond the window)")
	fl.StringVarP(&f.output, "output", "o", "text", "output format: text or json")
	fl.BoolVar(&f.allContexts, "all-contexts", false, "judge every context of the config file at once (as --context a,b,c names some): one line per context, worst first")
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return checkUsage(c, "%v", flagValueError(err)) })
	return cmd
}

// checkUsage is a usage error of check: UNKNOWN (3), as monitoring
// plugins report a bad invocation, not the usage status 2 of the other
// commands (2 would read as CRITICAL). The line goes to stdout, where a
// monitoring agent reads the status line.
func checkUsage(cmd *cobra.Command, format string, args ...any) error {
	msg := sanitize.String(fmt.Sprintf("UNKNOWN: "+format, args...))
	fmt.Fprintln(cmd.OutOrStdout(), msg)
	return &exitError{code: checkUnknown, err: errors.New(msg), quiet: true}
}

func (a *app) runCheck(cmd *cobra.Command, f checkFlags) error {
	switch {
	case f.output != "text" && f.output != "json":
		return checkUsage(cmd, "-o %q: want text or json", f.output)
	case f.window < 0 || cmd.Flags().Changed("window") && f.window == 0:
		return checkUsage(cmd, "--window %v: must be positive", f.window)
	case f.stallAfter < 0 || cmd.Flags().Changed("stall-after") && f.stallAfter == 0:
		return checkUsage(cmd, "--stall-after %v: must be positive", f.stallAfter)
	case f.timeout <= 0:
		return checkUsage(cmd, "--timeout %v: must be positive", f.timeout)
	case cmd.Flags().Changed("max-lag") && f.maxLag < 0:
		return checkUsage(cmd, "--max-lag %d: must not be negative", f.maxLag)
	}
	if !cmd.Flags().Changed("max-lag") {
		f.maxLag = -1 // the context's health.max-lag-warning
	}
	filter, err := parseGroupFilter(f.groups)
	if err != nil {
		return checkUsage(cmd, "%v", err)
	}
	rs, err := config.ResolveMany(cmd.Flags(), &a.flags, a.getenv, f.allContexts)
	if err != nil {
		return checkUsage(cmd, "%v", err)
	}
	if len(rs) > 1 || hasAllSpokes(rs) {
		if f.embedded {
			return checkUsage(cmd, "--embedded with several contexts: it judges one fresh engine")
		}
		rs, failed := checkSpokes(cmd.Context(), rs, cmd.ErrOrStderr())
		return a.checkContexts(cmd, f, filter, rs, failed)
	}
	res := a.checkOne(cmd.Context(), rs[0], f, filter)
	if res.usage != nil {
		return checkUsage(cmd, "%v", res.usage)
	}
	rep := checkReport{out: cmd.OutOrStdout(), json: f.output == "json"}
	if err := rep.print(res.v, res.alerts); err != nil {
		return err
	}
	return res.exit()
}

// checkResult is one cluster's check: its JSON, its alerts, or a usage
// problem of its context (no admin address, bad health thresholds).
type checkResult struct {
	v      checkJSON
	alerts []health.Alert
	usage  error
}

func (r checkResult) exit() error {
	if r.v.ExitCode == checkOK {
		return nil
	}
	return &exitError{code: r.v.ExitCode, err: errors.New(r.v.Summary), quiet: true}
}

// checkOne judges the cluster of r over one window.
func (a *app) checkOne(parent context.Context, r config.Resolved, f checkFlags, filter groupFilter) checkResult {
	c := r.Context
	hub, err := spokeRoute(&c)
	if err != nil {
		return checkResult{usage: err}
	}
	target := c.Admin
	if hub != nil {
		target = hub.Target()
	}
	if f.embedded {
		e, err := startEmbedded()
		if err != nil {
			return checkResult{usage: fmt.Errorf("--embedded: %v", err)}
		}
		defer e.Close()
		c.Admin, c.Addresses, target = e.AdminAddrs()[0], nil, "embedded engine "+e.AdminAddrs()[0]
	} else if r.Context.Name != "" {
		target += " (context " + r.Context.Name + ")"
	}
	if c.Admin == "" {
		return checkResult{usage: errors.New("no admin address: give --admin, a context with an admin address, or --embedded")}
	}
	cfg := health.Config(c.Health)
	if f.window > 0 {
		cfg.Window = f.window
	}
	if f.stallAfter > 0 {
		cfg.StallAfter = f.stallAfter
	}
	if f.maxLag >= 0 {
		cfg.MaxLagWarning = f.maxLag
		if cfg.MaxLagCritical > 0 && cfg.MaxLagCritical < f.maxLag {
			cfg.MaxLagCritical = f.maxLag
		}
	}
	if err := cfg.Validate(); err != nil {
		return checkResult{usage: err}
	}
	span := max(cfg.Window, cfg.StallAfter)
	rep := checkReport{target: c.Admin, named: target, window: cfg.Window, span: span}

	ctx, cancel := context.WithTimeout(parent, span+f.timeout)
	defer cancel()
	connCtx, connCancel := context.WithTimeout(ctx, f.timeout)
	svc, err := admin.Connect(connCtx, c.Admin, admin.Options{ClientName: c.ClientName, ReadOnly: true, DataAddrs: c.Addresses, Hub: hub})
	connCancel()
	if err != nil {
		return checkResult{v: rep.unknown(stopCause(parent, err), "", f.timeout)}
	}
	defer svc.Close()
	s := &sampler{qm: svc.AccessAdminQmgr(c.QueueManager), mon: health.New(cfg), filter: filter,
		definition: func(ctx context.Context) (admin.ClusterProperty, error) { return svc.ClusterProperty(ctx, "") }}
	if call, err := s.run(ctx, span, sampleStep(span, c.Refresh.Groups)); err != nil {
		if parent.Err() != nil {
			call = "" // not the call's failure
		}
		return checkResult{v: rep.unknown(stopCause(parent, err), call, f.timeout)}
	}
	if len(s.unmatched) > 0 {
		return checkResult{v: rep.unknown(fmt.Errorf("no group matches %q", strings.Join(s.unmatched, ",")), "", f.timeout)}
	}
	v, alerts := rep.judged(s)
	return checkResult{v: v, alerts: alerts}
}

// stopCause is err, or why the check was stopped when it was (an
// interrupt: "UNKNOWN: interrupted", not "context canceled").
func stopCause(parent context.Context, err error) error {
	if parent.Err() != nil {
		return context.Cause(parent)
	}
	return err
}

// checkReport words a check's result and prints it.
type checkReport struct {
	out    io.Writer
	json   bool
	target string // the admin address (JSON "target")
	named  string // the same, with the context it came from, for the words
	window time.Duration
	// span is how long the check sampled: the window, or stall-after
	// when that is longer (said, so "judged over 300ms" is not read as
	// a check that took 300 ms).
	span time.Duration
}

func (r checkReport) base(status string, code int, summary string) checkJSON {
	return checkJSON{Status: status, ExitCode: code, Summary: summary, Target: r.target, WindowMs: r.window.Milliseconds(),
		CheckedAt: jsonTime(time.Now()), Alerts: []checkAlertJSON{}, Groups: []groupJSON{}}
}

// unknown is a check that could not judge: the cluster was not reached
// (within the timeout), or a call failed.
func (r checkReport) unknown(err error, call string, timeout time.Duration) checkJSON {
	var why string
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		why = fmt.Sprintf("no answer from %s within %v", r.named, timeout)
	case health.Unreachable(err):
		why = "cannot reach " + r.named + ": " + health.ReachReason(err)
	case call != "":
		why = call + ": " + err.Error()
	default:
		why = err.Error()
	}
	return r.base("UNKNOWN", checkUnknown, "UNKNOWN: "+why)
}

func (r checkReport) judged(s *sampler) (checkJSON, []health.Alert) {
	alerts := s.mon.Alerts()
	ok := fmt.Sprintf("%s, %s, %s, %s judged over %v", numfmt.Plural(s.nodes, "node"), numfmt.Plural(s.topics, "topic"),
		numfmt.Plural(s.groups, "group"), numfmt.Plural(s.queues, "queue"), r.window)
	if r.span > r.window {
		ok += fmt.Sprintf(", stalls over %v", r.span)
	}
	level, summary := health.Summary(alerts, ok)
	code := map[health.Level]int{health.LevelOK: checkOK, health.LevelWarning: checkWarning, health.LevelCritical: checkCritical}[level]
	out := r.base(level.String(), code, summary)
	out.SampledMs = r.span.Milliseconds()
	for _, a := range alerts {
		aj := checkAlertJSON{Level: a.Level.String(), Kind: string(a.Kind), Subject: a.Subject, Since: jsonTime(a.Since), Text: a.Text}
		if strings.HasPrefix(string(a.Kind), "group-") {
			n := a.Lag
			aj.Lag = &n
		}
		out.Alerts = append(out.Alerts, aj)
	}
	for _, g := range s.mon.Groups() {
		out.Groups = append(out.Groups, groupStatusJSON(g))
	}
	return out, alerts
}

func (r checkReport) print(v checkJSON, alerts []health.Alert) error {
	if r.json {
		return writeJSON(r.out, v, true) // escaped, not sanitized (docs/CLI.md)
	}
	var b strings.Builder
	b.WriteString(sanitize.String(v.Summary))
	b.WriteByte('\n')
	for _, a := range alerts {
		b.WriteString(a.Level.String() + " " + sanitize.String(a.Text) + "\n")
	}
	_, err := io.WriteString(r.out, b.String())
	return err
}
