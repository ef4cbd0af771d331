package config

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// Names of the global flags.
const (
	FlagAddr     = "addr"
	FlagAdmin    = "admin"
	FlagContext  = "context"
	FlagReadOnly = "read-only"
	FlagDebug    = "debug"
	FlagLogFile  = "log-file"
	FlagConfig   = "config"
	// Dashboard-only flags (RegisterDashboard).
	FlagLowBandwidth = "low-bandwidth"
	FlagMaxFPS       = "max-fps"
	FlagTheme        = "theme"
)

// Environment variables, one per global flag.
const (
	EnvAddr     = "ILINKDASH_ADDR"
	EnvAdmin    = "ILINKDASH_ADMIN"
	EnvContext  = "ILINKDASH_CONTEXT"
	EnvReadOnly = "ILINKDASH_READ_ONLY"
	EnvDebug    = "ILINKDASH_DEBUG"
	EnvLogFile  = "ILINKDASH_LOG_FILE"
	EnvConfig   = "ILINKDASH_CONFIG"
	// Dashboard-only.
	EnvLowBandwidth = "ILINKDASH_LOW_BANDWIDTH"
	EnvMaxFPS       = "ILINKDASH_MAX_FPS"
	EnvTheme        = "ILINKDASH_THEME"
)

// Flags holds the values of the global command-line flags. The values alone
// do not say whether a flag was given; Resolve asks the FlagSet for that.
type Flags struct {
	Addr     string // data address host:port, or a comma-separated list
	Admin    string // admin address host:port
	Context  string // context name from the config file
	ReadOnly bool
	Debug    bool   // write a debug log
	LogFile  string // debug log path
	Config   string // config file path

	// Dashboard-only (RegisterDashboard).
	LowBandwidth bool
	MaxFPS       int
	Theme        string
}

// Register defines the global flags on fs. Pass the root command's
// PersistentFlags() so that every subcommand accepts them.
func (f *Flags) Register(fs *pflag.FlagSet) {
	fs.StringVar(&f.Addr, FlagAddr, "", "iLink data address host:port, or a comma-separated list (env "+EnvAddr+")")
	fs.StringVar(&f.Admin, FlagAdmin, "", "iLink admin address host:port (env "+EnvAdmin+")")
	fs.StringVar(&f.Context, FlagContext, "", "context from the config file (env "+EnvContext+"; default: current-context)")
	fs.BoolVar(&f.ReadOnly, FlagReadOnly, false, "refuse every mutating action (env "+EnvReadOnly+")")
	fs.BoolVar(&f.Debug, FlagDebug, false, "write a debug log to --log-file (env "+EnvDebug+")")
	fs.StringVar(&f.LogFile, FlagLogFile, DefaultLogFile(), "debug log file (env "+EnvLogFile+")")
	fs.StringVar(&f.Config, FlagConfig, DefaultPath(), "config file (env "+EnvConfig+")")
}

// RegisterDashboard defines the flags only the dashboard reads on fs
// (the root command's own Flags(), not the persistent ones).
func (f *Flags) RegisterDashboard(fs *pflag.FlagSet) {
	fs.BoolVar(&f.LowBandwidth, FlagLowBandwidth, false, "fit a slow link (~8,000 B/s): the tail advances at most 2x/s, counters 1x/s, nothing animates (env "+EnvLowBandwidth+"; context low-bandwidth)")
	fs.StringVar(&f.Theme, FlagTheme, "", "colours: auto (follow the terminal's background), dark or light (env "+EnvTheme+"; context theme; default auto)")
	fs.IntVar(&f.MaxFPS, FlagMaxFPS, 0, fmt.Sprintf("frame rate cap, %d..%d (env %s; context fps; default %d, %d with --low-bandwidth)", MinFPS, MaxFPS, EnvMaxFPS, DefaultFPS, LowBandwidthFPS))
}

// Source says which layer a resolved setting came from.
type Source int

const (
	FromDefault Source = iota // built-in default
	FromFile                  // the selected context (or current-context) of the config file
	FromEnv                   // an ILINKDASH_* variable
	FromFlag                  // a command-line flag
)

// String returns "default", "file", "env" or "flag", for logs.
func (s Source) String() string {
	switch s {
	case FromFile:
		return "file"
	case FromEnv:
		return "env"
	case FromFlag:
		return "flag"
	}
	return "default"
}

// Sources records where each overridable setting of a Resolved came from,
// for the debug log and for "why is it connecting there?" questions.
type Sources struct {
	Config, Context, Addresses, Admin, ReadOnly, Debug, LogFile Source
	LowBandwidth, FPS, Theme                                    Source
}

// Resolved is the effective configuration of one run.
type Resolved struct {
	// Context is the selected file context (or DefaultContext() when none
	// is selected) with environment and flag overrides applied.
	Context Context
	// Embedded is true when there is nothing to connect to: no context is
	// selected and no data or admin address was given anywhere. The app then
	// runs the in-process demo engine.
	Embedded bool
	// File is the loaded config file, never nil; it lists the contexts a
	// picker can offer.
	File *File
	// ConfigPath is the config file used (empty when --config "" disabled
	// it); File.Exists tells whether it existed.
	ConfigPath string
	Debug      bool
	LogFile    string // debug log path, "~" expanded
	Sources    Sources
}

// Resolve computes the effective settings, taking each field from the first
// layer that sets it: flag > environment > config file > default.
//
// A flag counts as given when fset reports it Changed, even with an empty
// value, so "--context=" deselects current-context, "--admin=" clears the
// context's admin address and "--config=" loads no file. An environment
// variable counts as given when non-empty. fset is the set the flags were
// registered on (or cmd.Flags(), which shares them) and may be nil (no flags given),
// f may be nil, and getenv defaults to os.Getenv; tests pass their own.
func Resolve(fset *pflag.FlagSet, f *Flags, getenv func(string) string) (Resolved, error) {
	if f == nil {
		f = &Flags{}
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	return resolveLayers(layers{fset: fset, getenv: getenv}, f)
}

func resolveLayers(l layers, f *Flags) (Resolved, error) {
	var r Resolved
	if err := l.logging(&r, f); err != nil {
		return Resolved{}, err
	}
	if err := l.configFile(&r, f); err != nil {
		return Resolved{}, err
	}
	name, err := l.context(&r, f)
	if err != nil {
		return Resolved{}, err
	}
	if err := l.overrides(&r, f, name != ""); err != nil {
		return Resolved{}, err
	}
	hasTarget := len(r.Context.Addresses) > 0 || r.Context.Admin != "" || r.Context.Hub != ""
	if r.Context.Hub != "" && (len(r.Context.Addresses) > 0 || r.Context.Admin != "") {
		return Resolved{}, fmt.Errorf("context %q reaches its spokes through hub %s only: drop %s/%s and --%s/--%s, or pick another context",
			name, r.Context.Hub, EnvAddr, EnvAdmin, FlagAddr, FlagAdmin)
	}
	if name != "" && !hasTarget && l.named == "" {
		return Resolved{}, fmt.Errorf("context %q has no addresses and no admin address: set them in %s, with %s/%s or --%s/--%s",
			name, r.File.Path, EnvAddr, EnvAdmin, FlagAddr, FlagAdmin)
	}
	r.Embedded = name == "" && !hasTarget
	return r, nil
}

// logging resolves --debug and --log-file (with the one "~" rule).
func (l layers) logging(r *Resolved, f *Flags) error {
	var err error
	if r.Debug, r.Sources.Debug, err = l.boolean(FlagDebug, f.Debug, EnvDebug); err != nil {
		return err
	}
	r.LogFile, r.Sources.LogFile = l.str(FlagLogFile, f.LogFile, EnvLogFile)
	if r.Sources.LogFile == FromDefault {
		r.LogFile = defaultLogFile(l.getenv)
	}
	if r.LogFile, err = ExpandHome(r.LogFile); err != nil {
		return fmt.Errorf("%s: %w", origin(r.Sources.LogFile, FlagLogFile, EnvLogFile), err)
	}
	return nil
}

// configFile loads the config file: the default path (which may be
// missing), the one named, or none for an empty --config.
func (l layers) configFile(r *Resolved, f *Flags) error {
	var err error
	path, src := l.str(FlagConfig, f.Config, EnvConfig)
	r.Sources.Config = src
	switch {
	case src == FromDefault:
		r.File, err = load(defaultPath(l.getenv), false)
	case path == "":
		r.File = &File{Serve: DefaultServe()}
	default:
		if path, err = ExpandHome(path); err == nil {
			r.File, err = load(path, true)
		}
		if err != nil && !isFieldErrors(err) {
			err = fmt.Errorf("%s: %w", origin(src, FlagConfig, EnvConfig), err)
		}
	}
	if err != nil {
		return err
	}
	r.ConfigPath = r.File.Path
	return nil
}

// context selects the context (flag > env > current-context) and returns
// its name ("" for none: the defaults).
func (l layers) context(r *Resolved, f *Flags) (string, error) {
	name, src := l.str(FlagContext, f.Context, EnvContext)
	if l.named != "" {
		name, src = l.named, FromFlag
	}
	if src == FromDefault && r.File.CurrentContext != "" {
		name, src = r.File.CurrentContext, FromFile
	}
	r.Sources.Context = src
	r.Context = DefaultContext()
	if name != "" {
		c, ok := r.File.Lookup(name)
		if !ok {
			where := r.File.Path
			if where == "" {
				where = "the config (no config file loaded)"
			} else if !r.File.Exists {
				where += " (file does not exist)"
			}
			return "", fmt.Errorf("%s: unknown context %q in %s %s",
				origin(src, FlagContext, EnvContext), name, where, knownNames(r.File.Names()))
		}
		r.Context = c
		if len(c.Addresses) > 0 {
			r.Sources.Addresses = FromFile
		}
		if c.Admin != "" {
			r.Sources.Admin = FromFile
		}
		r.Sources.ReadOnly = FromFile
	}
	return name, nil
}

// overrides applies the flags and environment over the context's fields;
// named says a context was selected (its file values count as given).
func (l layers) overrides(r *Resolved, f *Flags, named bool) error {
	if s, src := l.str(FlagAddr, f.Addr, EnvAddr); src != FromDefault {
		addrs, err := parseAddrList(s)
		if err != nil {
			return fmt.Errorf("%s: %w", origin(src, FlagAddr, EnvAddr), err)
		}
		r.Context.Addresses, r.Sources.Addresses = addrs, src
	}
	if s, src := l.str(FlagAdmin, f.Admin, EnvAdmin); src != FromDefault {
		s = strings.TrimSpace(s)
		if s != "" {
			if err := checkHostPort(s); err != nil {
				return fmt.Errorf("%s: %w", origin(src, FlagAdmin, EnvAdmin), err)
			}
		}
		r.Context.Admin, r.Sources.Admin = s, src
	}
	ro, src, err := l.boolean(FlagReadOnly, f.ReadOnly, EnvReadOnly)
	if err != nil {
		return err
	}
	if src != FromDefault {
		r.Context.ReadOnly, r.Sources.ReadOnly = ro, src
	}
	if named {
		r.Sources.LowBandwidth, r.Sources.FPS, r.Sources.Theme = FromFile, FromFile, FromFile
	}
	lb, src, err := l.boolean(FlagLowBandwidth, f.LowBandwidth, EnvLowBandwidth)
	if err != nil {
		return err
	}
	if src != FromDefault {
		r.Context.LowBandwidth, r.Sources.LowBandwidth = lb, src
	}
	if s, src := l.str(FlagMaxFPS, strconv.Itoa(f.MaxFPS), EnvMaxFPS); src != FromDefault {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < MinFPS || n > MaxFPS {
			return fmt.Errorf("%s: invalid frame rate %q (want a whole number from %d to %d)", origin(src, FlagMaxFPS, EnvMaxFPS), s, MinFPS, MaxFPS)
		}
		r.Context.FPS, r.Sources.FPS = n, src
	}
	if s, src := l.str(FlagTheme, f.Theme, EnvTheme); src != FromDefault {
		switch t := strings.ToLower(strings.TrimSpace(s)); t {
		case ThemeAuto, ThemeDark, ThemeLight:
			r.Context.Theme, r.Sources.Theme = t, src
		default:
			return fmt.Errorf("%s: unknown theme %q (want %s, %s or %s)", origin(src, FlagTheme, EnvTheme), s, ThemeAuto, ThemeDark, ThemeLight)
		}
	}
	return nil
}

// isFieldErrors reports whether err is Load's report of problems inside the
// file; those already name the file and need no prefix.
func isFieldErrors(err error) bool {
	var fe *FieldError
	return errors.As(err, &fe)
}

// layers reads one setting from the flag and environment layers.
type layers struct {
	fset   *pflag.FlagSet // nil: no flags given
	getenv func(string) string
	named  string // ResolveMany: this context, whatever --context says
}

// ResolveMany resolves several contexts for the commands that watch more
// than one cluster: the names of a comma-separated --context (or
// ILINKDASH_CONTEXT), or every context of the file with all, in file
// order. Each is resolved as Resolve resolves one, except that a context
// with no address at all is no error here: it is returned as it is, for
// each command to say of it what it says of a context without an admin
// address (check: its own UNKNOWN line, not every context's). --addr and
// --admin, which would give every context the same cluster, are refused.
// With one name (and not all) it is Resolve.
func ResolveMany(fset *pflag.FlagSet, f *Flags, getenv func(string) string, all bool) ([]Resolved, error) {
	if f == nil {
		f = &Flags{}
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	l := layers{fset: fset, getenv: getenv}
	list, src := l.str(FlagContext, f.Context, EnvContext)
	names := splitNames(list)
	if !all && len(names) <= 1 {
		r, err := resolveLayers(l, f)
		if err != nil {
			return nil, err
		}
		return []Resolved{r}, nil
	}
	if all && src != FromDefault {
		return nil, fmt.Errorf("--all-contexts and %s %q: give one of them", origin(src, FlagContext, EnvContext), list)
	}
	for _, fl := range []struct{ flag, env string }{{FlagAddr, EnvAddr}, {FlagAdmin, EnvAdmin}} {
		if _, src := l.str(fl.flag, "", fl.env); src != FromDefault {
			return nil, fmt.Errorf("%s with several contexts: each context has its own cluster; name them in the config file", origin(src, fl.flag, fl.env))
		}
	}
	if all {
		var r Resolved
		if err := l.configFile(&r, f); err != nil {
			return nil, err
		}
		if names = r.File.Names(); len(names) == 0 {
			return nil, fmt.Errorf("--all-contexts: no context in %s", r.File.Path)
		}
	}
	out := make([]Resolved, 0, len(names))
	for _, n := range names {
		nl := l
		nl.named = n
		r, err := resolveLayers(nl, f)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// splitNames splits a comma-separated list of context names, dropping
// empty ones and repeats.
func splitNames(list string) []string {
	var names []string
	for _, n := range strings.Split(list, ",") {
		if n = strings.TrimSpace(n); n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}

func (l layers) changed(flag string) bool { return l.fset != nil && l.fset.Changed(flag) }

// str returns the flag value if the flag was given, else the environment
// value if non-empty, else ("", FromDefault).
func (l layers) str(flag, flagVal, env string) (string, Source) {
	if l.changed(flag) {
		return flagVal, FromFlag
	}
	if v := l.getenv(env); v != "" {
		return v, FromEnv
	}
	return "", FromDefault
}

func (l layers) boolean(flag string, flagVal bool, env string) (bool, Source, error) {
	if l.changed(flag) {
		return flagVal, FromFlag, nil
	}
	v := l.getenv(env)
	if v == "" {
		return false, FromDefault, nil
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "1":
		return true, FromEnv, nil
	case "false", "0":
		return false, FromEnv, nil
	}
	return false, FromDefault, fmt.Errorf("%s: invalid value %q (want true, false, 1 or 0)", env, v)
}

// origin names where a value came from in an error message.
func origin(src Source, flag, env string) string {
	if src == FromFlag {
		return "--" + flag
	}
	return env
}

// parseAddrList splits a comma-separated address list, ignoring spaces
// around items and empty items (a trailing comma).
func parseAddrList(s string) ([]string, error) {
	var out []string
	for item := range strings.SplitSeq(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if err := checkHostPort(item); err != nil {
			return nil, err
		}
		out = append(out, item)
	}
	return out, nil
}
