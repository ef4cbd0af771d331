package cli

import (
	"bytes"
	"context"
	"fmt"
	"ilinkdash/ilink/ilinktest"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestEngineCommandPrintsOneLinePerNode(t *testing.T) {
	a := newTestApp(t, nil)
	var out ilinktest.Buffer
	a.root.SetOut(&out)
	a.root.SetArgs([]string{"engine", "--nodes", "2", "--election-delay", "200ms"})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- a.root.ExecuteContext(ctx) }()

	line := regexp.MustCompile(`^node (\d) data (127\.0\.0\.1:\d+) admin (127\.0\.0\.1:\d+)$`)
	var lines []string
	ilinktest.Poll(10*time.Second, func() bool {
		lines = strings.Split(strings.TrimSpace(out.String()), "\n")
		return len(lines) == 2 && line.MatchString(lines[1])
	})
	for i, l := range lines {
		m := line.FindStringSubmatch(l)
		if m == nil || m[1] != fmt.Sprint(i+1) {
			t.Fatalf("line %d = %q, want `node %d data <host:port> admin <host:port>`", i, l, i+1)
		}
		// Both listeners really listen.
		for _, addr := range m[2:] {
			c, err := net.DialTimeout("tcp", addr, time.Second)
			if err != nil {
				t.Fatalf("node %d: %s not listening: %v", i+1, addr, err)
			}
			c.Close()
		}
	}
	cancel()
	if err := <-errc; err != nil {
		t.Fatalf("engine command after cancel: %v", err)
	}
}

func TestEngineCommandRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"engine", "--nodes", "0"},
		{"engine", "--data-port", "65535", "--nodes", "3"},
		{"engine", "--election-delay", "-1s"},
	} {
		a := newTestApp(t, nil)
		a.root.SetArgs(args)
		a.root.SetOut(&bytes.Buffer{})
		err := a.root.Execute()
		if err == nil {
			t.Errorf("%v accepted", args)
			continue
		}
		if !strings.Contains(err.Error(), strings.TrimPrefix(args[1], "")) {
			t.Errorf("%v: error %q does not name the flag", args, err)
		}
	}
}
