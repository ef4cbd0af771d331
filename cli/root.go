// Package cli holds ilinkdash's cobra commands: the dashboard (the root
// command), the headless commands for scripts and the engine.
package cli

import (
	"context"
	"io"
	"os"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"ilinkdash/config"
)

// app is what every subcommand shares: the global flags and their
// resolution, and the one output path to the terminal.
type app struct {
	flags config.Flags
	root  *cobra.Command
	io    streams
	// headless is set once a command other than the dashboard runs: only
	// those get the stop guard of the signal handler (the dashboard
	// restores the terminal itself).
	headless atomic.Bool
	// now anchors relative and HH:MM positions (tests fix it).
	now func() time.Time
}

func newRootCommand() *app {
	a := &app{now: time.Now}
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
	a.root.AddCommand(a.engineCommand(), a.configCommand(), a.publishCommand(),
		a.getCommand(), a.describeCommand(), a.groupCommand(), a.nodeCommand(), a.tailCommand(),
		a.versionCommand(), a.serveCommand(),
		a.queueCommand(), a.quarantineCommand(), a.topicCommand(), a.clusterCommand(), a.searchCommand(),
		a.checkCommand(), genManCommand())
	a.root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err: err} })
	a.registerCompletions()
	forEachCommand(a.root, func(c *cobra.Command) {
		switch {
		case c.Args != nil:
			c.Args = usageArgs(c.Args)
		case c.HasSubCommands() && c.RunE == nil && c.Run == nil:
			// A group of commands: with no subcommand it shows its help;
			// anything else is an unknown command (cobra would show the
			// help and exit 0).
			c.Args = unknownCommand
			c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
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
	code := a.report(ctx, cmd, err)
	a.io.flush()
	return code, err
}
