// Package serve serves the dashboard over SSH (`ilinkdash serve`): one
// dashboard per SSH session with a pty, every session reading the polled
// admin resources through one shared poller, with the session's key
// deciding whether it may change the cluster.
//
// The SSH side is wish v2 and its Bubble Tea middleware (charm.land/wish,
// as soft-serve does it): an emulated pty, the client's TERM and colour
// profile from its environment, window changes as tea.WindowSizeMsg.
// serve's own middleware admits the session (a pty, a known key, a free
// slot), runs the Bubble Tea middleware, and once the program ends
// releases everything the session held and tells the client why it ended.
//
// Roles are client-layer objects, not view flags: the viewer's Backend is
// configured read-only, so its admin client's guard refuses every
// mutating call (the dashboard also hides the keys, and shows RO); the
// operator's is writable. Every mutating call of a session passes its
// sessionSources, which audits it.
package serve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"charm.land/ssh"
	"charm.land/wish/v2"
	"github.com/charmbracelet/x/ansi"
	gossh "golang.org/x/crypto/ssh"

	"ilinkdash/config"
	"ilinkdash/ilink/admin/history"
)

// Config is what New needs.
type Config struct {
	// Serve holds the listen address (used by ListenAndServe), the key
	// files, the host key path and the limits (config.Serve).
	Serve config.Serve
	// Context is the served context's dashboard settings (name, refresh,
	// theme, read-only); Demo marks the embedded demo engine.
	Context config.Context
	Demo    bool
	// Viewer and Operator are the roles' client-layer objects; the
	// Viewer's must be read-only. The shared poller reads through Viewer.
	Viewer, Operator Backend
	// Clusters, when given, are the served contexts instead of Context,
	// Demo, Viewer and Operator (serve --context a,b or --all-contexts):
	// one shared poller each, and with more than one a session starts on
	// the Fleet tab (or on the context its SSH command names).
	Clusters []Cluster
	// Hubs are `spokes: all` contexts followed (spokes.go): their spokes
	// at start are in Clusters as NAME/SPOKE; one that links later is
	// served too. With a hub a session always starts on the Fleet tab.
	Hubs []Hub
	// LagHistory is the served contexts' lag histories by context name
	// (one missing: no history of it): every session's dashboard of a
	// context reads its own (ui.WithSharedLagHistory), never writes it;
	// the caller records into it and closes it after Shutdown.
	LagHistory map[string]*history.Store
	// Logf receives the server's log lines (connects, refusals, audit
	// summaries); nil discards them.
	Logf func(format string, args ...any)
}

// Cluster is one served context: its dashboard settings and its roles'
// client-layer objects (as Config's single-context fields).
type Cluster struct {
	Context          config.Context
	Demo             bool
	Viewer, Operator Backend
	// LagHistory, when set, is the context's lag history instead of
	// Config.LagHistory's (a spoke served after New: Hub.Spoke's).
	LagHistory *history.Store
}

// served is a Cluster with the shared poller every session reads it
// through.
type served struct {
	Cluster
	polls *polls
}

// CheckFiles does what New does with the server's own files — reads the
// key files and an existing host key (a missing one New creates, saying
// so: here only its directory is made), makes the save directory and
// opens the audit log — so that a command can refuse a bad one, naming
// its flag, before it starts any cluster. New does it again; each step is
// idempotent.
func CheckFiles(sc config.Serve) error {
	if err := sc.Check(); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	if _, err := newKeyring(sc.OperatorKeys, sc.AuthorizedKeys, func(string, ...any) {}); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	if sc.HostKey == "" {
		sc.HostKey = config.DefaultHostKey()
	}
	if err := checkHostKey(sc.HostKey); err != nil {
		return fmt.Errorf("serve: --host-key: %w", err)
	}
	if err := makeSaveDir(sc.SaveDir); err != nil {
		return err
	}
	a, err := openAudit(sc.AuditLog, func(string, ...any) {})
	if err != nil {
		return fmt.Errorf("serve: --audit-log: %w", err)
	}
	return a.close()
}

// makeSaveDir makes the directory of tail saves (none: saving off).
func makeSaveDir(dir string) error {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("serve: --save-dir: %w", err)
	}
	return nil
}

// Server is the SSH server. New, then Serve (or ListenAndServe), then
// Shutdown.
type Server struct {
	cfg     Config
	logf    func(string, ...any)
	keys    *keyring
	host    gossh.Signer
	created bool
	audit   *auditLog
	// clusters are the served contexts, in the order given, then the
	// spokes that linked later (under cmu; the slice only grows: read it
	// with servedList); each has its own shared poller on its own
	// context's intervals. hubs are the followed hubs (spokes.go).
	cmu          sync.Mutex
	clusters     []*served
	hubs         []*hubFollower
	following    sync.WaitGroup // the hubs' followers
	followOnce   sync.Once      // they start with Serve
	tails        chan struct{}  // one token per running tail; nil = tailing disabled
	tailsClosing atomic.Int32   // tails closing: their tokens come back soon (takeTailSlot waits for one)
	gate         *gate
	refusal      refusalLog
	srv          *ssh.Server

	base   context.Context // the shared reads' context
	cancel context.CancelFunc

	mu       sync.Mutex
	sessions map[uint64]*session
	lastID   uint64
	closing  bool
	handlers sync.WaitGroup // admitted sessions still being handled

	shutOnce sync.Once
	shutErr  error
}

// New loads the key files and the host key (creating it on first start),
// opens the audit log and builds the SSH server. Nothing listens yet.
func New(cfg Config) (*Server, error) {
	if len(cfg.Clusters) == 0 {
		cfg.Clusters = []Cluster{{Context: cfg.Context, Demo: cfg.Demo, Viewer: cfg.Viewer, Operator: cfg.Operator}}
	}
	if err := checkClusters(cfg.Clusters); err != nil {
		return nil, err
	}
	if err := checkHubs(cfg.Hubs); err != nil {
		return nil, err
	}
	sc := cfg.Serve
	if err := sc.Check(); err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	if sc.HostKey == "" {
		sc.HostKey = config.DefaultHostKey()
		cfg.Serve.HostKey = sc.HostKey
	}
	s := &Server{cfg: cfg, logf: cfg.Logf, sessions: map[uint64]*session{}}
	if s.logf == nil {
		s.logf = func(string, ...any) {}
	}
	var err error
	if s.keys, err = newKeyring(sc.OperatorKeys, sc.AuthorizedKeys, s.logf); err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	if s.host, s.created, err = loadHostKey(sc.HostKey); err != nil {
		return nil, fmt.Errorf("serve: --host-key: %w", err)
	}
	if err := makeSaveDir(sc.SaveDir); err != nil {
		return nil, err
	}
	if s.audit, err = openAudit(sc.AuditLog, s.logf); err != nil {
		return nil, fmt.Errorf("serve: --audit-log: %w", err)
	}
	if sc.MaxTails > 0 {
		s.tails = make(chan struct{}, sc.MaxTails)
	}
	s.base, s.cancel = context.WithCancel(context.Background())
	go s.watchKeys()
	for _, c := range cfg.Clusters {
		s.clusters = append(s.clusters, &served{Cluster: c, polls: newPolls(s.base, c.Viewer, c.Context.Refresh)})
	}
	s.gate = &gate{maxStartups: sc.MaxStartups, openTimeout: sc.OpenTimeout, cols: sc.MaxColumns, rows: sc.MaxRows,
		logf: s.logf, refused: s.refused}

	s.srv, err = wish.NewServer(
		wish.WithAddress(sc.Listen),
		ssh.PublicKeyAuth(s.authorize),
		ssh.EmulatePty(),
		func(srv *ssh.Server) error {
			srv.AddHostKey(s.host)
			// An unauthenticated connection must not hold a socket for long.
			srv.HandshakeTimeout = handshakeTimeout
			srv.ConnectionFailedCallback = func(c net.Conn, err error) {
				s.logf("serve: connection from %s failed: %v", c.RemoteAddr(), err)
			}
			// Every connection passes the gate, and every session channel
			// its filter (gate.go); no other channel type is served.
			srv.ConnCallback = s.gate.accept
			srv.ChannelHandlers = map[string]ssh.ChannelHandler{"session": s.sessionChannel}
			return nil
		},
		// admit runs the Bubble Tea middleware itself, once it has admitted
		// the session.
		wish.WithMiddleware(s.admit),
	)
	if err == nil {
		err = s.startHubs(cfg.Hubs)
	}
	if err != nil {
		s.cancel()
		s.following.Wait()
		s.audit.close()
		return nil, fmt.Errorf("serve: %w", err)
	}
	return s, nil
}

// checkClusters: every cluster has both roles' backends, and several
// have distinct names (a session's SSH command picks one by its name).
func checkClusters(cs []Cluster) error {
	seen := map[string]bool{}
	for _, c := range cs {
		if c.Viewer == nil || c.Operator == nil {
			return errors.New("serve: both roles' backends are required")
		}
		if len(cs) == 1 {
			break
		}
		if c.Context.Name == "" || seen[c.Context.Name] {
			return fmt.Errorf("serve: several contexts need distinct names (%q)", c.Context.Name)
		}
		seen[c.Context.Name] = true
	}
	return nil
}

// HostKeyFingerprint is the host key's SHA256 fingerprint (printed at
// start, for the operators' known_hosts check).
func (s *Server) HostKeyFingerprint() string { return gossh.FingerprintSHA256(s.host.PublicKey()) }

// HostKeyCreated reports whether New created the host key.
func (s *Server) HostKeyCreated() bool { return s.created }

// HostKeyPath is the host key file in use.
func (s *Server) HostKeyPath() string { return s.cfg.Serve.HostKey }

// HostPublicKey is the host key's public half.
func (s *Server) HostPublicKey() gossh.PublicKey { return s.host.PublicKey() }

// KeyCounts is the number of operator and viewer keys loaded now.
func (s *Server) KeyCounts() (operators, viewers int) {
	for _, f := range s.keys.files {
		if f.role == RoleOperator {
			operators += f.count()
		} else {
			viewers += f.count()
		}
	}
	return operators, viewers
}

// authorize is the public key callback: keys of neither file are refused
// here, before any session exists.
func (s *Server) authorize(ctx ssh.Context, key ssh.PublicKey) bool {
	if who, ok := s.keys.identify(key); ok {
		if st := connOf(ctx); st != nil {
			st.authorized(who.Fingerprint)
		}
		return true
	}
	s.logf("serve: refused key %s from %s", gossh.FingerprintSHA256(key), ctx.RemoteAddr())
	return false
}

// Serve accepts connections on ln until Shutdown; it returns nil then.
func (s *Server) Serve(ln net.Listener) error {
	s.followOnce.Do(s.followHubs)
	err := s.srv.Serve(ln)
	if errors.Is(err, ssh.ErrServerClosed) {
		return nil
	}
	return err
}

// ListenAndServe listens on the configured address and serves.
func (s *Server) ListenAndServe() error {
	ln, err := net.Listen("tcp", s.cfg.Serve.Listen)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	return s.Serve(ln)
}

// Shutdown ends the server gracefully: no new session is admitted, every
// session is told and ended (its tails closed, their temporary groups
// left), then the listener and the remaining connections are closed. If
// ctx ends first, the connections are closed anyway and ctx's error is
// returned.
func (s *Server) Shutdown(ctx context.Context) error {
	s.shutOnce.Do(func() { s.shutErr = s.shutdown(ctx) })
	return s.shutErr
}

func (s *Server) shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closing = true
	open := make([]*session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		open = append(open, ss)
	}
	s.mu.Unlock()
	for _, ss := range open {
		ss.stop(reasonShutdown)
	}
	done := make(chan struct{})
	go func() { s.handlers.Wait(); close(done) }()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if cerr := s.srv.Close(); err == nil && cerr != nil && !errors.Is(cerr, net.ErrClosed) {
		err = cerr
	}
	s.cancel()
	s.followOnce.Do(func() {}) // a Serve after Shutdown starts no follower
	s.following.Wait()
	s.refusal.close(s.audit.write)
	if aerr := s.audit.close(); err == nil {
		err = aerr
	}
	return err
}

// SessionInfo describes one open session (diagnostics and tests).
type SessionInfo struct {
	ID       uint64
	Identity Identity
	Remote   string
	Started  time.Time
	ReadOnly bool
	// Width and Height are the size of the last frame the dashboard drew,
	// and Screen is that frame as plain text (lines joined by "\n").
	Width, Height int
	Screen        string
}

// Sessions lists the open sessions, oldest first.
func (s *Server) Sessions() []SessionInfo {
	s.mu.Lock()
	list := make([]*session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		list = append(list, ss)
	}
	s.mu.Unlock()
	sort.Slice(list, func(i, j int) bool { return list[i].id < list[j].id })
	out := make([]SessionInfo, 0, len(list))
	for _, ss := range list {
		info := SessionInfo{ID: ss.id, Identity: ss.who, Remote: ss.remote, Started: ss.started, ReadOnly: ss.readOnly}
		if f := ss.frame.Load(); f != nil {
			info.Screen = ansi.Strip(*f)
			lines := strings.Split(info.Screen, "\n")
			info.Height = len(lines)
			info.Width = ansi.StringWidth(lines[len(lines)-1])
		}
		out = append(out, info)
	}
	return out
}

// register admits a session if the server is open and has a free slot.
func (s *Server) register(ss *session) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closing:
		return errors.New("ilinkdash serve is shutting down; try again later")
	case len(s.sessions) >= s.cfg.Serve.MaxSessions:
		return fmt.Errorf("ilinkdash serve: all %d sessions are in use (--max-sessions); try again later", s.cfg.Serve.MaxSessions)
	}
	mine := 0
	for _, o := range s.sessions {
		if o.who.Fingerprint == ss.who.Fingerprint {
			mine++
		}
	}
	if mine >= s.cfg.Serve.MaxSessionsPerKey {
		return errPerKey{max: s.cfg.Serve.MaxSessionsPerKey}
	}
	s.lastID++
	ss.id = s.lastID
	s.sessions[ss.id] = ss
	s.handlers.Add(1)
	return nil
}

func (s *Server) unregister(ss *session) {
	s.mu.Lock()
	delete(s.sessions, ss.id)
	s.mu.Unlock()
	s.handlers.Done()
}
