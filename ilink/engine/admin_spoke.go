package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"ilinkdash/ilink/wire"
)

// Hub and spokes (spec §3.7, A-32..A-36).
//
// A hub is an engine with a spoke listener (ServeSpokes, or Config.Spokes
// which also starts the spoke engines in this process). A spoke engine
// dials the hub (LinkToHub): TCP only goes spoke → hub, so a spoke needs
// no inbound port.
//
//   - Control link: the spoke connects, sends SPOKE REGISTER {name, key,
//     queue managers}, then SPOKE WAIT requests one at a time. The hub
//     answers a WAIT with a tunnel id when a client wants the spoke, or
//     with 0 after spokeKeepalive (so either side notices a dead link).
//   - Tunnel: for tunnel id the spoke opens a new connection to the hub and
//     sends SPOKE ATTACH {id}. After the hub's answer the spoke serves that
//     socket as an ordinary connection of its own, whether or not its
//     listeners are open: the mode of the HELLO that comes first
//     picks the node's admin or data endpoint, so tail and publish work
//     through a hub too. The id's top 16 bits name the node SPOKE SWITCH
//     NODE asked for (0: the first running node, the leader for a data
//     session).
//   - Switch: an admin client of the hub sends SPOKE SWITCH {name or key}.
//     The hub finds the registered spoke (by key without a lookup by name,
//     A-35), asks it for a tunnel and waits for the attach. From then on
//     every request of the client's connection is relayed, frame by frame
//     and in order, to the tunnel, and every reply back; the connection
//     behaves exactly like a direct connection to the spoke. A
//     connection switches once: a second SPOKE SWITCH reaches the spoke,
//     which refuses it with MIMQE_SPOKE_SWITCHED. A failed switch is
//     answered, then the connection is closed. SPOKE SWITCH NODE is
//     the same switch to one node of the spoke. When either side of
//     a tunnel goes away the other is closed.
//
// A spoke's key defaults to SpokeKey(name), so it is stable across
// restarts (a configured key is kept in the configuration, A-35).
//
// Locks: hub.mu, tunnel.mu and spokeLink.mu are leaves.

// SpokeConfig is one spoke engine a hub starts in its own process.
type SpokeConfig struct {
	Name string
	Key  string // default SpokeKey(Name)
	// Config of the spoke engine; zero fields default to one node, queue
	// manager "QM_<name>", cluster "C_<name>" and the hub's election delay.
	Config Config
}

// SpokeKey is the default key of a spoke: derived from its name, so it is
// the same after every restart.
func SpokeKey(name string) string {
	sum := sha256.Sum256([]byte("ilink-spoke:" + name))
	return "SK" + strings.ToUpper(hex.EncodeToString(sum[:8]))
}

const (
	spokeKeepalive  = 500 * time.Millisecond
	spokeSwitchWait = 5 * time.Second
	spokeIOTimeout  = 5 * time.Second
)

// SpokeStatus is a spoke as its hub sees it.
type SpokeStatus struct {
	Name    string
	Key     string
	Running bool // its control link is up
	Qmgrs   []string
}

type hub struct {
	e    *Engine
	ln   net.Listener
	addr string

	mu      sync.Mutex
	spokes  map[string]*spokeReg // by name
	tunnels map[uint64]*tunnel   // waiting for their attach
	nextID  uint64
	conns   map[net.Conn]struct{} // spoke-listener connections
	engines []*Engine             // in-process spokes (Config.Spokes)
	closed  bool
	wg      sync.WaitGroup
	done    chan struct{}
}

type spokeReg struct {
	name, key string
	qmgrs     []string
	want      chan uint64 // tunnel ids for the spoke's next WAIT
	conn      net.Conn    // its control link; nil when down
}

// ServeSpokes makes e a hub: it opens the spoke listener on addr
// ("host:0" for an ephemeral port; "" = Config.Host:0) and returns its
// address. Calling it again returns the same address.
func (e *Engine) ServeSpokes(addr string) (string, error) {
	e.faultMu.Lock()
	defer e.faultMu.Unlock()
	return e.serveSpokesLocked(addr)
}

func (e *Engine) serveSpokesLocked(addr string) (string, error) {
	if e.closed {
		return "", errClosed
	}
	if h := e.adm.hub.Load(); h != nil {
		return h.addr, nil
	}
	if addr == "" {
		addr = joinHostPort(e.cfg.Host, 0)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("engine: spoke listener: %w", err)
	}
	h := &hub{e: e, ln: ln, addr: ln.Addr().String(), spokes: map[string]*spokeReg{}, tunnels: map[uint64]*tunnel{},
		conns: map[net.Conn]struct{}{}, done: make(chan struct{})}
	e.adm.hub.Store(h)
	h.wg.Add(1)
	go h.acceptLoop()
	e.logf("engine: hub: spoke listener on %s", h.addr)
	return h.addr, nil
}

// SpokeAddr is the hub's spoke listener address ("" unless a hub).
func (e *Engine) SpokeAddr() string {
	if h := e.adm.hub.Load(); h != nil {
		return h.addr
	}
	return ""
}

// Spokes lists the spokes registered with this hub, by name.
func (e *Engine) Spokes() []SpokeStatus {
	h := e.adm.hub.Load()
	if h == nil {
		return nil
	}
	return h.list()
}

// SpokeEngine returns the in-process spoke engine started from
// Config.Spokes under name, or nil.
func (e *Engine) SpokeEngine(name string) *Engine {
	h := e.adm.hub.Load()
	if h == nil {
		return nil
	}
	h.mu.Lock()
	engines := append([]*Engine(nil), h.engines...)
	h.mu.Unlock()
	for _, se := range engines {
		if l := se.spokeLink(); l != nil && l.name == name {
			return se
		}
	}
	return nil
}

// spokeLink is e's link to its hub, or nil.
func (e *Engine) spokeLink() *spokeLink { return e.adm.link.Load() }

// WaitSpoke blocks until the named spoke's control link is up or ctx ends.
func (e *Engine) WaitSpoke(ctx context.Context, name string) error {
	for {
		for _, s := range e.Spokes() {
			if s.Name == name && s.Running {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("engine: spoke %s not linked: %w", name, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// startSpokes runs Config.Spokes: the hub listener and one engine per spoke.
func (e *Engine) startSpokes(list []SpokeConfig) error {
	e.faultMu.Lock()
	addr, err := e.serveSpokesLocked("")
	h := e.adm.hub.Load()
	e.faultMu.Unlock()
	if err != nil {
		return err
	}
	for _, sc := range list {
		cfg := sc.Config
		if cfg.Nodes == 0 {
			cfg.Nodes = 1
		}
		if cfg.QueueManager == "" {
			cfg.QueueManager = "QM_" + sc.Name
		}
		if cfg.Cluster == "" {
			cfg.Cluster = "C_" + sc.Name
		}
		if cfg.ElectionDelay == 0 {
			cfg.ElectionDelay = e.cfg.ElectionDelay
		}
		if cfg.Host == "" {
			cfg.Host = e.cfg.Host
		}
		if cfg.Logf == nil && e.cfg.Logf != nil {
			name, logf := sc.Name, e.cfg.Logf
			cfg.Logf = func(format string, args ...any) { logf("[spoke "+name+"] "+format, args...) }
		}
		se, err := Start(cfg)
		if err != nil {
			return fmt.Errorf("engine: spoke %s: %w", sc.Name, err)
		}
		h.mu.Lock()
		h.engines = append(h.engines, se)
		h.mu.Unlock()
		if err := se.LinkToHub(addr, sc.Name, sc.Key); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), spokeIOTimeout)
	defer cancel()
	for _, sc := range list {
		if err := e.WaitSpoke(ctx, sc.Name); err != nil {
			return err
		}
	}
	return nil
}

func (h *hub) list() []SpokeStatus {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]SpokeStatus, 0, len(h.spokes))
	for _, s := range h.spokes {
		out = append(out, SpokeStatus{Name: s.name, Key: s.key, Running: s.conn != nil, Qmgrs: append([]string(nil), s.qmgrs...)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (h *hub) stop() {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	h.closed = true
	close(h.done)
	conns := make([]net.Conn, 0, len(h.conns))
	for c := range h.conns {
		conns = append(conns, c)
	}
	tunnels := make([]*tunnel, 0, len(h.tunnels))
	for _, t := range h.tunnels {
		tunnels = append(tunnels, t)
	}
	engines := h.engines
	h.mu.Unlock()
	h.ln.Close()
	for _, c := range conns {
		c.Close()
	}
	for _, t := range tunnels {
		t.fail()
	}
	h.wg.Wait()
	for _, se := range engines {
		se.Close()
	}
}

func (h *hub) track(c net.Conn) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	h.conns[c] = struct{}{}
	return true
}

func (h *hub) untrack(c net.Conn) {
	h.mu.Lock()
	delete(h.conns, c)
	h.mu.Unlock()
}

func (h *hub) acceptLoop() {
	defer h.wg.Done()
	for {
		nc, err := h.ln.Accept()
		if err != nil {
			return
		}
		if !h.track(nc) {
			nc.Close()
			return
		}
		h.wg.Add(1)
		go h.serveConn(nc)
	}
}

// linkFrame writes one frame on a link connection.
func linkFrame(nc net.Conn, h wire.Header, m wire.Message) error {
	var enc func(*wire.Writer)
	if m != nil {
		enc = m.Encode
	}
	_ = nc.SetWriteDeadline(time.Now().Add(spokeIOTimeout))
	_, err := nc.Write(wire.AppendFrame(nil, h, enc))
	return err
}

func linkReply(nc net.Conn, req wire.Header, m wire.Message) error {
	return linkFrame(nc, wire.Header{Flags: wire.FlagResponse, Code: req.Code, Corr: req.Corr}, m)
}

func linkError(nc net.Conn, req wire.Header, eb *wire.ErrorBody) error {
	return linkFrame(nc, wire.Header{Flags: wire.FlagResponse | wire.FlagError, Code: req.Code, Corr: req.Corr}, eb)
}

// serveConn serves one connection of the spoke listener: a control link
// (REGISTER) or a tunnel (ATTACH).
func (h *hub) serveConn(nc net.Conn) {
	defer h.wg.Done()
	attached := false
	defer func() {
		h.untrack(nc)
		if !attached {
			nc.Close()
		}
	}()
	// Nothing on this listener is large: REGISTER (a name, a key and a
	// queue manager, each wire.MaxHelloString at most: LinkToHub), ATTACH
	// and WAIT. A frame over wire.MaxHandshakeFrame closes the connection
	// from its header, before the spoke is anyone.
	fr := wire.NewFrameReader(nc, wire.MaxHandshakeFrame)
	_ = nc.SetReadDeadline(time.Now().Add(spokeIOTimeout))
	hd, body, err := fr.Next()
	if err != nil || hd.IsResponse() {
		return
	}
	switch hd.Code {
	case wire.CodeSpokeRegister:
		var req wire.SpokeRegisterRequest
		if wire.Decode(body, &req) != nil {
			return
		}
		h.serveLink(nc, fr, hd, &req)
	case wire.CodeSpokeAttach:
		var req wire.SpokeTunnel
		if wire.Decode(body, &req) != nil {
			return
		}
		h.mu.Lock()
		t := h.tunnels[req.Tunnel]
		delete(h.tunnels, req.Tunnel)
		h.mu.Unlock()
		if t == nil {
			_ = linkError(nc, hd, &wire.ErrorBody{Name: wire.ErrUnknownSpoke, Tail: fmt.Sprintf("no tunnel %d", req.Tunnel)})
			return
		}
		_ = nc.SetReadDeadline(time.Time{})
		if linkReply(nc, hd, &wire.Empty{}) != nil {
			t.fail()
			return
		}
		_ = nc.SetWriteDeadline(time.Time{})
		attached = true
		t.attach(nc)
	}
}

func validSpokeName(s string) error {
	if strings.TrimSpace(s) == "" {
		return errors.New("empty spoke name")
	}
	if err := wire.CheckHelloString("spoke name", s); err != nil {
		return err
	}
	for i := 0; i < len(s); i++ {
		if b := s[i]; b < 0x20 || b == 0x7f || b == '|' {
			return fmt.Errorf("spoke name %q: byte 0x%02x not allowed", s, b)
		}
	}
	return nil
}

// serveLink registers a spoke and answers its WAITs until the link dies.
func (h *hub) serveLink(nc net.Conn, fr *wire.FrameReader, hd wire.Header, req *wire.SpokeRegisterRequest) {
	if err := validSpokeName(req.Name); err != nil {
		_ = linkError(nc, hd, &wire.ErrorBody{Name: wire.ErrInvalidArgument, Tail: err.Error()})
		return
	}
	key := req.Key
	if key == "" {
		key = SpokeKey(req.Name)
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	reg := h.spokes[req.Name]
	switch {
	case reg == nil:
		reg = &spokeReg{name: req.Name, want: make(chan uint64, 16)}
		h.spokes[req.Name] = reg
	case reg.conn != nil && reg.key != key:
		h.mu.Unlock()
		_ = linkError(nc, hd, &wire.ErrorBody{Name: wire.ErrInvalidArgument, Tail: fmt.Sprintf("spoke %s is already linked with another key", req.Name)})
		return
	case reg.conn != nil:
		reg.conn.Close() // the same spoke again (restarted): the new link wins
	}
	for _, o := range h.spokes { // a key names one spoke
		if o != reg && o.key == key {
			h.mu.Unlock()
			_ = linkError(nc, hd, &wire.ErrorBody{Name: wire.ErrInvalidArgument, Tail: fmt.Sprintf("key of spoke %s is spoke %s's", req.Name, o.name)})
			return
		}
	}
	reg.key, reg.qmgrs, reg.conn = key, req.Qmgrs, nc
	h.mu.Unlock()
	h.e.logf("engine: hub: spoke %s linked (key %s)", req.Name, key)
	defer func() {
		h.mu.Lock()
		if reg.conn == nc {
			reg.conn = nil
		}
		h.mu.Unlock()
		h.e.logf("engine: hub: spoke %s link down", req.Name)
	}()
	if linkReply(nc, hd, &wire.Empty{}) != nil {
		return
	}
	for {
		_ = nc.SetReadDeadline(time.Now().Add(4 * spokeKeepalive))
		hd, _, err := fr.Next()
		if err != nil || hd.Code != wire.CodeSpokeWait {
			return
		}
		var id uint64
		t := time.NewTimer(spokeKeepalive)
		select {
		case id = <-reg.want:
		case <-t.C:
		case <-h.done:
			t.Stop()
			return
		}
		t.Stop()
		if linkReply(nc, hd, &wire.SpokeTunnel{Tunnel: id}) != nil {
			return
		}
	}
}

// tunnelNodeShift places the node a tunnel is for in its id's top bits.
const tunnelNodeShift = 48

// open asks the spoke named by key (when set) or name for a tunnel to its
// node (0: the spoke's choice).
func (h *hub) open(name, key string, node uint16) (*tunnel, *wire.ErrorBody) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var reg *spokeReg
	if key != "" {
		for _, s := range h.spokes {
			if s.key == key {
				reg = s
			}
		}
		if reg == nil {
			return nil, &wire.ErrorBody{Name: wire.ErrUnknownSpoke, Tail: "no spoke with key " + key}
		}
	} else if reg = h.spokes[name]; reg == nil {
		return nil, &wire.ErrorBody{Name: wire.ErrUnknownSpoke, Tail: name}
	}
	if reg.conn == nil {
		return nil, &wire.ErrorBody{Name: wire.ErrUnknownSpoke, Tail: fmt.Sprintf("spoke %s is not linked", reg.name)}
	}
	h.nextID++
	t := &tunnel{id: h.nextID&(1<<tunnelNodeShift-1) | uint64(node)<<tunnelNodeShift, spoke: reg.name, ready: make(chan struct{}), done: make(chan struct{})}
	select {
	case reg.want <- t.id:
	default:
		return nil, &wire.ErrorBody{Name: wire.ErrUnknownSpoke, Tail: fmt.Sprintf("spoke %s is busy", reg.name)}
	}
	h.tunnels[t.id] = t
	return t, nil
}

func (h *hub) forget(t *tunnel) {
	h.mu.Lock()
	delete(h.tunnels, t.id)
	h.mu.Unlock()
}

// tunnel relays one switched client connection to its spoke.
type tunnel struct {
	id     uint64
	spoke  string
	ready  chan struct{} // closed by attach
	done   chan struct{} // closed by fail
	client *conn         // set before the switch is answered

	wmu  sync.Mutex // serialises forward: FIFO order = byte order on the socket
	mu   sync.Mutex // guards the fields below; never held while writing
	nc   net.Conn
	fifo []*request // relayed requests waiting for their replies, in order
	corr uint32
	dead bool
	once sync.Once
}

func (t *tunnel) attach(nc net.Conn) {
	t.mu.Lock()
	if t.dead {
		t.mu.Unlock()
		nc.Close()
		return
	}
	t.nc = nc
	t.mu.Unlock()
	close(t.ready)
	go t.readLoop(nc)
}

// fail closes both sides once. The client connection closes after the
// replies already relayed are written; requests still waiting for the
// spoke get none, as on a direct connection that closed.
func (t *tunnel) fail() {
	t.once.Do(func() {
		t.mu.Lock()
		t.dead = true
		nc, client, pending := t.nc, t.client, t.fifo
		t.fifo = nil
		t.mu.Unlock()
		close(t.done)
		if nc != nil {
			nc.Close()
		}
		for _, r := range pending {
			r.finish(nil) // nothing is written for it
		}
		if client != nil {
			client.closeAfterWritten()
		}
	})
}

// closeAfterWritten closes the connection once every reply owed so far has
// been written: it queues a completed, reply-less slot that closes the
// connection when the writer reaches it.
func (c *conn) closeAfterWritten() {
	done := make(chan struct{})
	close(done)
	s := &slot{done: done, noReply: true, closeAfter: true}
	s.complete.Store(true)
	select {
	case c.slots <- s:
	case <-c.closing:
	}
}

// forward relays one request (the client connection's reader goroutine).
func (t *tunnel) forward(r *request) {
	body := r.body
	h := r.hdr
	t.wmu.Lock()
	defer t.wmu.Unlock()
	t.mu.Lock()
	if t.dead {
		t.mu.Unlock()
		r.finish(nil) // behind fail's closing slot: never written
		return
	}
	t.corr++
	h.Corr = t.corr
	noReply := h.Flags&wire.FlagNoReply != 0
	if !noReply {
		t.fifo = append(t.fifo, r)
	}
	nc := t.nc
	t.mu.Unlock()
	frame := wire.AppendFrame(nil, h, func(w *wire.Writer) { w.Raw(body) })
	_ = nc.SetWriteDeadline(time.Now().Add(spokeIOTimeout))
	_, err := nc.Write(frame)
	if err != nil {
		t.fail()
		return
	}
	if noReply {
		r.reply(nil) // nothing is written for a no-reply slot
	}
}

// readLoop relays the spoke's replies back, restoring the client's
// correlation ids.
func (t *tunnel) readLoop(nc net.Conn) {
	defer t.fail()
	fr := wire.NewFrameReader(nc, wire.HardMaxFrame)
	for {
		h, body, err := fr.Next()
		if err != nil || !h.IsResponse() {
			return
		}
		t.mu.Lock()
		if len(t.fifo) == 0 {
			t.mu.Unlock()
			return
		}
		r := t.fifo[0]
		t.fifo[0] = nil
		t.fifo = t.fifo[1:]
		t.mu.Unlock()
		if h.Code != r.hdr.Code {
			return
		}
		h.Corr = r.hdr.Corr
		b := body
		r.finish(wire.AppendFrame(nil, h, func(w *wire.Writer) { w.Raw(b) }))
	}
}

// handleSpokeSwitch switches the connection to a spoke (see the file
// comment). It waits on the reader goroutine: nothing else may happen on
// a connection that is switching.
func handleSpokeSwitch(r *request) {
	var req wire.SpokeSwitchRequest
	if r.decode(&req) {
		spokeSwitch(r, req.Name, req.Key, 0)
	}
}

// handleSpokeSwitchNode is SPOKE SWITCH to one node of the spoke.
func handleSpokeSwitchNode(r *request) {
	var req wire.SpokeSwitchNodeRequest
	if r.decode(&req) {
		spokeSwitch(r, req.Name, req.Key, req.Node)
	}
}

func spokeSwitch(r *request, name, key string, node uint16) {
	e := r.c.e
	refuse := func(eb *wire.ErrorBody) {
		r.closeAfterReply() // spec A-34: a failed switch closes the connection
		r.fail(eb)
	}
	if l := e.spokeLink(); l != nil && l.isAdopted(r.c) {
		refuse(&wire.ErrorBody{Name: wire.ErrSpokeSwitched, Tail: "this connection already switched to spoke " + l.name})
		return
	}
	h := e.adm.hub.Load()
	if h == nil {
		refuse(&wire.ErrorBody{Name: wire.ErrUnknownSpoke, Tail: "this service is not a hub"})
		return
	}
	t, eb := h.open(name, key, node)
	if eb != nil {
		refuse(eb)
		return
	}
	timer := time.NewTimer(spokeSwitchWait)
	defer timer.Stop()
	select {
	case <-t.ready:
	case <-timer.C:
	case <-r.closing():
	}
	select {
	case <-t.ready:
	default:
		h.forget(t)
		t.fail()
		refuse(&wire.ErrorBody{Name: wire.ErrUnknownSpoke, Tail: fmt.Sprintf("spoke %s did not attach within %v", t.spoke, spokeSwitchWait)})
		return
	}
	t.mu.Lock()
	t.client = r.c
	t.mu.Unlock()
	c := r.c
	go func() { // either side going away closes the other
		select {
		case <-c.closing:
			t.fail()
		case <-t.done:
		}
	}()
	c.sess.relay = t.forward
	e.logf("engine: node %d: session %d switched to spoke %s", c.nodeID(), c.sess.id, t.spoke)
	r.reply(&wire.Empty{})
}

func handleSpokeList(r *request) {
	if !r.decode(&wire.Empty{}) {
		return
	}
	rep := &wire.SpokeListReply{}
	for _, s := range r.c.e.Spokes() {
		rep.Spokes = append(rep.Spokes, wire.SpokeEntry{Name: s.Name, Key: s.Key, Running: s.Running, Qmgrs: s.Qmgrs})
	}
	r.reply(rep)
}

// ---- spoke side ----

// spokeLink is a spoke engine's link to its hub.
type spokeLink struct {
	e             *Engine
	hubAddr, name string
	key           string

	mu      sync.Mutex
	conns   map[net.Conn]struct{}
	adopted map[*conn]struct{}
	stopped bool
	stopCh  chan struct{}
	wg      sync.WaitGroup
	up      atomic.Bool
}

// LinkToHub makes e a spoke of the hub whose spoke listener is hubAddr:
// e keeps a control link to it (reconnecting with backoff) and serves the
// tunnels the hub asks for. key "" = SpokeKey(name).
func (e *Engine) LinkToHub(hubAddr, name, key string) error {
	if err := validSpokeName(name); err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	if key == "" {
		key = SpokeKey(name)
	}
	// REGISTER is a handshake frame on the hub (serveConn).
	if err := wire.CheckHelloString("spoke key", key); err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	if err := wire.CheckHelloString("queue manager", e.cfg.QueueManager); err != nil {
		return fmt.Errorf("engine: spoke %s: %w", name, err)
	}
	e.faultMu.Lock()
	defer e.faultMu.Unlock()
	if e.closed {
		return errClosed
	}
	if l := e.adm.link.Load(); l != nil {
		return fmt.Errorf("engine: already linked to a hub as spoke %s", l.name)
	}
	l := &spokeLink{e: e, hubAddr: hubAddr, name: name, key: key, conns: map[net.Conn]struct{}{},
		adopted: map[*conn]struct{}{}, stopCh: make(chan struct{})}
	e.adm.link.Store(l)
	l.wg.Add(1)
	go l.run()
	return nil
}

// HubLinked reports whether e's control link to its hub is up.
func (e *Engine) HubLinked() bool {
	l := e.spokeLink()
	return l != nil && l.up.Load()
}

func (l *spokeLink) stop() {
	l.mu.Lock()
	if l.stopped {
		l.mu.Unlock()
		return
	}
	l.stopped = true
	close(l.stopCh)
	for c := range l.conns {
		c.Close()
	}
	l.mu.Unlock()
	l.wg.Wait()
}

func (l *spokeLink) isAdopted(c *conn) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.adopted[c]
	return ok
}

func (l *spokeLink) dial() (net.Conn, error) {
	nc, err := net.DialTimeout("tcp", l.hubAddr, spokeIOTimeout)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		nc.Close()
		return nil, errClosed
	}
	l.conns[nc] = struct{}{}
	return nc, nil
}

func (l *spokeLink) release(nc net.Conn, close bool) {
	l.mu.Lock()
	delete(l.conns, nc)
	l.mu.Unlock()
	if close {
		nc.Close()
	}
}

func (l *spokeLink) run() {
	defer l.wg.Done()
	backoff := 20 * time.Millisecond
	for {
		err := l.session()
		select {
		case <-l.stopCh:
			return
		default:
		}
		l.e.logf("engine: spoke %s: link to hub %s: %v; retrying", l.name, l.hubAddr, err)
		select {
		case <-l.stopCh:
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, time.Second)
	}
}

// linkCall writes a request and reads its reply (exact reads, so nothing
// beyond the reply is consumed from the socket).
func linkCall(nc net.Conn, fr *wire.FrameReader, code wire.Code, corr uint32, req, resp wire.Message, wait time.Duration) error {
	if err := linkFrame(nc, wire.Header{Code: code, Corr: corr}, req); err != nil {
		return err
	}
	_ = nc.SetReadDeadline(time.Now().Add(wait))
	h, body, err := fr.Next()
	if err != nil {
		return err
	}
	if !h.IsResponse() || h.Corr != corr || h.Code != code {
		return fmt.Errorf("unexpected frame %v corr %d", h.Code, h.Corr)
	}
	if h.IsError() {
		var eb wire.ErrorBody
		if err := wire.Decode(body, &eb); err != nil {
			return err
		}
		return fmt.Errorf("%s (%s)", eb.Name, eb.Tail)
	}
	if resp == nil {
		resp = &wire.Empty{}
	}
	return wire.Decode(body, resp)
}

// session runs one control link until it fails.
func (l *spokeLink) session() error {
	nc, err := l.dial()
	if err != nil {
		return err
	}
	defer l.release(nc, true)
	fr := wire.NewFrameReader(nc, wire.MinMaxFrame)
	var corr uint32
	corr++
	if err := linkCall(nc, fr, wire.CodeSpokeRegister, corr, &wire.SpokeRegisterRequest{Name: l.name, Key: l.key, Qmgrs: []string{l.e.cfg.QueueManager}}, nil, spokeIOTimeout); err != nil {
		return err
	}
	l.up.Store(true)
	defer l.up.Store(false)
	l.e.logf("engine: spoke %s: linked to hub %s", l.name, l.hubAddr)
	for {
		corr++
		var t wire.SpokeTunnel
		if err := linkCall(nc, fr, wire.CodeSpokeWait, corr, &wire.Empty{}, &t, 4*spokeKeepalive); err != nil {
			return err
		}
		if t.Tunnel != 0 {
			l.wg.Add(1)
			go l.attach(t.Tunnel)
		}
	}
}

// attach opens the tunnel connection and serves it as an admin connection.
func (l *spokeLink) attach(id uint64) {
	defer l.wg.Done()
	nc, err := l.dial()
	if err != nil {
		return
	}
	fr := wire.NewFrameReader(nc, wire.MinMaxFrame)
	if err := linkCall(nc, fr, wire.CodeSpokeAttach, 1, &wire.SpokeTunnel{Tunnel: id}, nil, spokeIOTimeout); err != nil {
		l.release(nc, true)
		return
	}
	l.release(nc, false) // from here on the engine owns it
	// The client's HELLO follows the hub's answer to its switch at once.
	_ = nc.SetReadDeadline(time.Now().Add(spokeIOTimeout))
	hello, mode, err := peekHello(nc)
	_ = nc.SetDeadline(time.Time{})
	if err != nil {
		nc.Close()
		return
	}
	if eb := l.e.adopt(nc, hello, l, mode, int(id>>tunnelNodeShift)); eb != nil {
		// The client learns why, as from a node that refuses it: its
		// HELLO is answered with the error, then the tunnel closes.
		l.e.logf("engine: spoke %s: tunnel for %s", l.name, eb.Name+" ("+eb.Tail+")")
		h, _ := wire.ParseHeader(hello)
		_ = nc.SetWriteDeadline(time.Now().Add(spokeIOTimeout))
		_, _ = nc.Write(errorFrame(h, 0, eb))
		nc.Close()
	}
}

// peekHello reads a tunnel's first frame, which must be a HELLO, and
// returns its bytes and session mode (the engine reads the frame again).
func peekHello(nc net.Conn) ([]byte, wire.SessionMode, error) {
	buf := make([]byte, wire.HeaderSize, 256)
	if _, err := io.ReadFull(nc, buf); err != nil {
		return nil, 0, err
	}
	h, err := wire.ParseHeader(buf)
	if err != nil {
		return nil, 0, err
	}
	if h.Code != wire.CodeHello || h.IsResponse() || h.BodyLen() < 0 || int(h.Length) > wire.MaxHandshakeFrame {
		return nil, 0, fmt.Errorf("tunnel: first frame %v is not a HELLO", h.Code)
	}
	buf = append(buf, make([]byte, h.BodyLen())...)
	if _, err := io.ReadFull(nc, buf[wire.HeaderSize:]); err != nil {
		return nil, 0, err
	}
	var req wire.HelloRequest
	if _, err := wire.DecodeHello(buf[wire.HeaderSize:], &req); err != nil {
		return nil, 0, err
	}
	return buf, req.Mode, nil
}

// adopt serves nc, a connection the spoke opened itself whose HELLO has
// been read (hello), on node's admin endpoint (an admin HELLO) or data
// endpoint (any other); node 0 is the first running node, the leader for
// a data session. The listeners play no part: the tunnel is served
// whether or not they are open, so a spoke needs no inbound port to be
// reached through its hub. The error says why no node took it.
func (e *Engine) adopt(nc net.Conn, hello []byte, l *spokeLink, mode wire.SessionMode, id int) *wire.ErrorBody {
	nodes := e.nodes
	switch {
	case id > 0 && id <= len(e.nodes):
		nodes = e.nodes[id-1 : id]
	case id > 0:
		return &wire.ErrorBody{Name: wire.ErrUnknownNode, Tail: fmt.Sprintf("node %d (spoke %s has %d)", id, l.name, len(e.nodes))}
	case mode != wire.ModeAdmin:
		if ld := e.Leader(); ld > 0 {
			nodes = append([]*node{e.nodes[ld-1]}, e.nodes...)
		}
	}
	for _, n := range nodes {
		ep := n.data
		if mode == wire.ModeAdmin {
			ep = n.admin
		}
		c, ok := ep.adopt(nc, hello)
		if !ok {
			continue // node killed
		}
		l.mu.Lock()
		l.adopted[c] = struct{}{}
		l.mu.Unlock()
		go func() {
			c.run()
			l.mu.Lock()
			delete(l.adopted, c)
			l.mu.Unlock()
		}()
		return nil
	}
	if id > 0 {
		return &wire.ErrorBody{Name: wire.ErrUnknownNode, Tail: fmt.Sprintf("node %d of spoke %s is not running", id, l.name)}
	}
	return &wire.ErrorBody{Name: wire.ErrUnknownNode, Tail: fmt.Sprintf("no node of spoke %s is running", l.name)}
}
