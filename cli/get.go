package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"ilinkdash/config"
	"ilinkdash/ilink"
	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/admin/health"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/engine/demo"
	"ilinkdash/ui/common"
	"ilinkdash/ui/views/tab"
)

// Headless admin commands: get, describe, group, node. They share the
// global --addr/--admin/--context/--read-only flags (a.resolve), plus
// --embedded (a fresh in-process engine with a little demo data) and
// -o table|json. JSON field names are documented in docs/CLI.md and kept
// stable.

// adminFlags are the flags of every admin command.
type adminFlags struct {
	output   string
	embedded bool
	timeout  time.Duration
	// window is get groups --window: the command samples for
	// sampleSpan and has --timeout beyond it, as check has.
	window time.Duration
}

func (f *adminFlags) register(cmd *cobra.Command) {
	pf := cmd.PersistentFlags()
	pf.StringVarP(&f.output, "output", "o", "table", "output format: table or json")
	pf.BoolVar(&f.embedded, "embedded", false, "start a fresh in-process engine with demo topics and queues, and run against it")
	pf.DurationVar(&f.timeout, "timeout", 30*time.Second, "time limit of the command")
}

// adminTarget is an open admin connection for one command.
type adminTarget struct {
	svc   *admin.Service
	qm    *admin.Qmgr
	json  bool
	out   io.Writer
	eng   *engine.Engine // embedded only
	addrs []string       // data addresses: the context's, or the embedded engine's
	// readOnly and client are the context's, for the data sessions of
	// queue put/get.
	readOnly bool
	client   string
	cancel   context.CancelFunc
	ctx      context.Context
	cfg      config.Context  // the resolved context (health thresholds, refresh)
	hub      *ilink.HubRoute // a spoke context's route through its hub (its data sessions too); nil = direct
	embedded bool            // on a fresh in-process engine (its demo's schemas apply)
}

func (t *adminTarget) close() {
	t.svc.Close()
	if t.eng != nil {
		t.eng.Close()
	}
	t.cancel()
}

// withAdmin runs run on the admin target of the command's flags, closed
// after it.
func (a *app) withAdmin(cmd *cobra.Command, f *adminFlags, run func(*adminTarget) error) error {
	t, err := a.openAdmin(cmd, f)
	if err != nil {
		return err
	}
	defer t.close()
	return run(t)
}

// openAdmin resolves the target and connects. Without any configured
// target, or with --embedded, it starts an in-process engine.
func (a *app) openAdmin(cmd *cobra.Command, f *adminFlags) (*adminTarget, error) {
	if err := outputFormat(f.output, "table", "json"); err != nil {
		return nil, err
	}
	if f.timeout <= 0 {
		return nil, usageErr("--timeout %v: must be positive", f.timeout)
	}
	r, hub, err := a.resolveTarget(cmd)
	if err != nil {
		return nil, err
	}
	limit := f.timeout
	if f.window > 0 {
		limit += sampleSpan(r.Context, f.window)
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), limit)
	c := r.Context
	t := &adminTarget{json: f.output == "json", out: cmd.OutOrStdout(), ctx: ctx, cancel: cancel, addrs: c.Addresses, readOnly: c.ReadOnly, client: c.ClientName, cfg: r.Context}
	opt := admin.Options{ClientName: c.ClientName, ReadOnly: c.ReadOnly, DataAddrs: c.Addresses, Hub: hub}
	t.hub = hub
	addr := c.Admin
	t.embedded = f.embedded || r.Embedded
	if t.embedded {
		if r.Embedded && !f.embedded {
			fmt.Fprintln(cmd.ErrOrStderr(), "ilinkdash: no address configured: using a fresh in-process engine (--embedded)")
		}
		e, err := engine.Start(engine.Config{ElectionDelay: 500 * time.Millisecond})
		if err != nil {
			cancel()
			return nil, err
		}
		if _, err := demo.Seed(e, demo.Snapshot); err != nil {
			e.Close()
			cancel()
			return nil, err
		}
		t.eng, addr, opt.DataAddrs, t.addrs = e, e.AdminAddrs()[0], nil, e.DataAddrs()
		opt.Hub, t.hub = nil, nil
	}
	if addr == "" {
		cancel()
		return nil, usageErr("no admin address: give --admin, a context with an admin address, or --embedded")
	}
	a.limit = adminLimit{ctx: ctx, target: addr, timeout: f.timeout}
	if hub != nil && !t.embedded {
		a.limit.target = hub.Target()
	}
	svc, err := admin.Connect(ctx, addr, opt)
	if err != nil {
		if t.eng != nil {
			t.eng.Close()
		}
		cancel()
		return nil, err
	}
	t.svc, t.qm = svc, svc.AccessAdminQmgr(c.QueueManager)
	return t, nil
}

// adminLimit is an admin command's time limit (--timeout), which ends
// its context.
type adminLimit struct {
	ctx     context.Context
	target  string // the admin address (or the spoke's route)
	timeout time.Duration
}

// explain words err when it is the limit's expiry: "context deadline
// exceeded" alone does not say what took too long, nor which limit.
func (l adminLimit) explain(err error) error {
	if l.ctx == nil || !errors.Is(err, context.DeadlineExceeded) || !errors.Is(l.ctx.Err(), context.DeadlineExceeded) {
		return err
	}
	said := fmt.Sprintf("no answer from %s within --timeout %v", l.target, l.timeout)
	msg := err.Error()
	if what, ok := strings.CutSuffix(msg, context.DeadlineExceeded.Error()); ok {
		msg = what + said // what was under way, as it was said: "put 1001 of ORDERS: no answer …"
	} else {
		msg += " (" + said + ")"
	}
	return &limitError{msg, err}
}

// limitError is an expired --timeout in words, still a deadline error.
type limitError struct {
	msg string
	err error
}

func (e *limitError) Error() string { return e.msg }
func (e *limitError) Unwrap() error { return e.err }

// emit writes v as JSON (-o json), or calls fill with a table.
func (t *adminTarget) emit(v any, fill func(w *table)) error {
	if t.json {
		return writeJSON(t.out, v, true)
	}
	tb := newTable(t.out)
	fill(tb)
	return tb.flush()
}

func rate(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// lagTime is a replication lag in milliseconds for a table: 0s, 850ms, 3m20s.
func lagTime(ms int64) string {
	if ms <= 0 {
		return "0s"
	}
	return common.Dur(time.Duration(ms) * time.Millisecond)
}

// unlimited is a limit for a table, 0 meaning none.
func unlimited(n int64) string {
	if n <= 0 {
		return "unlimited"
	}
	return strconv.FormatInt(n, 10)
}

func ids(v []int) string {
	if len(v) == 0 {
		return "-"
	}
	s := make([]string, len(v))
	for i, id := range v {
		s[i] = strconv.Itoa(id)
	}
	return strings.Join(s, ",")
}

func nonNilInts(v []int) []int {
	if v == nil {
		return []int{}
	}
	return v
}

// ---- JSON shapes (docs/CLI.md) ----

type topicJSON struct {
	Name             string  `json:"name"`
	Internal         bool    `json:"internal"`
	Partitions       int     `json:"partitions"`
	Replicas         int     `json:"replicas"`
	MinSync          int     `json:"min_sync"`
	RetentionMs      int64   `json:"retention_ms"`
	RetentionBytes   int64   `json:"retention_bytes"`
	Epoch            int32   `json:"epoch"`
	UnderReplicated  int     `json:"under_replicated"`
	Offline          int     `json:"offline"`
	StartOffsetSum   int64   `json:"start_offset_sum"`
	EndOffsetSum     int64   `json:"end_offset_sum"`
	RecordsInPerSec  float64 `json:"records_in_per_sec"`
	RecordsOutPerSec float64 `json:"records_out_per_sec"`
	BytesInPerSec    float64 `json:"bytes_in_per_sec"`
	BytesOutPerSec   float64 `json:"bytes_out_per_sec"`
}

func topicToJSON(t admin.TopicInfo) topicJSON {
	return topicJSON{t.Name, t.Internal, t.Partitions, t.Replicas, t.MinSync, t.RetentionMs, t.RetentionBytes, t.Epoch,
		t.UnderReplicated, t.Offline, t.StartOffsetSum, t.EndOffsetSum, t.RecordsInPerSec, t.RecordsOutPerSec, t.BytesInPerSec, t.BytesOutPerSec}
}

type queueJSON struct {
	Name        string  `json:"name"`
	Depth       int64   `json:"depth"`
	InFlight    int64   `json:"in_flight"`
	PutRate     float64 `json:"put_per_sec"`
	GetRate     float64 `json:"get_per_sec"`
	Description string  `json:"description"`
	MaxDepth    int64   `json:"max_depth"`
	MaxMsgSize  int     `json:"max_msg_size"`
	PutEnabled  bool    `json:"put_enabled"`
	GetEnabled  bool    `json:"get_enabled"`
	Persistent  bool    `json:"persistent"`
	Created     string  `json:"created"`
	// DeadLetterQueue and MaxRedeliveries: "" and 0 = none.
	DeadLetterQueue string `json:"dead_letter_queue"`
	MaxRedeliveries int    `json:"max_redeliveries"`
}

func queueToJSON(q admin.QueueInfo) queueJSON {
	p := q.Property
	return queueJSON{q.Name, q.Depth, q.InFlight, q.PutRate, q.GetRate, p.Description, p.MaxDepth, p.MaxMsgSize,
		p.PutEnabled, p.GetEnabled, p.Persistent, p.Created.UTC().Format(time.RFC3339), p.DeadLetterQueue, p.MaxRedeliveries}
}

type nodeJSON struct {
	ID           int    `json:"id"`
	QueueManager string `json:"queue_manager"`
	DataAddr     string `json:"data_addr"`
	AdminAddr    string `json:"admin_addr"`
	Role         string `json:"role"`
	State        string `json:"state"`
	Partitions   int    `json:"partitions_led"`
	LagRecords   int64  `json:"lag_records"`
	LagMs        int64  `json:"lag_ms"`
}

type clusterNodeJSON struct {
	Number       int    `json:"number"`
	QueueManager string `json:"queue_manager"`
	Host         string `json:"host"`
	Port         int    `json:"port"`
	IlccPort     int    `json:"ilcc_port"`
}

type clusterJSON struct {
	Name      string            `json:"name"`
	IlccPort  int               `json:"ilcc_port"`
	Version   int64             `json:"version"`
	Replicas  int               `json:"replicas"`
	MinSync   int               `json:"min_sync"`
	Placement bool              `json:"placement"`
	AutoStart bool              `json:"auto_start"`
	Nodes     []clusterNodeJSON `json:"nodes"`
}

type followerJSON struct {
	Node       int   `json:"node"`
	InSync     bool  `json:"in_sync"`
	LagRecords int64 `json:"lag_records"`
	LagMs      int64 `json:"lag_ms"`
}

type partReplJSON struct {
	Topic     string         `json:"topic"`
	Partition int32          `json:"partition"`
	Leader    int            `json:"leader"`
	InSync    []int          `json:"in_sync"`
	Followers []followerJSON `json:"followers"`
}

type nodeReplJSON struct {
	ID           int    `json:"id"`
	QueueManager string `json:"queue_manager"`
	Role         string `json:"role"`
	State        string `json:"state"`
	LagRecords   int64  `json:"lag_records"`
	LagMs        int64  `json:"lag_ms"`
}

type replicationJSON struct {
	Cluster    string         `json:"cluster"`
	Leader     int            `json:"leader"`
	Nodes      []nodeReplJSON `json:"nodes"`
	Partitions []partReplJSON `json:"partitions"`
}

// ---- get ----

// getGroups lists the groups with their health: judged over window (two
// lists window apart and the steps between, as `check` does), or from one
// list when window is 0: then each group gets what one list decides
// (health.OneSample: ACTIVE, not UNKNOWN, for members with records
// unread, since a one-shot command never has a window).
func (t *adminTarget) getGroups(window time.Duration) error {
	cfg := health.Config(t.cfg.Health)
	if window > 0 {
		cfg.Window = window
	}
	s := &sampler{qm: t.qm, mon: health.New(cfg)}
	var err error
	if window > 0 {
		span := sampleSpan(t.cfg, window)
		_, err = s.run(t.ctx, span, sampleStep(span, t.cfg.Refresh.Groups))
	} else {
		_, err = s.pollGroups(t.ctx)
	}
	if err != nil {
		return err
	}
	sts := s.mon.Groups()
	out := make([]groupJSON, len(sts))
	for i, g := range sts {
		if window == 0 {
			g = health.OneSample(g)
			sts[i] = g
		}
		out[i] = groupStatusJSON(g)
	}
	return t.emit(out, func(w *table) {
		w.row("NAME", "STATE", "MEMBERS", "TOPICS", "LAG", "NO-COMMIT", "RATE/S", "HEALTH")
		for i, g := range out {
			r := "-"
			if g.RatePerSec != nil {
				r = rate(*g.RatePerSec)
			}
			w.row(g.Name, g.State, g.Members, strings.Join(g.Topics, ","), lagCell(sts[i].Lag.Known(), sts[i].Lag.Records),
				g.PartitionsWithoutCommit, r, g.Health)
		}
	})
}

// sampleSpan is how long get groups --window samples context c's groups:
// the window, or the context's stall-after when that is longer.
func sampleSpan(c config.Context, window time.Duration) time.Duration {
	return max(window, health.Config(c.Health).StallAfter)
}

func (a *app) getCommand() *cobra.Command {
	var f adminFlags
	var all bool
	var window time.Duration
	cmd := &cobra.Command{
		Use:   "get topics|queues|groups|nodes|cluster|replication",
		Short: "List topics, queues, groups, nodes, the cluster definition or the replication status",
		Example: "  ilinkdash get topics --admin host:9998\n" +
			"  ilinkdash get replication --context prod -o json\n" +
			"  ilinkdash get nodes --embedded\n" +
			"  ilinkdash get groups --window 10s -o json",
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{"topics", "queues", "groups", "nodes", "cluster", "replication"},
		RunE: func(cmd *cobra.Command, args []string) error {
			what := args[0]
			switch what {
			case "topics", "queues", "groups", "nodes", "cluster", "replication":
			default:
				return usageErr("get %q: want topics, queues, groups, nodes, cluster or replication", what)
			}
			if window < 0 {
				return usageErr("--window %v: must not be negative", window)
			}
			if window > 0 && what != "groups" {
				return usageErr("--window is for get groups")
			}
			if what == "groups" {
				f.window = window
			}
			return a.withAdmin(cmd, &f, func(t *adminTarget) error {
				if what == "groups" {
					return t.getGroups(window)
				}
				return t.get(what, all)
			})
		},
	}
	f.register(cmd)
	cmd.Flags().BoolVar(&all, "all", false, "topics: include internal SYSTEM.* topics")
	cmd.Flags().DurationVar(&window, "window", 0, "groups: judge the health over this window, for the trend words (OK, LAGGING, STALLED, REWOUND); 0: one list, which decides STOPPED, EMPTY, DEAD, REBALANCING and caught-up OK, and says ACTIVE for members with records unread")
	return cmd
}

func (t *adminTarget) get(what string, all bool) error {
	switch what {
	case "topics":
		return t.getTopics(all)
	case "queues":
		return t.getQueues()
	case "nodes":
		return t.getNodes()
	case "cluster":
		return t.getCluster()
	case "replication":
		return t.getReplication()
	}
	return nil
}

// getTopics prints the topic list (internal SYSTEM.* topics with all).
func (t *adminTarget) getTopics(all bool) error {
	ctx := t.ctx
	ts, err := t.qm.Topics(ctx)
	if err != nil {
		return err
	}
	out := []topicJSON{}
	for _, x := range ts {
		if !x.Internal || all {
			out = append(out, topicToJSON(x))
		}
	}
	return t.emit(out, func(w *table) {
		w.row("NAME", "PARTITIONS", "REPLICAS", "MIN-SYNC", "UNDER-REPL", "OFFLINE", "START", "END", "IN/S", "OUT/S", "RETENTION")
		for _, x := range out {
			w.row(x.Name, x.Partitions, x.Replicas, x.MinSync, x.UnderReplicated, x.Offline, x.StartOffsetSum, x.EndOffsetSum,
				rate(x.RecordsInPerSec), rate(x.RecordsOutPerSec), tab.Retention(x.RetentionMs, x.RetentionBytes))
		}
	})
}

// getQueues prints the queue list.
func (t *adminTarget) getQueues() error {
	ctx := t.ctx
	qs, err := t.qm.Queues(ctx)
	if err != nil {
		return err
	}
	out := make([]queueJSON, len(qs))
	for i, q := range qs {
		out[i] = queueToJSON(q)
	}
	return t.emit(out, func(w *table) {
		w.row("NAME", "DEPTH", "IN-FLIGHT", "PUT/S", "GET/S", "MAX-DEPTH", "MAX-MSG", "DLQ", "PUT", "GET")
		for _, q := range out {
			dlq := "-"
			if q.DeadLetterQueue != "" {
				dlq = q.DeadLetterQueue + " after " + strconv.Itoa(q.MaxRedeliveries)
			}
			w.row(q.Name, q.Depth, q.InFlight, rate(q.PutRate), rate(q.GetRate), unlimited(q.MaxDepth), common.Bytes(int64(q.MaxMsgSize)), dlq, q.PutEnabled, q.GetEnabled)
		}
	})
}

// getNodes prints the node list.
func (t *adminTarget) getNodes() error {
	ctx := t.ctx
	ns, err := t.qm.Nodes(ctx)
	if err != nil {
		return err
	}
	out := make([]nodeJSON, len(ns))
	for i, n := range ns {
		out[i] = nodeJSON{n.ID, n.QueueManager, n.DataAddr, n.AdminAddr, string(n.Role), string(n.State), n.Partitions, n.LagRecords, n.Lag.Milliseconds()}
	}
	return t.emit(out, func(w *table) {
		w.row("ID", "QMGR", "ROLE", "STATE", "DATA", "ADMIN", "LED", "LAG", "LAG-TIME")
		for _, n := range out {
			w.row(n.ID, n.QueueManager, n.Role, n.State, n.DataAddr, n.AdminAddr, n.Partitions, n.LagRecords, lagTime(n.LagMs))
		}
	})
}

// getCluster prints the cluster definition and its nodes.
func (t *adminTarget) getCluster() error {
	ctx := t.ctx
	p, err := t.svc.ClusterProperty(ctx, "")
	if err != nil {
		return err
	}
	out := clusterJSON{p.Name, p.IlccPort, p.Version, p.Replicas, p.MinSync, p.Placement, p.AutoStart, []clusterNodeJSON{}}
	for _, n := range p.Nodes {
		out.Nodes = append(out.Nodes, clusterNodeJSON{n.Number, n.QueueManager, n.Host, n.Port, n.IlccPort})
	}
	unset := func(v int) string {
		if v == 0 {
			return "unset"
		}
		return strconv.Itoa(v)
	}
	return t.emit(out, func(w *table) {
		w.row("CLUSTER", out.Name)
		w.row("VERSION", out.Version)
		w.row("REPLICAS", unset(out.Replicas))
		w.row("MIN-SYNC", unset(out.MinSync))
		w.row("PLACEMENT", out.Placement)
		w.row("AUTO-START", out.AutoStart)
		w.row("ILCC-PORT", out.IlccPort)
		w.row()
		w.row("NODE", "QMGR", "HOST", "PORT", "ILCC-PORT")
		for _, n := range out.Nodes {
			w.row(n.Number, n.QueueManager, n.Host, n.Port, n.IlccPort)
		}
	})
}

// getReplication prints the replication status per node and partition.
func (t *adminTarget) getReplication() error {
	ctx := t.ctx
	rs, err := t.qm.ReplicationStatus(ctx)
	if err != nil {
		return err
	}
	out := replicationJSON{Cluster: rs.Cluster, Leader: rs.Leader, Nodes: []nodeReplJSON{}, Partitions: []partReplJSON{}}
	for _, n := range rs.Nodes {
		out.Nodes = append(out.Nodes, nodeReplJSON{n.ID, n.QueueManager, string(n.Role), string(n.State), n.LagRecords, n.Lag.Milliseconds()})
	}
	for _, p := range rs.Partitions {
		pj := partReplJSON{p.Topic, p.Partition, p.Leader, nonNilInts(p.InSync), []followerJSON{}}
		for _, f := range p.Followers {
			pj.Followers = append(pj.Followers, followerJSON{f.Node, f.InSync, f.LagRecords, f.Lag.Milliseconds()})
		}
		out.Partitions = append(out.Partitions, pj)
	}
	return t.emit(out, func(w *table) {
		w.row("NODE", "ROLE", "STATE", "LAG", "LAG-TIME")
		for _, n := range out.Nodes {
			w.row(n.ID, n.Role, n.State, n.LagRecords, lagTime(n.LagMs))
		}
		w.row()
		w.row("TOPIC", "PARTITION", "LEADER", "IN-SYNC", "FOLLOWERS (node:lag records/time)")
		for _, p := range out.Partitions {
			fs := make([]string, len(p.Followers))
			for i, f := range p.Followers {
				fs[i] = fmt.Sprintf("%d:%d/%s", f.Node, f.LagRecords, lagTime(f.LagMs))
			}
			w.row(p.Topic, p.Partition, p.Leader, ids(p.InSync), strings.Join(fs, " "))
		}
	})
}
