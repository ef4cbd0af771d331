package engine

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"ilinkdash/ilink/wire"
)

// Fault injection (docs/DESIGN.md §3.7). Every topology change holds faultMu, so
// changes never interleave; each returns once its effect is complete
// (listeners closed or open, sessions rolled back).

var errClosed = errors.New("engine: closed")

// KillNode kills node id: its listeners and connections close and its
// memory state is lost. If it led, no node leads until ElectionDelay has
// passed; then the running node with the lowest id (among those whose
// queue state is in sync) becomes leader.
func (e *Engine) KillNode(id int) error {
	e.faultMu.Lock()
	defer e.faultMu.Unlock()
	return e.killLocked(id)
}

func (e *Engine) killLocked(id int) error {
	n, err := e.liveNodeLocked(id)
	if err != nil {
		return err
	}
	// Membership first: from here on no HELLO is admitted on the node and
	// no queue operation succeeds on its replica; then the sockets go.
	if err := e.cl.kill(id); err != nil {
		return err
	}
	n.data.closeKeepingPort()
	n.admin.closeKeepingPort()
	e.logf("engine: node %d killed", id)
	return nil
}

// onNode runs a topology change on node id under faultMu, so two changes
// never interleave.
func (e *Engine) onNode(id int, fn func(*node) error) error {
	e.faultMu.Lock()
	defer e.faultMu.Unlock()
	n, err := e.liveNodeLocked(id)
	if err != nil {
		return err
	}
	return fn(n)
}

// liveNodeLocked returns node id of an open engine; faultMu is held.
func (e *Engine) liveNodeLocked(id int) (*node, error) {
	if e.closed {
		return nil, errClosed
	}
	return e.node(id)
}

// KillLeader kills the current leader and returns its id.
func (e *Engine) KillLeader() (int, error) {
	e.faultMu.Lock()
	defer e.faultMu.Unlock()
	id := e.Leader()
	if id == 0 {
		return 0, ErrNoLeader
	}
	return id, e.killLocked(id)
}

// RestartNode brings a killed node back: its listeners reopen on the same
// ports, it resyncs from the leader and serves as a follower.
func (e *Engine) RestartNode(id int) error {
	return e.onNode(id, func(n *node) error {
		if err := e.cl.checkRestart(id); err != nil {
			return err
		}
		if err := n.data.listen(); err != nil {
			return err
		}
		if err := n.admin.listen(); err != nil {
			n.data.close()
			return err
		}
		e.cl.restarted(id)
		n.data.serve()
		n.admin.serve()
		e.logf("engine: node %d restarted", id)
		return nil
	})
}

// StopNode stops node id's queue manager: its data listener closes (new
// connections are refused) with every data connection, its admin listener
// stays. If it led, the election rules of KillNode apply. Its queue state
// is kept and resynced when it starts again.
func (e *Engine) StopNode(id int) error {
	return e.onNode(id, func(n *node) error {
		if err := e.cl.stop(id); err != nil {
			return err
		}
		n.data.closeKeepingPort()
		e.logf("engine: node %d queue manager stopped", id)
		return nil
	})
}

// StartNode starts a stopped queue manager again (a follower that resyncs).
func (e *Engine) StartNode(id int) error {
	return e.onNode(id, func(n *node) error {
		if err := e.cl.checkStart(id); err != nil {
			return err
		}
		if err := n.data.listen(); err != nil {
			return err
		}
		e.cl.started(id)
		n.data.serve()
		e.logf("engine: node %d queue manager started", id)
		return nil
	})
}

// SeverConnections closes every client connection on every node (data and
// admin) and returns once their sessions are rolled back. Listeners stay.
func (e *Engine) SeverConnections() {
	e.faultMu.Lock()
	defer e.faultMu.Unlock()
	for _, n := range e.nodes {
		n.data.sever()
		n.admin.sever()
	}
	e.logf("engine: all connections severed")
}

// ControlFunc observes every request on every node before it is handled
// and may change what happens to it. It runs on the connection's reader
// goroutine, so it must not block for long; it may call Control or the
// remove function of any control, but not the fault API that closes
// connections (KillNode, SeverConnections, ...) synchronously: run those in
// a goroutine.
type ControlFunc func(ev *ControlEvent) ControlAction

// ControlEvent describes one request.
type ControlEvent struct {
	Node int
	Code wire.Code
	Corr uint32
	Body []byte // a copy; the function may keep it
}

// ControlAction tells the engine what to do with a request. The zero value
// means "handle normally". Controls run in registration order; the first
// one that returns a non-zero action decides, and later ones are not called
// for that request.
type ControlAction struct {
	Delay        time.Duration   // hold the reply this long (the request is still handled)
	DropReply    bool            // handle the request, then close the connection without replying
	CloseNow     bool            // close the connection without handling the request
	Reject       *wire.ErrorBody // answer with this error instead of handling (REPORT in RejectReport)
	RejectReport uint16
}

func (a ControlAction) isZero() bool {
	return a.Delay == 0 && !a.DropReply && !a.CloseNow && a.Reject == nil && a.RejectReport == 0
}

// Control installs fn until remove is called (remove is idempotent).
func (e *Engine) Control(fn ControlFunc) (remove func()) {
	return e.ctl.add(fn)
}

// controls is the list of control functions; its mutex is a leaf lock, and
// functions are called outside it so they may add or remove controls.
type controls struct {
	mu    sync.Mutex
	next  uint64
	list  []controlEntry
	count atomic.Int32 // fast path: no copy of the body when no control is set
}

type controlEntry struct {
	id uint64
	fn ControlFunc
}

func (cs *controls) add(fn ControlFunc) func() {
	cs.mu.Lock()
	cs.next++
	id := cs.next
	cs.list = append(cs.list, controlEntry{id, fn})
	cs.count.Add(1)
	cs.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			cs.mu.Lock()
			defer cs.mu.Unlock()
			for i, c := range cs.list {
				if c.id == id {
					cs.list = append(cs.list[:i:i], cs.list[i+1:]...)
					cs.count.Add(-1)
					return
				}
			}
		})
	}
}

// decide runs the controls for one request.
func (cs *controls) decide(node int, h wire.Header, body []byte) ControlAction {
	if cs.count.Load() == 0 {
		return ControlAction{}
	}
	cs.mu.Lock()
	fns := make([]ControlFunc, len(cs.list))
	for i, c := range cs.list {
		fns[i] = c.fn
	}
	cs.mu.Unlock()
	ev := &ControlEvent{Node: node, Code: h.Code, Corr: h.Corr, Body: append([]byte{}, body...)}
	for _, fn := range fns {
		if a := fn(ev); !a.isZero() {
			return a
		}
	}
	return ControlAction{}
}

// Outage takes the whole cluster off the network the way a crashed engine
// process does, keeping its state the way a restart from disk would: every
// queue manager stops (its replicas keep their data, frozen) and every
// listener closes with all its connections, so clients see connections
// refused, and no node leads. EndOutage reopens every listener on the
// same ports and starts every queue manager again; the elections follow
// after ElectionDelay. Nodes already down or stopped stay so.
func (e *Engine) Outage() error {
	e.faultMu.Lock()
	defer e.faultMu.Unlock()
	if e.closed {
		return errClosed
	}
	if e.outage != nil {
		return errors.New("engine: already in an outage")
	}
	e.outage = map[int]bool{}
	for _, n := range e.nodes {
		st := e.cl.statuses()[n.id-1]
		if !st.Up {
			continue
		}
		if st.Running {
			if err := e.cl.stop(n.id); err != nil {
				return err
			}
			n.data.closeKeepingPort()
		}
		n.admin.closeKeepingPort()
		e.outage[n.id] = st.Running
	}
	e.logf("engine: outage: every listener closed, state kept")
	return nil
}

// EndOutage ends an Outage: every node it took down listens again on its
// ports, and every queue manager it stopped starts with its data.
func (e *Engine) EndOutage() error {
	e.faultMu.Lock()
	defer e.faultMu.Unlock()
	if e.closed {
		return errClosed
	}
	if e.outage == nil {
		return errors.New("engine: no outage to end")
	}
	for _, n := range e.nodes {
		running, ok := e.outage[n.id]
		if !ok {
			continue
		}
		if err := n.admin.listen(); err != nil {
			return fmt.Errorf("engine: node %d admin listener: %w", n.id, err)
		}
		if running {
			if err := n.data.listen(); err != nil {
				return fmt.Errorf("engine: node %d data listener: %w", n.id, err)
			}
			e.cl.started(n.id)
			n.data.serve()
		}
		n.admin.serve()
	}
	e.outage = nil
	e.logf("engine: outage over: every listener open again")
	return nil
}
