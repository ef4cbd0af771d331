package ilink

import (
	"time"

	"ilinkdash/ilink/wire"
)

// Defaults of Options.
const (
	DefaultClientName      = "ilinkdash"
	DefaultDialTimeout     = 5 * time.Second
	DefaultRequestTimeout  = 30 * time.Second
	DefaultFailoverTimeout = 30 * time.Second
)

// Options configure a queue session. The zero value is usable.
type Options struct {
	ClientName   string // default "ilinkdash"
	AutoCommit   bool   // session mode, fixed for the session's life (spec Q-06)
	QueueManager string // optional expected queue manager
	// MaxFrame is the client's frame cap: 0 = wire.DefaultMaxFrame (128 MiB),
	// else 1,048,576..999,999,999 (spec W-05..W-07). A request whose frame
	// would exceed it fails with MIMQE_MSG_SIZE_OVER before anything is sent.
	MaxFrame int
	// EndpointCacheFile, when set, is read at Dial and receives every
	// candidate address learned (spec S-07, S-08).
	EndpointCacheFile string
	DialTimeout       time.Duration // per address; default 5s
	RequestTimeout    time.Duration // missing-reply limit, added to any GET wait; default 30s
	// FailoverTimeout bounds the internal reconnect of the automatic
	// failover retry (spec S-11): candidates are tried with a short backoff
	// through the no-leader window until it passes. Default 30s.
	FailoverTimeout time.Duration
	// ReadOnly refuses every put and get locally, before anything is sent,
	// with MIMQE_READ_ONLY (<call> refused: read-only mode): a get takes the
	// message away, so it changes the queue too. Opening a queue and its
	// depth still work.
	ReadOnly bool
	Hub      *HubRoute                        // reach a spoke through its hub; nil = dial directly
	Logf     func(format string, args ...any) // nil = silent
}

// refuse is the queue session's read-only choke point: call, a put or a
// get, is refused locally in a read-only session.
func (o Options) refuse(call string) error {
	if o.ReadOnly {
		return ReadOnlyError(call)
	}
	return nil
}

// withDefaults validates o and fills in the defaults (spec E-09: before
// anything is sent).
func (o Options) withDefaults() (Options, error) {
	if err := helloDefaults(&o.ClientName, o.QueueManager, &o.MaxFrame); err != nil {
		return o, err
	}
	for _, d := range []struct {
		name string
		v    *time.Duration
		def  time.Duration
	}{
		{"DialTimeout", &o.DialTimeout, DefaultDialTimeout},
		{"RequestTimeout", &o.RequestTimeout, DefaultRequestTimeout},
		{"FailoverTimeout", &o.FailoverTimeout, DefaultFailoverTimeout},
	} {
		switch {
		case *d.v < 0:
			return o, configError("%s: negative duration %v", d.name, *d.v)
		case *d.v == 0:
			*d.v = d.def
		}
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	return o, nil
}

func (o Options) mode() wire.SessionMode {
	if o.AutoCommit {
		return wire.ModeAutoCommit
	}
	return wire.ModeTransacted
}

func (o Options) connConfig() ConnConfig {
	return ConnConfig{
		ClientName:     o.ClientName,
		Mode:           o.mode(),
		QueueManager:   o.QueueManager,
		MaxFrame:       o.MaxFrame,
		DialTimeout:    o.DialTimeout,
		RequestTimeout: o.RequestTimeout,
		Hub:            o.Hub,
		Logf:           o.Logf,
	}
}
