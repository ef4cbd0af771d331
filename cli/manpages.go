package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra/doc"
)

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
