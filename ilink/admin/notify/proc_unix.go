//go:build unix

package notify

import (
	"os/exec"
	"syscall"
)

// ownGroup runs cmd in a process group of its own and makes its
// cancellation (the timeout, the exporter stopping) kill the whole group:
// sh -c and whatever it started (a script's shell, its children), not
// only sh -c, which left them running.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
