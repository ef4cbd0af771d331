package cli

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// stopGrace is how long a headless command has, after the first SIGINT or
// SIGTERM, to finish on its own (publish's last acknowledgements, tail's
// leave) before the process exits anyway: the commands bound their own
// waits well inside it (publishGrace, tailLeaveBudget), so the guard only
// fires if something unforeseen blocks.
const stopGrace = 1800 * time.Millisecond

// stopNoteAfter is how long a headless command may take to stop before it
// says it is stopping and how to force it: a tail that leaves at once
// stays quiet, a publish waiting for its acknowledgements does not.
const stopNoteAfter = 250 * time.Millisecond

var (
	errInterrupted  = errors.New("interrupted")
	errStdoutClosed = errors.New("the reader of standard output went away")
)

// sameInterrupt is how soon after the first interrupt a signal is that
// same interrupt delivered again, not a second one: GNU timeout signals
// the command and then its process group, so `timeout -s INT 60 ilinkdash
// tail T` delivers SIGINT twice within microseconds (taken as a second
// interrupt, it exited at once with 130, without the tail's leave). A
// person's second ctrl+c comes later: the stopping note that asks for it
// is written stopNoteAfter after the first.
const sameInterrupt = 100 * time.Millisecond

// handleSignals installs the process's signal handling: the first SIGINT
// or SIGTERM cancels the run's context with errInterrupted and, for a
// headless command, arms the stop guard; a second one exits a headless
// command at once with status 130. SIGPIPE is caught (and dropped) so that writes to a closed
// stdout fail with EPIPE. It returns a function that uninstalls it.
func (a *app) handleSignals(cancel func(error)) (stop func()) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	done := make(chan struct{})
	go a.signalLoop(sigs, done, cancel, time.Now, os.Exit)
	return func() {
		signal.Stop(sigs)
		close(done)
	}
}

// signalLoop is handleSignals' loop until done: now is the clock that
// tells a repeat of the first interrupt (sameInterrupt) from a second
// one, exit ends the process.
func (a *app) signalLoop(sigs <-chan os.Signal, done <-chan struct{}, cancel func(error), now func() time.Time, exit func(int)) {
	var guard, note <-chan time.Time
	var first time.Time // of the first interrupt; zero before it
	for {
		select {
		case <-done:
			return
		case <-sigs:
			if !first.IsZero() && now().Sub(first) < sameInterrupt {
				continue // the first one again (timeout -s INT signals the process and its group)
			}
			if !first.IsZero() && a.headless.Load() { // (the dashboard restores the terminal first: it ends on the context)
				fmt.Fprintln(os.Stderr, "ilinkdash: second interrupt: exiting now")
				exit(exitInterrupted)
				return
			}
			if first.IsZero() {
				first = now()
			}
			cancel(errInterrupted)
			if a.headless.Load() {
				guard = time.After(stopGrace)
				note = time.After(stopNoteAfter)
			}
		case <-note:
			fmt.Fprintln(os.Stderr, "ilinkdash: stopping (interrupt again to exit now)")
		case <-guard:
			fmt.Fprintf(os.Stderr, "ilinkdash: did not stop within %v of the interrupt: exiting now\n", stopGrace)
			exit(exitInterrupted)
			return
		}
	}
}

// watchStdoutReader calls gone once when f is a pipe or a socket whose
// reading end was closed (`ilinkdash tail T | head -5` after head exits),
// even while nothing is being written: a tail waiting for new records
// would otherwise keep its temporary group until the next record fails to
// write. It returns nil when f is not a pipe or socket, else a function
// that stops the watch.
func watchStdoutReader(f *os.File, gone func()) (stop func()) {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	fd := -1
	rc.Control(func(s uintptr) { fd = int(s) }) // (f.Fd would make the file blocking)
	if fd < 0 {
		return nil
	}
	done := make(chan struct{})
	go func() {
		fds := []unix.PollFd{{Fd: int32(fd)}} // no events: only POLLERR / POLLHUP are reported
		for {
			select {
			case <-done:
				return
			default:
			}
			n, err := unix.Poll(fds, 200)
			if err != nil && !errors.Is(err, unix.EINTR) {
				return
			}
			if n > 0 && fds[0].Revents&(unix.POLLERR|unix.POLLHUP) != 0 {
				gone()
				return
			}
		}
	}()
	return func() { close(done) }
}
