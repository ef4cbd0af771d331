package cli

import (
	"strconv"

	"github.com/spf13/cobra"
)

type nodeActionJSON struct {
	Node   int    `json:"node"`
	Action string `json:"action"`
	OK     bool   `json:"ok"`
}

func (a *app) nodeCommand() *cobra.Command {
	var f adminFlags
	cmd := &cobra.Command{
		Use:   "node stop|start|kill N",
		Short: "Stop, start or kill a cluster node (fault injection over the admin protocol)",
		Long: "stop stops node N's queue manager (its admin listener stays up); start starts it\n" +
			"again, or restarts a killed node; kill kills the node (its memory state is lost).",
		Example: "  ilinkdash node stop 2 --admin host:9998\n  ilinkdash node kill 1 --embedded -o json",
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			action := args[0]
			switch action {
			case "stop", "start", "kill":
			default:
				return usageErr("node %q: want stop, start or kill", action)
			}
			id, err := strconv.Atoi(args[1])
			if err != nil || id < 1 {
				return usageErr("node %s %q: want a node number", action, args[1])
			}
			t, err := a.openAdmin(cmd, &f)
			if err != nil {
				return err
			}
			defer t.close()
			switch action {
			case "stop":
				err = t.qm.StopNode(t.ctx, id)
			case "start":
				err = t.qm.StartNode(t.ctx, id)
			case "kill":
				err = t.qm.KillNode(t.ctx, id)
			}
			if err != nil {
				return err
			}
			past := map[string]string{"stop": "stopped", "start": "started", "kill": "killed"}[action]
			return t.emit(nodeActionJSON{id, action, true}, func(w *table) { w.row("node", id, past) })
		},
	}
	f.register(cmd)
	return cmd
}
