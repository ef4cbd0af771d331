package ilink

import (
	"context"
	"sync"

	"ilinkdash/ilink/wire"
)

// HubRoute reaches a spoke through its hub (spec A-32..A-35, the hub and
// spokes of docs/PROTOCOL.md §11.7): with ConnConfig.Hub set, DialConn
// connects to the hub's admin address whatever address it is given, opens
// an admin session there, switches it to the spoke's node that address
// belongs to (SPOKE SWITCH NODE; a failed switch closes the connection,
// A-34) and performs the connection's own HELLO with the spoke. So the
// producer, the consumer, queue sessions and the admin client's group
// calls all work on a spoke whose nodes no client can dial: every address
// of the spoke's node list maps to "hub + switch to that node". One route
// is shared by every connection of one spoke; it is safe for concurrent
// use.
type HubRoute struct {
	Addr  string // the hub's admin address, host:port
	Spoke string // the spoke's name, or
	Key   string // its key (selects by key when set, A-35)

	mu    sync.Mutex
	nodes map[string]uint16 // spoke node addresses (data and admin) → node id
}

// NewHubRoute checks hubAddr and that the spoke is named one way.
func NewHubRoute(hubAddr, spoke, key string) (*HubRoute, error) {
	if _, err := normalizeAddr(hubAddr); err != nil {
		return nil, configError("hub address: %v", err)
	}
	switch {
	case spoke == "" && key == "":
		return nil, configError("hub %s: no spoke named (a name or a key)", hubAddr)
	case spoke != "" && key != "":
		return nil, configError("hub %s: spoke %q and key %q: name the spoke one way", hubAddr, spoke, key)
	}
	for _, s := range []struct{ what, v string }{{"spoke name", spoke}, {"spoke key", key}} {
		if err := wire.CheckHelloString(s.what, s.v); err != nil {
			return nil, configError("%v", err)
		}
	}
	return &HubRoute{Addr: hubAddr, Spoke: spoke, Key: key, nodes: map[string]uint16{}}, nil
}

// Learn records which node each address of a spoke's node list is.
func (h *HubRoute) Learn(nodes []wire.NodeInfo) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, n := range nodes {
		for _, a := range []string{n.Addr, n.Admin} {
			if a != "" {
				h.nodes[a] = n.ID
			}
		}
	}
}

// NodeOf is the spoke node addr belongs to; 0 (the spoke's choice) for an
// address not learned yet, such as the hub's own as a first seed.
func (h *HubRoute) NodeOf(addr string) uint16 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.nodes[addr]
}

// Target names the spoke for messages: "spoke NAME via HUB".
func (h *HubRoute) Target() string {
	who := h.Spoke
	if who == "" {
		who = "key " + h.Key
	}
	return "spoke " + who + " via " + h.Addr
}

// dialHub opens the TCP connection of a DialConn through the hub and
// switches it to addr's node of the spoke; c's own HELLO follows.
func (h *HubRoute) dialHub(ctx context.Context, addr string, cfg ConnConfig) (*Conn, error) {
	nc, err := dialTCP(ctx, h.Addr, h.Target(), cfg.DialTimeout)
	if err != nil {
		return nil, err
	}
	c := newConn(nc, addr, cfg)
	hctx, cancel := context.WithTimeout(ctx, cfg.DialTimeout)
	defer cancel()
	req := wire.HelloRequest{ClientName: cfg.ClientName, ClientVersion: ClientVersion, Mode: wire.ModeAdmin, ConsumerProtocol: wire.ConsumerProtocolV2}
	err = c.Do(hctx, wire.CodeHello, 0, &req, &wire.HelloReply{})
	if err == nil {
		err = c.Do(hctx, wire.CodeSpokeSwitchNode, 0, &wire.SpokeSwitchNodeRequest{Name: h.Spoke, Key: h.Key, Node: h.NodeOf(addr)}, nil)
	}
	if err != nil {
		c.Close() // the hub closes it too after a failed switch
		return nil, err
	}
	return c, nil
}
