package serve

import (
	"fmt"
	"net"
	"sync"
	"time"

	"charm.land/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// The gate bounds what a connection can hold before and between its
// dashboards, where --max-sessions does not reach (docs/SECURITY.md):
//
//   - at most MaxStartups connections without a dashboard at once
//     (handshaking, authenticating, opening one); one over is closed at
//     once, like sshd's MaxStartups;
//   - a connection without a dashboard is closed OpenTimeout after it
//     offered an authorized key (or after its last dashboard ended), and
//     HandshakeTimeout+OpenTimeout after it connected whatever it did;
//   - at most maxChannels session channels per connection;
//   - per channel at most maxEnvVars env requests of maxEnvBytes in all,
//     and a pty request's TERM and terminal modes bounded;
//   - every pty request and window change is clamped to MaxColumns ×
//     MaxRows before the session sees it, so nothing downstream (the
//     renderer, the views, the audit log) ever works at a larger size.
//
// So every connection is either running a dashboard (bounded by
// --max-sessions and --max-sessions-per-key) or on its way out.
const (
	maxChannels = 4
	maxEnvVars  = 32
	maxEnvBytes = 16 << 10
	maxTermLen  = 64
	maxModesLen = 1 << 10 // RFC 4254 §8 defines ~60 opcodes of 5 bytes
	// handshakeTimeout bounds the SSH handshake and authentication.
	handshakeTimeout = 30 * time.Second
)

// Refusal kinds, as the audit log's reason and the log lines say them.
const (
	refusedStartups = "max-startups"
	refusedOpen     = "no-dashboard"
	refusedChannels = "channels"
	refusedEnv      = "env"
	refusedTerm     = "term"
	refusedPerKey   = "max-sessions-per-key"
	// Sessions admit turns away before their dashboard starts.
	refusedKey      = "key"          // a key no longer in the files
	refusedCommand  = "command"      // a subsystem, or a context not served
	refusedNoPty    = "no-pty"       // no terminal asked for
	refusedSessions = "max-sessions" // every slot taken, or shutting down
)

type gate struct {
	maxStartups int
	openTimeout time.Duration
	cols, rows  int
	logf        func(string, ...any)
	refused     func(kind, remote, fingerprint, detail string) // logs and audits a refusal

	mu      sync.Mutex
	pending int // connections counted against maxStartups
}

// connKey finds a connection's state in its ssh.Context.
type connKey struct{}

func connOf(ctx ssh.Context) *connState {
	st, _ := ctx.Value(connKey{}).(*connState)
	return st
}

// connState is one connection's admission state.
type connState struct {
	g      *gate
	nc     net.Conn
	remote string

	mu          sync.Mutex
	counted     bool // in g.pending
	closed      bool
	dashboards  int
	channels    int
	fingerprint string // of the first authorized key it offered
	timer       *time.Timer
	deadline    time.Time
	why         string // what the timer closes it for
}

// accept is the server's ConnCallback: nil closes the connection.
func (g *gate) accept(ctx ssh.Context, nc net.Conn) net.Conn {
	g.mu.Lock()
	if g.pending >= g.maxStartups {
		g.mu.Unlock()
		g.refused(refusedStartups, nc.RemoteAddr().String(), "",
			fmt.Sprintf("%d connections without a dashboard already (--max-startups)", g.maxStartups))
		return nil
	}
	g.pending++
	g.mu.Unlock()
	st := &connState{g: g, nc: nc, remote: nc.RemoteAddr().String(), counted: true}
	st.mu.Lock()
	st.armLocked(handshakeTimeout+g.openTimeout, "no dashboard within "+(handshakeTimeout+g.openTimeout).String()+" of connecting")
	st.mu.Unlock()
	ctx.SetValue(connKey{}, st)
	return &gatedConn{Conn: nc, st: st}
}

// armLocked (re)starts the timer that closes a connection without a
// dashboard; it only ever brings the deadline closer while the
// connection waits, so offering keys again and again cannot extend it.
func (st *connState) armLocked(d time.Duration, why string) {
	at := time.Now().Add(d)
	if st.timer != nil {
		if !st.deadline.IsZero() && st.deadline.Before(at) {
			return
		}
		st.timer.Stop()
	}
	st.deadline, st.why = at, why
	st.timer = time.AfterFunc(d, st.expire)
}

func (st *connState) expire() {
	st.mu.Lock()
	if st.closed || st.dashboards > 0 || time.Now().Before(st.deadline) {
		st.mu.Unlock()
		return
	}
	why := st.why
	st.mu.Unlock()
	st.refused(refusedOpen, why)
	_ = st.nc.Close()
}

// refused reports a refusal of this connection, with its key if known.
func (st *connState) refused(kind, detail string) {
	st.mu.Lock()
	fp := st.fingerprint
	st.mu.Unlock()
	st.g.refused(kind, st.remote, fp, detail)
}

// authorized notes that the connection offered an authorized key: it has
// OpenTimeout from now to open a dashboard.
func (st *connState) authorized(fingerprint string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.fingerprint == "" {
		st.fingerprint = fingerprint
	}
	if st.dashboards == 0 && !st.closed {
		st.armLocked(st.g.openTimeout, "no dashboard within "+st.g.openTimeout.String()+" of authenticating (--open-timeout)")
	}
}

// dashboardStarted and dashboardEnded bracket an admitted dashboard.
func (st *connState) dashboardStarted() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.dashboards++
	if st.timer != nil {
		st.timer.Stop()
		st.timer, st.deadline = nil, time.Time{}
	}
	st.uncountLocked()
}

func (st *connState) dashboardEnded() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.dashboards--
	if st.dashboards == 0 && !st.closed {
		st.armLocked(st.g.openTimeout, "no dashboard for "+st.g.openTimeout.String()+" after the last one ended (--open-timeout)")
	}
}

func (st *connState) uncountLocked() {
	if st.counted {
		st.counted = false
		st.g.mu.Lock()
		st.g.pending--
		st.g.mu.Unlock()
	}
}

func (st *connState) openChannel() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.channels >= maxChannels {
		return false
	}
	st.channels++
	return true
}

func (st *connState) closeChannel() {
	st.mu.Lock()
	st.channels--
	st.mu.Unlock()
}

// gatedConn gives the connection's slot back when the server closes it.
type gatedConn struct {
	net.Conn
	st   *connState
	once sync.Once
}

func (c *gatedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		st := c.st
		st.mu.Lock()
		st.closed = true
		if st.timer != nil {
			st.timer.Stop()
		}
		st.uncountLocked()
		st.mu.Unlock()
	})
	return err
}

// sessionChannel is the "session" channel handler: the library's, behind
// the per-connection channel bound and the request filter.
func (s *Server) sessionChannel(srv *ssh.Server, conn *gossh.ServerConn, nc gossh.NewChannel, ctx ssh.Context) {
	st := connOf(ctx)
	if st == nil { // not through accept: refuse rather than run unbounded
		_ = nc.Reject(gossh.Prohibited, "not admitted")
		return
	}
	if !st.openChannel() {
		st.refused(refusedChannels, fmt.Sprintf("more than %d sessions on one connection", maxChannels))
		_ = nc.Reject(gossh.ResourceShortage, fmt.Sprintf("at most %d sessions per connection", maxChannels))
		return
	}
	defer st.closeChannel()
	ssh.DefaultSessionHandler(srv, conn, &filteredChannel{NewChannel: nc, g: s.gate, st: st}, ctx)
}

// filteredChannel hands the library a session channel whose requests
// passed filterRequests.
type filteredChannel struct {
	gossh.NewChannel
	g  *gate
	st *connState
}

func (f *filteredChannel) Accept() (gossh.Channel, <-chan *gossh.Request, error) {
	ch, in, err := f.NewChannel.Accept()
	if err != nil {
		return ch, in, err
	}
	out := make(chan *gossh.Request)
	go f.g.filterRequests(f.st, in, out)
	return ch, out, nil
}

// filterRequests bounds a session channel's env requests and clamps its
// terminal size; everything else passes as it came. out is unbuffered, so
// a client that floods requests waits on the session, not on memory.
func (g *gate) filterRequests(st *connState, in <-chan *gossh.Request, out chan<- *gossh.Request) {
	defer close(out)
	var envVars, envBytes int
	envRefused, clamped := false, false
	for req := range in {
		switch req.Type {
		case "env":
			envVars++
			envBytes += len(req.Payload)
			if envVars > maxEnvVars || envBytes > maxEnvBytes {
				if !envRefused { // once per channel: a flood is one line
					st.refused(refusedEnv, fmt.Sprintf("more than %d variables or %d bytes of environment", maxEnvVars, maxEnvBytes))
					envRefused = true
				}
				_ = req.Reply(false, nil)
				continue
			}
		case "pty-req":
			var p ptyRequest
			if gossh.Unmarshal(req.Payload, &p) != nil || len(p.Term) > maxTermLen || len(p.Modes) > maxModesLen {
				st.refused(refusedTerm, fmt.Sprintf("a pty request with a TERM over %d bytes, modes over %d, or malformed", maxTermLen, maxModesLen))
				_ = req.Reply(false, nil)
				continue
			}
			p.Columns, p.Rows = g.clamp(st, p.Columns, p.Rows, &clamped)
			p.Width, p.Height = 0, 0 // pixels: unused, and would disagree now
			req.Payload = gossh.Marshal(&p)
		case "window-change":
			var w windowChange
			if gossh.Unmarshal(req.Payload, &w) == nil {
				w.Columns, w.Rows = g.clamp(st, w.Columns, w.Rows, &clamped)
				w.Width, w.Height = 0, 0
				req.Payload = gossh.Marshal(&w)
			}
		}
		out <- req
	}
}

// clamp bounds a size the client asked for; the first clamp of a channel
// is logged (a flood of window changes is one line).
func (g *gate) clamp(st *connState, cols, rows uint32, logged *bool) (uint32, uint32) {
	c, r := min(cols, uint32(g.cols)), min(rows, uint32(g.rows))
	if (c != cols || r != rows) && !*logged {
		g.logf("serve: %s: terminal %dx%d clamped to %dx%d (--max-columns, --max-rows)", st.remote, cols, rows, c, r)
		*logged = true
	}
	return c, r
}

// ptyRequest and windowChange are the payloads of RFC 4254 §6.2 and §6.7.
type ptyRequest struct {
	Term          string
	Columns, Rows uint32
	Width, Height uint32
	Modes         string
}

type windowChange struct {
	Columns, Rows uint32
	Width, Height uint32
}
