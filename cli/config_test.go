package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
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

// config init without PATH writes the file the other commands read:
// --config, else ILINKDASH_CONFIG, else the XDG path. It wrote the XDG
// path whatever they named, so `config path` and every command then
// looked for a file that was never written.
func TestConfigInitWritesTheFileInUse(t *testing.T) {
	dir := t.TempDir()
	xdg := filepath.Join(dir, "xdg")
	run := func(env map[string]string, args ...string) cliResult {
		t.Helper()
		env["XDG_CONFIG_HOME"] = xdg
		a := newTestApp(t, env)
		var out, errb bytes.Buffer
		code, err := a.execute(context.Background(), args, strings.NewReader(""), &out, &errb)
		return cliResult{out.String(), errb.String(), code, err}
	}
	flag, env := filepath.Join(dir, "flag.yaml"), filepath.Join(dir, "env.yaml")
	for _, c := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{map[string]string{}, []string{"config", "init", "--config", flag}, flag},
		{map[string]string{"ILINKDASH_CONFIG": env}, []string{"config", "init"}, env},
		{map[string]string{"ILINKDASH_CONFIG": env}, []string{"config", "init", "--config", flag, "--force"}, flag},
		{map[string]string{"ILINKDASH_CONFIG": env}, []string{"config", "init", "--config", ""}, filepath.Join(xdg, "ilinkdash", "config.yaml")},
	} {
		if r := run(c.env, c.args...); r.code != 0 || r.stdout != "wrote "+c.want+"\n" {
			t.Errorf("%v (env %v): exit %d, %q %q; want it to write %s", c.args, c.env, r.code, r.stdout, r.stderr, c.want)
		}
		if _, err := os.Stat(c.want); err != nil {
			t.Errorf("%v: %v", c.args, err)
		}
		// config path names the file written, and it loads.
		pathArgs := []string{"config", "path"}
		if i := slices.Index(c.args, "--config"); i >= 0 {
			pathArgs = append(pathArgs, c.args[i:i+2]...)
		}
		if r := run(c.env, pathArgs...); r.code != 0 || (c.want != filepath.Join(xdg, "ilinkdash", "config.yaml") && r.stdout != c.want+"\n") {
			t.Errorf("%v after %v: exit %d, %q %q", pathArgs, c.args, r.code, r.stdout, r.stderr)
		}
	}
}
