package engine

import (
	"fmt"
	"net"
	"strconv"
	"sync"
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
	// down: the endpoint is closed (its node killed, the engine closed).
	// It is independent of ln: connections the engine did not accept (a
	// spoke's tunnel to its hub, A-36) are served while the node is up,
	// whether or not the listener is open.
	down bool
}

// listen binds the listener without accepting yet.
func (ep *endpoint) listen() error {
	ln, err := net.Listen("tcp", ep.addr)
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
		if max := ep.node.e.cfg.MaxConnections; len(ep.conns) >= max {
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
		ep.conns[c] = struct{}{}
		ep.mu.Unlock()
		go c.run()
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
	h, _, err := wire.NewFrameReader(nc, wire.MinMaxFrame).Next()
	if err != nil || h.IsResponse() {
		return
	}
	e.logf("engine: node %d %s: %d connections open (MaxConnections): refusing one", ep.node.id, ep.kind, max)
	eb := &wire.ErrorBody{Name: wire.ErrTooManyConnections, Tail: fmt.Sprintf("node %d %s listener: %d connections open, the most it accepts (MaxConnections); try again later", ep.node.id, ep.kind, max)}
	reply := wire.Header{Flags: wire.FlagResponse | wire.FlagError, Code: h.Code, Corr: h.Corr}
	_, _ = nc.Write(wire.AppendFrame(nil, reply, eb.Encode))
}

// close closes the listener and every connection, and waits until the
// accept loop and every connection goroutine have finished (so a killed
// node's sessions are rolled back when KillNode returns).
func (ep *endpoint) close() {
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
// listener accepted. It needs no open listener, only a live endpoint;
// false when the endpoint is down (nc is then left to the caller).
func (ep *endpoint) adopt(nc net.Conn) (*conn, bool) {
	c := newConn(ep, nc)
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
