package serve

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"ilinkdash/ilink/consumer"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/wire"
)

// overviewShown: the dashboard's first real frame, the tab bar with the
// overview and the node row of the one-node engine.
func overviewShown(s string) bool {
	return strings.Contains(s, "1 Overview") && strings.Contains(s, "QM1")
}

func TestUnknownKeyRefusedAtAuthentication(t *testing.T) {
	t.Parallel()
	r := startRig(t, rigOpts{})
	stranger := newClientKey(t, "eve@nowhere")
	conn, err := r.dial(stranger)
	if err == nil {
		conn.Close()
		t.Fatal("a key in neither file was let in")
	}
	if !strings.Contains(err.Error(), "unable to authenticate") {
		t.Fatalf("refusal: %v, want an authentication failure", err)
	}
	if n := len(r.srv.Sessions()); n != 0 {
		t.Fatalf("%d sessions after a refused key", n)
	}

	// Key files are re-read when they change: the stranger added to the
	// viewers gets in; removed again, it is refused again.
	writeKeys(t, filepath.Join(r.dir, "viewers"), r.viewer, stranger)
	touch(t, filepath.Join(r.dir, "viewers"))
	c := r.open(stranger, sessOpts{})
	if in := c.waitScreenInfo(t); in.Identity.Comment != "eve@nowhere" || in.Identity.Role != RoleViewer || !in.ReadOnly {
		t.Fatalf("added key: identity %+v read-only %v", in.Identity, in.ReadOnly)
	}
	writeKeys(t, filepath.Join(r.dir, "viewers"), r.viewer)
	touch(t, filepath.Join(r.dir, "viewers"))
	if conn, err := r.dial(stranger); err == nil {
		conn.Close()
		t.Fatal("a key removed from the file was still let in")
	}
}

// touch moves the file's modification time forward, so the change is
// seen even on a file system with a coarse clock.
func touch(t *testing.T, path string) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	later := st.ModTime().Add(time.Second)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
}

func (c *client) waitScreenInfo(t *testing.T) SessionInfo {
	t.Helper()
	c.waitScreen("the overview", overviewShown)
	in, _ := c.info()
	return in
}

func TestNoPtyGetsOneLineAndExitOne(t *testing.T) {
	t.Parallel()
	r := startRig(t, rigOpts{})
	c := r.open(r.operator, sessOpts{noPty: true})
	c.wantEnd("a session without a pty", 1, "needs a terminal")
	if msg := c.stderr.String(); strings.Count(strings.TrimSpace(msg), "\n") != 0 {
		t.Fatalf("stderr %q, want one line saying a terminal is needed", msg)
	}
	if c.stdout.Len() != 0 {
		t.Fatalf("stdout got %q", c.stdout.String())
	}
	// It is audited, as a connection turned away is; it was not.
	e := r.waitAudit("the no-pty refusal", func(e AuditEntry) bool { return e.Event == EventRefused })
	if e.Reason != "no-pty" || e.Fingerprint != r.operator.fingerprint() || e.Remote == "" || !strings.Contains(e.Detail, "needs a terminal") {
		t.Fatalf("audit entry %+v", e)
	}
}

// A session asking for a context the server does not serve is turned
// away naming what is served, and audited; one cluster has no fleet to
// offer (it said "or without one for the fleet").
func TestUnknownContextRefusedAndAudited(t *testing.T) {
	t.Parallel()
	r := startRig(t, rigOpts{})
	c := r.open(r.operator, sessOpts{cmd: "nope"})
	c.wantEnd("a session asking for a context not served", 1, `no context "nope" here; this server serves serve-test`)
	if msg := c.stderr.String(); !strings.Contains(msg, "(ssh -t HOST -p PORT CONTEXT), or without one\r\n") {
		t.Fatalf("stderr %q: want it to end 'or without one' (no fleet here)", msg)
	}
	e := r.waitAudit("the refusal", func(e AuditEntry) bool { return e.Event == EventRefused })
	if e.Reason != "command" || e.Fingerprint != r.operator.fingerprint() || !strings.Contains(e.Detail, `no context "nope" here`) {
		t.Fatalf("audit entry %+v", e)
	}
}

func TestQuitEndsWithExitZero(t *testing.T) {
	t.Parallel()
	r := startRig(t, rigOpts{})
	c := r.open(r.operator, sessOpts{})
	screen := c.waitScreen("the overview", overviewShown)
	if strings.Contains(strings.Split(screen, "\n")[0], " RO ") {
		t.Fatalf("operator session shows the RO badge:\n%s", screen)
	}
	if !strings.Contains(screen, "ssh otto@operator · operator") {
		t.Fatalf("status line does not say who is connected:\n%s", screen)
	}
	c.send("q")
	if code := c.exitStatus(); code != 0 {
		t.Fatalf("exit status %d after q, want 0 (stderr %q)", code, c.stderr.String())
	}
	ilinktest.WaitFor(t, deadline, "the session to be gone", func() bool { return len(r.srv.Sessions()) == 0 })
	bye := r.waitAudit("the disconnect", func(e AuditEntry) bool { return e.Event == EventDisconnect })
	if bye.Reason != reasonQuit || bye.Fingerprint != r.operator.fingerprint() || bye.Comment != "otto@operator" || bye.Role != "operator" {
		t.Fatalf("disconnect entry %+v", bye)
	}
	hello := r.waitAudit("the connect", func(e AuditEntry) bool { return e.Event == EventConnect })
	if hello.Term != "xterm-256color" || hello.Width != 120 || hello.Height != 40 || hello.Session != bye.Session {
		t.Fatalf("connect entry %+v", hello)
	}
}

func TestResizeReachesTheSession(t *testing.T) {
	t.Parallel()
	r := startRig(t, rigOpts{})
	c := r.open(r.viewer, sessOpts{w: 100, h: 30})
	c.waitScreen("the overview", overviewShown)
	in, _ := c.info()
	if in.Width != 100 || in.Height != 30 {
		t.Fatalf("first frame %dx%d, want the pty's 100x30", in.Width, in.Height)
	}
	c.resize(133, 37)
}

// Viewers get a read-only dashboard: the RO badge, no mutating key does
// anything, and the client layer refuses a direct call.
func TestViewerIsReadOnly(t *testing.T) {
	t.Parallel()
	r := startRig(t, rigOpts{})
	r.createTopics("partitions=1", "KEEP.ME")
	c := r.open(r.viewer, sessOpts{})
	screen := c.waitScreen("the overview", overviewShown)
	if !strings.Contains(strings.Split(screen, "\n")[0], " RO ") {
		t.Fatalf("viewer session has no RO badge:\n%s", screen)
	}
	if !strings.Contains(screen, "ssh vera@viewer · read-only") {
		t.Fatalf("status line does not say read-only:\n%s", screen)
	}
	c.send("2")
	c.waitText("KEEP.ME")
	// The mutating keys of the topics view: delete, flush, new, publish.
	c.send("D")
	c.send("F")
	c.send("n")
	c.send("p")
	// Then something visible, so the keys above have been handled.
	c.send("?")
	help := c.waitText("Keys")
	for _, dialog := range []string{"Delete topic", "Flush topic", "Create topic", "Publish to"} {
		if strings.Contains(help, dialog) {
			t.Fatalf("a viewer's key opened %q:\n%s", dialog, help)
		}
	}
	before := r.e.RequestCounts()
	if n := before[wire.CodeDeleteTopic] + before[wire.CodeFlushTopic] + before[wire.CodeAdminCreateTopic]; n != 0 {
		t.Fatalf("the engine saw %d mutating requests", n)
	}

	// A direct call through the viewer session's sources: the client
	// layer refuses it, nothing reaches the engine, and it is audited.
	ss := r.srv.sessionOf(t, c)
	err := ss.DeleteTopic(t.Context(), "KEEP.ME")
	if err == nil || !strings.Contains(err.Error(), wire.ErrReadOnly) {
		t.Fatalf("viewer DeleteTopic: %v, want %s", err, wire.ErrReadOnly)
	}
	c.waitText("delete-topic KEEP.ME refused: read-only (audited)")
	if _, err := ss.SeekGroup(t.Context(), "G", "", adminEarliest, true); err == nil || !strings.Contains(err.Error(), wire.ErrReadOnly) {
		t.Fatalf("viewer SeekGroup apply: %v, want %s", err, wire.ErrReadOnly)
	}
	after := r.e.RequestCounts()
	if after[wire.CodeDeleteTopic] != 0 || after[wire.CodeSeekGroup] != 0 {
		t.Fatalf("a refused call reached the engine: %v", after)
	}
	if ts := r.e.Topics(); !containsTopic(ts, "KEEP.ME") {
		t.Fatalf("topic gone after a refused delete: %v", ts)
	}
	e := r.waitAudit("the refused delete", func(e AuditEntry) bool { return e.Action == "delete-topic" })
	if e.Outcome != OutcomeRefused || e.Target != "KEEP.ME" || e.Role != "viewer" || e.Fingerprint != r.viewer.fingerprint() {
		t.Fatalf("audit entry %+v", e)
	}
}

// Operators may mutate: a topic deleted from the dashboard over SSH is
// gone at the engine, the audit log records who did it, and the acting
// session's status line shows the audited outcome.
func TestOperatorMutatesAndIsAudited(t *testing.T) {
	t.Parallel()
	r := startRig(t, rigOpts{})
	r.createTopics("partitions=1", "DROP.ME")
	c := r.openShown(r.operator, "the overview")
	c.send("2")
	c.waitText("DROP.ME")
	c.send("D")
	c.waitText("Delete topic DROP.ME")
	c.send("\r") // the dialog opens navigating: enter edits the name line
	c.send("DROP.ME")
	c.send("\r")
	e := r.waitAudit("the delete in the audit log", func(e AuditEntry) bool { return e.Action == "delete-topic" })
	if e.Outcome != OutcomeOK || e.Target != "DROP.ME" || e.Role != "operator" ||
		e.Fingerprint != r.operator.fingerprint() || e.Comment != "otto@operator" || e.Event != EventAction || e.Time.IsZero() {
		t.Fatalf("audit entry %+v", e)
	}
	// It records what the delete took, as the topic list the preview was
	// made from showed it; the line said only "delete-topic DROP.ME".
	if !regexp.MustCompile(`^records=0 partitions=1 seen=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`).MatchString(e.Detail) {
		t.Fatalf("audit detail %q: want what the topic list showed", e.Detail)
	}
	if containsTopic(r.e.Topics(), "DROP.ME") {
		t.Fatal("the topic still exists at the engine")
	}
	c.waitText("✓ delete-topic DROP.ME (audited)")
	// The shared poller was invalidated: the list no longer shows it.
	c.waitScreen("the topic gone from the list", func(s string) bool {
		return strings.Contains(s, "deleted") && !strings.Contains(strings.SplitN(s, "\n", 3)[2], "DROP.ME  ")
	})

	// A failure is audited with its error.
	ss := r.srv.sessionOf(t, c)
	if err := ss.DeleteTopic(t.Context(), "NO.SUCH.TOPIC"); err == nil {
		t.Fatal("deleting a missing topic succeeded")
	}
	f := r.waitAudit("the failed delete", func(e AuditEntry) bool { return e.Target == "NO.SUCH.TOPIC" })
	if f.Outcome != OutcomeError || f.Error == "" {
		t.Fatalf("failed action entry %+v", f)
	}
}

func TestMaxSessions(t *testing.T) {
	t.Parallel()
	r := startRig(t, rigOpts{maxSessions: 2})
	a := r.openShown(r.operator, "session a")
	r.openShown(r.viewer, "session b")
	c := r.open(r.viewer, sessOpts{})
	c.wantEnd("third session", 1, "all 2 sessions are in use")
	// A freed slot is usable again.
	a.send("q")
	if code := a.exitStatus(); code != 0 {
		t.Fatalf("a: exit %d", code)
	}
	ilinktest.WaitFor(t, deadline, "a's slot to be free", func() bool { return len(r.srv.Sessions()) == 1 })
	r.openShown(r.viewer, "session d")
}

func TestIdleTimeout(t *testing.T) {
	t.Parallel()
	r := startRig(t, rigOpts{idle: 600 * time.Millisecond})
	idle := r.open(r.viewer, sessOpts{})
	busy := r.open(r.operator, sessOpts{})
	// busy types (harmless keys: help on and off) more often than the
	// timeout from the moment it opened, as the timer runs from there (on
	// a loaded machine the first overview can take longer than 600 ms to
	// appear, and so can opening another session: idle is opened first),
	// until idle has ended and busy shows its overview. idle does nothing.
	busyShown := func() bool {
		in, ok := busy.info()
		return ok && overviewShown(in.Screen)
	}
	end := time.Now().Add(deadline)
	for !(idle.done() && busyShown()) && time.Now().Before(end) {
		busy.send("??")
		// The typing cadence (well inside the 600 ms timeout) is what is
		// under test here, not a wait for something.
		time.Sleep(100 * time.Millisecond)
	}
	idle.wantEnd("idle session", 1, "no input for 600ms")
	if _, ok := busy.info(); !ok {
		t.Fatal("the session with input was closed too")
	}
	if !busyShown() {
		in, _ := busy.info()
		t.Fatalf("busy's overview is not shown; screen:\n%s", in.Screen)
	}
	bye := r.waitAudit("the idle disconnect", func(e AuditEntry) bool { return e.Event == EventDisconnect })
	if bye.Reason != reasonIdle || bye.Role != "viewer" {
		t.Fatalf("disconnect %+v", bye)
	}
}

// tailGroups are the temporary groups of tails at the engine.
func tailGroups(r *rig) []string {
	var out []string
	for _, g := range r.e.Groups() {
		if strings.HasPrefix(g.Name, "ilinkdash-tail-") {
			out = append(out, g.Name)
		}
	}
	return out
}

func (c *client) openTail(topic string) {
	c.t.Helper()
	c.send(":tail " + topic + "\r")
	c.waitText("Tail "+topic, "● live")
}

// Shutdown (what SIGTERM does) with sessions open: each is told and ends
// with exit status 1, their tails leave their temporary groups, no new
// connection is accepted, and Serve returns.
func TestShutdownWithSessionsOpen(t *testing.T) {
	t.Parallel()
	r := startRig(t, rigOpts{maxTails: 4})
	r.createTopics("partitions=2", "LIVE")
	op := r.openShown(r.operator, "the operator's overview")
	vw := r.openShown(r.viewer, "the viewer's overview")
	op.openTail("LIVE")
	vw.openTail("LIVE")
	ilinktest.WaitFor(t, deadline, "two temporary groups", func() bool { return len(tailGroups(r)) == 2 })

	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	if err := r.srv.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if g := tailGroups(r); len(g) != 0 {
		t.Fatalf("temporary groups left behind after Shutdown: %v", g)
	}
	op.wantEnd("the operator's session after Shutdown", 1, "the server is shutting down")
	vw.wantEnd("the viewer's session after Shutdown", 1, "the server is shutting down")
	select {
	case err := <-r.served:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
		r.served <- nil // for the cleanup's Shutdown
	case <-time.After(deadline):
		t.Fatal("Serve did not return")
	}
	if conn, err := r.dial(r.operator); err == nil {
		conn.Close()
		t.Fatal("a connection was accepted after Shutdown")
	}
	n := 0
	for _, e := range r.auditEntries() {
		if e.Event == EventDisconnect && e.Reason == reasonShutdown {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("%d shutdown disconnects in the audit log, want 2", n)
	}
}

// A connection that drops (no q, no exit) frees everything its session
// held: the session slot, its tail's consumer and temporary group, and
// every goroutine. Not parallel: it counts the session goroutines of the
// whole process, which other tests' sessions would hold (under load, for
// longer than its deadline).
func TestDroppedConnectionFreesEverything(t *testing.T) {
	// The default idle timeout: its timer must not outlive the session.
	r := startRig(t, rigOpts{maxTails: 1, idle: 30 * time.Minute})
	r.createTopics("partitions=2", "LIVE")
	// Warm up: both roles' admin connections are made once, and stay.
	for _, k := range []clientKey{r.viewer, r.operator} {
		c := r.open(k, sessOpts{})
		c.waitScreen("the overview", overviewShown)
		c.send("q")
		c.exitStatus()
	}
	ilinktest.WaitFor(t, deadline, "no session", func() bool { return len(r.srv.Sessions()) == 0 })
	ilinktest.WaitFor(t, deadline, "the warm-up sessions' goroutines to end", func() bool { return len(sessionGoroutines()) == 0 })

	c := r.openShown(r.operator, "the overview")
	c.openTail("LIVE")
	if len(tailGroups(r)) != 1 {
		t.Fatalf("tail groups %v", tailGroups(r))
	}
	_ = c.conn.Close() // the network goes away
	ilinktest.WaitFor(t, deadline, "the session to be gone", func() bool { return len(r.srv.Sessions()) == 0 })
	ilinktest.WaitFor(t, deadline, "the temporary group to be left", func() bool { return len(tailGroups(r)) == 0 })
	var left []string
	ilinktest.Poll(deadline, func() bool { left = sessionGoroutines(); return len(left) == 0 })
	if len(left) > 0 {
		t.Fatalf("%d goroutines of the session are left:\n%s", len(left), strings.Join(left, "\n\n"))
	}
	bye := r.waitAudit("the disconnect", func(e AuditEntry) bool { return e.Event == EventDisconnect && e.Reason == reasonClosed })
	if bye.Role != "operator" {
		t.Fatalf("disconnect %+v", bye)
	}
	// The tail slot is free again.
	d := r.openShown(r.viewer, "the overview")
	d.openTail("LIVE")
}

// --max-tails bounds the tails over all sessions; a session's second tail
// needs a second slot, and one closed gives its slot back.
func TestMaxTails(t *testing.T) {
	t.Parallel()
	r, a, b := twoSessionsOneTail(t, 1)
	b.send(":tail ONE\r")
	b.waitText("every tail of this server is in use")
	a.send(":tail TWO\r") // a second tail of a's: no slot left
	a.waitText("Tail TWO", "every tail of this server is in use")
	a.send("[x") // ONE shown, closed
	a.waitText("Tail ONE", "■ closed")
	a.send(":tail TWO\r")
	a.waitText("Tail TWO", "● live")
	ilinktest.WaitFor(t, deadline, "one temporary group", func() bool { return len(tailGroups(r)) == 1 })
}

// sessionGoroutines are the goroutines that belong to a session: its
// program, its commands and timers, its handler, its tail's consumer.
func sessionGoroutines() []string {
	buf := make([]byte, 1<<22)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		for _, mark := range []string{"charm.land/bubbletea/v2", "ilinkdash/ui/serve.sessionTick", "ilinkdash/ui/serve.(*Server).admit",
			"ilinkdash/ilink/consumer", "ilinkdash/ui/live.(*tailStream)", "ilinkdash/ui/views"} {
			if strings.Contains(g, mark) {
				out = append(out, g)
				break
			}
		}
	}
	return out
}

// tabMarks: what the status bar shows for each tab's primary resource.
var tabMarks = []struct{ key, mark string }{
	{"1", "● nodes"}, {"2", "● topics"}, {"3", "● groups"}, {"4", "● cluster"}, {"5", "● queues"},
}

// showTab waits for the overview, then shows the tab of tabMarks[i]
// (round the list) and waits for its mark.
func (c *client) showTab(i int) {
	c.t.Helper()
	tab := tabMarks[i%len(tabMarks)]
	c.waitScreen("the overview", overviewShown)
	c.send(tab.key)
	c.waitText(tab.mark)
}

// The shared poller: N sessions, each on a different view, and the
// cluster still sees at most one request per polled resource per interval
// (counted at the engine), as one dashboard would make.
func TestSharedPollerOnePollPerInterval(t *testing.T) {
	t.Parallel()
	const interval = 200 * time.Millisecond
	r := startRig(t, rigOpts{refresh: interval})
	const n = 10
	clients := r.openMixed(n)
	for i, c := range clients {
		c.showTab(i)
	}
	polled := map[wire.Code]string{
		wire.CodeNodeList: "nodes", wire.CodeStatSeries: "stats", wire.CodeTopicList: "topics", wire.CodeGroupList: "groups",
		wire.CodeQueueList: "queues", wire.CodeClusterProperty: "cluster", wire.CodeReplicationStatus: "replication",
		wire.CodeViewClusterLeaders: "leaders",
	}
	before, start := r.e.RequestCounts(), time.Now()
	// Measure until the topic list was read 15 more times: 14 intervals
	// at least with one poller, under two with ten.
	ilinktest.WaitFor(t, deadline, "15 topic list reads", func() bool { return r.e.RequestCounts()[wire.CodeTopicList]-before[wire.CodeTopicList] >= 15 })
	after, took := r.e.RequestCounts(), time.Since(start)
	limit := int64(took/interval) + 2
	for code, name := range polled {
		d := after[code] - before[code]
		t.Logf("%-11s %3d requests in %v (%.1f/interval)", name, d, took.Round(time.Millisecond), float64(d)/(float64(took)/float64(interval)))
		if d > limit {
			t.Errorf("%s: %d requests in %v from %d sessions, want at most %d (one per %v)", name, d, took, n, limit, interval)
		}
		if d == 0 {
			t.Errorf("%s: not polled at all while a session showed it", name)
		}
	}
	quitAll(t, clients)
}

// openMixed opens n sessions, viewers and operators in turn.
func (r *rig) openMixed(n int) []*client {
	clients := make([]*client, n)
	for i := range clients {
		k := r.viewer
		if i%2 == 1 {
			k = r.operator
		}
		clients[i] = r.open(k, sessOpts{})
	}
	return clients
}

// Twenty sessions at once (under -race in CI), half viewers and half
// operators, each on its own view, all quitting cleanly.
func TestTwentyConcurrentSessions(t *testing.T) {
	t.Parallel()
	r := startRig(t, rigOpts{})
	r.createTopics("partitions=3", "MANY")
	const n = 20
	clients := make([]*client, n)
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k := r.viewer
			if i%2 == 1 {
				k = r.operator
			}
			clients[i] = r.open(k, sessOpts{w: 80 + i, h: 24 + i%10})
		}()
	}
	wg.Wait()
	for i, c := range clients {
		c.showTab(i)
		in, _ := c.info()
		if in.Width != 80+i || in.Height != 24+i%10 || in.ReadOnly != (i%2 == 0) {
			t.Fatalf("session %d: %dx%d read-only %v", i, in.Width, in.Height, in.ReadOnly)
		}
	}
	if got := len(r.srv.Sessions()); got != n {
		t.Fatalf("%d sessions open, want %d", got, n)
	}
	quitAll(t, clients)
	ilinktest.WaitFor(t, deadline, "every session to be gone", func() bool { return len(r.srv.Sessions()) == 0 })
}

// Each session is drawn for its client's terminal: TERM and COLORTERM
// pick the colour profile (checked in the bytes the client receives), and
// NO_COLOR turns colour off.
func TestClientTermAndColourProfile(t *testing.T) {
	t.Parallel()
	r := startRig(t, rigOpts{})
	cases := []struct {
		name      string
		o         sessOpts
		want, not []string
	}{
		{"256 colours", sessOpts{term: "xterm-256color"}, []string{"[38;5;"}, []string{"[38;2;"}},
		{"true colour", sessOpts{term: "xterm-256color", env: map[string]string{"COLORTERM": "truecolor"}}, []string{"[38;2;"}, nil},
		{"NO_COLOR", sessOpts{term: "xterm-256color", env: map[string]string{"NO_COLOR": "1"}}, nil, []string{"[38;5;", "[38;2;"}},
	}
	for _, tc := range cases {
		c := r.open(r.viewer, tc.o)
		c.waitScreen("the overview", overviewShown)
		ilinktest.WaitFor(t, deadline, tc.name+": a drawn frame", func() bool { return strings.Contains(c.stdout.String(), "Overview") })
		out := c.stdout.String()
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: no %q in the output", tc.name, w)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(out, n) {
				t.Errorf("%s: %q in the output", tc.name, n)
			}
		}
		c.send("q")
		c.exitStatus()
	}
}

// A client asks for the bandwidth budget of its own link with the
// environment it sends (ssh -o SetEnv=ILINKDASH_LOW_BANDWIDTH=1); other
// sessions keep the server's setting, and a value that does not parse is
// ignored.
func TestSessionAsksForLowBandwidth(t *testing.T) {
	t.Parallel()
	r := startRig(t, rigOpts{})
	low := r.open(r.viewer, sessOpts{env: map[string]string{"ILINKDASH_LOW_BANDWIDTH": "1"}})
	screen := low.waitScreen("the overview", overviewShown)
	if !strings.Contains(screen, "LOW-BW") {
		t.Errorf("a session that sent ILINKDASH_LOW_BANDWIDTH=1 has no LOW-BW badge:\n%s", screen)
	}
	for _, env := range []map[string]string{nil, {"ILINKDASH_LOW_BANDWIDTH": "maybe"}} {
		c := r.open(r.viewer, sessOpts{env: env})
		screen := c.waitScreen("the overview", overviewShown)
		if strings.Contains(screen, "LOW-BW") {
			t.Errorf("session with env %v shows LOW-BW:\n%s", env, screen)
		}
		c.send("q")
		c.exitStatus()
	}
	low.send("q")
	low.exitStatus()
}

// Details are shared too: sessions with the same group's detail open
// (which each re-read every interval) make the cluster describe it about
// once per interval, not once per session.
func TestSharedDetailReads(t *testing.T) {
	t.Parallel()
	const interval = 200 * time.Millisecond
	r := startRig(t, rigOpts{refresh: interval})
	r.createTopics("partitions=1", "DETAIL.T")
	opt := consumer.NewOptions()
	opt.Group = "shared-g"
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	c, err := consumer.Subscribe(ctx, strings.Join(r.e.DataAddrs(), ","), "DETAIL.T", opt)
	if err != nil {
		t.Fatal(err)
	}
	c.Close() // a durable group, now without members
	const n = 6
	clients := r.openMixed(n)
	for i := range clients {
		clients[i].waitScreen("the overview", overviewShown)
		clients[i].send("3")
		clients[i].waitText("shared-g")
		clients[i].send("\r")
		clients[i].waitText("group shared-g ·")
	}
	before, start := r.e.RequestCounts(), time.Now()
	ilinktest.WaitFor(t, deadline, "10 group list reads", func() bool { return r.e.RequestCounts()[wire.CodeGroupList]-before[wire.CodeGroupList] >= 10 })
	after, took := r.e.RequestCounts(), time.Since(start)
	d, limit := after[wire.CodeDescribeGroup]-before[wire.CodeDescribeGroup], int64(took/interval)+2
	t.Logf("DESCRIBE GROUP: %d requests in %v from %d sessions with the detail open", d, took.Round(time.Millisecond), n)
	if d == 0 || d > limit {
		t.Fatalf("DESCRIBE GROUP: %d requests in %v from %d sessions, want 1 to %d (one per %v)", d, took, n, limit, interval)
	}
	quitAll(t, clients)
}

// A put stopped partway (a full queue) is audited with how many went: the
// line said only what was asked, and those committed before the failing
// message stay on the queue.
func TestPartialPutAuditedWithItsCount(t *testing.T) {
	t.Parallel()
	r := startRig(t, rigOpts{})
	if err := r.e.DefineQueue("FULL.Q", engine.QueueConfig{MaxDepth: 2}); err != nil {
		t.Fatal(err)
	}
	c := r.openShown(r.operator, "the overview")
	ss := r.srv.sessionOf(t, c)
	put, err := ss.PutMessages(t.Context(), "FULL.Q", [][]byte{[]byte("a"), []byte("b"), []byte("c")}, nil)
	if put != 2 || err == nil || !strings.Contains(err.Error(), "MIMQE_QUEUE_FULL") {
		t.Fatalf("put %d, %v; want 2 and MIMQE_QUEUE_FULL", put, err)
	}
	e := r.waitAudit("the put", func(e AuditEntry) bool { return e.Action == "queue-put" })
	if e.Outcome != OutcomeError || e.Target != "FULL.Q" || e.Detail != "count=3 put=2" {
		t.Fatalf("audit entry %+v; want an error with count=3 put=2", e)
	}
}
