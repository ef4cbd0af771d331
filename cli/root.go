// Package cli holds ilinkdash's cobra commands: the dashboard (the root
// command), the headless commands for scripts and the engine.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"ilinkdash/config"
	"ilinkdash/ilink"
	"ilinkdash/ilink/wire"
)

// app is what every subcommand shares: the global flags and their
// resolution, and the one output path to the terminal.
type app struct {
	flags config.Flags
	fleet fleetFlags // the dashboard's --all-contexts and --demo
	root  *cobra.Command
	io    streams
	// headless is set once a command other than the dashboard runs: only
	// those get the stop guard of the signal handler (the dashboard
	// restores the terminal itself).
	headless atomic.Bool
	// now anchors relative and HH:MM positions (tests fix it).
	now func() time.Time
	// getenv reads the environment (ILINKDASH_*, NO_COLOR): os.Getenv,
	// or a test's own, so tests that set it can run in parallel.
	getenv func(string) string
	// limit is the --timeout of the admin command that runs (openAdmin),
	// to say so when it expires.
	limit adminLimit
}

func newRootCommand() *app {
	a := &app{now: time.Now, getenv: os.Getenv}
	a.root = &cobra.Command{
		Use:   "ilinkdash",
		Short: "Terminal dashboard for iLink M.O.M. clusters",
		Long: "ilinkdash shows an iLink cluster's nodes, topics, consumer groups, queues and\n" +
			"replication in the terminal. With no context configured it starts an in-process\n" +
			"demo cluster and opens the dashboard on it.",
		Version:       versionLine(),
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          unknownCommand,
		RunE:          a.runDashboard,
		PersistentPreRun: func(cmd *cobra.Command, _ []string) {
			if cmd != a.root {
				a.headless.Store(true)
			}
		},
	}
	a.root.SetVersionTemplate("{{.Version}}\n")
	a.root.SuggestionsMinimumDistance = 2
	a.flags.Register(a.root.PersistentFlags())
	a.flags.RegisterDashboard(a.root.Flags())
	a.registerFleet(a.root.Flags())
	a.root.AddCommand(a.engineCommand(), a.configCommand(), a.publishCommand(),
		a.getCommand(), a.describeCommand(), a.groupCommand(), a.nodeCommand(), a.tailCommand(),
		a.versionCommand(), a.serveCommand(), a.exporterCommand(),
		a.queueCommand(), a.quarantineCommand(), a.topicCommand(), a.clusterCommand(), a.searchCommand(),
		a.checkCommand(), genManCommand())
	a.root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err: flagValueError(err)} })
	a.registerCompletions()
	// cobra adds its completion command when it executes; added now, it is
	// a group of commands as the others are (completion tcsh: exit 2).
	a.root.InitDefaultCompletionCmd()
	forEachCommand(a.root, func(c *cobra.Command) {
		switch {
		case c.HasSubCommands() && c.RunE == nil && c.Run == nil:
			// A group of commands: with no subcommand it shows its help;
			// anything else is an unknown command (cobra would show the
			// help and exit 0).
			c.Args = unknownCommand
			c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
		case c.Args != nil:
			c.Args = usageArgs(c.Args)
		}
	})
	return a
}

// forEachCommand calls fn for c and every command below it.
func forEachCommand(c *cobra.Command, fn func(*cobra.Command)) {
	fn(c)
	for _, sub := range c.Commands() {
		forEachCommand(sub, fn)
	}
}

// Main runs ilinkdash with the process's arguments and returns its exit
// code. The first SIGINT or SIGTERM cancels the command's context (a
// headless command then has 2 s to finish); a second one exits at once.
// SIGPIPE is caught so that a write to a closed stdout fails with EPIPE
// instead of killing the process: a tail piped into `head` then still
// leaves its temporary group.
func Main() int {
	a := newRootCommand()
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	stop := a.handleSignals(cancel)
	defer stop()
	if stopWatch := watchStdoutReader(os.Stdout, func() { cancel(errStdoutClosed) }); stopWatch != nil {
		defer stopWatch()
	}
	code, _ := a.execute(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	return code
}

// execute runs the command line args with the given streams and returns
// the exit code (after printing the error, if any) and the error.
func (a *app) execute(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	a.io = newStreams(stdin, stdout, stderr)
	a.root.SetIn(stdin)
	a.root.SetOut(a.io.out)
	a.root.SetErr(a.io.err)
	a.root.SetArgs(args)
	cmd, err := a.root.ExecuteContextC(ctx)
	err = a.limit.explain(notFound(err))
	code := a.report(ctx, cmd, err)
	a.io.flush()
	return code, err
}

// wantAnnotation is a flag's own "want …" text for a value that does not
// parse (setWant); without it the flag's type says what is wanted.
const wantAnnotation = "ilinkdash/want"

// setWant gives flag name of fs its own words for flagValueError.
func setWant(fs *pflag.FlagSet, name, want string) {
	if err := fs.SetAnnotation(name, wantAnnotation, []string{want}); err != nil {
		panic(err) // a misspelt flag name: a programming error
	}
}

// flagValueError says a flag value pflag could not parse in our words,
// `--rate "abc": want a whole number of records per second`, instead of
// pflag's `invalid argument … strconv.ParseInt: …`. Other flag errors
// (unknown flag, missing value) are pflag's, which are readable.
func flagValueError(err error) error {
	var ive *pflag.InvalidValueError
	if !errors.As(err, &ive) || ive.GetFlag() == nil {
		return err
	}
	f := ive.GetFlag()
	want := ""
	if w := f.Annotations[wantAnnotation]; len(w) > 0 {
		want = w[0]
	} else {
		want = wantOfType(f.Value.Type())
	}
	if errors.Is(err, strconv.ErrRange) {
		want += " (this one is out of range)"
	}
	return fmt.Errorf("--%s %q: want %s", f.Name, ive.GetValue(), want)
}

// wantOfType is what a flag of a pflag value type takes, in words.
func wantOfType(typ string) string {
	switch typ {
	case "int", "int8", "int16", "int32", "int64":
		return "a whole number"
	case "uint", "uint8", "uint16", "uint32", "uint64":
		return "a whole number, 0 or more"
	case "float32", "float64":
		return "a number"
	case "bool":
		return "true or false"
	case "duration":
		return "a duration such as 500ms, 30s, 5m or 1h30m"
	case "count":
		return "a count"
	}
	if strings.HasSuffix(typ, "Slice") || strings.HasSuffix(typ, "Array") {
		return "a comma-separated list of " + strings.TrimSuffix(strings.TrimSuffix(typ, "Slice"), "Array") + " values"
	}
	return "a " + typ
}

// notFound says an engine's MIMQE_UNKNOWN_TOPIC or MIMQE_UNKNOWN_QUEUE,
// when it is a command's whole error, as one clear line: "topic X: no
// such topic" (exit status 1, like any failure).
func notFound(err error) error {
	var ie *ilink.Error
	if err == nil || !errors.As(err, &ie) || err.Error() != ie.Error() {
		return err
	}
	what := map[string]string{wire.ErrUnknownTopic: "topic", wire.ErrUnknownQueue: "queue"}[ie.Name]
	switch {
	case what == "":
		return err
	case ie.Tail == "":
		return &saidError{"no such " + what, err}
	case strings.ContainsRune(ie.Tail, ' '): // "T has no partition 9"
		return &saidError{fmt.Sprintf("%s %s", what, ie.Tail), err}
	}
	return &saidError{noSuch(what, ie.Tail).Error(), err}
}

// topicNotFound is notFound for tail and search, whose engine error comes
// wrapped ("tail T: MIMQE_UNKNOWN_TOPIC (T)"): a missing topic anywhere in
// err's chain is said as the other commands say it, "topic T: no such
// topic".
func topicNotFound(err error) error {
	var ie *ilink.Error
	if errors.As(err, &ie) && ie.Name == wire.ErrUnknownTopic {
		return notFound(ie)
	}
	return err
}

// saidError is an error said in other words; errors.Is and As still see
// the engine's error under it.
type saidError struct {
	msg string
	err error
}

func (e *saidError) Error() string { return e.msg }
func (e *saidError) Unwrap() error { return e.err }

// noSuch is the not-found error of one thing: "group NOSUCH: no such group".
func noSuch(what, name string) error {
	return fmt.Errorf("%s %s: no such %s", what, name, what)
}
