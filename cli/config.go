package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"ilinkdash/config"
)

func (a *app) configCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "config", Short: "Manage the configuration file"}
	var force bool
	initCmd := &cobra.Command{
		Use:   "init [PATH]",
		Short: "Write a commented example configuration (default: the XDG config path)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := config.DefaultPath()
			if len(args) == 1 {
				path = args[0]
			}
			if err := config.WriteExample(path, force); err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), "wrote", path)
			return nil
		},
	}
	initCmd.Flags().BoolVar(&force, "force", false, "overwrite an existing file")
	pathCmd := &cobra.Command{
		Use:   "path",
		Short: "Print the configuration file path in use",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			r, err := a.resolve(cmd)
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), r.ConfigPath)
			return nil
		},
	}
	cmd.AddCommand(initCmd, pathCmd)
	return cmd
}
