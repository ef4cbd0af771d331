package engine

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"ilinkdash/ilink/wire"
)

// Cluster definitions (spec §3.8, K-01..K-19).
//
// A definition is versioned: every change carries the version it was read
// at, and a change based on an older version fails with
// MIMQE_CLUSTER_DEF_MOVED (optimistic check, K-15). Changes are committed
// by a controller asynchronously to the request that submitted them
// (K-11): the submitting node hands the change to the controller and waits
// up to ReplyWait for the commit. Then:
//   - committed in time: the reply carries the new definition;
//   - not yet: MIMQE_CLUSTER_NOT_COMMITTED (not committed - retry); the
//     change stays pending and still commits later (K-12);
//   - the controller's answer was lost (fault LoseReplies):
//     MIMQE_CLUSTER_NOT_COMMITTED (outcome unknown - check VIEW CLUSTER),
//     and the change does commit (K-13);
//   - an earlier change is still pending: MIMQE_CLUSTER_NOT_COMMITTED
//     (earlier change still pending - retry), and this one is not
//     submitted at all (K-14).
//
// Resending exactly the version that was read is therefore safe (K-16):
// if the first attempt committed, the version moved. Read-modify-write
// helpers re-run after a commit are refused by content instead: ADD NODE
// of a node whose address (or queue manager on that host) is already
// node N's answers MIMQE_INVALID_PROPERTY (qmgr or address is node N's)
// and never adds a duplicate (K-17).
//
// The engine's own definition starts as its nodes (number i = node i,
// queue manager Config.QueueManager, data port, admin port as the ilcc
// port), version 1, PLACEMENT on, replicas and minSync unset. It is
// bookkeeping: the in-process engine's running nodes are fixed at Start,
// so adding a node to the definition starts nothing. Topic defaults may
// read it (ClusterDefinition).
//
// clusterDefs.mu is a leaf lock.

// ClusterNodeDef is one node of a cluster definition (ILClusterNode).
type ClusterNodeDef struct {
	Number       int
	QueueManager string
	Host         string
	Port         int // queue manager listener (data) port
	IlccPort     int
}

// ClusterDef is a committed cluster definition. Replicas and MinSync are
// 0 when unset.
type ClusterDef struct {
	Name      string
	IlccPort  int
	Version   int64
	Replicas  int
	MinSync   int
	Placement bool
	AutoStart bool
	Nodes     []ClusterNodeDef
}

// EffectiveReplicas is Replicas, or the number of data nodes when unset.
func (d ClusterDef) EffectiveReplicas() int {
	if d.Replicas > 0 {
		return d.Replicas
	}
	return len(d.Nodes)
}

func (d ClusterDef) clone() ClusterDef {
	d.Nodes = slices.Clone(d.Nodes)
	return d
}

func (d ClusterDef) sameContent(o ClusterDef) bool {
	return d.Name == o.Name && d.IlccPort == o.IlccPort && d.Replicas == o.Replicas && d.MinSync == o.MinSync &&
		d.Placement == o.Placement && d.AutoStart == o.AutoStart && slices.Equal(d.Nodes, o.Nodes)
}

// DefinitionFaults make the controller's asynchronous commit observable.
// The zero value is a prompt controller.
type DefinitionFaults struct {
	// CommitDelay: the controller commits a submitted change this long
	// after it was submitted.
	CommitDelay time.Duration
	// Hold: the controller commits nothing until ReleaseDefinitionChanges.
	Hold bool
	// LoseReplies: the next N submitted changes commit, but the
	// controller's answer to the submitting node is lost.
	LoseReplies int
	// Unreachable: JOIN CLUSTER cannot reach the controller; it retries
	// for JoinRetry and then answers MIMQE_CLUSTER_UNREACHABLE.
	Unreachable bool
	// ReplyWait: how long the submitting node waits for the commit before
	// answering NOT_COMMITTED; default 2s.
	ReplyWait time.Duration
	// JoinRetry: how long JOIN CLUSTER retries an unreachable controller;
	// default 15s (the real engine's figure).
	JoinRetry time.Duration
}

const (
	defaultDefReplyWait = 2 * time.Second
	defaultJoinRetry    = 15 * time.Second
)

type clusterDefs struct {
	e      *Engine
	mu     sync.Mutex
	own    string
	regs   map[string]*defReg
	faults DefinitionFaults
	down   bool
}

type defReg struct {
	committed ClusterDef
	pending   *pendingDef
	created   bool // by CREATE CLUSTER (not the engine's own)
}

type pendingDef struct {
	def   ClusterDef
	done  chan struct{} // closed at commit
	timer *time.Timer   // nil while held
}

func (d *clusterDefs) init(e *Engine) {
	d.e = e
	d.own = e.cfg.Cluster
	def := ClusterDef{Name: e.cfg.Cluster, Version: 1, Placement: true, AutoStart: true}
	for _, n := range e.nodes {
		host, dport := splitAddr(n.data.addr)
		_, aport := splitAddr(n.admin.addr)
		if n.id == 1 {
			def.IlccPort = aport
		}
		def.Nodes = append(def.Nodes, ClusterNodeDef{Number: n.id, QueueManager: e.cfg.QueueManager, Host: host, Port: dport, IlccPort: aport})
	}
	d.regs = map[string]*defReg{def.Name: {committed: def}}
}

func splitAddr(addr string) (string, int) {
	h, p, err := net.SplitHostPort(addr)
	if err != nil {
		return addr, 0
	}
	n, _ := strconv.Atoi(p)
	return h, n
}

func (d *clusterDefs) shutdown() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.down = true
	for _, reg := range d.regs {
		if p := reg.pending; p != nil && p.timer != nil {
			p.timer.Stop()
		}
	}
}

// ClusterDefinition returns the engine's own committed cluster definition.
func (e *Engine) ClusterDefinition() ClusterDef {
	def, _ := e.adm.defs.get(e.cfg.Cluster)
	return def
}

// SetDefinitionFaults replaces the controller's faults (zero = none).
func (e *Engine) SetDefinitionFaults(f DefinitionFaults) {
	d := &e.adm.defs
	d.mu.Lock()
	d.faults = f
	d.mu.Unlock()
}

// ReleaseDefinitionChanges commits every held change now.
func (e *Engine) ReleaseDefinitionChanges() {
	d := &e.adm.defs
	d.mu.Lock()
	var held []*pendingDef
	var names []string
	for name, reg := range d.regs {
		if p := reg.pending; p != nil && p.timer == nil {
			held = append(held, p)
			names = append(names, name)
		}
	}
	d.mu.Unlock()
	for i, p := range held {
		d.commit(names[i], p)
	}
}

// DefinitionPending reports whether a change of the named cluster ("" =
// the engine's own) is waiting for the controller.
func (e *Engine) DefinitionPending(cluster string) bool {
	d := &e.adm.defs
	d.mu.Lock()
	defer d.mu.Unlock()
	reg := d.regs[d.name(cluster)]
	return reg != nil && reg.pending != nil
}

func (d *clusterDefs) name(cluster string) string {
	if cluster == "" {
		return d.own
	}
	return cluster
}

func (d *clusterDefs) get(cluster string) (ClusterDef, *wire.ErrorBody) {
	d.mu.Lock()
	defer d.mu.Unlock()
	reg := d.regs[d.name(cluster)]
	if reg == nil {
		return ClusterDef{}, errUnknownCluster(cluster)
	}
	return reg.committed.clone(), nil
}

func errUnknownCluster(name string) *wire.ErrorBody {
	return &wire.ErrorBody{Name: wire.ErrUnknownCluster, Tail: name}
}

func notCommitted(tail string) *wire.ErrorBody {
	return &wire.ErrorBody{Name: wire.ErrClusterNotCommitted, Tail: tail}
}

func invalidProperty(format string, args ...any) *wire.ErrorBody {
	return &wire.ErrorBody{Name: wire.ErrInvalidProperty, Tail: fmt.Sprintf(format, args...)}
}

// change runs one definition change: version check, mutate, submit to the
// controller and wait for the commit (see the file comment). With
// checkVersion false (JOIN CLUSTER) the change applies to whatever version
// is committed. abort ends the wait early (connection gone).
func (d *clusterDefs) change(cluster string, base int64, checkVersion bool, abort <-chan struct{},
	mutate func(*ClusterDef) *wire.ErrorBody) (ClusterDef, *wire.ErrorBody) {
	return d.changeWait(cluster, base, checkVersion, 0, abort, mutate)
}

// changeWait is change waiting up to wait for the commit (0 = ReplyWait).
func (d *clusterDefs) changeWait(cluster string, base int64, checkVersion bool, wait time.Duration, abort <-chan struct{},
	mutate func(*ClusterDef) *wire.ErrorBody) (ClusterDef, *wire.ErrorBody) {
	name := d.name(cluster)
	d.mu.Lock()
	if d.down {
		d.mu.Unlock()
		return ClusterDef{}, &wire.ErrorBody{Name: wire.ErrClusterUnreachable, Tail: "engine shutting down"}
	}
	reg := d.regs[name]
	if reg == nil {
		d.mu.Unlock()
		return ClusterDef{}, errUnknownCluster(name)
	}
	if reg.pending != nil {
		d.mu.Unlock()
		return ClusterDef{}, notCommitted(wire.TailEarlierPending) // spec K-14
	}
	if checkVersion && base != reg.committed.Version {
		v := reg.committed.Version
		d.mu.Unlock()
		return ClusterDef{}, &wire.ErrorBody{Name: wire.ErrClusterDefMoved,
			Tail: fmt.Sprintf("definition of %s is at version %d, change read at %d", name, v, base)} // K-15
	}
	next := reg.committed.clone()
	if eb := mutate(&next); eb != nil {
		d.mu.Unlock()
		return ClusterDef{}, eb
	}
	if next.sameContent(reg.committed) {
		def := reg.committed.clone()
		d.mu.Unlock()
		return def, nil // nothing to change: no new version
	}
	next.Version = reg.committed.Version + 1
	p := d.submitLocked(name, reg, next)
	lose := false
	if d.faults.LoseReplies > 0 {
		d.faults.LoseReplies--
		lose = true
	}
	if wait <= 0 {
		wait = d.faults.ReplyWait
	}
	if wait <= 0 {
		wait = defaultDefReplyWait
	}
	d.mu.Unlock()
	d.e.logf("engine: cluster %s: version %d submitted", name, next.Version)

	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
	case <-abort:
	}
	if lose {
		return ClusterDef{}, notCommitted(wire.TailOutcomeUnknown) // K-13
	}
	select {
	case <-p.done:
		return next.clone(), nil
	default:
		return ClusterDef{}, notCommitted(wire.TailNotCommittedRetry) // K-12
	}
}

// submitLocked makes def the pending change and schedules its commit.
func (d *clusterDefs) submitLocked(name string, reg *defReg, def ClusterDef) *pendingDef {
	p := &pendingDef{def: def, done: make(chan struct{})}
	reg.pending = p
	if !d.faults.Hold {
		p.timer = time.AfterFunc(d.faults.CommitDelay, func() { d.commit(name, p) })
	}
	return p
}

// commit is the controller committing p.
func (d *clusterDefs) commit(name string, p *pendingDef) {
	d.mu.Lock()
	reg := d.regs[name]
	if reg == nil || reg.pending != p {
		d.mu.Unlock()
		return
	}
	reg.committed = p.def
	reg.pending = nil
	d.mu.Unlock()
	close(p.done)
	d.e.logf("engine: cluster %s: version %d committed", name, p.def.Version)
}

// ---- mutations ----

func setProperties(req *wire.SetClusterPropertyRequest) func(*ClusterDef) *wire.ErrorBody {
	return func(d *ClusterDef) *wire.ErrorBody {
		if req.Replicas != wire.IntBlank { // blank = leave as is (K-06)
			switch r := int(req.Replicas); {
			case r < 0:
				return invalidProperty("REPLICAS %d is negative", r)
			case r > len(d.Nodes):
				return invalidProperty("REPLICAS %d exceeds %d data nodes", r, len(d.Nodes)) // K-03
			default:
				d.Replicas = r // 0 clears (K-04)
			}
		}
		if req.MinSync != wire.IntBlank {
			switch m := int(req.MinSync); {
			case m < 0:
				return invalidProperty("MINSYNC %d is negative", m)
			case m > d.EffectiveReplicas():
				return invalidProperty("MINSYNC %d exceeds REPLICAS %d", m, d.EffectiveReplicas())
			default:
				d.MinSync = m // 0 clears (K-05)
			}
		}
		if req.Placement != wire.FlagBlank {
			d.Placement = req.Placement == wire.FlagOn
		}
		if req.AutoStart != wire.FlagBlank {
			d.AutoStart = req.AutoStart == wire.FlagOn
		}
		return nil
	}
}

func validNodeDef(n ClusterNodeDef) *wire.ErrorBody {
	switch {
	case strings.TrimSpace(n.QueueManager) == "":
		return invalidProperty("node queue manager is empty")
	case strings.TrimSpace(n.Host) == "":
		return invalidProperty("node host is empty")
	case n.Port < 1 || n.Port > 65535:
		return invalidProperty("node port %d out of range 1..65535", n.Port)
	case n.IlccPort < 0 || n.IlccPort > 65535:
		return invalidProperty("node ilcc port %d out of range 0..65535", n.IlccPort)
	case n.Number < 0:
		return invalidProperty("node number %d is negative", n.Number)
	}
	return nil
}

// conflict returns the node that already has n's address, or n's queue
// manager on n's host.
func conflict(d *ClusterDef, n ClusterNodeDef) *ClusterNodeDef {
	for i := range d.Nodes {
		o := &d.Nodes[i]
		sameHost := strings.EqualFold(o.Host, n.Host)
		if (sameHost && o.Port == n.Port) || (sameHost && o.QueueManager == n.QueueManager) {
			return o
		}
	}
	return nil
}

func addNode(n ClusterNodeDef) func(*ClusterDef) *wire.ErrorBody {
	return func(d *ClusterDef) *wire.ErrorBody {
		if eb := validNodeDef(n); eb != nil {
			return eb
		}
		if o := conflict(d, n); o != nil {
			return invalidProperty("qmgr or address is node %d's", o.Number) // K-17
		}
		if n.Number == 0 {
			for _, o := range d.Nodes {
				n.Number = max(n.Number, o.Number)
			}
			n.Number++
		} else if slices.ContainsFunc(d.Nodes, func(o ClusterNodeDef) bool { return o.Number == n.Number }) {
			return invalidProperty("node number %d is taken", n.Number)
		}
		d.Nodes = append(d.Nodes, n)
		slices.SortFunc(d.Nodes, func(a, b ClusterNodeDef) int { return a.Number - b.Number })
		if !d.Placement && d.Replicas > 0 {
			d.Replicas++ // K-09; with PLACEMENT on replicas is per partition (K-07)
		}
		return nil
	}
}

func removeNode(number int) func(*ClusterDef) *wire.ErrorBody {
	return func(d *ClusterDef) *wire.ErrorBody {
		i := slices.IndexFunc(d.Nodes, func(o ClusterNodeDef) bool { return o.Number == number })
		if i < 0 {
			return invalidProperty("no node %d", number)
		}
		if len(d.Nodes) == 1 {
			return invalidProperty("node %d is the last node", number)
		}
		d.Nodes = slices.Delete(d.Nodes, i, i+1)
		if !d.Placement && d.Replicas > 0 {
			d.Replicas = max(1, d.Replicas-1) // K-10
		}
		if d.Replicas > len(d.Nodes) {
			d.Replicas = len(d.Nodes) // K-08
		}
		if d.MinSync > d.EffectiveReplicas() {
			d.MinSync = d.EffectiveReplicas()
		}
		return nil
	}
}

// create registers a new definition whose first version is committed by
// the controller like any change.
func (d *clusterDefs) create(def ClusterDef, abort <-chan struct{}) (ClusterDef, *wire.ErrorBody) {
	if strings.TrimSpace(def.Name) == "" {
		return ClusterDef{}, &wire.ErrorBody{Name: wire.ErrInvalidArgument, Tail: "empty cluster name"}
	}
	seen := ClusterDef{}
	for _, n := range def.Nodes {
		if eb := addNode(n)(&seen); eb != nil {
			return ClusterDef{}, eb
		}
	}
	def.Nodes = seen.Nodes
	if def.Replicas < 0 || def.Replicas > len(def.Nodes) {
		return ClusterDef{}, invalidProperty("REPLICAS %d exceeds %d data nodes", def.Replicas, len(def.Nodes))
	}
	if def.MinSync < 0 || def.MinSync > def.EffectiveReplicas() {
		return ClusterDef{}, invalidProperty("MINSYNC %d exceeds REPLICAS %d", def.MinSync, def.EffectiveReplicas())
	}
	d.mu.Lock()
	if d.regs[def.Name] != nil {
		d.mu.Unlock()
		return ClusterDef{}, &wire.ErrorBody{Name: wire.ErrInvalidArgument, Tail: fmt.Sprintf("cluster %s is already defined", def.Name)}
	}
	reg := &defReg{committed: ClusterDef{Name: def.Name}, created: true}
	d.regs[def.Name] = reg
	d.mu.Unlock()
	return d.change(def.Name, 0, true, abort, func(cur *ClusterDef) *wire.ErrorBody {
		v := cur.Version
		*cur = def.clone()
		cur.Version = v
		return nil
	})
}

// join adds node n to cluster without a version (JOIN CLUSTER). It may be
// called right after CREATE CLUSTER (K-18): a pending creation is waited
// for. With the controller unreachable it retries for JoinRetry, then
// answers MIMQE_CLUSTER_UNREACHABLE (K-19). Joining a node already defined
// with the same address and queue manager returns the definition.
func (d *clusterDefs) join(cluster string, n ClusterNodeDef, abort <-chan struct{}) (ClusterDef, *wire.ErrorBody) {
	name := d.name(cluster)
	d.mu.Lock()
	retry := d.faults.JoinRetry
	d.mu.Unlock()
	if retry <= 0 {
		retry = defaultJoinRetry
	}
	deadline := time.Now().Add(retry)
	for {
		d.mu.Lock()
		unreachable := d.faults.Unreachable
		reg := d.regs[name]
		var pending *pendingDef
		var cur ClusterDef
		if reg != nil {
			pending, cur = reg.pending, reg.committed.clone()
		}
		d.mu.Unlock()
		switch {
		case reg == nil:
			return ClusterDef{}, errUnknownCluster(name)
		case unreachable:
			// retry below
		case pending != nil:
			select { // a creation or another change in flight: wait for it
			case <-pending.done:
				continue
			case <-time.After(time.Until(deadline)):
			case <-abort:
				return ClusterDef{}, notCommitted(wire.TailNotCommittedRetry)
			}
		default:
			if i := slices.IndexFunc(cur.Nodes, func(o ClusterNodeDef) bool {
				return strings.EqualFold(o.Host, n.Host) && o.Port == n.Port && o.QueueManager == n.QueueManager
			}); i >= 0 {
				return cur, nil
			}
			// The joining node waits for its own commit as long as it
			// retries an unreachable controller.
			def, eb := d.changeWait(name, cur.Version, true, max(time.Until(deadline), time.Millisecond), abort, addNode(n))
			if eb == nil || eb.Name != wire.ErrClusterDefMoved {
				return def, eb
			}
			continue // raced with another change: read again
		}
		if time.Now().After(deadline) {
			return ClusterDef{}, &wire.ErrorBody{Name: wire.ErrClusterUnreachable,
				Tail: fmt.Sprintf("controller of %s unreachable for %v", name, retry)}
		}
		select {
		case <-time.After(min(50*time.Millisecond, time.Until(deadline)+time.Millisecond)):
		case <-abort:
			return ClusterDef{}, notCommitted(wire.TailNotCommittedRetry)
		}
	}
}

// diag is DIAG CLUSTER's text (returned to the client unchanged).
func (d *clusterDefs) diag(cluster string, statuses []NodeStatus) (string, *wire.ErrorBody) {
	name := d.name(cluster)
	d.mu.Lock()
	reg := d.regs[name]
	if reg == nil {
		d.mu.Unlock()
		return "", errUnknownCluster(name)
	}
	def := reg.committed.clone()
	var pend string
	if p := reg.pending; p != nil {
		state := "waiting for the controller"
		if p.timer == nil {
			state = "held by the controller"
		}
		pend = fmt.Sprintf("version %d %s", p.def.Version, state)
	}
	own := name == d.own
	d.mu.Unlock()

	var b strings.Builder
	onOff := func(v bool) string {
		if v {
			return "on"
		}
		return "off"
	}
	unset := func(v int) string {
		if v == 0 {
			return "unset"
		}
		return strconv.Itoa(v)
	}
	fmt.Fprintf(&b, "DIAG CLUSTER %s\n", def.Name)
	fmt.Fprintf(&b, "version %d committed\n", def.Version)
	if pend == "" {
		pend = "none"
	}
	fmt.Fprintf(&b, "pending %s\n", pend)
	fmt.Fprintf(&b, "replicas %s minSync %s placement %s autoStart %s ilcc %d\n",
		unset(def.Replicas), unset(def.MinSync), onOff(def.Placement), onOff(def.AutoStart), def.IlccPort)
	running := 0
	for _, n := range def.Nodes {
		state := "defined"
		if own {
			state = "not an engine node"
			for _, s := range statuses {
				if s.DataAddr == net.JoinHostPort(n.Host, strconv.Itoa(n.Port)) {
					switch {
					case !s.Up:
						state = "down"
					case !s.Running:
						state = "stopped"
					case s.Leader:
						state, running = "running leader", running+1
					default:
						state, running = "running", running+1
					}
				}
			}
		}
		fmt.Fprintf(&b, "node %d %s %s:%d ilcc %d %s\n", n.Number, n.QueueManager, n.Host, n.Port, n.IlccPort, state)
	}
	check := func(ok bool, format string, args ...any) {
		res := "ok"
		if !ok {
			res = "FAIL"
		}
		fmt.Fprintf(&b, "check %s: %s\n", fmt.Sprintf(format, args...), res)
	}
	check(def.EffectiveReplicas() <= len(def.Nodes), "REPLICAS %d <= %d data nodes", def.EffectiveReplicas(), len(def.Nodes))
	check(def.MinSync <= def.EffectiveReplicas(), "MINSYNC %d <= REPLICAS %d", def.MinSync, def.EffectiveReplicas())
	if own {
		check(running > len(def.Nodes)/2, "quorum %d of %d nodes running", running, len(def.Nodes))
	}
	return b.String(), nil
}

// ---- wire ----

func defReply(d ClusterDef) *wire.ClusterPropertyReply {
	out := &wire.ClusterPropertyReply{
		Name: d.Name, IlccPort: d.IlccPort, Version: d.Version, Replicas: d.Replicas, MinSync: d.MinSync,
		Placement: d.Placement, AutoStart: d.AutoStart, Nodes: make([]wire.ClusterNodeEntry, len(d.Nodes)),
	}
	for i, n := range d.Nodes {
		out.Nodes[i] = wire.ClusterNodeEntry{Number: n.Number, QueueManager: n.QueueManager, Host: n.Host, Port: n.Port, IlccPort: n.IlccPort}
	}
	return out
}

func nodeDef(n wire.ClusterNodeEntry) ClusterNodeDef {
	return ClusterNodeDef{Number: n.Number, QueueManager: n.QueueManager, Host: n.Host, Port: n.Port, IlccPort: n.IlccPort}
}

func handleClusterProperty(r *request) {
	var req wire.ClusterRequest
	if !r.decode(&req) {
		return
	}
	def, eb := r.c.e.adm.defs.get(req.Cluster)
	if eb != nil {
		r.fail(eb)
		return
	}
	r.reply(defReply(def))
}

// defChangeAsync runs a definition change off the reader goroutine: it
// waits for the controller.
func defChangeAsync(r *request, run func(abort <-chan struct{}) (ClusterDef, *wire.ErrorBody)) {
	r.async(func() {
		def, eb := run(r.closing())
		if eb != nil {
			r.fail(eb)
			return
		}
		r.reply(defReply(def))
	})
}

// editDefAsync is defChangeAsync for an edit of cluster's definition as
// the client read it at version base: refused if it moved since (K-15).
func editDefAsync(r *request, cluster string, base int64, mutate func(*ClusterDef) *wire.ErrorBody) {
	d := &r.c.e.adm.defs
	defChangeAsync(r, func(abort <-chan struct{}) (ClusterDef, *wire.ErrorBody) {
		return d.change(cluster, base, true, abort, mutate)
	})
}

func handleSetClusterProperty(r *request) {
	var req wire.SetClusterPropertyRequest
	if !r.decode(&req) {
		return
	}
	editDefAsync(r, req.Cluster, req.BaseVersion, setProperties(&req))
}

func handleAddNode(r *request) {
	var req wire.ClusterNodeRequest
	if !r.decode(&req) {
		return
	}
	editDefAsync(r, req.Cluster, req.BaseVersion, addNode(nodeDef(req.Node)))
}

func handleRemoveNode(r *request) {
	var req wire.RemoveNodeRequest
	if !r.decode(&req) {
		return
	}
	editDefAsync(r, req.Cluster, req.BaseVersion, removeNode(req.Number))
}

func handleCreateCluster(r *request) {
	var req wire.CreateClusterRequest
	if !r.decode(&req) {
		return
	}
	w := req.Definition
	def := ClusterDef{Name: w.Name, IlccPort: w.IlccPort, Replicas: w.Replicas, MinSync: w.MinSync, Placement: w.Placement, AutoStart: w.AutoStart}
	for _, n := range w.Nodes {
		def.Nodes = append(def.Nodes, nodeDef(n))
	}
	d := &r.c.e.adm.defs
	defChangeAsync(r, func(abort <-chan struct{}) (ClusterDef, *wire.ErrorBody) { return d.create(def, abort) })
}

func handleJoinCluster(r *request) {
	var req wire.ClusterNodeRequest
	if !r.decode(&req) {
		return
	}
	d := &r.c.e.adm.defs
	defChangeAsync(r, func(abort <-chan struct{}) (ClusterDef, *wire.ErrorBody) {
		return d.join(req.Cluster, nodeDef(req.Node), abort)
	})
}

func handleDiagCluster(r *request) {
	var req wire.ClusterRequest
	if !r.decode(&req) {
		return
	}
	e := r.c.e
	text, eb := e.adm.defs.diag(req.Cluster, e.Nodes())
	if eb != nil {
		r.fail(eb)
		return
	}
	r.reply(&wire.TextReply{Text: text})
}
