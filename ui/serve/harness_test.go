package serve

// The tests drive `ilinkdash serve` as an operator's ssh does: a real SSH
// server (New + Serve on a loopback listener) in front of real dashboards
// on the real adapters (ui/live) and a real in-process engine, reached by
// golang.org/x/crypto/ssh clients that request a pty, type bytes and read
// the exit status. The screen is read from the server side
// (Server.Sessions: the last frame each dashboard drew, as text), because
// a terminal stream of cursor moves and partial redraws cannot be matched
// reliably; the bytes a client receives are checked where they are plain
// (the one-line refusals on stderr).
//
// Nothing sleeps to let things happen: every step waits for a condition
// with a generous deadline.

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"ilinkdash/config"
	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/engine/enginetest"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ui/live"
)

// deadline bounds every wait: generous for -race on two loaded cores.
const deadline = 30 * time.Second

// ---- the cluster ----

func startEngine(t testing.TB) *engine.Engine {
	t.Helper()
	return enginetest.Start(t, engine.Config{
		Nodes:               1,
		ElectionDelay:       200 * time.Millisecond,
		CoordinatorLoadTime: 50 * time.Millisecond,
		HeartbeatInterval:   200 * time.Millisecond,
	})
}

// createTopics creates each of names at the engine, with props.
func (r *rig) createTopics(props string, names ...string) {
	r.t.Helper()
	for _, name := range names {
		if err := r.e.CreateTopic(name, props); err != nil {
			r.t.Fatalf("create topic %s: %v", name, err)
		}
	}
}

func backend(t testing.TB, e *engine.Engine, readOnly bool) *live.Sources {
	t.Helper()
	src, err := live.New(live.Config{AdminAddrs: e.AdminAddrs(), DataAddrs: e.DataAddrs(), ClientName: "serve-test", ReadOnly: readOnly})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = src.Close() })
	return src
}

// ---- keys ----

type clientKey struct {
	signer  gossh.Signer
	comment string
}

func newClientKey(t testing.TB, comment string) clientKey {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return clientKey{signer: s, comment: comment}
}

func (k clientKey) line() string {
	return strings.TrimSpace(string(gossh.MarshalAuthorizedKey(k.signer.PublicKey()))) + " " + k.comment + "\n"
}

func (k clientKey) fingerprint() string { return gossh.FingerprintSHA256(k.signer.PublicKey()) }

func writeKeys(t testing.TB, path string, keys ...clientKey) {
	t.Helper()
	var b strings.Builder
	b.WriteString("# test keys\n")
	for _, k := range keys {
		b.WriteString(k.line())
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

// ---- the server ----

type rig struct {
	t        testing.TB
	e        *engine.Engine
	srv      *Server
	addr     string
	dir      string
	viewer   clientKey
	operator clientKey
	audit    string
	served   chan error
	engines  []*engine.Engine // with rigOpts.contexts: one per context
}

type rigOpts struct {
	maxSessions int
	maxTails    int
	idle        time.Duration
	refresh     time.Duration
	readOnly    bool // the served context itself
	// serve changes the serve settings after the rig's own (limits).
	serve func(*config.Serve)
	// contexts, when given, serves one engine per name (Config.Clusters),
	// the first r.e; r.engines holds them all.
	contexts []string
	// configure changes the server's config last (cc: the served
	// context's settings, for the test's own clusters).
	configure func(cfg *Config, cc config.Context)
}

func startRig(t testing.TB, o rigOpts) *rig {
	t.Helper()
	if o.maxSessions == 0 {
		o.maxSessions = 32
	}
	if o.refresh == 0 {
		o.refresh = 300 * time.Millisecond
	}
	r := &rig{t: t, e: startEngine(t), dir: t.TempDir(),
		viewer: newClientKey(t, "vera@viewer"), operator: newClientKey(t, "otto@operator")}
	r.audit = filepath.Join(r.dir, "audit.jsonl")
	writeKeys(t, filepath.Join(r.dir, "viewers"), r.viewer)
	writeKeys(t, filepath.Join(r.dir, "operators"), r.operator)
	sc := config.DefaultServe()
	sc.Listen = "127.0.0.1:0"
	sc.AuthorizedKeys = filepath.Join(r.dir, "viewers")
	sc.OperatorKeys = filepath.Join(r.dir, "operators")
	sc.HostKey = filepath.Join(r.dir, "host", "key")
	sc.MaxSessions = o.maxSessions
	sc.MaxTails = o.maxTails
	sc.IdleTimeout = o.idle
	sc.AuditLog = r.audit
	if o.serve != nil {
		o.serve(&sc)
	}
	cc := config.DefaultContext()
	cc.Name = "serve-test"
	cc.ReadOnly = o.readOnly
	cc.Theme = config.ThemeDark
	cc.Refresh = config.Refresh{Overview: o.refresh, Topics: o.refresh, Groups: o.refresh, Cluster: o.refresh, Queues: o.refresh, Replication: o.refresh}
	cfg := Config{Serve: sc, Context: cc, Viewer: backend(t, r.e, true), Operator: backend(t, r.e, o.readOnly), Logf: t.Logf}
	for i, name := range o.contexts {
		e := r.e
		if i > 0 {
			e = startEngine(t)
		}
		c := cc
		c.Name = name
		cfg.Clusters = append(cfg.Clusters, Cluster{Context: c, Viewer: backend(t, e, true), Operator: backend(t, e, o.readOnly)})
		r.engines = append(r.engines, e)
	}
	if o.configure != nil {
		o.configure(&cfg, cc)
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r.srv = srv
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r.addr = ln.Addr().String()
	r.served = make(chan error, 1)
	go func() { r.served <- srv.Serve(ln) }()
	t.Cleanup(r.shutdown)
	return r
}

func (r *rig) shutdown() {
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	if err := r.srv.Shutdown(ctx); err != nil {
		r.t.Errorf("Shutdown: %v", err)
	}
	select {
	case err := <-r.served:
		if err != nil {
			r.t.Errorf("Serve: %v", err)
		}
	case <-time.After(deadline):
		r.t.Errorf("Serve did not return after Shutdown")
	}
}

// auditEntries reads the audit log.
func (r *rig) auditEntries() []AuditEntry {
	r.t.Helper()
	data, err := os.ReadFile(r.audit)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		r.t.Fatal(err)
	}
	var out []AuditEntry
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if l == "" {
			continue
		}
		var e AuditEntry
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			r.t.Fatalf("audit line %q: %v", l, err)
		}
		out = append(out, e)
	}
	return out
}

func (r *rig) waitAudit(what string, pred func(AuditEntry) bool) AuditEntry {
	r.t.Helper()
	var got AuditEntry
	ilinktest.WaitFor(r.t, deadline, what, func() bool {
		for _, e := range r.auditEntries() {
			if pred(e) {
				got = e
				return true
			}
		}
		return false
	})
	return got
}

// ---- a client ----

type client struct {
	t      testing.TB
	r      *rig
	conn   *gossh.Client
	sess   *gossh.Session
	stdin  io.WriteCloser
	stdout *ilinktest.Buffer
	stderr *ilinktest.Buffer
	ended  chan struct{} // closed when the session ended; werr is then set
	werr   error
}

// dial connects with key and completes the SSH handshake (authentication
// included); it returns the error instead of failing for the refusal tests.
func (r *rig) dial(k clientKey) (*gossh.Client, error) {
	cfg := &gossh.ClientConfig{
		User:            "anyone",
		Auth:            []gossh.AuthMethod{gossh.PublicKeys(k.signer)},
		HostKeyCallback: gossh.FixedHostKey(r.srv.HostPublicKey()),
		Timeout:         deadline,
	}
	return gossh.Dial("tcp", r.addr, cfg)
}

type sessOpts struct {
	w, h  int
	term  string
	env   map[string]string // sent before the pty request, as SendEnv does
	noPty bool
	cmd   string // run as the SSH command (ssh -t HOST CMD) instead of a shell
}

// open dials, requests a pty (unless noPty) and starts the shell.
func (r *rig) open(k clientKey, o sessOpts) *client {
	r.t.Helper()
	if o.w == 0 {
		o.w, o.h = 120, 40
	}
	if o.term == "" {
		o.term = "xterm-256color"
	}
	conn, err := r.dial(k)
	if err != nil {
		r.t.Fatalf("dial: %v", err)
	}
	c := &client{t: r.t, r: r, conn: conn, stdout: &ilinktest.Buffer{}, stderr: &ilinktest.Buffer{}, ended: make(chan struct{})}
	r.t.Cleanup(func() { _ = conn.Close() })
	if c.sess, err = conn.NewSession(); err != nil {
		r.t.Fatalf("session: %v", err)
	}
	c.sess.Stdout, c.sess.Stderr = c.stdout, c.stderr
	if c.stdin, err = c.sess.StdinPipe(); err != nil {
		r.t.Fatal(err)
	}
	for k, v := range o.env {
		if err := c.sess.Setenv(k, v); err != nil {
			r.t.Fatalf("setenv %s: %v", k, err)
		}
	}
	if !o.noPty {
		if err := c.sess.RequestPty(o.term, o.h, o.w, gossh.TerminalModes{}); err != nil {
			r.t.Fatalf("pty: %v", err)
		}
	}
	if o.cmd != "" {
		err = c.sess.Start(o.cmd)
	} else {
		err = c.sess.Shell()
	}
	if err != nil {
		r.t.Fatalf("shell or command: %v", err)
	}
	go func() { c.werr = c.sess.Wait(); close(c.ended) }()
	return c
}

// openShown opens a session of k at the default size and waits for its
// overview (what names the wait in a failure).
func (r *rig) openShown(k clientKey, what string) *client {
	r.t.Helper()
	c := r.open(k, sessOpts{})
	c.waitScreen(what, overviewShown)
	return c
}

// info is the server's view of this client's session.
func (c *client) info() (SessionInfo, bool) {
	local := c.conn.LocalAddr().String()
	for _, s := range c.r.srv.Sessions() {
		if s.Remote == local {
			return s, true
		}
	}
	return SessionInfo{}, false
}

// resize changes the pty to w×h and waits for a frame of that size.
func (c *client) resize(w, h int) {
	c.t.Helper()
	if err := c.sess.WindowChange(h, w); err != nil {
		c.t.Fatalf("window change to %dx%d: %v", w, h, err)
	}
	c.waitSize(w, h)
}

// waitSize waits for the session to draw a w×h frame.
func (c *client) waitSize(w, h int) {
	c.t.Helper()
	ilinktest.WaitFor(c.t, deadline, fmt.Sprintf("a %dx%d frame", w, h), func() bool {
		in, _ := c.info()
		return in.Width == w && in.Height == h
	})
}

// waitScreen waits for the session's screen to satisfy pred and returns it.
func (c *client) waitScreen(what string, pred func(string) bool) string {
	c.t.Helper()
	var screen string
	if !ilinktest.Poll(deadline, func() bool {
		in, ok := c.info()
		if ok {
			screen = in.Screen
		}
		return ok && pred(screen)
	}) {
		c.t.Fatalf("timed out waiting for %s; last screen:\n%s", what, screen)
	}
	return screen
}

func (c *client) waitText(texts ...string) string {
	c.t.Helper()
	return c.waitScreen(fmt.Sprintf("%q", texts), func(s string) bool {
		for _, x := range texts {
			if !strings.Contains(s, x) {
				return false
			}
		}
		return true
	})
}

// send types raw bytes, as a terminal would send them.
func (c *client) send(s string) {
	c.t.Helper()
	if _, err := io.WriteString(c.stdin, s); err != nil {
		c.t.Fatalf("typing %q: %v", s, err)
	}
}

// done reports whether the session ended.
func (c *client) done() bool {
	select {
	case <-c.ended:
		return true
	default:
		return false
	}
}

// exitStatus waits for the session to end and returns its exit status
// (-1 when it ended without one).
func (c *client) exitStatus() int {
	c.t.Helper()
	select {
	case <-c.ended:
		err := c.werr
		var ee *gossh.ExitError
		switch {
		case err == nil:
			return 0
		case errors.As(err, &ee):
			return ee.ExitStatus()
		}
		return -1
	case <-time.After(deadline):
		c.t.Fatalf("session did not end; stderr %q", c.stderr.String())
	}
	return -1
}

// wantEnd waits for the session to end with exit status want, told
// something containing told on stderr (who names the session in a
// failure).
func (c *client) wantEnd(who string, want int, told string) {
	c.t.Helper()
	if code := c.exitStatus(); code != want {
		c.t.Fatalf("%s: exit status %d, want %d (stderr %q)", who, code, want, c.stderr.String())
	}
	if msg := c.stderr.String(); !strings.Contains(msg, told) {
		c.t.Fatalf("%s told %q, want %q", who, msg, told)
	}
}

// quitAll quits every client with q and wants each to exit 0.
func quitAll(t testing.TB, clients []*client) {
	t.Helper()
	for _, c := range clients {
		c.send("q")
	}
	for i, c := range clients {
		if code := c.exitStatus(); code != 0 {
			t.Fatalf("session %d: exit %d after q (stderr %q)", i, code, c.stderr.String())
		}
	}
}

// sessionOf returns the sources of the client's session (what its
// dashboard calls), for the tests that call the client layer directly.
func (s *Server) sessionOf(t testing.TB, c *client) *sessionSources {
	t.Helper()
	local := c.conn.LocalAddr().String()
	var src *sessionSources
	ilinktest.WaitFor(t, deadline, "the session's sources", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, ss := range s.sessions {
			if ss.remote == local {
				src = ss.src.Load()
			}
		}
		return src != nil
	})
	return src
}

var adminEarliest = admin.SeekTarget{Earliest: true}

func containsTopic(ts []engine.TopicInfo, name string) bool {
	for _, ti := range ts {
		if ti.Name == name {
			return true
		}
	}
	return false
}
