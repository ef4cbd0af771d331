package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/engine/demo"
)

type engineFlags struct {
	nodes         int
	host          string
	dataPort      int
	adminPort     int
	qmgr          string
	cluster       string
	electionDelay time.Duration
	demo          bool
	output        string
	queues        []string // NAME[:PROPS]
}

// engineQueue is one parsed --queue.
type engineQueue struct {
	name string
	cfg  engine.QueueConfig
}

// parseEngineQueue reads --queue NAME[:PROPS]: the name up to the first
// ':', then the properties of admin.ParseQueueDefinition.
func parseEngineQueue(s string) (engineQueue, error) {
	name, props, _ := strings.Cut(s, ":")
	name = strings.TrimSpace(name)
	if name == "" {
		return engineQueue{}, fmt.Errorf("--queue %q: want NAME or NAME:PROPS (%s)", s, admin.QueuePropsSyntax)
	}
	d, err := admin.ParseQueueDefinition(props)
	if err != nil {
		return engineQueue{}, fmt.Errorf("--queue %q: %v", s, err)
	}
	cfg := engine.QueueConfig{Description: d.Description, MaxDepth: d.MaxDepth, DeadLetterQueue: d.DeadLetterQueue, MaxRedeliveries: d.MaxRedeliveries}
	return engineQueue{name, cfg}, nil
}

func (a *app) engineCommand() *cobra.Command {
	var f engineFlags
	cmd := &cobra.Command{
		Use:   "engine",
		Short: "Run the in-process iLink engine in the foreground",
		Long: "Runs an iLink cluster of N nodes in this process until SIGINT or SIGTERM.\n" +
			"It prints one line per node: node <n> data <host:port> admin <host:port>\n" +
			"(-o json: one array of {id, data_addr, admin_addr}). --queue defines queues\n" +
			"before that.",
		Example: "  ilinkdash engine --queue ORDERS:maxDepth=1000,dlq=ORDERS.DLQ,maxRedeliveries=3 --queue AUDIT",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runEngine(cmd, f)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&f.nodes, "nodes", 3, "number of cluster nodes")
	fl.StringVar(&f.host, "host", "127.0.0.1", "listen host")
	fl.IntVar(&f.dataPort, "data-port", 0, "data port of node 1 (node i listens on P+i-1); 0 = ephemeral")
	fl.IntVar(&f.adminPort, "admin-port", 0, "admin port of node 1 (node i listens on A+i-1); 0 = ephemeral")
	fl.StringVar(&f.qmgr, "queue-manager", "QM1", "queue manager name")
	fl.StringVar(&f.cluster, "cluster", "C1", "cluster name")
	fl.DurationVar(&f.electionDelay, "election-delay", 3*time.Second, "time without a leader after the leader dies (the real engine takes 15-20s)")
	fl.BoolVar(&f.demo, "demo", false, "generate demo traffic")
	addOutputFlag(cmd, &f.output, "table", "table (one line per node) or json")
	fl.StringArrayVar(&f.queues, "queue", nil, "define a queue NAME[:PROPS] at start (repeatable); PROPS: "+admin.QueuePropsSyntax)
	return cmd
}

func (f engineFlags) config() (engine.Config, error) {
	if f.nodes < 1 || f.nodes > 16 {
		return engine.Config{}, fmt.Errorf("--nodes %d: want 1..16", f.nodes)
	}
	for name, p := range map[string]int{"--data-port": f.dataPort, "--admin-port": f.adminPort} {
		if p < 0 || (p > 0 && p+f.nodes-1 > 65535) {
			return engine.Config{}, fmt.Errorf("%s %d: ports %d..%d do not fit in 1..65535", name, p, p, p+f.nodes-1)
		}
	}
	if f.electionDelay < 0 {
		return engine.Config{}, fmt.Errorf("--election-delay %v: must not be negative", f.electionDelay)
	}
	return engine.Config{
		Nodes:         f.nodes,
		Host:          f.host,
		DataPort:      f.dataPort,
		AdminPort:     f.adminPort,
		QueueManager:  f.qmgr,
		Cluster:       f.cluster,
		ElectionDelay: f.electionDelay,
	}, nil
}

func runEngine(cmd *cobra.Command, f engineFlags) error {
	if err := outputFormat(f.output, "table", "json"); err != nil {
		return err
	}
	cfg, err := f.config()
	if err != nil {
		return &usageError{err: err}
	}
	var queues []engineQueue
	for _, s := range f.queues {
		q, err := parseEngineQueue(s)
		if err != nil {
			return &usageError{err: err}
		}
		queues = append(queues, q)
	}
	e, err := engine.Start(cfg)
	if err != nil {
		return err
	}
	defer e.Close()
	for _, q := range queues {
		if err := e.DefineQueue(q.name, q.cfg); err != nil {
			return &usageError{err: fmt.Errorf("--queue %s: %w", q.name, err)}
		}
	}
	if f.demo {
		d, err := demo.Start(e, demo.Options{})
		if err != nil {
			return err
		}
		defer d.Close()
	}
	if f.output == "json" {
		type nodeAddrs struct {
			ID        int    `json:"id"`
			DataAddr  string `json:"data_addr"`
			AdminAddr string `json:"admin_addr"`
		}
		var out []nodeAddrs
		for _, n := range e.Nodes() {
			out = append(out, nodeAddrs{n.ID, n.DataAddr, n.AdminAddr})
		}
		if err := writeJSON(cmd.OutOrStdout(), out, false); err != nil {
			return err
		}
	} else {
		printNodes(cmd.OutOrStdout(), e)
	}
	<-cmd.Context().Done()
	return nil
}

// printNodes writes the one-line-per-node listing scripts parse.
func printNodes(w io.Writer, e *engine.Engine) {
	for _, n := range e.Nodes() {
		fmt.Fprintf(w, "node %d data %s admin %s\n", n.ID, n.DataAddr, n.AdminAddr)
	}
}
