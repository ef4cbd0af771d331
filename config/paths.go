package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/adrg/xdg"
)

const appDir = "ilinkdash"

// DefaultPath returns $XDG_CONFIG_HOME/ilinkdash/config.yaml.
func DefaultPath() string { return defaultPath(os.Getenv) }

// DefaultPathFor is DefaultPath as getenv reads the environment (the
// command line's own, which tests give).
func DefaultPathFor(getenv func(string) string) string { return defaultPath(getenv) }

// DefaultLogFile returns $XDG_STATE_HOME/ilinkdash/debug.log, the debug log
// used when --debug is given without --log-file.
func DefaultLogFile() string { return defaultLogFile(os.Getenv) }

// DefaultHostKey returns $XDG_DATA_HOME/ilinkdash/ssh_host_ed25519_key, the
// host key of `ilinkdash serve` when neither --host-key nor the serve
// section names one.
func DefaultHostKey() string { return defaultHostKey(os.Getenv) }

// DefaultHostKeyFor is DefaultHostKey as getenv reads the environment.
func DefaultHostKeyFor(getenv func(string) string) string { return defaultHostKey(getenv) }

func defaultHostKey(getenv func(string) string) string {
	return filepath.Join(baseDir(getenv, "XDG_DATA_HOME", xdg.DataHome), appDir, "ssh_host_ed25519_key")
}

// HistoryFile returns $XDG_STATE_HOME/ilinkdash/history as getenv reads
// it, where the dashboard keeps its `:` command history.
func HistoryFile(getenv func(string) string) string {
	return filepath.Join(StateDir(getenv), "history")
}

// StateDir returns $XDG_STATE_HOME/ilinkdash as getenv reads it: where the
// command history and the lag history files are kept.
func StateDir(getenv func(string) string) string {
	return filepath.Join(baseDir(getenv, "XDG_STATE_HOME", xdg.StateHome), appDir)
}

func defaultPath(getenv func(string) string) string {
	return filepath.Join(baseDir(getenv, "XDG_CONFIG_HOME", xdg.ConfigHome), appDir, "config.yaml")
}

func defaultLogFile(getenv func(string) string) string {
	return filepath.Join(baseDir(getenv, "XDG_STATE_HOME", xdg.StateHome), appDir, "debug.log")
}

// baseDir reads the XDG variable at call time because the xdg package
// snapshots the environment at init, which would ignore t.Setenv and any
// caller-supplied getenv. Relative values are ignored, as the XDG base
// directory spec requires.
func baseDir(getenv func(string) string, env, fallback string) string {
	if dir := getenv(env); dir != "" && filepath.IsAbs(dir) {
		return dir
	}
	return fallback
}

// ExpandHome replaces a leading "~" or "~/" with the user's home directory.
// "~user" is rejected rather than passed through, because a literal "~user"
// directory is almost never what was meant. It is the one "~" rule: the
// config file, flags, serve's paths and the dashboard's save and value
// files all read paths through it.
func ExpandHome(p string) (string, error) {
	if p != "~" && !strings.HasPrefix(p, "~/") && !strings.HasPrefix(p, "~"+string(filepath.Separator)) {
		if strings.HasPrefix(p, "~") {
			return "", errors.New(`only "~" and "~/" are expanded, not "~user"`)
		}
		return p, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, p[1:]), nil
}
