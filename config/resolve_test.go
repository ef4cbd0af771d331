package config

import (
	"errors"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// newEnv returns a getenv over vars. XDG directories point into a temporary
// directory unless vars sets them, so a test never reads the real config.
func newEnv(t *testing.T, vars map[string]string) func(string) string {
	t.Helper()
	dir := t.TempDir()
	all := map[string]string{
		"XDG_CONFIG_HOME": filepath.Join(dir, "config"),
		"XDG_STATE_HOME":  filepath.Join(dir, "state"),
	}
	for k, v := range vars {
		all[k] = v
	}
	return func(k string) string { return all[k] }
}

// parseFlags registers the global flags on a new FlagSet and parses args.
func parseFlags(t *testing.T, args ...string) (*pflag.FlagSet, *Flags) {
	t.Helper()
	fs := pflag.NewFlagSet("ilinkdash", pflag.ContinueOnError)
	var f Flags
	f.Register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return fs, &f
}

func resolve(t *testing.T, env map[string]string, args ...string) (Resolved, error) {
	t.Helper()
	fs, f := parseFlags(t, args...)
	return Resolve(fs, f, newEnv(t, env))
}

// Layers of the precedence table, as a bit mask of which ones set the field.
const (
	inFile = 1 << iota
	inEnv
	inFlag
)

func TestResolvePrecedence(t *testing.T) {
	// Each layer sets the field to a value naming the layer; the file layer
	// is the current context "file".
	const contexts = `contexts:
  file: {addresses: ["file:1"], admin: "file:9998"}
  env: {addresses: ["envctx:1"]}
  flag: {addresses: ["flagctx:1"]}
`
	type field struct {
		name    string
		env     string
		flag    string
		fileVal string
		envVal  string
		flagVal string
		check   func(r Resolved) (got string, src Source)
	}
	fields := []field{
		{"addresses", EnvAddr, FlagAddr, "file:1", "env:1", "flag:1",
			func(r Resolved) (string, Source) {
				return strings.Join(r.Context.Addresses, ","), r.Sources.Addresses
			}},
		{"admin", EnvAdmin, FlagAdmin, "file:9998", "env:9998", "flag:9998",
			func(r Resolved) (string, Source) { return r.Context.Admin, r.Sources.Admin }},
		{"context", EnvContext, FlagContext, "file", "env", "flag",
			func(r Resolved) (string, Source) { return r.Context.Name, r.Sources.Context }},
	}
	for _, fl := range fields {
		for mask := 0; mask < 8; mask++ {
			name := fl.name + "/" + layerNames(mask)
			t.Run(name, func(t *testing.T) {
				content := contexts
				if mask&inFile != 0 {
					content = "current-context: file\n" + content
				}
				env := map[string]string{EnvConfig: writeConfig(t, content)}
				var args []string
				if mask&inEnv != 0 {
					env[fl.env] = fl.envVal
				}
				if mask&inFlag != 0 {
					args = append(args, "--"+fl.flag+"="+fl.flagVal)
				}
				r, err := resolve(t, env, args...)
				if err != nil {
					t.Fatal(err)
				}

				want, wantSrc := "", FromDefault
				switch {
				case mask&inFlag != 0:
					want, wantSrc = fl.flagVal, FromFlag
				case mask&inEnv != 0:
					want, wantSrc = fl.envVal, FromEnv
				case mask&inFile != 0:
					want, wantSrc = fl.fileVal, FromFile
				}
				if got, src := fl.check(r); got != want || src != wantSrc {
					t.Errorf("%s = %q from %v, want %q from %v", fl.name, got, src, want, wantSrc)
				}
				if r.Embedded != (mask == 0) {
					t.Errorf("Embedded = %v with layers %s", r.Embedded, layerNames(mask))
				}
			})
		}
	}
}

func layerNames(mask int) string {
	var s []string
	for i, name := range []string{"file", "env", "flag"} {
		if mask&(1<<i) != 0 {
			s = append(s, name)
		}
	}
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, "+")
}

// Booleans have only two values, so read-only gets explicit rows in which
// every pair of competing layers disagrees.
func TestResolveReadOnlyPrecedence(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name    string
		file    *bool  // read-only of the current context; nil: not set
		env     string // ILINKDASH_READ_ONLY
		flag    *bool  // --read-only=...
		want    bool
		wantSrc Source
	}{
		{"none", nil, "", nil, false, FromDefault},
		{"file", &yes, "", nil, true, FromFile},
		{"env", nil, "1", nil, true, FromEnv},
		{"env false", nil, "false", nil, false, FromEnv},
		{"flag", nil, "", &yes, true, FromFlag},
		{"env over file (true)", &no, "TRUE", nil, true, FromEnv},
		{"env over file (false)", &yes, "0", nil, false, FromEnv},
		{"flag over file (false)", &yes, "", &no, false, FromFlag},
		{"flag over file (true)", &no, "", &yes, true, FromFlag},
		{"flag over env (false)", nil, "1", &no, false, FromFlag},
		{"flag over env (true)", nil, "0", &yes, true, FromFlag},
		{"flag over env over file (true)", &no, "false", &yes, true, FromFlag},
		{"flag over env over file (false)", &yes, "true", &no, false, FromFlag},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			content := "contexts:\n  c: {addresses: [h:1]}\n"
			if tt.file != nil {
				content = "current-context: c\ncontexts:\n  c: {addresses: [h:1], read-only: " +
					map[bool]string{true: "true", false: "false"}[*tt.file] + "}\n"
			}
			env := map[string]string{EnvConfig: writeConfig(t, content), EnvReadOnly: tt.env}
			var args []string
			if tt.flag != nil {
				args = append(args, "--read-only="+map[bool]string{true: "true", false: "false"}[*tt.flag])
			}
			r, err := resolve(t, env, args...)
			if err != nil {
				t.Fatal(err)
			}
			if r.Context.ReadOnly != tt.want || r.Sources.ReadOnly != tt.wantSrc {
				t.Errorf("ReadOnly = %v from %v, want %v from %v", r.Context.ReadOnly, r.Sources.ReadOnly, tt.want, tt.wantSrc)
			}
		})
	}
}

// Overrides replace single fields; the rest of the selected context stays.
func TestResolveMergesFieldByField(t *testing.T) {
	path := writeConfig(t, `current-context: prod
contexts:
  prod:
    addresses: [a:1, b:1]
    admin: a:9998
    queue-manager: QM1
    theme: light
    refresh: {topics: 7s}
`)
	r, err := resolve(t, map[string]string{EnvAdmin: "env:9998"}, "--config", path, "--addr", " x:1, y:2 ,")
	if err != nil {
		t.Fatal(err)
	}
	c := r.Context
	if c.Name != "prod" || c.QueueManager != "QM1" || c.Theme != ThemeLight || c.Refresh.Topics != 7*time.Second {
		t.Errorf("file fields lost: %+v", c)
	}
	if !reflect.DeepEqual(c.Addresses, []string{"x:1", "y:2"}) || c.Admin != "env:9998" {
		t.Errorf("addresses %v admin %q; want flag list and env admin", c.Addresses, c.Admin)
	}
	if r.Embedded {
		t.Error("Embedded with a selected context")
	}
	if r.ConfigPath != path || r.Sources.Config != FromFlag || !r.File.Exists {
		t.Errorf("config %q from %v (exists %v)", r.ConfigPath, r.Sources.Config, r.File.Exists)
	}
}

func TestResolveEmbeddedDefault(t *testing.T) {
	r, err := resolve(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Embedded || r.File == nil || r.File.Exists || r.Context.Name != "" {
		t.Errorf("no config anywhere: %+v; want the embedded default", r)
	}
	want := DefaultContext()
	if !reflect.DeepEqual(r.Context, want) {
		t.Errorf("Context = %+v, want DefaultContext()", r.Context)
	}

	// Admin alone is something to connect to.
	r, err = resolve(t, nil, "--admin=h:9998")
	if err != nil || r.Embedded || r.Context.Admin != "h:9998" {
		t.Errorf("--admin only: %+v, %v; want a non-embedded context", r, err)
	}

	// --context= deselects the file's current-context.
	path := writeConfig(t, "current-context: c\ncontexts:\n  c: {admin: 'h:1'}\n")
	r, err = resolve(t, map[string]string{EnvConfig: path}, "--context=")
	if err != nil || !r.Embedded || r.Sources.Context != FromFlag {
		t.Errorf("--context=: %+v, %v; want the embedded default", r, err)
	}
}

func TestResolveConfigPath(t *testing.T) {
	xdg := t.TempDir()
	def := filepath.Join(xdg, "ilinkdash", "config.yaml")
	if err := WriteExample(def, false); err != nil {
		t.Fatal(err)
	}
	other := writeConfig(t, "contexts:\n  other: {admin: 'o:1'}\n")

	// Default path from XDG_CONFIG_HOME, at call time.
	r, err := resolve(t, map[string]string{"XDG_CONFIG_HOME": xdg})
	// The example "config init" writes selects no context: the embedded
	// default keeps working until the user edits it.
	if err != nil || r.ConfigPath != def || r.Sources.Config != FromDefault || r.Context.Name != "" || !r.Embedded {
		t.Errorf("default: path %q from %v, context %q, embedded %v, %v; want the written example, no context, the embedded default", r.ConfigPath, r.Sources.Config, r.Context.Name, r.Embedded, err)
	}
	// Environment over default, flag over environment.
	r, err = resolve(t, map[string]string{"XDG_CONFIG_HOME": xdg, EnvConfig: other})
	if err != nil || r.ConfigPath != other || r.Sources.Config != FromEnv {
		t.Errorf("env: path %q from %v, %v", r.ConfigPath, r.Sources.Config, err)
	}
	r, err = resolve(t, map[string]string{EnvConfig: other}, "--config", def)
	if err != nil || r.ConfigPath != def || r.Sources.Config != FromFlag {
		t.Errorf("flag: path %q from %v, %v", r.ConfigPath, r.Sources.Config, err)
	}
	// --config= loads no file at all.
	r, err = resolve(t, map[string]string{"XDG_CONFIG_HOME": xdg}, "--config=")
	if err != nil || r.ConfigPath != "" || !r.Embedded {
		t.Errorf("--config=: %+v, %v", r, err)
	}

	// A named file must exist; the error says who named it.
	missing := filepath.Join(xdg, "missing.yaml")
	_, err = resolve(t, nil, "--config", missing)
	if err == nil || !strings.Contains(err.Error(), "--config") || !strings.Contains(err.Error(), missing) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("--config missing: %v", err)
	}
	_, err = resolve(t, map[string]string{EnvConfig: missing})
	if err == nil || !strings.Contains(err.Error(), EnvConfig) || !strings.Contains(err.Error(), missing) {
		t.Errorf("%s missing: %v", EnvConfig, err)
	}

	// Validation errors come through unchanged.
	bad := writeConfig(t, "contexts:\n  c: {theme: blue}\n")
	_, err = resolve(t, nil, "--config", bad)
	if err == nil || !strings.HasPrefix(err.Error(), bad+":2:") {
		t.Errorf("bad file: %v", err)
	}
}

func TestResolveErrors(t *testing.T) {
	path := writeConfig(t, "contexts:\n  prod: {admin: 'h:1'}\n  dev: {admin: 'h:2'}\n  empty: {theme: dark}\n")
	tests := []struct {
		name  string
		env   map[string]string
		args  []string
		wants []string
	}{
		{"unknown --context", nil, []string{"--context", "stage"},
			[]string{"--context", `unknown context "stage"`, path, "known: prod, dev, empty"}},
		{"unknown ILINKDASH_CONTEXT", map[string]string{EnvContext: "stage"}, nil,
			[]string{EnvContext, `unknown context "stage"`, "known: prod, dev, empty"}},
		{"bad ILINKDASH_READ_ONLY", map[string]string{EnvReadOnly: "maybe"}, nil,
			[]string{EnvReadOnly, `"maybe"`, "true, false, 1 or 0"}},
		{"bad ILINKDASH_DEBUG", map[string]string{EnvDebug: "yes please"}, nil,
			[]string{EnvDebug, `"yes please"`}},
		{"bad --addr", nil, []string{"--addr", "a:1,b"},
			[]string{"--addr", `invalid address "b"`}},
		{"bad ILINKDASH_ADDR", map[string]string{EnvAddr: "a:1,b:x"}, nil,
			[]string{EnvAddr, `invalid address "b:x"`}},
		{"bad --admin", nil, []string{"--admin", "h"},
			[]string{"--admin", `invalid address "h"`}},
		{"context without target", nil, []string{"--context", "empty"},
			[]string{`context "empty" has no addresses and no admin address`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{EnvConfig: path}
			for k, v := range tt.env {
				env[k] = v
			}
			_, err := resolve(t, env, tt.args...)
			if err == nil {
				t.Fatal("want an error")
			}
			for _, want := range tt.wants {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not contain %q", err, want)
				}
			}
		})
	}

	// The empty context becomes usable once an address is given.
	if _, err := resolve(t, map[string]string{EnvConfig: path}, "--context", "empty", "--addr", "h:1"); err != nil {
		t.Errorf("empty context with --addr: %v", err)
	}
}

func TestResolveDebug(t *testing.T) {
	state := t.TempDir()
	r, err := resolve(t, map[string]string{"XDG_STATE_HOME": state})
	if err != nil || r.Debug || r.LogFile != filepath.Join(state, "ilinkdash", "debug.log") || r.Sources.LogFile != FromDefault {
		t.Errorf("default: debug %v log %q from %v, %v", r.Debug, r.LogFile, r.Sources.LogFile, err)
	}
	r, err = resolve(t, map[string]string{EnvDebug: "1", EnvLogFile: "/tmp/env.log"})
	if err != nil || !r.Debug || r.LogFile != "/tmp/env.log" || r.Sources.Debug != FromEnv {
		t.Errorf("env: debug %v log %q, %v", r.Debug, r.LogFile, err)
	}
	r, err = resolve(t, map[string]string{EnvDebug: "1", EnvLogFile: "/tmp/env.log"}, "--debug=false", "--log-file", "/tmp/flag.log")
	if err != nil || r.Debug || r.LogFile != "/tmp/flag.log" || r.Sources.LogFile != FromFlag {
		t.Errorf("flag: debug %v log %q, %v", r.Debug, r.LogFile, err)
	}
}

// Cobra registers global flags on the root's persistent set and parses
// them through each subcommand's merged set; Resolve must see them as set
// through either.
func TestResolveInheritedFlags(t *testing.T) {
	root := pflag.NewFlagSet("root", pflag.ContinueOnError)
	var f Flags
	f.Register(root)
	sub := pflag.NewFlagSet("sub", pflag.ContinueOnError)
	sub.AddFlagSet(root)
	if err := sub.Parse([]string{"--admin", "h:9998"}); err != nil {
		t.Fatal(err)
	}
	for name, fs := range map[string]*pflag.FlagSet{"root": root, "sub": sub} {
		r, err := Resolve(fs, &f, newEnv(t, nil))
		if err != nil || r.Context.Admin != "h:9998" || r.Sources.Admin != FromFlag {
			t.Errorf("via %s set: admin %q from %v, %v", name, r.Context.Admin, r.Sources.Admin, err)
		}
	}
}
