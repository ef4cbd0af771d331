package config

import (
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"
)

// Serve holds the `serve:` section of the config file: the SSH server of
// `ilinkdash serve`. Its flags override it field by field (flags > file >
// default); there are no environment variables for it.
type Serve struct {
	// Listen is the SSH listen address, host:port (an empty host listens
	// on every interface).
	Listen string
	// AuthorizedKeys is an OpenSSH authorized_keys file whose keys get a
	// read-only dashboard; OperatorKeys one whose keys may mutate. Absolute
	// paths ("~" expanded, relative to the config file); "" = none.
	AuthorizedKeys string
	OperatorKeys   string
	// HostKey is the server's ed25519 private key, created on first start;
	// "" = DefaultHostKey().
	HostKey string
	// MaxSessions bounds the dashboards served at once.
	MaxSessions int
	// IdleTimeout closes a session without input for that long.
	IdleTimeout time.Duration
	// MaxTails bounds the tails running at once over all sessions (each
	// one is a consumer in its own temporary group); 0 disables tailing.
	MaxTails int
	// TailBuffer is the number of records each session's tail keeps
	// (MinTailBuffer..MaxTailBuffer), and TailBufferBytes the bytes of
	// keys, values and headers it keeps (MinTailBufferBytes..
	// MaxTailBufferBytes): whichever is reached first drops the oldest.
	// Together with MaxTails they bound what tails hold over the server.
	TailBuffer      int
	TailBufferBytes int64
	// MaxColumns and MaxRows clamp every session's terminal, at the pty
	// request and at every window change: what a session draws (and so
	// holds) is bounded whatever size the client claims.
	MaxColumns, MaxRows int
	// OpenTimeout is how long a connection may go without a dashboard:
	// from authentication (or the end of its last dashboard) until a
	// pty session is admitted. The connection is closed then.
	OpenTimeout time.Duration
	// MaxStartups bounds the connections that have no dashboard yet
	// (handshaking, authenticating, or opening one), like sshd's
	// MaxStartups; a connection over it is closed at once.
	MaxStartups int
	// MaxSessionsPerKey bounds the dashboards one key holds at once.
	MaxSessionsPerKey int
	// SaveDir is the only directory a session may write to (the tail's
	// save, operators only), with names the server chooses; "" = saving
	// is off. SaveMaxBytes caps one saved file.
	SaveDir      string
	SaveMaxBytes int64
	// AuditLog is the JSON-lines file every mutating action, connect and
	// disconnect is appended to; "" = none.
	AuditLog string
}

// Defaults and limits of the serve section.
const (
	DefaultServeListen      = "127.0.0.1:2222"
	DefaultServeMaxSessions = 32
	DefaultServeIdleTimeout = 30 * time.Minute
	DefaultServeMaxTails    = 8
	DefaultServeTailBuffer  = 2000
	MaxServeSessions        = 10000
	MaxServeTails           = 1000

	DefaultServeTailBufferBytes = 16 << 20
	DefaultServeMaxColumns      = 300
	DefaultServeMaxRows         = 100
	MinServeColumns             = 40 // the dashboard's smallest usable size
	MinServeRows                = 10
	MaxServeColumns             = 2000
	MaxServeRows                = 1000
	DefaultServeOpenTimeout     = 10 * time.Second
	DefaultServeMaxStartups     = 64
	MaxServeStartups            = 1000
	DefaultServeSessionsPerKey  = 16
	DefaultServeSaveMaxBytes    = 64 << 20
	MaxServeSaveBytes           = 4 << 30
)

// DefaultServe returns the serve settings used for everything the file
// leaves out.
func DefaultServe() Serve {
	return Serve{
		Listen:      DefaultServeListen,
		MaxSessions: DefaultServeMaxSessions,
		IdleTimeout: DefaultServeIdleTimeout,
		MaxTails:    DefaultServeMaxTails,
		TailBuffer:  DefaultServeTailBuffer,

		TailBufferBytes:   DefaultServeTailBufferBytes,
		MaxColumns:        DefaultServeMaxColumns,
		MaxRows:           DefaultServeMaxRows,
		OpenTimeout:       DefaultServeOpenTimeout,
		MaxStartups:       DefaultServeMaxStartups,
		MaxSessionsPerKey: DefaultServeSessionsPerKey,
		SaveMaxBytes:      DefaultServeSaveMaxBytes,
	}
}

// Check validates every limit of s, naming the setting (as its flag) that
// is out of range.
func (s Serve) Check() error {
	type bound struct {
		name   string
		v      int64
		lo, hi int64
	}
	for _, b := range []bound{
		{"max-sessions", int64(s.MaxSessions), 1, MaxServeSessions},
		{"max-tails", int64(s.MaxTails), 0, MaxServeTails},
		{"tail-buffer", int64(s.TailBuffer), MinTailBuffer, MaxTailBuffer},
		{"tail-buffer-bytes", s.TailBufferBytes, MinTailBufferBytes, MaxTailBufferBytes},
		{"max-columns", int64(s.MaxColumns), MinServeColumns, MaxServeColumns},
		{"max-rows", int64(s.MaxRows), MinServeRows, MaxServeRows},
		{"max-startups", int64(s.MaxStartups), 1, MaxServeStartups},
		{"max-sessions-per-key", int64(s.MaxSessionsPerKey), 1, MaxServeSessions},
		{"save-max-bytes", s.SaveMaxBytes, 1 << 10, MaxServeSaveBytes},
	} {
		if b.v < b.lo || b.v > b.hi {
			return fmt.Errorf("--%s must be between %d and %d, got %d", b.name, b.lo, b.hi, b.v)
		}
	}
	switch {
	case s.IdleTimeout < 0:
		return fmt.Errorf("--idle-timeout must not be negative, got %v", s.IdleTimeout)
	case s.OpenTimeout <= 0:
		return fmt.Errorf("--open-timeout must be positive, got %v", s.OpenTimeout)
	case s.SaveDir != "" && !filepath.IsAbs(s.SaveDir):
		return fmt.Errorf("--save-dir must be an absolute path, got %q", s.SaveDir)
	}
	return nil
}

// CheckListen validates a listen address: host:port, where the host may
// be empty (every interface) and the port 0 (any free port).
func CheckListen(s string) error {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return checkHostPort(s) // for its wording
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return fmt.Errorf("invalid address %q: port must be a number in 0..65535", s)
	}
	if host != "" && checkHostPort(net.JoinHostPort(host, "1")) != nil {
		return fmt.Errorf("invalid address %q: bad host %q", s, host)
	}
	return nil
}

// serve decodes the serve section into s (which holds the defaults).
func (d *decoder) serve(n *yaml.Node, path string, s *Serve) {
	bounded := func(name string, lo, hi int, dst *int) field {
		return field{name, func(v *yaml.Node, path string) { d.intIn(v, path, lo, hi, "", dst) }}
	}
	d.object(n, path, []field{
		d.checkedField("listen", CheckListen, &s.Listen),
		d.pathField("authorized-keys", &s.AuthorizedKeys),
		d.pathField("operator-keys", &s.OperatorKeys),
		d.pathField("host-key", &s.HostKey),
		bounded("max-sessions", 1, MaxServeSessions, &s.MaxSessions),
		d.durationField("idle-timeout", &s.IdleTimeout),
		bounded("max-tails", 0, MaxServeTails, &s.MaxTails),
		bounded("tail-buffer", MinTailBuffer, MaxTailBuffer, &s.TailBuffer),
		{"tail-buffer-bytes", func(v *yaml.Node, path string) {
			d.size(v, path, MinTailBufferBytes, MaxTailBufferBytes, &s.TailBufferBytes)
		}},
		bounded("max-columns", MinServeColumns, MaxServeColumns, &s.MaxColumns),
		bounded("max-rows", MinServeRows, MaxServeRows, &s.MaxRows),
		d.durationField("open-timeout", &s.OpenTimeout),
		bounded("max-startups", 1, MaxServeStartups, &s.MaxStartups),
		bounded("max-sessions-per-key", 1, MaxServeSessions, &s.MaxSessionsPerKey),
		d.pathField("save-dir", &s.SaveDir),
		{"save-max-bytes", func(v *yaml.Node, path string) { d.size(v, path, 1<<10, MaxServeSaveBytes, &s.SaveMaxBytes) }},
		d.pathField("audit-log", &s.AuditLog),
	})
}
