package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExampleYAMLLoads(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	// As written, every context is commented out: nothing is selected, so
	// the embedded default keeps working after "config init".
	written, err := Parse("example.yaml", []byte(ExampleYAML()))
	if err != nil {
		t.Fatalf("the example config does not load:\n%v", err)
	}
	if written.CurrentContext != "" || len(written.Names()) != 0 {
		t.Fatalf("the written example selects %q among %v; want no context until the user uncomments one", written.CurrentContext, written.Names())
	}
	// Uncommented as a user does it: the first two characters of each line
	// of the commented block removed.
	text := ExampleYAML()
	from := strings.Index(text, "# # Context used")
	to := strings.Index(text, "\n# ilinkdash serve:")
	if from < 0 || to < from {
		t.Fatalf("the example has no commented contexts block:\n%s", text)
	}
	var un strings.Builder
	un.WriteString(text[:from])
	for _, l := range strings.SplitAfter(text[from:to], "\n") {
		if u, ok := strings.CutPrefix(l, "# "); ok {
			l = u
		} else if l == "#\n" {
			l = "\n"
		}
		un.WriteString(l)
	}
	un.WriteString(text[to:])
	if un.String() != ExampleContextsYAML() {
		t.Fatalf("uncommenting the example does not give the full example")
	}
	f, err := Parse("example.yaml", []byte(un.String()))
	if err != nil {
		t.Fatalf("the example config with its contexts uncommented does not load:\n%v", err)
	}
	if f.CurrentContext != "prod" || strings.Join(f.Names(), ",") != "prod,plant-7,plant-7-by-key,plants,local" {
		t.Fatalf("example: current %q, contexts %v", f.CurrentContext, f.Names())
	}
	if sp, _ := f.Lookup("plant-7"); !sp.IsSpoke() || sp.Hub != "ilink-hub.example:9998" || sp.Spoke != "plant-7" {
		t.Errorf("example spoke context = %+v", sp)
	}
	if all, _ := f.Lookup("plants"); !all.AllSpokes || all.IsSpoke() {
		t.Errorf("example spokes: all context = %+v", all)
	}
	prod, _ := f.Lookup("prod")
	if len(prod.Addresses) != 2 || prod.Admin != "ilink-1.example:9998" || prod.QueueManager != "QM1" ||
		!prod.ReadOnly || prod.Refresh != DefaultRefresh() || prod.TailBuffer != DefaultTailBuffer ||
		prod.EndpointCacheFile != filepath.Join(home, ".cache/ilinkdash/prod.endpoints") {
		t.Errorf("example prod context = %+v", prod)
	}
	want := Serve{
		Listen:         DefaultServeListen,
		AuthorizedKeys: filepath.Join(home, ".config/ilinkdash/viewers.keys"),
		OperatorKeys:   filepath.Join(home, ".config/ilinkdash/operators.keys"),
		HostKey:        filepath.Join(home, ".local/share/ilinkdash/ssh_host_ed25519_key"),
		MaxSessions:    DefaultServeMaxSessions,
		IdleTimeout:    DefaultServeIdleTimeout,
		MaxTails:       DefaultServeMaxTails,
		TailBuffer:     DefaultServeTailBuffer,
		AuditLog:       filepath.Join(home, ".local/state/ilinkdash/audit.jsonl"),

		TailBufferBytes: DefaultServeTailBufferBytes, MaxColumns: DefaultServeMaxColumns, MaxRows: DefaultServeMaxRows,
		OpenTimeout: DefaultServeOpenTimeout, MaxStartups: DefaultServeMaxStartups,
		MaxSessionsPerKey: DefaultServeSessionsPerKey, SaveMaxBytes: DefaultServeSaveMaxBytes,
	}
	if f.Serve != want {
		t.Errorf("example serve section = %+v, want %+v", f.Serve, want)
	}
	// Every key of a context appears in the example, so it documents them all.
	for _, name := range fieldNames((&decoder{}).contextFields(&Context{})) {
		if !strings.Contains(ExampleContextsYAML(), "\n    "+name+":") {
			t.Errorf("example does not show context field %q", name)
		}
	}
}

func TestWriteExample(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	path := filepath.Join(t.TempDir(), "new", "dir", "config.yaml")

	if err := WriteExample(path, false); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode = %v, %v; want 0600", fi.Mode(), err)
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("directory mode = %v, %v; want 0700", fi.Mode(), err)
	}
	if _, err := Load(path); err != nil {
		t.Errorf("written example does not load: %v", err)
	}

	// An existing file is not overwritten.
	const mine = "contexts: {}\n"
	if err := os.WriteFile(path, []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	err := WriteExample(path, false)
	if err == nil || !strings.Contains(err.Error(), path) || !errors.Is(err, fs.ErrExist) || !strings.HasSuffix(err.Error(), "(--force replaces it)") {
		t.Errorf("WriteExample over an existing file: err = %v; want one naming %s, matching fs.ErrExist", err, path)
	}
	if b, _ := os.ReadFile(path); string(b) != mine {
		t.Errorf("refused WriteExample still changed the file to %q", b)
	}

	// force replaces it, and fixes the mode.
	if err := WriteExample(path, true); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != ExampleYAML() {
		t.Error("WriteExample(force) did not replace the file")
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("forced file mode = %v, want 0600", fi.Mode())
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("directory holds %d entries after force, want 1 (temporary file left behind?)", len(entries))
	}
}

func TestWriteExampleDefaultPath(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	if err := WriteExample("", false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "ilinkdash", "config.yaml")); err != nil {
		t.Errorf("WriteExample(\"\") did not write DefaultPath(): %v", err)
	}
}
