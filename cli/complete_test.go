package cli

import (
	"bytes"
	"context"
	"ilinkdash/ilink/ilinktest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink/consumer"
)

// complete runs cobra's hidden __complete command (what the shell scripts
// call) and returns the candidates and the directive line.
func complete(t *testing.T, env map[string]string, args ...string) (cands []string, directive string, took time.Duration) {
	t.Helper()
	a := newTestApp(t, env)
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	code, err := a.execute(ctx, append([]string{"__complete"}, args...), strings.NewReader(""), &out, &errb)
	took = time.Since(start)
	if code != 0 || err != nil {
		t.Fatalf("__complete %v: exit %d, %v\n%s", args, code, err, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	return lines[:len(lines)-1], lines[len(lines)-1], took
}

func TestCompletionAgainstARunningEngine(t *testing.T) {
	e := startStopEngine(t, "ORDER.EVENT", 4)
	if err := e.CreateTopic("PAYMENT.RESULT", "partitions=1"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	opt := consumer.NewOptions()
	opt.Group = "billing"
	c, err := consumer.Subscribe(ctx, strings.Join(e.DataAddrs(), ","), "ORDER.EVENT", opt)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	os.WriteFile(cfg, []byte("current-context: local\ncontexts:\n  local:\n    addresses: ["+strings.Join(e.DataAddrs(), ", ")+"]\n    admin: "+e.AdminAddrs()[0]+"\n  prod:\n    addresses: [127.0.0.1:1]\n"), 0o600)
	env := map[string]string{"ILINKDASH_CONFIG": cfg}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"describe", "topic", ""}, []string{"ORDER.EVENT", "PAYMENT.RESULT"}},
		{[]string{"describe", ""}, []string{"topic", "group"}},
		{[]string{"describe", "group", ""}, []string{"billing"}},
		{[]string{"tail", "OR"}, []string{"ORDER.EVENT"}},
		{[]string{"publish", ""}, []string{"ORDER.EVENT", "PAYMENT.RESULT"}},
		{[]string{"group", "seek", ""}, []string{"billing"}},
		{[]string{"group", "seek", "billing", "--topic", "P"}, []string{"PAYMENT.RESULT"}},
		{[]string{"group", "delete", "b"}, []string{"billing"}},
		{[]string{"node", "stop", ""}, []string{"1\t", "2\t", "3\t"}},
		{[]string{"node", ""}, []string{"stop", "start", "kill"}},
		{[]string{"get", "topics", "--context", ""}, []string{"local", "prod"}},
		{[]string{"tail", "ORDER.EVENT", "--format", ""}, []string{"text", "json", "hex"}},
		{[]string{"tail", "ORDER.EVENT", "--from", ""}, []string{"earliest\t", "latest\t", "-5m\t"}},
		{[]string{"group", "seek", "billing", "--to", ""}, []string{"earliest\t", "latest\t", "-1h\t"}},
		{[]string{"get", "topics", "-o", ""}, []string{"table", "json"}},
		{[]string{"publish", "T", "--acks", ""}, []string{"all\t", "1\t", "0\t"}},
	} {
		cands, dir, _ := complete(t, env, tc.args...)
		if dir != ":4" {
			t.Errorf("%v: directive %q, want :4 (no file completion)", tc.args, dir)
		}
		joined := strings.Join(cands, "\n")
		for _, w := range tc.want {
			if !strings.Contains("\n"+joined, "\n"+w) {
				t.Errorf("%v: candidates %q lack %q", tc.args, cands, w)
			}
		}
		if strings.Contains(joined, "SYSTEM.") {
			t.Errorf("%v: internal topics offered: %q", tc.args, cands)
		}
	}
	// Node candidates carry their queue manager and role as the description.
	cands, _, _ := complete(t, env, "node", "kill", "")
	if len(cands) != 3 || !strings.Contains(cands[0], "leader") {
		t.Errorf("node candidates %q", cands)
	}
}

func TestCompletionWithAnUnreachableOrMissingCluster(t *testing.T) {
	t.Parallel()
	// A listener that accepts and never answers: the completion gives up
	// after its short timeout.
	hole := ilinktest.NewBlackHole(t)
	empty := filepath.Join(t.TempDir(), "empty.yaml")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
	}{
		{"refused", map[string]string{"ILINKDASH_ADMIN": "127.0.0.1:1", "ILINKDASH_ADDR": "127.0.0.1:1"}, []string{"describe", "topic", ""}},
		{"silent", map[string]string{"ILINKDASH_ADMIN": hole.Addr}, []string{"describe", "group", ""}},
		{"silent data", map[string]string{"ILINKDASH_ADDR": hole.Addr}, []string{"tail", ""}},
		// No target at all: the commands would start an embedded engine;
		// a completion must not (its demo topics would show here).
		{"no target", map[string]string{"ILINKDASH_CONFIG": empty}, []string{"tail", ""}},
		{"no target groups", map[string]string{"ILINKDASH_CONFIG": empty}, []string{"group", "seek", ""}},
	} {
		cands, dir, took := complete(t, tc.env, tc.args...)
		if len(cands) != 0 || dir != ":4" {
			t.Errorf("%s: candidates %q, directive %q; want none, :4", tc.name, cands, dir)
		}
		if took > completeTimeout+3*time.Second {
			t.Errorf("%s: completion took %v (its limit is %v)", tc.name, took, completeTimeout)
		}
	}
}

// Without --config or ILINKDASH_CONFIG, context names come from the
// default config file as the command line's environment places it
// ($XDG_CONFIG_HOME/ilinkdash/config.yaml), not the process's.
func TestCompletionReadsTheDefaultConfigOfItsEnvironment(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "ilinkdash"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "ilinkdash", "config.yaml"), []byte("contexts:\n  alpha: {admin: '127.0.0.1:1'}\n  beta: {admin: '127.0.0.1:1'}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cands, _, _ := complete(t, map[string]string{"XDG_CONFIG_HOME": home}, "get", "topics", "--context", "")
	if got := strings.Join(cands, ","); got != "alpha,beta" {
		t.Fatalf("contexts offered %q, want alpha,beta", got)
	}
	if cands, _, _ := complete(t, nil, "get", "topics", "--context", ""); len(cands) != 0 {
		t.Fatalf("a fresh environment offered contexts %q", cands)
	}
}
