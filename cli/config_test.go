package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// config init on a directory says it is one (a usage error naming the
// file to give), with or without --force; it said the "file" already
// existed, or with --force that a rename failed.
func TestConfigInitOnADirectory(t *testing.T) {
	dir := t.TempDir()
	want := "config init " + dir + ": that is a directory, not a file: give the path of the file to write, such as " + filepath.Join(dir, "config.yaml")
	for _, args := range [][]string{{"config", "init", dir}, {"config", "init", dir, "--force"}} {
		r := runCLIResult(t, "", args...)
		if r.code != exitUsage || !strings.HasPrefix(r.stderr, "ilinkdash: "+want+"\n") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", args, r.code, r.stderr, want)
		}
	}
	// A path ending in a separator names a directory too: nothing is made.
	slash := filepath.Join(dir, "new") + string(filepath.Separator)
	if r := runCLIResult(t, "", "config", "init", slash); r.code != exitUsage || !strings.Contains(r.stderr, "that is a directory, not a file") {
		t.Errorf("config init %s: exit %d, stderr %q", slash, r.code, r.stderr)
	}
	if _, err := os.Stat(slash); err == nil {
		t.Errorf("config init %s made the directory", slash)
	}
	// A file in it is written.
	file := filepath.Join(dir, "c.yaml")
	if r := runCLIResult(t, "", "config", "init", file); r.code != 0 || r.stdout != "wrote "+file+"\n" {
		t.Errorf("config init %s: exit %d, %q %q", file, r.code, r.stdout, r.stderr)
	}
}
