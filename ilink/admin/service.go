package admin

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/wire"
)

// Options configure an admin service connection. The zero value is usable.
type Options struct {
	ClientName string // default "ilinkdash"
	// MaxFrame is the client's frame cap: 0 = 128 MiB, else
	// 1,048,576..999,999,999 (setMaxFrameLength, spec W-06, W-07).
	MaxFrame int
	// ReadOnly refuses every mutating call locally, before anything is
	// sent, with MIMQE_READ_ONLY (<call> refused: read-only mode).
	ReadOnly bool
	// DataAddrs are the queue managers' data addresses for the group calls'
	// short connections (spec A-10); empty = learned from QMGR LIST and the
	// node list of the handshake.
	DataAddrs []string
	// LeaveStoppedNode: a read answered MIMQE_QMGR_NOT_RUNNING (the
	// connected node's queue manager is stopped, its admin listener up) is
	// sent again on another node's admin address, as a dead connection's
	// read is: the dashboard follows the cluster, not one node. Off, the
	// caller gets the refusal (spec A-21).
	LeaveStoppedNode bool
	DialTimeout      time.Duration // TCP connect + HELLO; default 5s
	RequestTimeout   time.Duration // missing-reply limit; default 30s
	// Hub routes the group calls' short connections of a spoke service
	// through its hub (ConnectToSpoke and ConnectToSpokeByKey set it).
	Hub  *ilink.HubRoute
	Logf func(format string, args ...any)
}

func (o Options) withDefaults() (Options, error) {
	if o.ClientName == "" {
		o.ClientName = ilink.DefaultClientName
	}
	if err := ilink.CheckHelloStrings(o.ClientName, ""); err != nil {
		return o, err
	}
	if o.MaxFrame != 0 {
		if err := wire.ValidateMaxFrame(o.MaxFrame); err != nil {
			return o, &ilink.Error{Name: ilink.NameBadConfig, Tail: "MaxFrame: " + err.Error(), Kind: ilink.KindConfig}
		}
	}
	if o.DialTimeout < 0 || o.RequestTimeout < 0 {
		return o, &ilink.Error{Name: ilink.NameBadConfig, Tail: "negative timeout", Kind: ilink.KindConfig}
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	return o, nil
}

func (o Options) connConfig(mode wire.SessionMode, qmgr string) ilink.ConnConfig {
	return ilink.ConnConfig{
		ClientName:     o.ClientName,
		Mode:           mode,
		QueueManager:   qmgr,
		MaxFrame:       o.MaxFrame,
		DialTimeout:    o.DialTimeout,
		RequestTimeout: o.RequestTimeout,
		Hub:            o.Hub,
		Logf:           o.Logf,
	}
}

// Service is ILAdminService: one admin connection to a service (or, after
// ConnectToSpoke, to a spoke through its hub). Its methods are safe for
// concurrent use; requests are pipelined on the one connection.
//
// When the connection dies, the next call dials again (the same address,
// then the admin addresses of the handshake's node list); a read that was
// already sent when the connection died is retried once on the new
// connection, a mutating call never is (its outcome is unknown).
type Service struct {
	opt  Options
	addr string

	mu sync.Mutex
	// spokeName or spokeKey, when set, re-switches a redialled connection
	// to the same spoke.
	spokeName, spokeKey string
	conn                *ilink.Conn
	hello               wire.HelloReply
	admins              []string // admin addresses learned from the handshake and the node list
	closed              bool
	// cur is the address of the connection in use; avoid, those whose
	// queue manager was not running, least recently left first: tried
	// after every other address, in that order, so that with two nodes
	// stopped a third is found rather than the two taking turns.
	cur       string
	avoid     []string
	failovers []Failover // the latest switches to another node, oldest first

	dialMu sync.Mutex // serialises redials
}

// Connect opens an admin service connection to addr (host:port of an admin
// listener, by default port 9998 in production layouts; spec A-01).
func Connect(ctx context.Context, addr string, opt Options) (*Service, error) {
	s, err := New(addr, opt)
	if err != nil {
		return nil, err
	}
	return s.connect(ctx)
}

// connect opens the first connection of a service New or NewSpoke made.
func (s *Service) connect(ctx context.Context) (*Service, error) {
	c, hello, err := s.dial(ctx, s.addr)
	if err != nil {
		return nil, err
	}
	s.install(c, hello, s.addr)
	return s, nil
}

// New is Connect without the connection: it checks opt and addr ("host:port"
// or a comma-separated list, tried in order) and dials nothing; the first
// call connects. A mutating call of a read-only service is refused before
// that (mutate), so it never dials. Until the first handshake Hello is the
// zero value and AccessAdminQmgr("") names the service's own queue manager.
func New(addr string, opt Options) (*Service, error) {
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	list, err := ilink.ParseAddrs(addr)
	if err != nil {
		return nil, err
	}
	return &Service{opt: opt, addr: list[0], admins: list[1:]}, nil
}

// dial opens one admin connection (and switches it to the spoke for a
// spoke service).
func (s *Service) dial(ctx context.Context, addr string) (*ilink.Conn, wire.HelloReply, error) {
	s.mu.Lock()
	name, key := s.spokeName, s.spokeKey
	s.mu.Unlock()
	c, err := ilink.DialConn(ctx, addr, s.opt.connConfig(wire.ModeAdmin, ""))
	if err != nil {
		return nil, wire.HelloReply{}, err
	}
	hello := *c.Hello()
	// Through Options.Hub DialConn switched already; SwitchToSpoke's
	// service switches here.
	if (name != "" || key != "") && s.opt.Hub == nil {
		hello, err = switchToSpoke(ctx, c, s.opt, name, key)
		if err != nil {
			c.Close()
			return nil, wire.HelloReply{}, err
		}
	}
	return c, hello, nil
}

func (s *Service) install(c *ilink.Conn, hello wire.HelloReply, addr string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.conn, s.hello, s.cur = c, hello, addr
	for _, n := range hello.Nodes {
		s.learnLocked(n.Admin)
	}
}

func (s *Service) learnLocked(addr string) {
	if addr != "" && addr != s.addr && !contains(s.admins, addr) {
		s.admins = append(s.admins, addr)
	}
}

// LearnAdmins adds admin addresses to try when the connection's node goes
// away (the node list's, a context's list); known ones are skipped.
func (s *Service) LearnAdmins(addrs ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.spokeName != "" || s.spokeKey != "" {
		return // a spoke is reached through its hub only
	}
	for _, a := range addrs {
		s.learnLocked(a)
	}
}

// maxFailovers bounds the switches a service remembers.
const maxFailovers = 8

// Failover is one switch of the admin connection to another node: the
// node (and address) that went away and the one now in use.
type Failover struct {
	At       time.Time
	FromNode int // 0 = unknown
	FromAddr string
	ToNode   int
	ToAddr   string
	// Stopped: the node's admin listener answered but its queue manager
	// was not running (Options.LeaveStoppedNode); else it was unreachable.
	Stopped bool
}

// Text is the switch in words: "admin: node 1 unreachable, using
// 127.0.0.1:9999 (node 2)" (raw: sanitize to display).
func (f Failover) Text() string {
	from := "node " + strconv.Itoa(f.FromNode)
	if f.FromNode == 0 {
		from = f.FromAddr
	}
	why := "unreachable"
	if f.Stopped {
		why = "not running"
	}
	to := f.ToAddr
	if f.ToNode != 0 {
		to += " (node " + strconv.Itoa(f.ToNode) + ")"
	}
	return "admin: " + from + " " + why + ", using " + to
}

// Failovers returns the latest switches to another node, oldest first (at
// most 8).
func (s *Service) Failovers() []Failover {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Failover(nil), s.failovers...)
}

// Via is the admin address in use and its node (from its handshake);
// "" before the first connection.
func (s *Service) Via() (addr string, node int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur, int(s.hello.NodeID)
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// Close disconnects (svc.disconnect()). Later calls fail with a session
// error.
func (s *Service) Close() error {
	s.mu.Lock()
	c := s.conn
	s.closed, s.conn = true, nil
	s.mu.Unlock()
	if c != nil {
		c.Close()
	}
	return nil
}

// Disconnect is Close, named as in the spec.
func (s *Service) Disconnect() error { return s.Close() }

// ReadOnly reports whether the service refuses mutating calls.
func (s *Service) ReadOnly() bool { return s.opt.ReadOnly }

// Addr is the address the service was connected to (the hub's for a spoke).
func (s *Service) Addr() string { return s.addr }

// Hello is the handshake of the current connection (after a spoke switch:
// the spoke's).
func (s *Service) Hello() wire.HelloReply {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.hello
	h.Nodes = append([]wire.NodeInfo(nil), h.Nodes...)
	return h
}

// EngineVersion, Cluster, QueueManager and NodeID come from the handshake.
func (s *Service) EngineVersion() string { return s.Hello().EngineVersion }
func (s *Service) Cluster() string       { return s.Hello().Cluster }
func (s *Service) QueueManager() string  { return s.Hello().QueueManager }
func (s *Service) NodeID() int           { return int(s.Hello().NodeID) }

// mutate is the read-only choke point: every mutating method calls it
// first, so in read-only mode it fails before anything is sent or dialled
// (a service made by New connects at its first call, after this check).
func (s *Service) mutate(call string) error {
	if s.opt.ReadOnly {
		return ilink.ReadOnlyError(call)
	}
	return nil
}

func closedError() error {
	return &ilink.Error{Name: ilink.NameSessionClosed, Tail: "admin service closed by the application", Kind: ilink.KindSession}
}

// current returns the live connection, redialling when it is dead.
func (s *Service) current(ctx context.Context) (*ilink.Conn, error) {
	s.mu.Lock()
	c, closed := s.conn, s.closed
	s.mu.Unlock()
	if closed {
		return nil, closedError()
	}
	if c != nil && c.Err() == nil {
		return c, nil
	}
	return s.redial(ctx, c)
}

func (s *Service) redial(ctx context.Context, dead *ilink.Conn) (*ilink.Conn, error) {
	s.dialMu.Lock()
	defer s.dialMu.Unlock()
	s.mu.Lock()
	c, closed := s.conn, s.closed
	// The address in use first (a blip), then the others in order; one
	// whose queue manager was not running last.
	cands := []string{}
	for _, a := range append([]string{s.cur, s.addr}, s.admins...) {
		if a != "" && !contains(s.avoid, a) && !contains(cands, a) {
			cands = append(cands, a)
		}
	}
	cands = append(cands, s.avoid...)
	stopped := len(s.avoid) > 0 && s.avoid[len(s.avoid)-1] == s.cur // just left
	from, fromNode := s.cur, int(s.hello.NodeID)
	spoke := s.spokeName != "" || s.spokeKey != ""
	s.mu.Unlock()
	if closed {
		return nil, closedError()
	}
	if c != nil && c != dead && c.Err() == nil {
		return c, nil // somebody else redialled
	}
	if c != nil {
		c.Close()
	}
	if spoke {
		cands = []string{s.addr} // a spoke is reached through its hub only
	}
	var errs Unreachable
	for _, a := range cands {
		nc, hello, err := s.dial(ctx, a)
		if err == nil {
			s.install(nc, hello, a)
			switch {
			case dead == nil:
				s.opt.Logf("admin: connected to %s", a)
			case a == from:
				s.opt.Logf("admin: reconnected to %s", a)
			default:
				f := Failover{At: time.Now(), FromNode: fromNode, FromAddr: from, ToNode: int(hello.NodeID), ToAddr: a, Stopped: stopped}
				s.mu.Lock()
				if len(s.failovers) == maxFailovers {
					s.failovers = append(s.failovers[:0], s.failovers[1:]...)
				}
				s.failovers = append(s.failovers, f)
				s.mu.Unlock()
				s.opt.Logf("%s", f.Text())
			}
			return nc, nil
		}
		if ctx.Err() != nil {
			return nil, err
		}
		errs = append(errs, err)
	}
	if len(errs) == 1 {
		return nil, errs[0]
	}
	return nil, errs
}

// leave abandons connection c, whose node's queue manager is not running
// (Options.LeaveStoppedNode): its address is tried last from now on, and
// the next call dials another node. It reports whether there is another
// address to try.
func (s *Service) leave(c *ilink.Conn) bool {
	s.mu.Lock()
	if s.conn != c || len(s.admins) == 0 || s.spokeName != "" || s.spokeKey != "" {
		s.mu.Unlock()
		return false
	}
	s.avoid = append(slices.DeleteFunc(s.avoid, func(a string) bool { return a == s.cur }), s.cur)
	s.mu.Unlock()
	c.Close()
	return true
}

// addrCount is how many admin addresses the service knows.
func (s *Service) addrCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.admins)
	if !contains(s.admins, s.addr) {
		n++
	}
	return n
}

// Unreachable is the failure of a (re)connect over several admin addresses:
// each one's failure, in the order tried. Its text is one line, the first
// failure and how many more; errors.Is and errors.As see every one.
type Unreachable []error

func (e Unreachable) Error() string {
	if len(e) == 1 {
		return e[0].Error()
	}
	return fmt.Sprintf("%v (and %d more)", e[0], len(e)-1)
}

func (e Unreachable) Unwrap() []error { return e }

// do sends one request on the admin connection and waits for its reply.
// A request that could not be sent (dead connection) is sent again on a
// new connection; one that was sent is retried only if retry is set
// (reads) and the connection died under it.
func (s *Service) do(ctx context.Context, code wire.Code, req, resp wire.Message, retry bool) error {
	leaves := 0 // nodes left in this call as not running
	for attempt := 0; ; attempt++ {
		c, err := s.current(ctx)
		if err != nil {
			return err
		}
		call, err := c.Send(code, 0, req, resp, nil)
		if err != nil {
			if ilink.IsSessionError(err) && c.Err() != nil && attempt == 0 {
				continue // nothing was sent
			}
			return err
		}
		err = call.Wait(ctx)
		if err != nil && retry && attempt == 0 && ilink.IsSessionError(err) && c.Err() != nil && ctx.Err() == nil {
			continue
		}
		if err != nil && retry && leaves < s.addrCount() && s.opt.LeaveStoppedNode && ilink.HasName(err, wire.ErrQmgrNotRunning) && ctx.Err() == nil && s.leave(c) {
			leaves++
			continue // another node's queue manager may run: each known one is tried once
		}
		return err
	}
}

// read and write are do for queries and for changes.
func (s *Service) read(ctx context.Context, code wire.Code, req, resp wire.Message) error {
	return s.do(ctx, code, req, resp, true)
}

func (s *Service) write(ctx context.Context, code wire.Code, req, resp wire.Message) error {
	return s.do(ctx, code, req, resp, false)
}

// readOrWrite is read for a dry run, which changes nothing, and write for
// the change itself.
func (s *Service) readOrWrite(ctx context.Context, dryRun bool, code wire.Code, req, resp wire.Message) error {
	if dryRun {
		return s.read(ctx, code, req, resp)
	}
	return s.write(ctx, code, req, resp)
}

// QmgrList is getQmgrList: every queue manager of the service (spec A-03).
func (s *Service) QmgrList(ctx context.Context) ([]QmgrInfo, error) {
	var rep wire.QmgrListReply
	if err := s.read(ctx, wire.CodeQmgrList, &wire.Empty{}, &rep); err != nil {
		return nil, err
	}
	out := make([]QmgrInfo, len(rep.Qmgrs))
	for i, q := range rep.Qmgrs {
		out[i] = QmgrInfo{Name: q.Name, Running: q.Running, DataAddr: q.DataAddr, Clustered: q.Clustered, Cluster: q.Cluster}
	}
	return out, nil
}

// AccessAdminQmgr returns the administration handle of queue manager name
// ("" = the service's queue manager from the handshake) (spec A-04).
func (s *Service) AccessAdminQmgr(name string) *Qmgr {
	if name == "" {
		name = s.QueueManager()
	}
	return &Qmgr{svc: s, name: name}
}

// ShutdownService is shutdownService (SHUTDOWN 3002). It returns true when
// the engine answered, false when the engine closed the connection without
// an answer (it went down first, spec A-24), and an error when no answer
// came before ctx's deadline or the request timeout while the connection
// stayed open.
func (s *Service) ShutdownService(ctx context.Context, clusterWide bool) (bool, error) {
	if err := s.mutate("ShutdownService"); err != nil {
		return false, err
	}
	err := s.write(ctx, wire.CodeShutdown, &wire.ShutdownRequest{ClusterWide: clusterWide}, nil)
	switch {
	case err == nil:
		return true, nil
	case ilink.HasName(err, ilink.NameConnectionLost):
		return false, nil
	}
	return false, err
}

// PatchService is patchService (PATCH 3335): on success the service
// restarts and closes this connection (the next call reconnects).
func (s *Service) PatchService(ctx context.Context, fileName string, data []byte) error {
	if err := s.mutate("PatchService"); err != nil {
		return err
	}
	if data == nil {
		data = []byte{}
	}
	return s.write(ctx, wire.CodePatch, &wire.PatchRequest{FileName: fileName, Data: data}, nil)
}

// DiagnoseClusterDefinition is diagnoseClusterDefinition (DIAG CLUSTER
// 3395): the engine's text unchanged ("" = this service's cluster).
func (s *Service) DiagnoseClusterDefinition(ctx context.Context, cluster string) (string, error) {
	var rep wire.TextReply
	if err := s.read(ctx, wire.CodeDiagCluster, &wire.ClusterRequest{Cluster: cluster}, &rep); err != nil {
		return "", err
	}
	return rep.Text, nil
}

// ClusterLeadTable is getClusterLeadTable (VIEW CLUSTER LEADERS 3423): the
// raw ILLT1 text ("" = this service's cluster).
func (s *Service) ClusterLeadTable(ctx context.Context, cluster string) (string, error) {
	var rep wire.TextReply
	if err := s.read(ctx, wire.CodeViewClusterLeaders, &wire.ClusterRequest{Cluster: cluster}, &rep); err != nil {
		return "", err
	}
	return rep.Text, nil
}

// ClusterLeadTableParsed is getClusterLeadTableParsed: the table parsed by
// ParseLeadTable (a format other than ILLT1 is an error, unknown lines are
// skipped).
func (s *Service) ClusterLeadTableParsed(ctx context.Context, cluster string) (ClusterLeadTable, error) {
	text, err := s.ClusterLeadTable(ctx, cluster)
	if err != nil {
		return ClusterLeadTable{}, err
	}
	return ParseLeadTable(text)
}

// SpokeList lists the spokes attached to this service (a hub).
func (s *Service) SpokeList(ctx context.Context) ([]SpokeProperty, error) {
	var rep wire.SpokeListReply
	if err := s.read(ctx, wire.CodeSpokeList, &wire.Empty{}, &rep); err != nil {
		return nil, err
	}
	out := make([]SpokeProperty, len(rep.Spokes))
	for i, sp := range rep.Spokes {
		out[i] = SpokeProperty{Name: sp.Name, Key: sp.Key, Running: sp.Running, QueueManagers: sp.Qmgrs}
	}
	return out, nil
}

// ListSpokes asks the hub at hubAddr for its spokes on a connection of
// its own, closed before it returns (read-only): what a watcher that
// follows a hub's spoke list does on each look.
func ListSpokes(ctx context.Context, hubAddr string, opt Options) ([]SpokeProperty, error) {
	opt.ReadOnly = true
	svc, err := Connect(ctx, hubAddr, opt)
	if err != nil {
		return nil, err
	}
	defer svc.Close()
	return svc.SpokeList(ctx)
}

// ---- hub / spoke ----

// ConnectToSpoke is connectToSpoke(hubHost, hubPort, appName, spokeName):
// it connects to the hub's admin address, finds the spoke and switches
// the connection, which then behaves exactly like a direct connection to
// the spoke (spec A-32). On failure the connection is closed.
func ConnectToSpoke(ctx context.Context, hubAddr, spokeName string, opt Options) (*Service, error) {
	return connectSpoke(ctx, hubAddr, spokeName, "", opt)
}

// ConnectToSpokeByKey is connectToSpokeByKey: the same by the spoke's key,
// without a lookup by name.
func ConnectToSpokeByKey(ctx context.Context, hubAddr, key string, opt Options) (*Service, error) {
	if key == "" {
		return nil, &ilink.Error{Name: ilink.NameBadConfig, Tail: "empty spoke key", Kind: ilink.KindConfig}
	}
	return connectSpoke(ctx, hubAddr, "", key, opt)
}

// NewSpoke is ConnectToSpoke (name) or ConnectToSpokeByKey (key) without
// the connection, as New is Connect's: the first call connects. Its group
// calls go through the hub too (Options.Hub, set here when nil).
func NewSpoke(hubAddr, name, key string, opt Options) (*Service, error) {
	if name == "" && key == "" {
		return nil, &ilink.Error{Name: ilink.NameBadConfig, Tail: "empty spoke name", Kind: ilink.KindConfig}
	}
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	list, err := ilink.ParseAddrs(hubAddr)
	if err != nil {
		return nil, err
	}
	if opt.Hub == nil {
		if opt.Hub, err = ilink.NewHubRoute(list[0], name, key); err != nil {
			return nil, err
		}
	}
	return &Service{opt: opt, addr: list[0], spokeName: name, spokeKey: key}, nil
}

func connectSpoke(ctx context.Context, hubAddr, name, key string, opt Options) (*Service, error) {
	s, err := NewSpoke(hubAddr, name, key, opt)
	if err != nil {
		return nil, err
	}
	return s.connect(ctx)
}

// switchToSpoke sends SPOKE SWITCH on c, then HELLO again: the second
// handshake is the spoke's.
func switchToSpoke(ctx context.Context, c *ilink.Conn, opt Options, name, key string) (wire.HelloReply, error) {
	if err := c.Do(ctx, wire.CodeSpokeSwitch, 0, &wire.SpokeSwitchRequest{Name: name, Key: key}, nil); err != nil {
		return wire.HelloReply{}, err
	}
	req := wire.HelloRequest{
		ClientName:       opt.ClientName,
		ClientVersion:    ilink.ClientVersion,
		Mode:             wire.ModeAdmin,
		ConsumerProtocol: wire.ConsumerProtocolV2,
	}
	var hello wire.HelloReply
	if err := c.Do(ctx, wire.CodeHello, 0, &req, &hello); err != nil {
		return wire.HelloReply{}, err
	}
	return hello, nil
}

// SwitchToSpoke switches this service's connection to a spoke of the hub
// it is connected to. A connection switches once: a second switch fails
// (spec A-33) — locally when this service already switched, else at the
// spoke. A failed switch closes the connection; the next call
// reconnects to the hub.
func (s *Service) SwitchToSpoke(ctx context.Context, spokeName string) error {
	s.mu.Lock()
	switched := s.spokeName != "" || s.spokeKey != ""
	s.mu.Unlock()
	if switched {
		return &ilink.Error{Name: wire.ErrSpokeSwitched, Tail: "this connection already switched to a spoke", Kind: ilink.KindRejected}
	}
	c, err := s.current(ctx)
	if err != nil {
		return err
	}
	hello, err := switchToSpoke(ctx, c, s.opt, spokeName, "")
	if err != nil {
		c.Close()
		return err
	}
	s.mu.Lock()
	s.spokeName, s.hello, s.admins = spokeName, hello, nil
	s.mu.Unlock()
	return nil
}
