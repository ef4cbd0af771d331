package serve

// Attacks on the jump host, each as a hostile (or careless) SSH client
// would make it over real SSH on loopback, and what the server does about
// it (docs/SECURITY.md names each test).

import (
	"context"
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
	"ilinkdash/ilink"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/wire"
	"ilinkdash/ui/internal/viewtest"
	"ilinkdash/ui/views/tab"
)

const heapGoal = 64 << 20 // what one session may add whatever it asks

// A pty of 65535×65535 (the largest the protocol can say) is drawn at
// the clamp, and the session costs no more than any other.
func TestOversizedPtyIsClamped(t *testing.T) {
	// Not parallel: it measures the process's heap (Go runs it before the parallel tests).
	r := startRig(t, rigOpts{})
	r.openShown(r.viewer, "a first session's overview")
	before := viewtest.LiveHeap()

	c := r.open(r.viewer, sessOpts{w: 65535, h: 65535})
	c.waitScreen("the overview", overviewShown)
	in, _ := c.info()
	if in.Width != config.DefaultServeMaxColumns || in.Height != config.DefaultServeMaxRows {
		t.Fatalf("a 65535x65535 pty drew %dx%d, want the clamp %dx%d", in.Width, in.Height, config.DefaultServeMaxColumns, config.DefaultServeMaxRows)
	}
	c.send("2") // a table view at the clamp size
	c.waitText("Topics")
	if grown := int64(viewtest.LiveHeap()) - int64(before); grown > heapGoal {
		t.Fatalf("one 65535x65535 session took %d MiB of heap, more than %d MiB", grown>>20, heapGoal>>20)
	}
	hello := r.waitAudit("the connect", func(e AuditEntry) bool { return e.Event == EventConnect && e.Width > 120 })
	if hello.Width != config.DefaultServeMaxColumns || hello.Height != config.DefaultServeMaxRows {
		t.Fatalf("connect audited %dx%d, want the clamped size", hello.Width, hello.Height)
	}
}

// A flood of huge window changes leaves the session at the clamp (and the
// configured clamp is the one applied), answering keys.
func TestWindowChangeFloodIsClamped(t *testing.T) {
	// Not parallel: it measures the process's heap (Go runs it before the parallel tests).
	r := startRig(t, rigOpts{serve: func(s *config.Serve) { s.MaxColumns, s.MaxRows = 200, 80 }})
	c := r.openShown(r.operator, "the overview")
	before := viewtest.LiveHeap()
	for i := 0; i < 300; i++ {
		w, h := 65535-i, 65535-2*i
		if i%3 == 0 {
			w, h = 1000+i, 1000+i
		}
		if err := c.sess.WindowChange(h, w); err != nil {
			t.Fatalf("window change %d: %v", i, err)
		}
	}
	c.waitSize(200, 80)
	c.send("3")
	c.waitText("Groups")
	if in, _ := c.info(); in.Width > 200 || in.Height > 80 {
		t.Fatalf("after the flood the session draws %dx%d, over the 200x80 clamp", in.Width, in.Height)
	}
	if grown := int64(viewtest.LiveHeap()) - int64(before); grown > heapGoal {
		t.Fatalf("300 huge window changes took %d MiB of heap", grown>>20)
	}
	// A legitimate resize still works.
	c.resize(100, 30)
}

// produce sends n records of size bytes each to topic.
func (r *rig) produce(topic string, n, size int) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	p, err := ilink.NewProducer(ctx, strings.Join(r.e.DataAddrs(), ","), ilink.ProducerConfig{ClientName: "serve-test-producer", Acks: ilink.AcksAll})
	if err != nil {
		r.t.Fatalf("producer: %v", err)
	}
	defer p.Close()
	val := []byte(strings.Repeat("v", size))
	for i := 0; i < n; i++ {
		if _, err := p.SendSync(ctx, &ilink.ProducerRecord{Topic: topic, Key: []byte(fmt.Sprintf("k-%d", i)), Value: val}); err != nil {
			r.t.Fatalf("send %d: %v", i, err)
		}
	}
}

// saveTail opens a session of k tailing the topic SAVE, which n records
// then reach, and presses w there (save the tail).
func (r *rig) saveTail(k clientKey, n int) *client {
	r.t.Helper()
	c := r.openShown(k, "the overview")
	c.openTail("SAVE")
	r.produce("SAVE", n, 10)
	c.waitText(fmt.Sprintf("%d total", n))
	c.send("w")
	return c
}

// dirNames lists a directory (nil when it does not exist).
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// A viewer's `w` writes nothing on the jump host, even with a save
// directory configured, and is told why; so is an operator's when saving
// is off.
func TestViewerSaveRefused(t *testing.T) {
	t.Parallel()
	saves := filepath.Join(t.TempDir(), "saves")
	r := startRig(t, rigOpts{maxTails: 2, serve: func(s *config.Serve) { s.SaveDir = saves }})
	r.createTopics("partitions=1", "SAVE")
	cwd, _ := os.Getwd()
	was := dirNames(t, cwd)
	c := r.saveTail(r.viewer, 5)
	c.waitText("only operators may")
	src := r.srv.sessionOf(t, c)
	if _, _, err := src.SaveTail(context.Background(), "SAVE", 1, func(w io.Writer) (int64, error) {
		n, err := io.WriteString(w, "x\n")
		return int64(n), err
	}); err == nil || !strings.Contains(err.Error(), "only operators may") {
		t.Fatalf("a viewer's direct SaveTail: %v, want the operators-only refusal", err)
	}
	if got := dirNames(t, saves); len(got) != 0 {
		t.Fatalf("a viewer's save wrote %v", got)
	}
	if now := dirNames(t, cwd); len(now) != len(was) {
		t.Fatalf("the server's working directory changed: %v → %v", was, now)
	}

	// Saving off: the operator is told so, and nothing is written either.
	r2 := startRig(t, rigOpts{maxTails: 2})
	op := r2.openShown(r2.operator, "the overview")
	if _, err := r2.srv.sessionOf(t, op).SavePlace(); err == nil || !strings.Contains(err.Error(), "saving is off on this server") {
		t.Fatalf("operator without --save-dir: %v", err)
	}
}

// An operator's save goes into --save-dir under the server's name, is
// audited, and cannot leave the directory through the target's name or a
// symlink planted where the name would be; a save over the cap writes
// nothing.
func TestOperatorSaveConfinedToSaveDir(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	saves, outside := filepath.Join(base, "saves"), filepath.Join(base, "outside")
	if err := os.MkdirAll(outside, 0o700); err != nil {
		t.Fatal(err)
	}
	r := startRig(t, rigOpts{maxTails: 2, serve: func(s *config.Serve) { s.SaveDir, s.SaveMaxBytes = saves, 64<<10 }})
	r.createTopics("partitions=1", "SAVE")
	c := r.saveTail(r.operator, 7)
	c.waitText("to a new file the server names in", filepath.Base(saves)+".")
	c.send("\r")
	c.waitText("saved 7 records")
	names := dirNames(t, saves)
	if len(names) != 1 || !strings.HasPrefix(names[0], "tail-") || !strings.HasSuffix(names[0], ".jsonl") {
		t.Fatalf("save directory holds %v, want one tail-….jsonl", names)
	}
	st, err := os.Stat(filepath.Join(saves, names[0]))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("saved file: %v mode %v, want 0600", err, st.Mode())
	}
	data, _ := os.ReadFile(filepath.Join(saves, names[0]))
	if n := strings.Count(string(data), "\n"); n != 7 {
		t.Fatalf("saved file has %d lines, want 7", n)
	}
	r.waitAudit("the save's audit entry", func(e AuditEntry) bool {
		return e.Action == "tail-save" && e.Target == "SAVE" && e.Outcome == OutcomeOK && e.Detail == "records=7"
	})

	// Names from hostile targets stay names; a symlink where the name
	// would be is neither followed nor overwritten.
	src := r.srv.sessionOf(t, c)
	line := func(w io.Writer) (int64, error) { n, err := io.WriteString(w, "{}\n"); return int64(n), err }
	for _, target := range []string{"../outside/x", "/etc/passwd", "..", "a/../../b"} {
		name, _, err := src.SaveTail(context.Background(), target, 1, line)
		if err != nil {
			t.Fatalf("save of %q: %v", target, err)
		}
		if strings.ContainsAny(name, "/\\") || strings.HasPrefix(name, ".") {
			t.Fatalf("save of %q named %q", target, name)
		}
		if _, err := os.Stat(filepath.Join(saves, name)); err != nil {
			t.Fatalf("save of %q is not in the save directory: %v", target, err)
		}
	}
	planted := saveName(src.sess.id, "PLANT", time.Now()) + ".jsonl"
	if err := os.Symlink(filepath.Join(outside, "victim"), filepath.Join(saves, planted)); err != nil {
		t.Fatal(err)
	}
	if name, _, err := src.SaveTail(context.Background(), "PLANT", 1, line); err != nil || name == planted {
		t.Fatalf("save beside a planted symlink: name %q, %v", name, err)
	}
	if got := dirNames(t, outside); len(got) != 0 {
		t.Fatalf("a save escaped the save directory: %v", got)
	}

	// Over the cap: an error naming the cap, no file left.
	count := len(dirNames(t, saves))
	_, _, err = src.SaveTail(context.Background(), "BIG", 1, func(w io.Writer) (int64, error) {
		n, err := w.Write(make([]byte, 128<<10))
		return int64(n), err
	})
	if err == nil || !strings.Contains(err.Error(), "--save-max-bytes") {
		t.Fatalf("a save over the cap: %v", err)
	}
	if got := len(dirNames(t, saves)); got != count {
		t.Fatalf("a save over the cap left a file (%d → %d)", count, got)
	}
}

// Emptying the operators' file ends the open operator session within 5 s,
// told and audited as revoked; an action in between is refused.
func TestRevokedKeySessionEnds(t *testing.T) {
	t.Parallel()
	r := startRig(t, rigOpts{})
	c := r.openShown(r.operator, "the overview")
	src := r.srv.sessionOf(t, c)
	ops := filepath.Join(r.dir, "operators")
	writeKeys(t, ops)
	touch(t, ops)
	revoked := time.Now()
	err := src.CreateTopic(context.Background(), tab.TopicSpec{Name: "AFTER.REVOKE", Partitions: 1, Replicas: 1})
	if err == nil {
		t.Fatal("an action after the key's removal was let through")
	}
	c.wantEnd("the revoked session", 1, "removed from the server's key files")
	if took := time.Since(revoked); took > 5*time.Second {
		t.Fatalf("the revoked session ended after %v, want within 5 s", took)
	}
	if containsTopic(r.e.Topics(), "AFTER.REVOKE") {
		t.Fatal("the revoked session created a topic")
	}
	r.waitAudit("the refused action", func(e AuditEntry) bool {
		return e.Action == "create-topic" && e.Outcome == OutcomeRefused
	})
	r.waitAudit("the revoked disconnect", func(e AuditEntry) bool {
		return e.Event == EventDisconnect && e.Reason == reasonRevoked && e.Fingerprint == r.operator.fingerprint()
	})
}

// An operator key moved to the viewers' file loses its operator session
// (the watcher, without any action); it may reconnect read-only.
func TestDemotedKeySessionEnds(t *testing.T) {
	t.Parallel()
	r := startRig(t, rigOpts{})
	c := r.openShown(r.operator, "the overview")
	writeKeys(t, filepath.Join(r.dir, "operators"))
	writeKeys(t, filepath.Join(r.dir, "viewers"), r.viewer, r.operator)
	touch(t, filepath.Join(r.dir, "operators"))
	touch(t, filepath.Join(r.dir, "viewers"))
	c.wantEnd("the demoted session", 1, "no longer an operator's")
	r.waitAudit("the role-changed disconnect", func(e AuditEntry) bool {
		return e.Event == EventDisconnect && e.Reason == reasonDemoted
	})
	again := r.open(r.operator, sessOpts{})
	if in := again.waitScreenInfo(t); !in.ReadOnly || in.Identity.Role != RoleViewer {
		t.Fatalf("reconnected as %+v read-only %v, want a viewer", in.Identity, in.ReadOnly)
	}
}

// waitClosed waits for an SSH connection to be closed by the server.
func waitClosed(t *testing.T, conn *gossh.Client, what string) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- conn.Wait() }()
	select {
	case <-done:
	case <-time.After(deadline):
		t.Fatalf("%s: the server kept the connection", what)
	}
}

// An authenticated connection that opens no dashboard is closed after
// --open-timeout, and so is one whose dashboard ended; both are audited.
func TestAuthenticatedIdleConnectionClosed(t *testing.T) {
	t.Parallel()
	r := startRig(t, rigOpts{serve: func(s *config.Serve) { s.OpenTimeout = 500 * time.Millisecond }})
	conn, err := r.dial(r.viewer)
	if err != nil {
		t.Fatal(err)
	}
	waitClosed(t, conn, "an authenticated connection without a session")
	r.waitAudit("the no-dashboard refusal", func(e AuditEntry) bool {
		return e.Event == EventRefused && e.Reason == refusedOpen && e.Fingerprint == r.viewer.fingerprint()
	})

	// A session without a pty never becomes a dashboard either.
	conn, err = r.dial(r.viewer)
	if err != nil {
		t.Fatal(err)
	}
	if sess, err := conn.NewSession(); err == nil {
		_ = sess.Setenv("A", "b")
	}
	waitClosed(t, conn, "a connection with a session channel but no shell")

	// After its dashboard ends, the connection goes the same way.
	c := r.openShown(r.viewer, "the overview")
	c.send("q")
	if code := c.exitStatus(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	waitClosed(t, c.conn, "a connection whose dashboard ended")
}

// Environment requests are bounded in count and bytes per session; the
// refusal is logged once and the session still works.
func TestEnvFloodBounded(t *testing.T) {
	t.Parallel()
	r := startRig(t, rigOpts{})
	conn, err := r.dial(r.operator)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	sess, err := conn.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 1000)
	accepted, refused := 0, 0
	for i := 0; i < 200; i++ {
		if err := sess.Setenv(fmt.Sprintf("V%d", i), big); err != nil {
			refused++
		} else {
			accepted++
		}
	}
	if accepted == 0 || accepted > maxEnvVars || accepted*1000 > maxEnvBytes || refused == 0 {
		t.Fatalf("%d env requests of 1000 B accepted, %d refused; want at most %d / %d bytes", accepted, refused, maxEnvVars, maxEnvBytes)
	}
	r.waitAudit("the env refusal", func(e AuditEntry) bool { return e.Event == EventRefused && e.Reason == refusedEnv })
	n := 0
	for _, e := range r.auditEntries() {
		if e.Reason == refusedEnv {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d env refusals audited for one flood, want 1", n)
	}
	// The same session goes on to a dashboard.
	if err := sess.RequestPty("xterm", 30, 100, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	ilinktest.WaitFor(t, deadline, "the dashboard", func() bool { return len(r.srv.Sessions()) == 1 })

	// A TERM longer than any terminal's name is refused with the pty.
	s2, err := conn.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := s2.RequestPty(strings.Repeat("t", 200<<10), 30, 100, gossh.TerminalModes{}); err == nil {
		t.Fatal("a 200 KiB TERM was accepted")
	}
	// So are terminal modes beyond any real terminal's (5 bytes each).
	modes := gossh.TerminalModes{}
	for op := uint8(1); op < 250; op++ {
		modes[op] = 1
	}
	if err := s2.RequestPty("xterm", 30, 100, modes); err == nil {
		t.Fatalf("a pty request with %d terminal modes was accepted", len(modes))
	}
}

// Connections that never finish the handshake are capped: one over
// --max-startups is closed at once, and a real client gets in once one
// of them goes.
func TestUnauthenticatedConnectionsCapped(t *testing.T) {
	t.Parallel()
	r := startRig(t, rigOpts{serve: func(s *config.Serve) { s.MaxStartups = 3 }})
	var idle []net.Conn
	for i := 0; i < 3; i++ {
		nc, err := net.Dial("tcp", r.addr)
		if err != nil {
			t.Fatal(err)
		}
		idle = append(idle, nc)
	}
	// Each idle socket has its slot once the server read its version line.
	ilinktest.WaitFor(t, deadline, "three counted startups", func() bool {
		r.srv.gate.mu.Lock()
		defer r.srv.gate.mu.Unlock()
		return r.srv.gate.pending == 3
	})
	over, err := net.Dial("tcp", r.addr)
	if err != nil {
		t.Fatal(err)
	}
	_ = over.SetReadDeadline(time.Now().Add(deadline))
	if _, err := io.ReadAll(over); err != nil {
		t.Fatalf("the connection over the cap was not closed: %v", err)
	}
	over.Close()
	if _, err := r.dial(r.viewer); err == nil {
		t.Fatal("a client got in past a full --max-startups")
	}
	r.waitAudit("the max-startups refusal", func(e AuditEntry) bool { return e.Event == EventRefused && e.Reason == refusedStartups })
	idle[0].Close()
	ilinktest.WaitFor(t, deadline, "the slot back", func() bool {
		r.srv.gate.mu.Lock()
		defer r.srv.gate.mu.Unlock()
		return r.srv.gate.pending == 2
	})
	r.openShown(r.viewer, "the overview")
	for _, nc := range idle[1:] {
		nc.Close()
	}
}

// One connection holds at most maxChannels session channels, and one key
// at most --max-sessions-per-key dashboards.
func TestChannelAndPerKeyLimits(t *testing.T) {
	t.Parallel()
	r := startRig(t, rigOpts{serve: func(s *config.Serve) { s.MaxSessionsPerKey = 1 }})
	conn, err := r.dial(r.viewer)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for i := 0; i < maxChannels; i++ {
		if _, err := conn.NewSession(); err != nil {
			t.Fatalf("session channel %d: %v", i+1, err)
		}
	}
	if _, err := conn.NewSession(); err == nil {
		t.Fatalf("a connection opened %d session channels", maxChannels+1)
	}
	// No other channel or forward is served: -L, -R (and so -D) fail.
	if fc, err := conn.Dial("tcp", r.addr); err == nil {
		fc.Close()
		t.Fatal("a local forward (direct-tcpip) was opened")
	}
	if ln, err := conn.Listen("tcp", "127.0.0.1:0"); err == nil {
		ln.Close()
		t.Fatal("a remote forward (tcpip-forward) was granted")
	}

	r.openShown(r.operator, "the overview")
	second := r.open(r.operator, sessOpts{})
	second.wantEnd("a second session of a key limited to 1", 1, "--max-sessions-per-key")
	r.waitAudit("the per-key refusal", func(e AuditEntry) bool {
		return e.Event == EventRefused && e.Reason == refusedPerKey && e.Fingerprint == r.operator.fingerprint()
	})
	r.openShown(r.viewer, "the viewer's overview") // another key is not limited by it
}

// The README's worst case, measured: --max-sessions sessions at the clamp
// size, --max-tails of them tailing 1 MB records until their buffers are
// full. What serve adds stays within max-sessions × sessionBound plus
// max-tails × (--tail-buffer-bytes + tailSlack), on top of the records
// the in-process engine itself stores.
func TestServeWorstCaseMemory(t *testing.T) {
	if raceEnabled {
		t.Skip("a memory measure, meaningless under the race detector")
	}
	const (
		sessions, tails = 16, 4
		tailBytes       = 8 << 20
		sessionBound    = 10 << 20 // a dashboard at the 300x100 clamp: ~250 B a cell
		tailSlack       = 4 << 20  // a tail's consumer: its fetch in flight
		recordSize      = 1000_000
		records         = 24
	)
	r := startRig(t, rigOpts{maxSessions: sessions, maxTails: tails, serve: func(s *config.Serve) {
		s.TailBufferBytes = tailBytes
		s.MaxSessionsPerKey = sessions
	}})
	r.createTopics("partitions=1", "BIG")
	before := viewtest.LiveHeap()
	var cs []*client
	for i := 0; i < sessions; i++ {
		k := r.viewer
		if i%2 == 1 {
			k = r.operator
		}
		c := r.open(k, sessOpts{w: 65535, h: 65535})
		c.waitScreen("an overview", overviewShown)
		cs = append(cs, c)
	}
	t.Logf("sessions open: +%.1f MiB", float64(int64(viewtest.LiveHeap())-int64(before))/(1<<20))
	for _, c := range cs[:tails] {
		c.openTail("BIG")
	}
	t.Logf("tails open: +%.1f MiB", float64(int64(viewtest.LiveHeap())-int64(before))/(1<<20))
	r.produce("BIG", records, recordSize)
	t.Logf("produced: +%.1f MiB", float64(int64(viewtest.LiveHeap())-int64(before))/(1<<20))
	for _, c := range cs[:tails] {
		c.waitText(fmt.Sprintf("%d total", records))
	}
	grown := int64(viewtest.LiveHeap()) - int64(before)
	bound := int64(sessions*sessionBound + tails*(tailBytes+tailSlack) + records*recordSize)
	t.Logf("%d sessions at the clamp, %d tails of %d × 1 MiB records: +%.1f MiB live heap (bound %.1f MiB, of which %d MiB the engine's records)",
		sessions, tails, records, float64(grown)/(1<<20), float64(bound)/(1<<20), records*recordSize>>20)
	if grown > bound {
		t.Fatalf("serve grew %d MiB, over the stated bound of %d MiB", grown>>20, bound>>20)
	}
}

// A TERM (the client's to say, as a group name or an error text is the
// cluster's) with a C1 control, a bidi override and a DEL reaches the
// audit log escaped (sanitize.JSON), as every JSON ilinkdash writes: an
// administrator reading the log on a terminal sees the characters named,
// not obeyed, and the line still decodes to what the client sent.
func TestAuditLogEscapesHostileText(t *testing.T) {
	t.Parallel()
	r := startRig(t, rigOpts{})
	term := "xterm\u009b31m\u202eevil\x7f"
	c := r.open(r.viewer, sessOpts{term: term})
	c.waitScreen("an overview", overviewShown)
	got := r.waitAudit("the connect", func(e AuditEntry) bool { return e.Event == EventConnect })
	if got.Term != term {
		t.Fatalf("audited TERM %q, want %q", got.Term, term)
	}
	data, err := os.ReadFile(r.audit)
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{"\u009b", "\u202e", "\x7f"} {
		if strings.Contains(string(data), raw) {
			t.Errorf("the audit log holds %q raw:\n%s", raw, data)
		}
	}
	if !strings.Contains(string(data), `xterm\u009b31m\u202eevil\u007f`) {
		t.Errorf("the audit log does not hold the TERM escaped:\n%s", data)
	}
}

// A burst of refusals is one audit line a second, and the burst's others
// are counted even when no refusal of that kind follows it: the last one
// held back is written once its second is over, with the count of the
// rest, so the audit log accounts for every connection turned away.
func TestRefusalBurstCounted(t *testing.T) {
	t.Parallel()
	r := startRig(t, rigOpts{serve: func(s *config.Serve) { s.MaxStartups = 1 }})
	hold, err := net.Dial("tcp", r.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Close()
	ilinktest.WaitFor(t, deadline, "the one startup counted", func() bool {
		r.srv.gate.mu.Lock()
		defer r.srv.gate.mu.Unlock()
		return r.srv.gate.pending == 1
	})
	const burst = 6
	for i := 0; i < burst; i++ {
		nc, err := net.Dial("tcp", r.addr)
		if err != nil {
			t.Fatal(err)
		}
		_ = nc.SetReadDeadline(time.Now().Add(deadline))
		if _, err := io.ReadAll(nc); err != nil {
			t.Fatalf("connection %d over the cap was not closed: %v", i, err)
		}
		nc.Close()
	}
	counted := func() (lines, total int) {
		for _, e := range r.auditEntries() {
			if e.Event != EventRefused || e.Reason != refusedStartups {
				continue
			}
			lines++
			total++
			var more int
			if i := strings.Index(e.Detail, "(and "); i >= 0 {
				fmt.Sscanf(e.Detail[i:], "(and %d more", &more)
			}
			total += more
		}
		return lines, total
	}
	ilinktest.WaitFor(t, deadline, fmt.Sprintf("%d max-startups refusals accounted for", burst), func() bool {
		_, total := counted()
		return total == burst
	})
	if lines, total := counted(); lines > 3 || total != burst {
		t.Fatalf("%d refusals audited as %d lines counting %d", burst, lines, total)
	}
}

// The publish form's File field would read a file where the dashboard
// runs: in a served session that is the jump host, whose files are not the
// SSH user's (the host key, other users' keys). An operator's File is
// refused naming the field, before anything is read: the review does not
// say whether the file exists or how large it is, and nothing is sent.
func TestPublishFileOfTheServerRefused(t *testing.T) {
	t.Parallel()
	r := startRig(t, rigOpts{})
	r.createTopics("partitions=1", "LEAK")
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("the server's secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := r.openShown(r.operator, "the overview")
	for _, path := range []string{secret, secret + ".missing"} {
		c.send(":publish LEAK\r")
		c.waitText("Publish to LEAK")
		c.send("jj\r" + path + "\x13") // down to File, edit, type, ctrl+s
		screen := c.waitText("reads no file on the server")
		if strings.Contains(screen, "Send 1 record") || strings.Contains(screen, "19B") || strings.Contains(screen, "no such file") {
			t.Fatalf("the File field %s was read:\n%s", path, screen)
		}
		c.send("\x1b")
		c.send("\x15") // ctrl+u: clear the field for the next path
		c.send("\x1b")
	}
	if n := r.e.RequestCounts()[wire.CodeProduce]; n != 0 {
		t.Fatalf("%d produce requests reached the engine", n)
	}
}

// A stopped session whose program does not end (a client that stopped
// reading blocks its writes, and with them every message, stop's Quit
// included) has its connection closed after stopGrace: revocation, the
// idle timeout and shutdown did not end it, and it held its slot. One
// that ends within the grace is left alone; stop again starts no second
// timer.
func TestStopClosesWhatDoesNotEnd(t *testing.T) {
	t.Parallel()
	stuck := func() (*session, chan time.Time, context.CancelFunc) {
		ctx, cancel := context.WithCancel(context.Background())
		killed := make(chan time.Time, 2)
		return &session{ctx: ctx, kill: func() { killed <- time.Now() }}, killed, cancel
	}
	ss, killed, cancel := stuck()
	defer cancel()
	stopped := time.Now()
	ss.stop(reasonRevoked)
	ss.stop(reasonRevoked) // the key watcher, a second later
	select {
	case at := <-killed:
		if at.Sub(stopped) < stopGrace {
			t.Fatalf("killed %v after the stop, before its grace of %v", at.Sub(stopped), stopGrace)
		}
	case <-time.After(stopGrace + 10*time.Second):
		t.Fatal("a session whose program did not end kept its connection")
	}
	if ss.stopReason() != reasonRevoked {
		t.Fatalf("reason %q", ss.stopReason())
	}
	ends, endsKilled, end := stuck()
	ends.stop(reasonIdle)
	end() // its program ended within the grace
	select {
	case <-killed:
		t.Fatal("a second kill for one stop")
	case <-endsKilled:
		t.Fatal("a session that ended was killed")
	case <-time.After(stopGrace + time.Second):
	}
}

// The server's idle backstop stops a session whose dashboard took no
// input for the idle timeout and the grace: the idle timer is the
// program's own, which a program blocked on its client never takes.
func TestIdleBackstopOutsideTheProgram(t *testing.T) {
	t.Parallel()
	r := startRig(t, rigOpts{idle: time.Second})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	killed := make(chan struct{}, 1)
	ss := &session{ctx: ctx, key: r.operator.signer.PublicKey(), who: Identity{Role: RoleOperator, Fingerprint: r.operator.fingerprint()},
		kill: func() { killed <- struct{}{} }}
	ss.lastInput.Store(time.Now().Add(-time.Second - stopGrace - time.Second).UnixNano())
	r.srv.mu.Lock()
	r.srv.sessions[1<<40] = ss
	r.srv.mu.Unlock()
	defer func() {
		r.srv.mu.Lock()
		delete(r.srv.sessions, 1<<40)
		r.srv.mu.Unlock()
	}()
	r.srv.recheckSessions()
	if ss.stopReason() != reasonIdle {
		t.Fatalf("reason %q, want idle", ss.stopReason())
	}
	select {
	case <-killed:
	case <-time.After(stopGrace + 10*time.Second):
		t.Fatal("the idle session's connection was not closed")
	}
}
