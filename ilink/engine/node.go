package engine

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"ilinkdash/ilink/wire"
)

// listenerKind tells a data listener from an admin listener; the HELLO
// handler accepts different session modes on each.
type listenerKind uint8

const (
	dataListener listenerKind = iota
	adminListener
)

func (k listenerKind) String() string {
	if k == adminListener {
		return "admin"
	}
	return "data"
}

// node is one cluster node's network side: its two listeners. Its
// membership state lives in cluster, its queue state in queueStore.
type node struct {
	e     *Engine
	id    int
	data  *endpoint
	admin *endpoint
}

func newNode(e *Engine, id int, dataAddr, adminAddr string) *node {
	n := &node{e: e, id: id}
	n.data = &endpoint{node: n, kind: dataListener, addr: dataAddr, conns: map[*conn]struct{}{}}
	n.admin = &endpoint{node: n, kind: adminListener, addr: adminAddr, conns: map[*conn]struct{}{}}
	return n
}

// endpoint is one listener and the connections it accepted. Its mutex is a
// leaf lock: nothing else is taken while it is held, and connections are
// closed only after it is released.
type endpoint struct {
	node *node
	kind listenerKind
	// addr is the listen address. The first listen (during Start, before
	// any goroutine reads it) replaces it by the bound address, so a port 0
	// becomes a real port and a restarted node reopens the SAME port. It is
	// never written again, so it is read without a lock.
	addr  string
	bound bool // addr is final; touched only under Engine.faultMu or in Start

	mu         sync.Mutex
	ln         net.Listener // nil while closed
	acceptDone chan struct{}
	conns      map[*conn]struct{}
	refusing   int // connections over the cap being refused (refuse)
	// preHello are the accepted connections that have not opened a session
	// yet, oldest first (MaxPreHello; helloDone and forget remove them).
	preHello []*conn
	// evicting counts the connections of conns closed to make room for a
	// newer one (acceptLoop) that have not finished yet: they no longer
	// count against MaxConnections.
	evicting int
	// reserved releases the port held while the node is down
	// (closeKeepingPort); nil when none is held.
	reserved func()
	// down: the endpoint is closed (its node killed, the engine closed).
	// It is independent of ln: connections the engine did not accept (a
	// spoke's tunnel to its hub, A-36) are served while the node is up,
	// whether or not the listener is open.
	down bool
}

// rebindWait bounds how long a restarted node waits for its old port.
const rebindWait = 3 * time.Second

// listen binds the listener without accepting yet.
func (ep *endpoint) listen() error {
	ln, err := net.Listen("tcp", ep.addr)
	if err != nil && ep.releasePort() {
		// Where a listener cannot bind beside the reservation (BSD wants
		// SO_REUSEPORT as well), it binds once the reservation is gone.
		ln, err = net.Listen("tcp", ep.addr)
	}
	// A restarted node reopens its old port. Where it could not be
	// reserved while the node was down (closeKeepingPort), a connection's
	// ephemeral end may have been given it (a client redialling the dead
	// node on loopback can even connect to itself until Go's dialer
	// notices): such a socket is short-lived, so a rebind waits for it,
	// bounded.
	for deadline := time.Now().Add(rebindWait); err != nil && ep.bound && errors.Is(err, syscall.EADDRINUSE) && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		ln, err = net.Listen("tcp", ep.addr)
	}
	ep.releasePort() // the listener holds the port now, or nobody will
	if err != nil {
		return err
	}
	if !ep.bound {
		ep.addr, ep.bound = ln.Addr().String(), true
	}
	ep.mu.Lock()
	ep.ln = ln
	ep.acceptDone = nil // set by serve
	ep.down = false
	ep.mu.Unlock()
	return nil
}

// serve starts the accept loop of a bound listener.
func (ep *endpoint) serve() {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	if ep.ln == nil || ep.acceptDone != nil {
		return
	}
	ep.acceptDone = make(chan struct{})
	go ep.acceptLoop(ep.ln, ep.acceptDone)
}

func (ep *endpoint) acceptLoop(ln net.Listener, done chan struct{}) {
	defer close(done)
	for {
		nc, err := ln.Accept()
		if err != nil {
			return // listener closed
		}
		c := newConn(ep, nc)
		ep.mu.Lock()
		if ep.ln != ln { // closed while we accepted
			ep.mu.Unlock()
			nc.Close()
			continue
		}
		e := ep.node.e
		max := e.cfg.MaxConnections
		full := len(ep.conns)-ep.evicting >= max
		var evict *conn
		var why string
		switch {
		case full && len(ep.preHello) > 0:
			// Connections that never said HELLO do not keep out one that
			// may: the oldest of them makes room.
			why = fmt.Sprintf("%d connections open (MaxConnections), %d of them without a session: closing the oldest of those", max, len(ep.preHello))
		case !full && len(ep.preHello) >= e.cfg.MaxPreHello:
			why = fmt.Sprintf("%d connections without a session (MaxPreHello): closing the oldest", len(ep.preHello))
		case full:
			refuse := ep.refusing < maxRefusing
			if refuse {
				ep.refusing++
			}
			ep.mu.Unlock()
			if !refuse {
				nc.Close() // a flood: not even a refusal
				continue
			}
			go ep.refuse(nc, max)
			continue
		}
		if why != "" {
			evict = ep.preHello[0]
			ep.preHello = slices.Delete(ep.preHello, 0, 1)
			evict.evicted = true
			ep.evicting++
		}
		ep.conns[c] = struct{}{}
		ep.preHello = append(ep.preHello, c)
		ep.mu.Unlock()
		if evict != nil {
			e.logf("engine: node %d %s: %s, accepted %v ago", ep.node.id, ep.kind, why, time.Since(evict.accepted).Round(time.Millisecond))
			evict.close()
		}
		go c.run()
	}
}

// helloDone takes c off the connections before HELLO: it opened a session.
func (ep *endpoint) helloDone(c *conn) {
	ep.mu.Lock()
	ep.dropPreHello(c)
	ep.mu.Unlock()
}

// dropPreHello removes c from preHello (if there); ep.mu is held.
func (ep *endpoint) dropPreHello(c *conn) {
	if i := slices.Index(ep.preHello, c); i >= 0 {
		ep.preHello = slices.Delete(ep.preHello, i, i+1)
	}
}

// maxRefusing bounds the connections being refused at once (each costs a
// goroutine until its first request or FrameTimeout).
const maxRefusing = 64

// refuse answers the first request of a connection over the listener's
// cap with MIMQE_TOO_MANY_CONNECTIONS and closes it: the client learns why
// (a HELLO is the first request of every client) instead of seeing a
// reset.
func (ep *endpoint) refuse(nc net.Conn, max int) {
	defer func() {
		nc.Close()
		ep.mu.Lock()
		ep.refusing--
		ep.mu.Unlock()
	}()
	e := ep.node.e
	_ = nc.SetDeadline(time.Now().Add(e.cfg.FrameTimeout))
	// The first request of a connection that has no session is a
	// handshake frame, as on an accepted connection (conn.frameLimit).
	h, _, err := wire.NewFrameReader(nc, wire.MaxHandshakeFrame).Next()
	if err != nil || h.IsResponse() {
		return
	}
	e.logf("engine: node %d %s: %d connections open (MaxConnections): refusing one", ep.node.id, ep.kind, max)
	eb := &wire.ErrorBody{Name: wire.ErrTooManyConnections, Tail: fmt.Sprintf("node %d %s listener: %d connections open, the most it accepts (MaxConnections); try again later", ep.node.id, ep.kind, max)}
	_, _ = nc.Write(errorFrame(h, 0, eb))
}

// closeKeepingPort is close for a node going down (killed, stopped, an
// outage): its port stays reserved (reservePort) until it listens again.
// Where the platform cannot reserve, the restart waits for the port
// instead (rebindWait).
func (ep *endpoint) closeKeepingPort() {
	ep.close()
	if !ep.bound {
		return
	}
	if release, err := reservePort(ep.addr); err == nil {
		ep.mu.Lock()
		ep.reserved = release
		ep.mu.Unlock()
	}
}

// releasePort gives up the port closeKeepingPort reserved, and says
// whether there was one.
func (ep *endpoint) releasePort() bool {
	ep.mu.Lock()
	release := ep.reserved
	ep.reserved = nil
	ep.mu.Unlock()
	if release != nil {
		release()
	}
	return release != nil
}

// close closes the listener and every connection, and waits until the
// accept loop and every connection goroutine have finished (so a killed
// node's sessions are rolled back when KillNode returns).
func (ep *endpoint) close() {
	ep.releasePort()
	ep.mu.Lock()
	ep.down = true // no adopt from here on: sever sees every connection
	ep.mu.Unlock()
	ep.closeListener()
	ep.sever()
}

// closeListener closes only the listener (no new inbound connections) and
// waits for its accept loop; connections stay, and the endpoint still
// serves connections handed to it by adopt.
func (ep *endpoint) closeListener() {
	ep.mu.Lock()
	ln, done := ep.ln, ep.acceptDone
	ep.ln, ep.acceptDone = nil, nil
	ep.mu.Unlock()
	if ln != nil {
		ln.Close()
	}
	if done != nil {
		<-done
	}
}

// adopt serves nc, a connection the engine opened itself, like one its
// listener accepted, ahead being what was already read from it. It needs
// no open listener, only a live endpoint; false when the endpoint is down
// (nc is then left to the caller).
func (ep *endpoint) adopt(nc net.Conn, ahead []byte) (*conn, bool) {
	c := newConn(ep, nc)
	c.ahead = ahead
	ep.mu.Lock()
	if ep.down {
		ep.mu.Unlock()
		return nil, false
	}
	ep.conns[c] = struct{}{}
	ep.mu.Unlock()
	return c, true
}

// sever closes every connection, keeps the listener, and waits until the
// connections' goroutines have finished.
func (ep *endpoint) sever() {
	ep.mu.Lock()
	cs := make([]*conn, 0, len(ep.conns))
	for c := range ep.conns {
		cs = append(cs, c)
	}
	ep.mu.Unlock()
	for _, c := range cs {
		c.close()
	}
	for _, c := range cs {
		<-c.finished
	}
}

// forget removes a finished connection.
func (ep *endpoint) forget(c *conn) {
	ep.mu.Lock()
	delete(ep.conns, c)
	ep.dropPreHello(c)
	if c.evicted {
		ep.evicting--
	}
	ep.mu.Unlock()
}

func (ep *endpoint) count() int {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	return len(ep.conns)
}

func joinHostPort(host string, port int) string {
	return net.JoinHostPort(host, strconv.Itoa(port))
}
