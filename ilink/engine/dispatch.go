package engine

import (
	"fmt"
	"slices"

	"ilinkdash/ilink/wire"
)

// handlerFunc handles one request. It runs on the connection's reader
// goroutine and must complete the request exactly once (reply, fail or
// failReport), either before it returns or later from r.async. r.body is
// valid only until it returns.
type handlerFunc func(r *request)

// route is one entry of the dispatch table.
type route struct {
	fn handlerFunc
	// modes lists the session modes that may send the request; nil = any.
	// Other modes get MIMQE_SESSION_MODE.
	modes []wire.SessionMode
	// beforeHello allows the request before the handshake (HELLO, PING).
	beforeHello bool
}

// routes is the dispatch table. Each file that handles a family of
// requests registers its codes from init (queue_handlers.go, handshake.go;
// later topics, groups and admin), so the core never changes to add one.
// It is written only during package initialisation and read-only after.
var routes = map[wire.Code]route{}

// register adds a route; a code registered twice is a programming error.
func register(code wire.Code, rt route) {
	if _, dup := routes[code]; dup {
		panic(fmt.Sprintf("engine: %v registered twice", code))
	}
	if rt.fn == nil {
		panic(fmt.Sprintf("engine: %v registered without a handler", code))
	}
	routes[code] = rt
}

// queueModes are the modes of queue sessions.
var queueModes = []wire.SessionMode{wire.ModeAutoCommit, wire.ModeTransacted}

func dispatch(r *request) {
	r.c.e.countRequest(r.c.nodeID(), r.hdr.Code)
	if s := r.c.sess; s != nil && s.relay != nil {
		s.relay(r) // the connection switched to a spoke (admin_spoke.go)
		return
	}
	rt, ok := routes[r.hdr.Code]
	if !ok {
		// Unknown code (spec W-12).
		r.fail(&wire.ErrorBody{Name: wire.ErrInvalidReqCode, Tail: fmt.Sprintf("request code %d", uint16(r.hdr.Code))})
		return
	}
	sess := r.c.sess
	if sess == nil && !rt.beforeHello {
		r.fail(&wire.ErrorBody{Name: wire.ErrSessionMode, Tail: fmt.Sprintf("%v before HELLO", r.hdr.Code)})
		return
	}
	if rt.modes != nil && (sess == nil || !slices.Contains(rt.modes, sess.mode)) {
		mode := "no"
		if sess != nil {
			mode = modeName(sess.mode)
		}
		r.fail(&wire.ErrorBody{Name: wire.ErrSessionMode, Tail: fmt.Sprintf("%v not allowed in %s session", r.hdr.Code, mode)})
		return
	}
	rt.fn(r)
}

func modeName(m wire.SessionMode) string {
	switch m {
	case wire.ModeAutoCommit:
		return "auto-commit"
	case wire.ModeTransacted:
		return "transacted"
	case wire.ModeProducer:
		return "producer"
	case wire.ModeConsumer:
		return "consumer"
	case wire.ModeAdmin:
		return "admin"
	}
	return fmt.Sprintf("mode %d", uint8(m))
}
