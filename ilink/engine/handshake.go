package engine

import (
	"fmt"

	"ilinkdash/ilink/wire"
)

// Session requests: HELLO and PING, on both listeners.
func init() {
	register(wire.CodeHello, route{fn: handleHello, beforeHello: true})
	register(wire.CodePing, route{fn: handlePing, beforeHello: true})
}

func handlePing(r *request) {
	if r.decode(&wire.Empty{}) {
		r.reply(&wire.Empty{})
	}
}

// handleHello opens a session. Refusals are answered and then the
// connection is closed; a node that is going away closes without a reply.
func handleHello(r *request) {
	var req wire.HelloRequest
	layouts, err := wire.DecodeHello(r.body, &req)
	if err != nil {
		r.malformed(err)
		return
	}
	c, e := r.c, r.c.e
	if c.sess != nil {
		// The mode is fixed for the session's life (spec Q-06).
		r.fail(&wire.ErrorBody{Name: wire.ErrSessionMode, Tail: "session already open"})
		return
	}
	refuse := func(eb *wire.ErrorBody) {
		r.closeAfterReply()
		r.fail(eb)
	}
	if err := req.CheckStrings(); err != nil {
		// A string over wire.MaxHelloString (docs/PROTOCOL.md §6).
		refuse(&wire.ErrorBody{Name: wire.ErrInvalidArgument, Tail: err.Error()})
		return
	}
	if err := wire.CheckLayouts(layouts); err != nil {
		// A bad layout list (docs/PROTOCOL.md §6).
		refuse(&wire.ErrorBody{Name: wire.ErrInvalidArgument, Tail: err.Error()})
		return
	}
	switch {
	case req.Mode > wire.ModeAdmin:
		refuse(&wire.ErrorBody{Name: wire.ErrInvalidArgument, Tail: fmt.Sprintf("unknown session mode %d", uint8(req.Mode))})
		return
	case c.ep.kind == adminListener && req.Mode != wire.ModeAdmin:
		refuse(&wire.ErrorBody{Name: wire.ErrSessionMode, Tail: fmt.Sprintf("%s session on the admin listener", modeName(req.Mode))})
		return
	case c.ep.kind == dataListener && req.Mode == wire.ModeAdmin:
		refuse(&wire.ErrorBody{Name: wire.ErrSessionMode, Tail: "admin session on a data listener"})
		return
	case req.QueueManager != "" && req.QueueManager != e.cfg.QueueManager:
		refuse(&wire.ErrorBody{Name: wire.ErrInvalidArgument, Tail: fmt.Sprintf("queue manager %s not hosted here", req.QueueManager)})
		return
	}
	sid := e.sessionIDs.Add(1)
	adm := e.cl.admit(c.nodeID(), c.ep.kind, req.Mode, sid)
	switch {
	case adm.gone:
		c.close()
		return
	case adm.refuse != nil:
		refuse(adm.refuse)
		return
	}
	c.sess = &session{id: sid, mode: req.Mode, client: req.ClientName, proto: req.ConsumerProtocol, txn: adm.txn, layouts: layoutMap(layouts)}
	c.sessionOpened()
	e.logf("engine: node %d %s: session %d (%s, %s) opened", c.nodeID(), c.ep.kind, sid, req.ClientName, modeName(req.Mode))
	r.reply(&wire.HelloReply{
		NodeID:        uint16(c.nodeID()),
		QueueManager:  e.cfg.QueueManager,
		Cluster:       e.cfg.Cluster,
		EngineVersion: EngineVersion,
		SessionID:     sid,
		Nodes:         adm.nodes,
	})
}

// layoutMap indexes a HELLO layout list by body (nil when empty).
func layoutMap(ls []wire.BodyLayout) map[string]uint8 {
	if len(ls) == 0 {
		return nil
	}
	m := make(map[string]uint8, len(ls))
	for _, l := range ls {
		m[l.Body] = l.Version
	}
	return m
}
