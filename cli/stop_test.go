// Stopping: tail's temporary group leaves on every way out, and publish
// and tail exit within 2 s of SIGINT/SIGTERM whatever the cluster does.
// These run ilinkdash as a real process (cliProcess): real signals, a
// real pipe on stdout.

package cli

import (
	"bufio"
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/wire"
)

// stopBound is what the issue asks: exit within 2 s of the signal, the
// temporary group gone within 2 s of the reader closing.
const stopBound = 2 * time.Second

func startStopEngine(t *testing.T, topic string, records int) *engine.Engine {
	t.Helper()
	e := startTestEngine(t, engine.Config{})
	if err := e.CreateTopic(topic, "partitions=2"); err != nil {
		t.Fatal(err)
	}
	if records > 0 {
		produce(t, e, topic, records)
	}
	return e
}

func produce(t *testing.T, e *engine.Engine, topic string, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	p, err := ilink.NewProducer(ctx, strings.Join(e.DataAddrs(), ","), ilink.ProducerConfig{LingerMs: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for i := 0; i < n; i++ {
		p.Send(&ilink.ProducerRecord{Topic: topic, Key: []byte(fmt.Sprint("k", i)), Value: []byte(fmt.Sprintf("record %d", i))}, nil)
	}
	if err := p.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

// tempGroups lists the engine's temporary tail groups.
func tempGroups(t *testing.T, e *engine.Engine) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	svc, err := admin.Connect(ctx, e.AdminAddrs()[0], admin.Options{DataAddrs: e.DataAddrs()})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	gs, err := svc.AccessAdminQmgr("").GroupList(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, g := range gs {
		if strings.HasPrefix(g.Name, "ilinkdash-tail-") && g.State != admin.GroupDead {
			out = append(out, g.Name)
		}
	}
	return out
}

// process is a started ilinkdash process.
type process struct {
	cmd    *exec.Cmd
	stderr *ilinktest.Buffer
	done   chan struct{}
	code   int
}

func start(t *testing.T, cmd *exec.Cmd) *process {
	t.Helper()
	p := &process{cmd: cmd, stderr: &ilinktest.Buffer{}, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		err := cmd.Wait()
		p.code = 0
		if ee, ok := err.(*exec.ExitError); ok {
			p.code = ee.ExitCode()
		}
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// exitsWithin waits up to d for the process to exit.
func (p *process) exitsWithin(d time.Duration) bool {
	select {
	case <-p.done:
		return true
	case <-time.After(d):
		return false
	}
}

func TestTailPipedIntoHeadLeavesItsGroup(t *testing.T) {
	for _, tc := range []struct {
		name    string
		writing bool // records keep arriving (the next write fails with EPIPE) or not (the reader watch)
	}{{"idle", false}, {"writing", true}} {
		t.Run(tc.name, func(t *testing.T) {
			e := startStopEngine(t, "PIPE.T", 50)
			var wg sync.WaitGroup
			stop := make(chan struct{})
			if tc.writing {
				wg.Add(1)
				go func() { // one record every 20 ms while the test runs
					defer wg.Done()
					ctx, cancel := context.WithCancel(context.Background())
					defer cancel()
					p, err := ilink.NewProducer(ctx, strings.Join(e.DataAddrs(), ","), ilink.ProducerConfig{LingerMs: -1})
					if err != nil {
						return
					}
					defer p.Close()
					for i := 0; ; i++ {
						select {
						case <-stop:
							return
						case <-time.After(20 * time.Millisecond):
						}
						p.Send(&ilink.ProducerRecord{Topic: "PIPE.T", Value: []byte("more")}, nil)
					}
				}()
			}
			defer func() { close(stop); wg.Wait() }()
			cmd := cliProcess(t, "tail", "PIPE.T", "--from", "earliest", "--addr", strings.Join(e.DataAddrs(), ","))
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			p := start(t, cmd)
			sc := bufio.NewScanner(out)
			for i := 0; i < 5; i++ { // like head -5
				if !sc.Scan() {
					t.Fatalf("tail printed %d lines: %v\n%s", i, sc.Err(), p.stderr.String())
				}
			}
			var groups []string
			if !ilinktest.Poll(5*time.Second, func() bool { groups = tempGroups(t, e); return len(groups) == 1 }) {
				t.Fatalf("temporary groups %v, want the tail's one", groups)
			}
			out.Close()
			closed := time.Now()
			if !ilinktest.Poll(stopBound, func() bool { return len(tempGroups(t, e)) == 0 }) {
				t.Fatalf("temporary group %v still there %v after the reader closed\n%s", tempGroups(t, e), stopBound, p.stderr.String())
			}
			gone := time.Since(closed)
			if !p.exitsWithin(stopBound) {
				t.Fatalf("tail still running %v after its reader closed", stopBound+gone)
			}
			if p.code != 0 || p.stderr.String() != "" {
				t.Fatalf("exit %d, stderr %q: want a quiet exit 0 (the reader went away)", p.code, p.stderr.String())
			}
			t.Logf("group gone %v after the reader closed", gone.Round(time.Millisecond))
		})
	}
}

func TestTailLeavesOnCountAndSignals(t *testing.T) {
	// Not parallel: it times a stop against the 2 s the issue asks.
	e := startStopEngine(t, "SIG.T", 20)
	addr := strings.Join(e.DataAddrs(), ",")
	// --count reached.
	res := runCLIResult(t, "", "tail", "SIG.T", "--from", "earliest", "--count", "3", "--addr", addr)
	if res.code != 0 || strings.Count(res.stdout, "\n") != 3 {
		t.Fatalf("--count 3: exit %d, %q %s", res.code, res.stdout, res.stderr)
	}
	if !ilinktest.Poll(stopBound, func() bool { return len(tempGroups(t, e)) == 0 }) {
		t.Fatalf("after --count: temporary groups %v", tempGroups(t, e))
	}
	// Context cancel (what the signals do inside the process).
	a := newTestApp(t, nil)
	ctx, cancel := context.WithCancelCause(context.Background())
	var out ilinktest.Buffer
	done := make(chan int, 1)
	go func() {
		code, _ := a.execute(ctx, []string{"tail", "SIG.T", "--from", "earliest", "--addr", addr, "--config="}, strings.NewReader(""), &out, &out)
		done <- code
	}()
	if !ilinktest.Poll(5*time.Second, func() bool { return len(tempGroups(t, e)) == 1 }) {
		t.Fatal("the tail's group never appeared")
	}
	cancel(errInterrupted)
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("cancelled tail: exit %d\n%s", code, out.String())
		}
	case <-time.After(stopBound):
		t.Fatal("tail did not return after its context was cancelled")
	}
	if len(tempGroups(t, e)) != 0 {
		t.Fatalf("after cancel: temporary groups %v", tempGroups(t, e))
	}
	// SIGINT and SIGTERM, to the process.
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		p := start(t, cliProcess(t, "tail", "SIG.T", "--addr", addr))
		if !ilinktest.Poll(10*time.Second, func() bool { return len(tempGroups(t, e)) == 1 }) {
			t.Fatalf("%v: the tail's group never appeared\n%s", sig, p.stderr.String())
		}
		p.cmd.Process.Signal(sig)
		if !p.exitsWithin(stopBound) {
			t.Fatalf("%v: tail still running after %v", sig, stopBound)
		}
		if groups := tempGroups(t, e); len(groups) != 0 {
			t.Fatalf("%v: temporary groups %v after exit", sig, groups)
		}
		if p.code != 0 {
			t.Fatalf("%v: exit %d\n%s", sig, p.code, p.stderr.String())
		}
	}
}

// hang makes every engine node hold its replies (the connections stay up:
// a paused or overloaded cluster). The channel is closed when the first
// request is held.
func hang(e *engine.Engine) <-chan struct{} {
	held := make(chan struct{})
	var once sync.Once
	e.Control(func(ev *engine.ControlEvent) engine.ControlAction {
		if ev.Code == wire.CodeHello {
			return engine.ControlAction{}
		}
		once.Do(func() { close(held) })
		return engine.ControlAction{Delay: time.Hour}
	})
	return held
}

// waitHeld waits until the hung engine holds a request of the process.
func waitHeld(t *testing.T, held <-chan struct{}, p *process) {
	t.Helper()
	select {
	case <-held:
	case <-time.After(10 * time.Second):
		t.Fatalf("no request reached the hung engine\n%s", p.stderr.String())
	}
}

func TestPublishStopsWithinTwoSecondsOfASignal(t *testing.T) {
	// Not parallel: it times a stop against the 2 s the issue asks.
	for _, tc := range []struct {
		name  string
		fault func(*engine.Engine)
		sig   syscall.Signal
	}{
		{"engine killed, SIGTERM", func(e *engine.Engine) { e.Close() }, syscall.SIGTERM},
		{"engine killed, SIGINT", func(e *engine.Engine) { e.Close() }, syscall.SIGINT},
		{"engine hung, SIGINT", func(e *engine.Engine) {
			select { // a produce held (bounded: the test fails later without one)
			case <-hang(e):
			case <-time.After(10 * time.Second):
			}
		}, syscall.SIGINT},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := startStopEngine(t, "PUB.T", 0)
			p := start(t, cliProcess(t, "publish", "PUB.T", "--size", "100", "--count", "100000000", "--rate", "2000",
				"--addr", strings.Join(e.DataAddrs(), ",")))
			end := func() int64 {
				for _, ti := range e.Topics() {
					if ti.Name == "PUB.T" {
						return ti.EndOffsetSum
					}
				}
				return 0
			}
			if !ilinktest.Poll(10*time.Second, func() bool { return end() > 200 }) {
				t.Fatalf("publish never got going\n%s", p.stderr.String())
			}
			tc.fault(e)
			// Not a wait for a condition: records sent in these 300 ms pile
			// up unacknowledged, the state the stop must cope with (the
			// exit's count is printed however many there are).
			time.Sleep(300 * time.Millisecond)
			p.cmd.Process.Signal(tc.sig)
			sent := time.Now()
			if !p.exitsWithin(stopBound) {
				t.Fatalf("publish still running %v after %v (the fix bounds every wait after an interrupt)", stopBound, tc.sig)
			}
			took := time.Since(sent)
			stderr := p.stderr.String()
			if p.code != exitInterrupted || !strings.Contains(stderr, "sent but not acknowledged") || strings.Contains(stderr, "did not stop within") {
				t.Fatalf("exit %d, stderr %q: want 130 and the count of records sent but not acknowledged", p.code, stderr)
			}
			// Those the stop failed were sent and never answered: not
			// acknowledged, not refused (they were counted failed, the
			// not-acknowledged count always 0).
			if m := regexp.MustCompile(` (\d+) sent but not acknowledged`).FindStringSubmatch(stderr); m == nil || m[1] == "0" || strings.Contains(stderr, "failed") {
				t.Fatalf("stderr %q: want the records the stop ended as sent but not acknowledged, none failed", stderr)
			}
			t.Logf("exited %v after %v: %s", took.Round(time.Millisecond), tc.sig, strings.TrimSpace(stderr))
		})
	}
}

func TestSecondInterruptExitsAtOnce(t *testing.T) {
	// Not parallel: it times a stop against the 2 s the issue asks.
	e := startStopEngine(t, "PUB.T", 0)
	p := start(t, cliProcess(t, "publish", "PUB.T", "--size", "100", "--count", "100000000", "--rate", "2000",
		"--addr", strings.Join(e.DataAddrs(), ",")))
	if !ilinktest.Poll(10*time.Second, func() bool {
		for _, ti := range e.Topics() {
			if ti.Name == "PUB.T" && ti.EndOffsetSum > 100 {
				return true
			}
		}
		return false
	}) {
		t.Fatalf("publish never got going\n%s", p.stderr.String())
	}
	// A held produce: the first interrupt now waits its full grace for
	// acknowledgements, so the process is still there for the second.
	waitHeld(t, hang(e), p)
	p.cmd.Process.Signal(syscall.SIGINT)
	// The process says it is stopping once it has handled the first
	// interrupt: sent before that, the second could merge into the first
	// (the runtime keeps one pending bit per signal).
	if !ilinktest.Poll(stopBound, func() bool { return strings.Contains(p.stderr.String(), "interrupt again to exit now") }) {
		t.Fatalf("no stopping note after the first interrupt: %q", p.stderr.String())
	}
	p.cmd.Process.Signal(syscall.SIGINT)
	if !p.exitsWithin(stopBound) {
		t.Fatal("still running after two interrupts")
	}
	if p.code != exitInterrupted || !strings.Contains(p.stderr.String(), "second interrupt: exiting now") {
		t.Fatalf("exit %d, stderr %q: want 130 and the second-interrupt note", p.code, p.stderr.String())
	}
}

func TestTailStopsWithinTwoSecondsWhenTheClusterHangs(t *testing.T) {
	// Not parallel: it times a stop against the 2 s the issue asks.
	e := startStopEngine(t, "HANG.T", 10)
	p := start(t, cliProcess(t, "tail", "HANG.T", "--from", "earliest", "--addr", strings.Join(e.DataAddrs(), ",")))
	if !ilinktest.Poll(10*time.Second, func() bool { return len(tempGroups(t, e)) == 1 }) {
		t.Fatalf("the tail's group never appeared\n%s", p.stderr.String())
	}
	waitHeld(t, hang(e), p) // the tail's fetch (or heartbeat) is held
	p.cmd.Process.Signal(syscall.SIGTERM)
	if !p.exitsWithin(stopBound) {
		p.exitsWithin(5 * time.Second)
		t.Fatalf("tail still running %v after SIGTERM with a hung cluster\n%s", stopBound, p.stderr.String())
	}
	if strings.Contains(p.stderr.String(), "did not stop within") {
		t.Fatalf("the stop guard fired: %s", p.stderr.String())
	}
}

// A read-only tail reads through its temporary group; --group (a real
// group's membership and commits) is refused by the consumer, and the
// group never appears at the engine.
func TestReadOnlyTail(t *testing.T) {
	e := startStopEngine(t, "RO.T", 5)
	addr := strings.Join(e.DataAddrs(), ",")
	res := runCLIResult(t, "", "tail", "RO.T", "--from", "earliest", "--count", "5", "--read-only", "--addr", addr)
	if res.code != 0 || strings.Count(res.stdout, "\n") != 5 {
		t.Fatalf("read-only tail without --group: exit %d, %q %s", res.code, res.stdout, res.stderr)
	}
	res = runCLIResult(t, "", "tail", "RO.T", "--group", "billing", "--count", "1", "--read-only", "--addr", addr)
	if res.code != 1 || !strings.Contains(res.stderr, "MIMQE_READ_ONLY (join of durable group billing refused: read-only mode) (omit --group to tail with a temporary group)") {
		t.Fatalf("read-only tail --group: exit %d, stderr %q", res.code, res.stderr)
	}
	for _, g := range e.Groups() {
		if g.Name == "billing" {
			t.Fatalf("group billing exists after a refused read-only tail: %+v", g)
		}
	}
}
