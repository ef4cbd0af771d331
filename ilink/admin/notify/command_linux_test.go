package notify

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"ilinkdash/ilink/ilinktest"
)

// A command past its timeout is killed with every process it started: a
// script whose shell waits on a child (sh -c runs the script in a shell
// of its own) was left running, the child and the script, at every
// event, only sh -c itself killed.
func TestCommandTimeoutKillsItsChildren(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	c := NewCommand(CommandConfig{Command: "sleep 30 & echo $! > " + pidFile + "; wait", Timeout: 300 * time.Millisecond})
	runSink(t, c.Run)
	c.Enqueue(Event{Event: Start, Kind: "node-down", Subject: "3"})
	ilinktest.WaitFor(t, 10*time.Second, "the slow command killed", func() bool { return c.Counts().Failed == 1 })
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("pid file: %q", b)
	}
	if !ilinktest.Poll(5*time.Second, func() bool { return !running(pid) }) {
		t.Errorf("the command's child (pid %d) still runs after the command was killed", pid)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// running reports whether pid is a live process (not gone, not a zombie).
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
