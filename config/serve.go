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
	// (MinTailBuffer..MaxTailBuffer): the per-session memory bound.
	TailBuffer int
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
	}
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
	file := func(name string, dst *string) field {
		return field{name, func(v *yaml.Node, path string) {
			p, ok := d.str(v, path)
			if !ok || p == "" {
				return
			}
			p, err := expandHome(p)
			if err != nil {
				d.errorf(v, path, "%v", err)
				return
			}
			if !filepath.IsAbs(p) {
				p = filepath.Join(d.dir, p)
			}
			*dst = p
		}}
	}
	bounded := func(name string, lo, hi int, dst *int) field {
		return field{name, func(v *yaml.Node, path string) {
			if i, ok := d.integer(v, path); ok {
				if i < lo || i > hi {
					d.errorf(v, path, "must be between %d and %d, got %d", lo, hi, i)
					return
				}
				*dst = i
			}
		}}
	}
	d.object(n, path, []field{
		{"listen", func(v *yaml.Node, path string) {
			if a, ok := d.str(v, path); ok {
				if err := CheckListen(a); err != nil {
					d.errorf(v, path, "%v", err)
					return
				}
				s.Listen = a
			}
		}},
		file("authorized-keys", &s.AuthorizedKeys),
		file("operator-keys", &s.OperatorKeys),
		file("host-key", &s.HostKey),
		bounded("max-sessions", 1, MaxServeSessions, &s.MaxSessions),
		{"idle-timeout", func(v *yaml.Node, path string) {
			if x, ok := d.duration(v, path); ok {
				s.IdleTimeout = x
			}
		}},
		bounded("max-tails", 0, MaxServeTails, &s.MaxTails),
		bounded("tail-buffer", MinTailBuffer, MaxTailBuffer, &s.TailBuffer),
		file("audit-log", &s.AuditLog),
	})
}
