package config

import (
	"strings"
	"testing"
)

func TestResolveManyContexts(t *testing.T) {
	file := writeConfig(t, "current-context: b\ncontexts:\n  a: {admin: 'ilink-1.example:9998'}\n  b: {admin: 'ilink-2.example:9998', read-only: true}\n  c: {addresses: ['ilink-3.example:5000']}\n")
	names := func(rs []Resolved) string {
		var n []string
		for _, r := range rs {
			n = append(n, r.Context.Name+"="+r.Context.Admin+strings.Join(r.Context.Addresses, ","))
		}
		return strings.Join(n, " ")
	}
	fs, f := parseFlags(t, "--config", file, "--context", "c, a,c")
	rs, err := ResolveMany(fs, f, newEnv(t, nil), false)
	if err != nil || names(rs) != "c=ilink-3.example:5000 a=ilink-1.example:9998" {
		t.Fatalf("--context c,a,c: %s (%v); want c then a, the repeat dropped", names(rs), err)
	}
	fs, f = parseFlags(t, "--config", file)
	rs, err = ResolveMany(fs, f, newEnv(t, nil), true)
	if err != nil || names(rs) != "a=ilink-1.example:9998 b=ilink-2.example:9998 c=ilink-3.example:5000" || !rs[1].Context.ReadOnly {
		t.Fatalf("--all-contexts: %s (%v); want every context in file order, each its own", names(rs), err)
	}
	fs, f = parseFlags(t, "--config", file)
	if rs, err = ResolveMany(fs, f, newEnv(t, nil), false); err != nil || names(rs) != "b=ilink-2.example:9998" {
		t.Fatalf("no --context: %s (%v); want the current context alone", names(rs), err)
	}
	for _, c := range []struct {
		args []string
		env  map[string]string
		all  bool
		want string
	}{
		{[]string{"--context", "a,nosuch"}, nil, false, `unknown context "nosuch"`},
		{[]string{"--context", "a,b", "--admin", "ilink-9.example:9998"}, nil, false, "--admin with several contexts"},
		{nil, map[string]string{EnvAddr: "ilink-9.example:5000"}, true, EnvAddr + " with several contexts"},
		{[]string{"--context", "a"}, nil, true, "--all-contexts and --context"},
	} {
		fs, f := parseFlags(t, append([]string{"--config", file}, c.args...)...)
		if _, err := ResolveMany(fs, f, newEnv(t, c.env), c.all); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %v all=%v: %v, want …%s…", c.args, c.env, c.all, err, c.want)
		}
	}
	empty := writeConfig(t, "contexts: {}\n")
	fs, f = parseFlags(t, "--config", empty)
	if _, err := ResolveMany(fs, f, newEnv(t, nil), true); err == nil || !strings.Contains(err.Error(), "no context in") {
		t.Fatalf("--all-contexts on a file without contexts: %v", err)
	}
}

// A context with no address at all is returned as it is among several
// (each command says what it lacks), not an error for every one; alone it
// is Resolve's error.
func TestResolveManyContextWithoutAddress(t *testing.T) {
	file := writeConfig(t, "contexts:\n  a: {admin: 'ilink-1.example:9998'}\n  bare: {read-only: true}\n")
	fs, f := parseFlags(t, "--config", file, "--context", "a,bare")
	rs, err := ResolveMany(fs, f, newEnv(t, nil), false)
	if err != nil || len(rs) != 2 || rs[1].Context.Name != "bare" || rs[1].Context.Admin != "" || rs[1].Embedded || !rs[1].Context.ReadOnly {
		t.Fatalf("--context a,bare: %+v, %v", rs, err)
	}
	fs, f = parseFlags(t, "--config", file)
	if rs, err = ResolveMany(fs, f, newEnv(t, nil), true); err != nil || len(rs) != 2 {
		t.Fatalf("--all-contexts: %d contexts, %v", len(rs), err)
	}
	fs, f = parseFlags(t, "--config", file, "--context", "bare")
	if _, err = ResolveMany(fs, f, newEnv(t, nil), false); err == nil || !strings.Contains(err.Error(), `context "bare" has no addresses and no admin address`) {
		t.Fatalf("--context bare alone: %v", err)
	}
}
