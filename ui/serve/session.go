package serve

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"ilinkdash/ui/views/publish"
	"ilinkdash/ui/views/tail"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	bm "charm.land/wish/v2/bubbletea"
	gossh "golang.org/x/crypto/ssh"

	"ilinkdash/config"
	"ilinkdash/ui"
	"ilinkdash/ui/common"
	"ilinkdash/ui/sanitize"
	"ilinkdash/ui/views/fleet"
)

// Why the server ended a session ("" = the user quit).
const (
	reasonIdle     = "idle"
	reasonShutdown = "shutdown"
	reasonClosed   = "closed"
	reasonQuit     = "quit"
	reasonRevoked  = "revoked"
	reasonDemoted  = "role-changed"
)

// session is one admitted SSH session and its dashboard.
type session struct {
	id       uint64
	key      gossh.PublicKey // re-checked against the key files (revoke.go)
	who      Identity
	remote   string
	started  time.Time
	readOnly bool // the role's, or every served context is read-only
	// start is the served context the session opens on (its SSH command),
	// -1 for the Fleet tab.
	start int

	// ctx ends when the session's handler returns (or the connection
	// drops): every call and stream of the session is bound to it.
	ctx    context.Context
	cancel context.CancelFunc

	// spokes holds a token when a followed hub's spokes changed since the
	// session's dashboard last took them (Server.pokeSessions).
	spokes chan struct{}

	frame atomic.Pointer[string]         // the last frame drawn
	src   atomic.Pointer[sessionSources] // set when the dashboard is built

	// lastInput is when the dashboard last took a key, a click or a paste
	// (Unix nanoseconds): the server's idle backstop reads it without the
	// program (recheckSessions).
	lastInput atomic.Int64
	// kill closes the session's connection: the end of a session whose
	// program does not stop (stop's grace).
	kill func()

	mu      sync.Mutex
	prog    *tea.Program
	reason  string // set by stop
	ended   bool   // no new tail may start
	forcing bool   // stop's grace timer runs
	tails   map[*sessionTail]struct{}
}

// stopGrace is how long a stopped session's program has to end before its
// connection is closed: a client that stops reading blocks the program's
// writes (the SSH window is full), and with them every message, the
// Quit that stop sends included, so revocation, the idle timeout and
// shutdown did not end it.
const stopGrace = 3 * time.Second

// entry starts an audit entry about this session.
func (ss *session) entry(event string) AuditEntry {
	return AuditEntry{Event: event, Session: ss.id, Fingerprint: ss.who.Fingerprint, Comment: ss.who.Comment,
		Role: ss.who.Role.String(), Remote: ss.remote}
}

// stop ends the session's program for reason (idle, shutdown). Safe from
// any goroutine, before or after the program exists.
func (ss *session) stop(reason string) {
	ss.mu.Lock()
	if ss.reason == "" {
		ss.reason = reason
	}
	p := ss.prog
	force := !ss.forcing && ss.kill != nil
	ss.forcing = ss.forcing || force
	ss.mu.Unlock()
	if p != nil {
		go p.Quit() // Quit sends to the program; never block the caller on it
	}
	if force {
		go func() {
			t := time.NewTimer(stopGrace)
			defer t.Stop()
			select {
			case <-ss.ctx.Done(): // it ended
			case <-t.C:
				ss.kill() // its writes fail, the program ends, the reason stays
			}
		}()
	}
}

func (ss *session) stopReason() string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.reason
}

// note shows an audit entry on the session's status line.
func (ss *session) note(e AuditEntry) {
	ss.mu.Lock()
	p := ss.prog
	ss.mu.Unlock()
	if p != nil {
		go p.Send(noteMsg{entry: e})
	}
}

func (ss *session) addTail(t *sessionTail) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.ended {
		return false
	}
	if ss.tails == nil {
		ss.tails = map[*sessionTail]struct{}{}
	}
	ss.tails[t] = struct{}{}
	return true
}

func (ss *session) dropTail(t *sessionTail) {
	ss.mu.Lock()
	delete(ss.tails, t)
	ss.mu.Unlock()
}

// closeTails closes the session's tails (each leaves its temporary group).
func (ss *session) closeTails() {
	ss.mu.Lock()
	list := make([]*sessionTail, 0, len(ss.tails))
	for t := range ss.tails {
		list = append(list, t)
	}
	ss.mu.Unlock()
	var wg sync.WaitGroup
	for _, t := range list {
		wg.Add(1)
		go func() { defer wg.Done(); _ = t.Close() }()
	}
	wg.Wait()
}

// admit is serve's middleware, around the Bubble Tea one: it checks
// the key (again: the files may have changed since authentication), the
// pty and the session limit, and after the dashboard ends it releases
// what the session held, writes why it ended and sets the exit status.
func (s *Server) admit(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		// Every session turned away is audited (per kind, at most once a
		// second with the count of the others: refusalLog), as a
		// connection turned away is.
		turnAway := func(kind, fingerprint, why string) {
			s.refused(kind, sess.RemoteAddr().String(), fingerprint, why)
			refuse(sess, why)
		}
		who, ok := s.keys.identify(sess.PublicKey())
		if !ok {
			turnAway(refusedKey, gossh.FingerprintSHA256(sess.PublicKey()), "ilinkdash serve: this key is not authorized (any more)")
			return
		}
		if sess.Subsystem() != "" {
			turnAway(refusedCommand, who.Fingerprint, "ilinkdash serve: this server only serves the dashboard; connect without a command (ssh -t HOST -p PORT)")
			return
		}
		start, err := s.pick(sess.Command())
		if err != nil {
			turnAway(refusedCommand, who.Fingerprint, err.Error())
			return
		}
		pty, _, hasPty := sess.Pty()
		if !hasPty {
			turnAway(refusedNoPty, who.Fingerprint, "ilinkdash serve: the dashboard needs a terminal; connect with a pty (ssh -t)")
			return
		}
		ss := &session{key: sess.PublicKey(), who: who, remote: sess.RemoteAddr().String(), started: time.Now(),
			readOnly: who.Role != RoleOperator || s.allReadOnly(), start: start, spokes: make(chan struct{}, 1)}
		ss.ctx, ss.cancel = context.WithCancel(sess.Context())
		ss.lastInput.Store(ss.started.UnixNano())
		if st := connOf(sess.Context()); st != nil {
			ss.kill = func() { st.nc.Close() }
		}
		if err := s.register(ss); err != nil {
			ss.cancel()
			kind := refusedSessions
			if _, ok := err.(errPerKey); ok {
				kind = refusedPerKey
			}
			turnAway(kind, who.Fingerprint, err.Error())
			return
		}
		defer s.unregister(ss)
		if st := connOf(sess.Context()); st != nil {
			st.dashboardStarted()
			defer st.dashboardEnded()
		}
		connect := ss.entry(EventConnect)
		if start >= 0 {
			connect.Context = s.servedList()[start].Context.Name
		}
		connect.Term, connect.Width, connect.Height = pty.Term, pty.Window.Width, pty.Window.Height
		s.audit.write(connect)

		// The Bubble Tea middleware runs the dashboard until it ends. It is
		// built per session so its program handler knows the session (the
		// ssh.Context is the connection's, shared by all its channels).
		bm.MiddlewareWithProgramHandler(func(sess ssh.Session) *tea.Program { return s.program(sess, ss) })(next)(sess)

		ss.mu.Lock()
		ss.ended = true
		ss.mu.Unlock()
		ss.closeTails()
		reason := ss.stopReason()
		dropped := sess.Context().Err() != nil
		ss.cancel()
		switch {
		case reason == "" && dropped:
			reason = reasonClosed
		case reason == "":
			reason = reasonQuit
		}
		bye := ss.entry(EventDisconnect)
		bye.Reason, bye.Seconds = reason, time.Since(ss.started).Seconds()
		s.audit.write(bye)
		switch reason {
		case reasonQuit:
			_ = sess.Exit(0)
		case reasonIdle:
			refuse(sess, fmt.Sprintf("ilinkdash serve: no input for %v; session closed", s.cfg.Serve.IdleTimeout))
		case reasonShutdown:
			refuse(sess, "ilinkdash serve: the server is shutting down; session closed")
		case reasonRevoked:
			refuse(sess, "ilinkdash serve: this key was removed from the server's key files; session closed")
		case reasonDemoted:
			refuse(sess, "ilinkdash serve: this key is no longer an operator's; session closed (connect again for a read-only dashboard)")
		}
	}
}

// refuse writes one line to the client and ends the session with exit
// status 1.
func refuse(sess ssh.Session, msg string) {
	_, _ = fmt.Fprintln(sess.Stderr(), msg)
	_ = sess.Exit(1)
}

// program builds the session's dashboard (the Bubble Tea middleware's
// ProgramHandler): the root model on the session's sources, sized to the
// client's pty, with its TERM and colour profile (bm.MakeOptions). With
// several served contexts the root is a ui.Fleet of one dashboard per
// context, each on its own cluster's shared poller.
func (s *Server) program(sess ssh.Session, ss *session) *tea.Program {
	env := sess.Environ()
	getenv := func(k string) string {
		for i := len(env) - 1; i >= 0; i-- {
			if len(env[i]) > len(k) && env[i][len(k)] == '=' && env[i][:len(k)] == k {
				return env[i][len(k)+1:]
			}
		}
		return ""
	}
	// The meter counts what reaches the client and notices writes that
	// block (the SSH channel's window full: a slow link); the dashboard
	// then keeps to the low-bandwidth budget by itself, as it does on a
	// local terminal.
	out, meter := ui.NewMeter(sess)
	pty, _, _ := sess.Pty()
	newCtx := func(cfg config.Context, demo, readOnly bool) *ui.Context {
		cfg.ReadOnly = readOnly
		cfg.TailBuffer, cfg.TailBufferBytes = s.cfg.Serve.TailBuffer, s.cfg.Serve.TailBufferBytes
		sessionBandwidth(&cfg, getenv)
		uctx := ui.NewContext(cfg, demo, getenv)
		uctx.Pace.SlowTerminal = meter.Slow
		uctx.Pace.Budget = common.NewBudget(meter.Bytes)
		uctx.Tick = sessionTick(ss.ctx.Done())
		// Until the program's first WindowSizeMsg: the pty's size, less the
		// status line.
		uctx.Width, uctx.Height = pty.Window.Width, max(pty.Window.Height-1, 0)
		return uctx
	}
	var root tea.Model
	var rootCtx *ui.Context
	sets, clusters := s.spokeSets()
	if s.single() {
		rootCtx = newCtx(clusters[0].Context, clusters[0].Demo, ss.readOnly)
		root = s.clusterModel(ss, 0, rootCtx)
	} else {
		model := func(i int) *ui.Model {
			c := s.servedList()[i]
			return s.clusterModel(ss, i, newCtx(c.Context, c.Demo, ss.readOnly || c.Context.ReadOnly))
		}
		models := make([]*ui.Model, len(clusters))
		for i := range clusters {
			models[i] = model(i)
		}
		fcfg := clusters[0].Context
		fcfg.Name = "fleet"
		rootCtx = newCtx(fcfg, clusters[0].Demo, ss.readOnly)
		f := ui.NewFleet(rootCtx, models, s.spokeFollows(model)...)
		for _, set := range sets { // what the hubs said before this session
			f.Update(ui.SpokesMsg{Set: set})
		}
		if ss.start >= 0 { // ssh -t HOST CONTEXT: that context's tabs, the fleet a key away
			f.Update(fleet.OpenMsg{Index: ss.start})
		}
		root = f
	}
	m := newSessionModel(root, rootCtx, ss, s.cfg.Serve.IdleTimeout)
	if len(sets) > 0 {
		m.spokes = func() []ui.SpokeSet { sets, _ := s.spokeSets(); return sets }
	}
	m.width, m.height = pty.Window.Width, pty.Window.Height
	// No tea.WithContext: the middleware quits the program when the
	// connection goes, which ends it the ordinary way.
	opts := append(bm.MakeOptions(sess),
		tea.WithOutput(out),
		tea.WithFPS(rootCtx.Config.FrameRate()),
		tea.WithoutSignalHandler(), // the server owns SIGINT/SIGTERM
	)
	p := tea.NewProgram(m, opts...)
	ss.mu.Lock()
	ss.prog = p
	stopped := ss.reason != ""
	ss.mu.Unlock()
	if stopped { // Shutdown came first
		return nil
	}
	return p
}

// clusterModel is the session's dashboard of served context i, on its
// own sessionSources: the cluster's shared poller, the role's backend
// (the viewer's when the session or the context is read-only). Only the
// first cluster's dashboard probes the link: one probe per terminal.
func (s *Server) clusterModel(ss *session, i int, uctx *ui.Context) *ui.Model {
	c := s.servedList()[i]
	ro := uctx.ReadOnly
	b := c.Viewer
	if !ro {
		b = c.Operator
	}
	src := &sessionSources{Lists: c.Viewer, s: s, sess: ss, c: c, b: b, readOnly: ro}
	if i == 0 {
		ss.src.Store(src)
	}
	lag := c.LagHistory
	if lag == nil {
		lag = s.cfg.LagHistory[c.Context.Name]
	}
	opts := []ui.Option{ui.WithTailer(tail.Tailer(src)), ui.WithPublisher(publish.Publisher(src)), ui.WithSharedLagHistory(lag)}
	if i > 0 {
		opts = append(opts, ui.WithoutLinkProbe())
	}
	return ui.New(uctx, src, opts...)
}

// single: one served context and no followed hub, whose session is that
// context's dashboard (no Fleet tab).
func (s *Server) single() bool {
	s.cmu.Lock()
	defer s.cmu.Unlock()
	return len(s.clusters) == 1 && len(s.hubs) == 0
}

// allReadOnly: every served context is read-only, so no session may
// change anything whatever its key.
func (s *Server) allReadOnly() bool {
	for _, c := range s.servedList() {
		if !c.Context.ReadOnly {
			return false
		}
	}
	return true
}

// pick is the served context an SSH command names (its one word), -1 for
// the Fleet tab when several are served and no command is given. An
// unknown name is refused listing what is served (sanitized: the name
// came from the network, the list from the config file).
func (s *Server) pick(cmd []string) (int, error) {
	if len(cmd) == 0 {
		if s.single() {
			return 0, nil
		}
		return -1, nil
	}
	clusters := s.servedList()
	names := make([]string, len(clusters))
	for i, c := range clusters {
		names[i] = sanitize.String(c.Context.Name)
		if len(cmd) == 1 && cmd[0] == c.Context.Name && c.Context.Name != "" {
			return i, nil
		}
	}
	// The client's command, bounded in bytes before it is read at all,
	// then sanitized and cut to 64 cells and "…" (quoted as is: %q would escape
	// the sanitizer's escapes again).
	asked := strings.Join(cmd, " ")
	asked = sanitize.Truncate(sanitize.String(asked[:min(len(asked), maxAskedBytes)]), 65)
	if len(clusters) == 1 && names[0] == "" {
		return 0, fmt.Errorf("ilinkdash serve: \"%s\" is not served here; this server serves one cluster: connect without a command (ssh -t HOST -p PORT)", asked)
	}
	without := "or without one for the fleet"
	if s.single() {
		without = "or without one" // one cluster: no fleet
	}
	return 0, fmt.Errorf("ilinkdash serve: no context \"%s\" here; this server serves %s: connect with one of them as the command (ssh -t HOST -p PORT CONTEXT), %s", asked, strings.Join(names, ", "), without)
}

// maxAskedBytes bounds how much of an SSH client's command the refusal
// reads (the command is the client's: any length).
const maxAskedBytes = 256

// sessionBandwidth lets an SSH client ask for the bandwidth budget of its
// own link: ILINKDASH_LOW_BANDWIDTH and ILINKDASH_MAX_FPS sent with the
// session (ssh -o SetEnv=ILINKDASH_LOW_BANDWIDTH=1) override the server's
// settings for that session. A value that does not parse is ignored: the
// server's setting stays.
func sessionBandwidth(cfg *config.Context, getenv func(string) string) {
	if v := getenv(config.EnvLowBandwidth); v != "" {
		if b, err := strconv.ParseBool(v); err == nil {
			cfg.LowBandwidth = b
		}
	}
	if v := getenv(config.EnvMaxFPS); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n >= config.MinFPS && n <= config.MaxFPS {
			cfg.FPS = n
		}
	}
}
