package cli

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/topicrules"
	"ilinkdash/ui/common"
	"ilinkdash/ui/sanitize"
)

// cluster set, add-node and remove-node: the changes of the cluster
// definition the dashboard's cluster tab makes (e, a, x). Each reads the
// definition, prints the plan against its version and changes nothing
// without --execute; an execution sends the change with the version read,
// so a definition that moved meanwhile is refused (MIMQE_CLUSTER_DEF_MOVED)
// rather than overwritten.

type clusterChangeJSON struct {
	Key     string `json:"key"`
	Old     string `json:"old"` // "unset" for replicas/minSync 0
	New     string `json:"new"`
	Changed bool   `json:"changed"`
}

type clusterSetJSON struct {
	Cluster     string              `json:"cluster"`
	BaseVersion int64               `json:"base_version"` // the version the change is sent with
	Executed    bool                `json:"executed"`
	Version     int64               `json:"version"` // the definition's version after (= base_version when planned)
	Changes     []clusterChangeJSON `json:"changes"`
	Warnings    []string            `json:"warnings"`
}

type clusterNodeChangeJSON struct {
	Action      string          `json:"action"` // add or remove
	Cluster     string          `json:"cluster"`
	BaseVersion int64           `json:"base_version"`
	Executed    bool            `json:"executed"`
	Version     int64           `json:"version"`
	Node        clusterNodeJSON `json:"node"`     // number 0 in an add plan: the engine takes the next
	Nodes       int             `json:"nodes"`    // in the definition, after (planned or made)
	Replicas    int             `json:"replicas"` // the definition's replicas after the change (0 = unset)
	Effect      string          `json:"effect"`   // what PLACEMENT does to replicas
	Warnings    []string        `json:"warnings"`
}

// clusterEditCommands are cluster set, add-node and remove-node
// (registered by clusterCommand).
func (a *app) clusterEditCommands(f *adminFlags) []*cobra.Command {
	var setExec bool
	set := &cobra.Command{
		Use:   "set KEY=VALUE... [--execute]",
		Short: "Plan (or, with --execute, make) a change of the cluster definition's properties",
		Long: "Keys (as the dashboard's edit dialog): replicas and minSync (0..64; 0 clears the\n" +
			"property, unset), placement and autoStart (on or off). Prints old -> new and the\n" +
			"definition version the change is sent with; nothing changes unless --execute. A\n" +
			"replicas above the cluster's nodes is refused (the engine's rule).",
		Example: "  ilinkdash cluster set replicas=3 minSync=2\n" +
			"  ilinkdash cluster set placement=off autoStart=on --execute",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withAdmin(cmd, f, func(t *adminTarget) error { return t.clusterSet(args, setExec) })
		},
	}
	set.Flags().BoolVar(&setExec, "execute", false, "send the change (default: only print the plan)")

	var node admin.ClusterNode
	var addExec bool
	add := &cobra.Command{
		Use:   "add-node --qmgr QM --host HOST --port PORT [--ilcc-port PORT] [--execute]",
		Short: "Plan (or, with --execute, make) the addition of a node to the cluster definition",
		Long: "Adds (qmgr, host, listener port, ILCC port) to the definition; the engine numbers\n" +
			"it. With PLACEMENT on replicas does not change; with it off it grows by one. A\n" +
			"queue manager or address that is already a node's is refused.",
		Example: "  ilinkdash cluster add-node --qmgr QM4 --host ilink-4.example --port 5000\n" +
			"  ilinkdash cluster add-node --qmgr QM4 --host ilink-4.example --port 5000 --execute",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkNewNode(node); err != nil {
				return usageErr("cluster add-node: %v", err)
			}
			return a.withAdmin(cmd, f, func(t *adminTarget) error { return t.clusterAddNode(node, addExec) })
		},
	}
	af := add.Flags()
	af.StringVar(&node.QueueManager, "qmgr", "", "the node's queue manager name (required)")
	af.StringVar(&node.Host, "host", "", "the node's host name (required)")
	af.IntVar(&node.Port, "port", 0, "the node's listener port, 1..65535 (required)")
	af.IntVar(&node.IlccPort, "ilcc-port", 0, "the node's ILCC port, 1..65535 (default: the cluster's)")
	af.BoolVar(&addExec, "execute", false, "add the node (default: only print the plan)")
	setWant(af, "port", "a port number (1..65535)")
	setWant(af, "ilcc-port", "a port number (1..65535)")

	var rmExec bool
	remove := &cobra.Command{
		Use:   "remove-node N [--execute]",
		Short: "Plan (or, with --execute, make) the removal of node N from the cluster definition",
		Long: "With PLACEMENT on replicas is kept, lowered to the remaining nodes if it would exceed\n" +
			"them; with it off it shrinks by one. Removing the cluster leader forces an election:\n" +
			"no node accepts sessions until a new leader is promoted (the plan warns).",
		Example: "  ilinkdash cluster remove-node 3\n  ilinkdash cluster remove-node 3 --execute",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			n, err := strconv.Atoi(args[0])
			if err != nil || n < 1 {
				return usageErr("node %q: want a node number (1 or more)", args[0])
			}
			return a.withAdmin(cmd, f, func(t *adminTarget) error { return t.clusterRemoveNode(n, rmExec) })
		},
	}
	remove.Flags().BoolVar(&rmExec, "execute", false, "remove the node (default: only print the plan)")
	return []*cobra.Command{set, add, remove}
}

// clusterKeys are cluster set's keys, lower-cased, to their names.
var clusterKeys = map[string]string{"replicas": "replicas", "minsync": "minSync", "placement": "placement", "autostart": "autoStart", "auto-start": "autoStart"}

// planClusterSet reads KEY=VALUE arguments into a change of p (nodes: the
// definition's node count); the error names the argument.
func planClusterSet(p admin.ClusterProperty, args []string) (admin.ClusterPropertyChange, []clusterChangeJSON, error) {
	ch := admin.ClusterPropertyChange{BaseVersion: p.Version}
	var changes []clusterChangeJSON
	seen := map[string]bool{}
	onOff := map[bool]string{true: "on", false: "off"}
	for _, arg := range args {
		k, v, ok := strings.Cut(arg, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		key, known := clusterKeys[strings.ToLower(k)]
		switch {
		case !ok || k == "":
			return ch, nil, fmt.Errorf("%q: want KEY=VALUE (keys replicas, minSync, placement, autoStart)", arg)
		case !known:
			return ch, nil, fmt.Errorf("%q: unknown key %s (keys replicas, minSync, placement, autoStart)", arg, k)
		case seen[key]:
			return ch, nil, fmt.Errorf("%s given twice", key)
		}
		seen[key] = true
		switch key {
		case "replicas", "minSync":
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || n > 64 {
				return ch, nil, fmt.Errorf("%s=%s: want a whole number from 0 to 64 (0 clears it)", key, v)
			}
			cur := p.Replicas
			if key == "minSync" {
				cur = p.MinSync
				ch.MinSync = &n
			} else {
				if n > 0 {
					if err := topicrules.CheckReplicas(int64(n), len(p.Nodes)); err != nil {
						return ch, nil, topicrules.InField(err, key+"="+v)
					}
				}
				ch.Replicas = &n
			}
			changes = append(changes, clusterChangeJSON{key, unsetStr(cur), unsetStr(n), cur != n})
		default:
			var on bool
			switch strings.ToLower(v) {
			case "on", "true", "yes":
				on = true
			case "off", "false", "no":
			default:
				return ch, nil, fmt.Errorf("%s=%s: want on or off", key, v)
			}
			cur := p.Placement
			if key == "autoStart" {
				cur = p.AutoStart
				ch.AutoStart = &on
			} else {
				ch.Placement = &on
			}
			changes = append(changes, clusterChangeJSON{key, onOff[cur], onOff[on], cur != on})
		}
	}
	return ch, changes, nil
}

func unsetStr(n int) string {
	if n == 0 {
		return "unset"
	}
	return strconv.Itoa(n)
}

func (t *adminTarget) clusterSet(args []string, execute bool) error {
	p, err := t.svc.ClusterProperty(t.ctx, "")
	if err != nil {
		return err
	}
	ch, changes, err := planClusterSet(p, args)
	if err != nil {
		return usageErr("cluster set: %v", err)
	}
	out := clusterSetJSON{Cluster: p.Name, BaseVersion: p.Version, Version: p.Version, Changes: changes, Warnings: []string{}}
	replicas, minSync := p.Replicas, p.MinSync
	if ch.Replicas != nil {
		replicas = *ch.Replicas
	}
	if ch.MinSync != nil {
		minSync = *ch.MinSync
	}
	if replicas > 0 && minSync > replicas {
		out.Warnings = append(out.Warnings, fmt.Sprintf("minSync %d is above replicas %d: an acks=all produce on a topic of the default replicas can never be acknowledged", minSync, replicas))
	}
	if execute {
		after, err := t.svc.SetClusterProperty(t.ctx, "", ch)
		if err != nil {
			return err
		}
		out.Executed, out.Version = true, after.Version
	}
	return t.emit(out, func(w *table) {
		n := 0
		for _, c := range out.Changes {
			if c.Changed {
				n++
			}
		}
		head := fmt.Sprintf("planned at version %d (nothing changed; add --execute to send it)", out.BaseVersion)
		if out.Executed {
			head = fmt.Sprintf("sent with version %d, committed as version %d", out.BaseVersion, out.Version)
		}
		w.row(fmt.Sprintf("cluster %s: %d of %s, %s", out.Cluster, n, common.Plural(len(out.Changes), "property change"), head))
		w.row("PROPERTY", "OLD", "", "NEW")
		for _, c := range out.Changes {
			arrow := "->"
			if !c.Changed {
				arrow = "="
			}
			w.row(c.Key, c.Old, arrow, c.New)
		}
		for _, s := range out.Warnings {
			w.row("warning: " + s)
		}
	})
}

// checkNewNode checks add-node's flags before any connection.
func checkNewNode(n admin.ClusterNode) error {
	switch {
	case strings.TrimSpace(n.QueueManager) == "":
		return fmt.Errorf("--qmgr is required: the node's queue manager name")
	case sanitize.String(n.QueueManager) != n.QueueManager || strings.ContainsAny(n.QueueManager, " ,"):
		return fmt.Errorf("--qmgr %q: want a queue manager name without spaces, commas or control characters", n.QueueManager)
	case strings.TrimSpace(n.Host) == "":
		return fmt.Errorf("--host is required: the node's host name")
	case sanitize.String(n.Host) != n.Host || strings.ContainsAny(n.Host, " ,/"):
		return fmt.Errorf("--host %q: want a host name", n.Host)
	case n.Port < 1 || n.Port > 65535:
		return fmt.Errorf("--port %d: want a port number (1..65535); it is required", n.Port)
	case n.IlccPort < 0 || n.IlccPort > 65535:
		return fmt.Errorf("--ilcc-port %d: want a port number (1..65535; default: the cluster's)", n.IlccPort)
	}
	return nil
}

// placementEffect is what the change does to replicas, in the words of
// the dashboard's add and remove dialogs; replicas is the value after.
func placementEffect(p admin.ClusterProperty, adding bool) (string, int) {
	switch {
	case p.Placement && adding:
		return "PLACEMENT is on: replicas (" + unsetStr(p.Replicas) + ") is a per-partition count and does not change.", p.Replicas
	case p.Placement:
		after := p.Replicas
		if left := len(p.Nodes) - 1; after > left {
			after = max(left, 0)
		}
		return "PLACEMENT is on: replicas (" + unsetStr(p.Replicas) + ") does not change, except that it is lowered to the number of brokers if it would exceed it.", after
	case adding:
		return "PLACEMENT is off: replicas goes from " + unsetStr(p.Replicas) + " to one more.", p.Replicas + 1
	}
	return "PLACEMENT is off: replicas goes from " + unsetStr(p.Replicas) + " to one less.", max(p.Replicas-1, 0)
}

func defNodeJSON(n admin.ClusterNode) clusterNodeJSON {
	return clusterNodeJSON{n.Number, n.QueueManager, n.Host, n.Port, n.IlccPort}
}

func (t *adminTarget) clusterAddNode(node admin.ClusterNode, execute bool) error {
	p, err := t.svc.ClusterProperty(t.ctx, "")
	if err != nil {
		return err
	}
	if node.IlccPort == 0 {
		node.IlccPort = p.IlccPort
	}
	for _, n := range p.Nodes {
		switch {
		case strings.EqualFold(n.QueueManager, node.QueueManager):
			return fmt.Errorf("cluster add-node: queue manager %s is node %d's", node.QueueManager, n.Number)
		case strings.EqualFold(n.Host, node.Host) && n.Port == node.Port:
			return fmt.Errorf("cluster add-node: address %s:%d is node %d's", node.Host, node.Port, n.Number)
		}
	}
	effect, replicas := placementEffect(p, true)
	out := clusterNodeChangeJSON{Action: "add", Cluster: p.Name, BaseVersion: p.Version, Version: p.Version,
		Node: defNodeJSON(node), Nodes: len(p.Nodes) + 1, Replicas: replicas, Effect: effect, Warnings: []string{}}
	if execute {
		after, err := t.svc.AddNode(t.ctx, "", node)
		if err != nil {
			return err
		}
		out.Executed, out.Version, out.Nodes, out.Replicas = true, after.Version, len(after.Nodes), after.Replicas
		for _, n := range after.Nodes {
			if strings.EqualFold(n.QueueManager, node.QueueManager) {
				out.Node = defNodeJSON(n)
			}
		}
	}
	return t.emitNodeChange(out)
}

func (t *adminTarget) clusterRemoveNode(number int, execute bool) error {
	p, err := t.svc.ClusterProperty(t.ctx, "")
	if err != nil {
		return err
	}
	var node *admin.ClusterNode
	numbers := make([]int, 0, len(p.Nodes))
	for i := range p.Nodes {
		numbers = append(numbers, p.Nodes[i].Number)
		if p.Nodes[i].Number == number {
			node = &p.Nodes[i]
		}
	}
	if node == nil {
		sort.Ints(numbers)
		return fmt.Errorf("node %d: no such node in cluster %s's definition (nodes %s)", number, p.Name, ids(numbers))
	}
	effect, replicas := placementEffect(p, false)
	out := clusterNodeChangeJSON{Action: "remove", Cluster: p.Name, BaseVersion: p.Version, Version: p.Version,
		Node: defNodeJSON(*node), Nodes: len(p.Nodes) - 1, Replicas: replicas, Effect: effect, Warnings: []string{}}
	// The leader's removal is said, as the dialog does; a node list that
	// cannot be read only loses the warning.
	if infos, err := t.qm.Nodes(t.ctx); err == nil {
		for _, n := range infos {
			if n.ID == number && n.Role == admin.RoleLeader {
				out.Warnings = append(out.Warnings, "this node is the cluster leader: removing it forces an election; no node accepts sessions until a new leader is promoted")
			}
		}
	}
	if execute {
		after, err := t.svc.RemoveNode(t.ctx, "", number)
		if err != nil {
			return err
		}
		out.Executed, out.Version, out.Nodes, out.Replicas = true, after.Version, len(after.Nodes), after.Replicas
	}
	return t.emitNodeChange(out)
}

func (t *adminTarget) emitNodeChange(out clusterNodeChangeJSON) error {
	return t.emit(out, func(w *table) {
		n := out.Node
		what := fmt.Sprintf("add node %s at %s:%d (ilcc %d)", n.QueueManager, n.Host, n.Port, n.IlccPort)
		if out.Action == "remove" {
			what = fmt.Sprintf("remove node %d (%s at %s:%d)", n.Number, n.QueueManager, n.Host, n.Port)
		} else if out.Executed && n.Number > 0 {
			what = fmt.Sprintf("add node %d: %s at %s:%d (ilcc %d)", n.Number, n.QueueManager, n.Host, n.Port, n.IlccPort)
		}
		head := fmt.Sprintf("planned at version %d (nothing changed; add --execute to send it)", out.BaseVersion)
		if out.Executed {
			head = fmt.Sprintf("sent with version %d, committed as version %d", out.BaseVersion, out.Version)
		}
		w.row(fmt.Sprintf("cluster %s: %s; %s", out.Cluster, what, head))
		w.row(fmt.Sprintf("%s; replicas after: %s", common.Plural(out.Nodes, "node"), unsetStr(out.Replicas)))
		w.row(out.Effect)
		for _, s := range out.Warnings {
			w.row("warning: " + s)
		}
	})
}
