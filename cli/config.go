package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"ilinkdash/config"
)

func (a *app) configCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "config", Short: "Manage the configuration file"}
	var force bool
	var initOut, pathOut string
	printPath := func(cmd *cobra.Command, output, key, path string) error {
		if err := outputFormat(output, "table", "json"); err != nil {
			return err
		}
		if output == "json" {
			return writeJSON(cmd.OutOrStdout(), map[string]string{key: path}, false)
		}
		if key == "wrote" {
			_, err := fmt.Fprintln(cmd.OutOrStdout(), "wrote", path)
			return err
		}
		_, err := fmt.Fprintln(cmd.OutOrStdout(), path)
		return err
	}
	initCmd := &cobra.Command{
		Use:   "init [PATH]",
		Short: "Write a commented example configuration (default: the file in use: --config, ILINKDASH_CONFIG, else the XDG config path)",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			// The file in use: --config, else ILINKDASH_CONFIG, else the
			// XDG path (which an empty --config, no file, leaves too).
			path := config.DefaultPathFor(a.getenv)
			named, src := a.getenv(config.EnvConfig), config.EnvConfig
			if cmd.Flags().Changed(config.FlagConfig) {
				named, src = a.flags.Config, "--"+config.FlagConfig
			}
			switch {
			case len(args) == 1:
				path = args[0]
			case named != "":
				p, err := config.ExpandHome(named)
				if err != nil {
					return usageErr("%s: %v", src, err)
				}
				path = p
			}
			if err := outputFormat(initOut, "table", "json"); err != nil {
				return err
			}
			if fi, err := os.Stat(path); err == nil && fi.IsDir() || strings.HasSuffix(path, "/") || strings.HasSuffix(path, string(filepath.Separator)) {
				// Not "already exists" (nor, with --force, a failed rename):
				// the argument names a directory, not the file to write.
				return usageErr("config init %s: that is a directory, not a file: give the path of the file to write, such as %s",
					path, filepath.Join(path, filepath.Base(config.DefaultPathFor(a.getenv))))
			}
			if err := config.WriteExample(path, force); err != nil {
				return err
			}
			return printPath(cmd, initOut, "wrote", path)
		},
	}
	initCmd.Flags().BoolVar(&force, "force", false, "overwrite an existing file")
	addOutputFlag(initCmd, &initOut, "table", `table or json ({"wrote": PATH})`)
	pathCmd := &cobra.Command{
		Use:   "path",
		Short: "Print the configuration file path in use",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := outputFormat(pathOut, "table", "json"); err != nil {
				return err
			}
			r, err := a.resolve(cmd)
			if err != nil {
				return err
			}
			return printPath(cmd, pathOut, "path", r.ConfigPath)
		},
	}
	addOutputFlag(pathCmd, &pathOut, "table", `table or json ({"path": PATH})`)
	cmd.AddCommand(initCmd, pathCmd)
	return cmd
}
