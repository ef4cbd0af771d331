// Package cli holds ilinkdash's cobra commands: the dashboard (the root
// command), the headless commands for scripts and the engine.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"ilinkdash/config"
)

// exitError carries a process exit code through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// app is what every subcommand shares: the global flags and their resolution.
type app struct {
	flags config.Flags
	root  *cobra.Command
}

func newRootCommand() *app {
	a := &app{}
	a.root = &cobra.Command{
		Use:   "ilinkdash",
		Short: "Terminal dashboard for iLink M.O.M. clusters",
		Long: "ilinkdash shows an iLink cluster's nodes, topics, consumer groups, queues and\n" +
			"replication in the terminal. With no context configured it starts an in-process\n" +
			"demo cluster and opens the dashboard on it.",
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE:          a.runDashboard,
	}
	a.flags.Register(a.root.PersistentFlags())
	a.root.AddCommand(a.engineCommand(), a.configCommand(), a.publishCommand(),
		a.getCommand(), a.describeCommand(), a.groupCommand(), a.nodeCommand(), a.tailCommand())
	return a
}

// Main runs ilinkdash with the process's arguments and returns its exit
// code; SIGINT and SIGTERM cancel the command's context.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, os.Args[1:], os.Stderr)
}

func run(ctx context.Context, args []string, stderr io.Writer) int {
	a := newRootCommand()
	a.root.SetArgs(args)
	err := a.root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "ilinkdash:", err)
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return 1
}
