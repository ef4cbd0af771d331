// Command servebench measures `ilinkdash serve` (issue 13's goals):
//
//   - the admin requests per second the cluster sees with 1, 10 and 50
//     sessions, all on the same view (the cluster tab, which polls the
//     most resources), counted at the engine: the same within 10 % is the
//     goal;
//   - the CPU and RSS of the serve process with 1, 10 and 50 idle
//     sessions, each on a different view (per session: at most 1 % of a
//     core and 15 MiB);
//   - the time from the end of the SSH handshake to the first frame
//     (at most 300 ms on loopback).
//
// The engine and its demo traffic run in this process, so their requests
// can be counted and their CPU is not the server's; serve runs as its own
// process (built from the repository) pointed at the engine with
// --admin/--addr, and is measured through /proc. The SSH clients are
// golang.org/x/crypto/ssh sessions with a pty, in this process, each one
// draining its output.
//
// Run from bench/:
//
//	go run ./cmd/servebench                       # 1, 10, 50 sessions, 2 s refresh
//	go run ./cmd/servebench --sessions 1,10,50 --window 30s --settle 10s
package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/engine/demo"
	"ilinkdash/ilink/loadgen"
	"ilinkdash/ilink/wire"
)

// polledCodes are the admin requests the dashboard's poller makes.
var polledCodes = []wire.Code{
	wire.CodeNodeList, wire.CodeStatSeries, wire.CodeTopicList, wire.CodeGroupList,
	wire.CodeQueueList, wire.CodeClusterProperty, wire.CodeReplicationStatus, wire.CodeViewClusterLeaders,
}

type options struct {
	sessions       []int
	window, settle time.Duration
	bin, repo      string
	width, height  int
}

func main() {
	var o options
	var sessions string
	flag.StringVar(&sessions, "sessions", "1,10,50", "session counts to measure, in order")
	flag.DurationVar(&o.window, "window", 20*time.Second, "measurement window per session count")
	flag.DurationVar(&o.settle, "settle", 6*time.Second, "wait after the sessions are open, before measuring")
	flag.StringVar(&o.bin, "bin", "", "the ilinkdash binary (default: build it from --repo)")
	flag.StringVar(&o.repo, "repo", "..", "the repository root (for building the binary)")
	flag.IntVar(&o.width, "width", 120, "pty width")
	flag.IntVar(&o.height, "height", 40, "pty height")
	flag.Parse()
	for _, s := range strings.Split(sessions, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			fatalf("--sessions: %q is not a positive number", s)
		}
		o.sessions = append(o.sessions, n)
	}
	if err := run(o); err != nil {
		fatalf("%v", err)
	}
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "servebench: "+format+"\n", args...)
	os.Exit(1)
}

func run(o options) error {
	dir, err := os.MkdirTemp("", "servebench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := o.ensureBinary(dir); err != nil {
		return err
	}

	e, err := engine.Start(engine.Config{ElectionDelay: 300 * time.Millisecond})
	if err != nil {
		return err
	}
	defer e.Close()
	d, err := demo.Start(e, demo.Options{})
	if err != nil {
		return err
	}
	defer d.Close()

	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	signer, _ := gossh.NewSignerFromKey(priv)
	keys := filepath.Join(dir, "operators")
	if err := os.WriteFile(keys, gossh.MarshalAuthorizedKey(signer.PublicKey()), 0o600); err != nil {
		return err
	}
	maxN := slices.Max(o.sessions)
	srv := exec.Command(o.bin, "serve", "--config", "", "--admin", e.AdminAddrs()[0], "--addr", strings.Join(e.DataAddrs(), ","),
		"--listen", "127.0.0.1:0", "--operator-keys", keys, "--host-key", filepath.Join(dir, "hostkey"),
		"--max-sessions", strconv.Itoa(maxN+1))
	var srvOut syncBuf
	srv.Stdout, srv.Stderr = &srvOut, &srvOut
	if err := srv.Start(); err != nil {
		return err
	}
	defer func() {
		_ = srv.Process.Signal(os.Interrupt)
		_ = srv.Wait()
	}()
	addr, err := waitListen(&srvOut)
	if err != nil {
		return err
	}
	pid := srv.Process.Pid
	fmt.Printf("serve pid %d on %s; engine with demo traffic in this process; window %v, settle %v, pty %dx%d\n\n",
		pid, addr, o.window, o.settle, o.width, o.height)

	// Baseline: no session.
	time.Sleep(o.settle)
	base := measure(e, pid, o.window)
	fmt.Printf("%8s %14s %12s %10s %13s %9s %12s %18s\n", "sessions", "admin req/s", "(own views)", "serve CPU", "CPU/session", "RSS MiB", "RSS/session", "first frame p50/max")
	fmt.Printf("%8d %14s %12.2f %9.2f%% %13s %9.1f %12s %18s\n", 0, "-", base.adminRate, base.cpu*100, "-", base.rssMiB, "-", "-")

	var open []*client
	for _, n := range o.sessions {
		var firsts []time.Duration
		for len(open) < n {
			c, err := dial(addr, signer, o.width, o.height)
			if err != nil {
				return fmt.Errorf("session %d: %w", len(open)+1, err)
			}
			open = append(open, c)
			firsts = append(firsts, c.firstFrame)
		}
		// Idle, each on its own view (round the seven tabs): CPU and RSS.
		for i, c := range open {
			c.key(strconv.Itoa(i%7 + 1))
		}
		time.Sleep(o.settle)
		own := measure(e, pid, o.window)
		// All on the cluster tab: the admin load of n identical dashboards.
		for _, c := range open {
			c.key("4")
		}
		time.Sleep(o.settle)
		same := measure(e, pid, o.window)
		perCPU := (own.cpu - base.cpu) / float64(n) * 100
		perRSS := (own.rssMiB - base.rssMiB) / float64(n)
		slices.Sort(firsts)
		ff := fmt.Sprintf("%v / %v", firsts[len(firsts)/2].Round(time.Millisecond), firsts[len(firsts)-1].Round(time.Millisecond))
		fmt.Printf("%8d %14.2f %12.2f %9.2f%% %12.3f%% %9.1f %12.2f %18s\n", n, same.adminRate, own.adminRate, own.cpu*100, perCPU, own.rssMiB, perRSS, ff)
		if os.Getenv("SERVEBENCH_VERBOSE") != "" {
			fmt.Printf("         same view, per code: %s\n", same.perCode)
		}
	}
	for _, c := range open {
		c.close()
	}
	printLegend()
	return nil
}

// ensureBinary builds ilinkdash into dir unless -bin named one.
func (o *options) ensureBinary(dir string) error {
	if o.bin != "" {
		return nil
	}
	o.bin = filepath.Join(dir, "ilinkdash")
	build := exec.Command("go", "build", "-o", o.bin, ".")
	build.Dir, build.Stdout, build.Stderr = o.repo, os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("building ilinkdash: %w", err)
	}
	return nil
}

// printLegend says what the table's columns are.
func printLegend() {
	fmt.Println("\nadmin req/s: the polled admin requests (node list, stats, topic/group/queue lists, cluster, replication,")
	fmt.Println("leaders) counted at the engine, every session on the cluster tab; (own views): the same with each session")
	fmt.Println("on its own tab, the load the CPU and RSS columns were measured under. CPU/session and RSS/session:")
	fmt.Println("(value - value with no session) / sessions, each session on its own tab. First frame: SSH handshake")
	fmt.Println("done -> the first frame's bytes, for the sessions opened in that row.")
}

// ---- the server process ----

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var listenRE = regexp.MustCompile(`listening on (\S+),`)

func waitListen(out *syncBuf) (string, error) {
	end := time.Now().Add(30 * time.Second)
	for time.Now().Before(end) {
		if m := listenRE.FindStringSubmatch(out.String()); m != nil {
			return m[1], nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return "", fmt.Errorf("serve did not start:\n%s", out.String())
}

type sample struct {
	adminRate float64 // polled admin requests per second at the engine
	cpu       float64 // cores used by serve
	rssMiB    float64
	perCode   string
}

func measure(e *engine.Engine, pid int, window time.Duration) sample {
	c0, t0, r0 := e.RequestCounts(), time.Now(), loadgen.ProcessCPU(pid)
	time.Sleep(window)
	c1, t1, r1 := e.RequestCounts(), time.Now(), loadgen.ProcessCPU(pid)
	secs := t1.Sub(t0).Seconds()
	var total int64
	var per []string
	for _, code := range polledCodes {
		d := c1[code] - c0[code]
		total += d
		per = append(per, fmt.Sprintf("%v=%.2f/s", code, float64(d)/secs))
	}
	return sample{
		adminRate: float64(total) / secs,
		cpu:       (r1 - r0).Seconds() / secs,
		rssMiB:    float64(loadgen.ProcessMemory(pid, loadgen.RSS)) / (1 << 20),
		perCode:   strings.Join(per, " "),
	}
}

// ---- clients ----

type client struct {
	conn       *gossh.Client
	sess       *gossh.Session
	stdin      io.WriteCloser
	firstFrame time.Duration
}

// frameWriter drains a session's output and notes when the first frame
// (the tab bar) arrived.
type frameWriter struct {
	buf   []byte
	first chan struct{}
	seen  atomic.Bool
}

func (w *frameWriter) Write(p []byte) (int, error) {
	if !w.seen.Load() {
		w.buf = append(w.buf, p...)
		if bytes.Contains(w.buf, []byte("Overview")) {
			w.seen.Store(true)
			w.buf = nil
			close(w.first)
		}
	}
	return len(p), nil
}

// dial opens a session: handshake, pty, shell, first frame.
func dial(addr string, signer gossh.Signer, w, h int) (*client, error) {
	conn, err := gossh.Dial("tcp", addr, &gossh.ClientConfig{User: "bench", Auth: []gossh.AuthMethod{gossh.PublicKeys(signer)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 30 * time.Second})
	if err != nil {
		return nil, err
	}
	handshake := time.Now()
	c := &client{conn: conn}
	if c.sess, err = conn.NewSession(); err != nil {
		return nil, err
	}
	fw := &frameWriter{first: make(chan struct{})}
	c.sess.Stdout, c.sess.Stderr = fw, io.Discard
	if c.stdin, err = c.sess.StdinPipe(); err != nil {
		return nil, err
	}
	if err := c.sess.RequestPty("xterm-256color", h, w, gossh.TerminalModes{}); err != nil {
		return nil, err
	}
	if err := c.sess.Shell(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	select {
	case <-fw.first:
		c.firstFrame = time.Since(handshake)
	case <-ctx.Done():
		return nil, fmt.Errorf("no first frame within 30s")
	}
	return c, nil
}

// key types one key.
func (c *client) key(k string) { _, _ = io.WriteString(c.stdin, k) }

func (c *client) close() {
	_, _ = io.WriteString(c.stdin, "q")
	_ = c.sess.Wait()
	_ = c.conn.Close()
}
