package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// genManCommand is the hidden `ilinkdash gen-man DIR` scripts/release.sh
// runs on the binary it built (nothing but main.go imports cli, so a
// separate generator program could not).
func genManCommand() *cobra.Command {
	return &cobra.Command{
		Use:    "gen-man DIR",
		Short:  "Write the man pages into DIR (release builds)",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE:   func(_ *cobra.Command, args []string) error { return WriteManPages(args[0]) },
	}
}

// WriteManPages writes one man page per command (section 1) into dir, from
// the same command tree the binary runs, so the pages cannot drift from
// the flags. scripts/release.sh ships them beside the binaries.
func WriteManPages(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("man pages: %w", err)
	}
	root := newRootCommand().root
	root.DisableAutoGenTag = true // no generation date: the pages of a commit are reproducible
	hdr := &doc.GenManHeader{Title: "ILINKDASH", Section: "1", Source: "ilinkdash " + readBuildInfo().Version, Manual: "ilinkdash manual"}
	if err := doc.GenManTree(root, hdr, dir); err != nil {
		return fmt.Errorf("man pages into %s: %w", dir, err)
	}
	return nil
}
