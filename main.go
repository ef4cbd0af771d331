// Command ilinkdash is a terminal dashboard for iLink clusters, with an
// embedded iLink client and an in-process iLink engine (the default target).
package main

import (
	"context"
	"errors"
	"fmt"
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

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	a := newRootCommand()
	err := a.root.ExecuteContext(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "ilinkdash:", err)
		var ee *exitError
		if errors.As(err, &ee) {
			os.Exit(ee.code)
		}
		os.Exit(1)
	}
}
