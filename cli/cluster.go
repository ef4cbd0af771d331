package cli

import (
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"ilinkdash/ilink/admin"
)

type leaderMoveJSON struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	From      int    `json:"from"`
	To        int    `json:"to"`
	Skipped   string `json:"skipped"`
}

type rebalanceJSON struct {
	Executed   bool             `json:"executed"`
	Partitions int              `json:"partitions"`
	Preferred  int              `json:"preferred"` // led by their preferred replica before
	Movable    int              `json:"movable"`
	Moves      []leaderMoveJSON `json:"moves"`
}

type moveLeaderJSON struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	From      int    `json:"from"`
	To        int    `json:"to"`
}

func (a *app) clusterCommand() *cobra.Command {
	var f adminFlags
	cmd := &cobra.Command{
		Use:   "cluster",
		Short: "Partition leadership (rebalance, move one leader) and the cluster definition (set, add or remove a node)",
	}
	f.register(cmd)
	var execute bool
	rebalance := &cobra.Command{
		Use:   "rebalance [--execute]",
		Short: "Plan (or, with --execute, make) the move of every partition back to its preferred leader",
		Long: "A partition's preferred leader is the first replica of its placement. After a node\n" +
			"restarts it leads nothing until a rebalance. The plan lists every partition not led\n" +
			"by its preferred replica: the move, or why it stays (the replica is down or not in\n" +
			"sync yet). Nothing changes unless --execute. SYSTEM. topics keep their leaders\n" +
			"(moving a SYSTEM.GROUPS leader moves group coordinators).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			t, err := a.openAdmin(cmd, &f)
			if err != nil {
				return err
			}
			defer t.close()
			var r admin.LeaderRebalance
			if execute {
				r, err = t.qm.RebalanceLeaders(t.ctx)
			} else {
				r, err = t.qm.PlanRebalanceLeaders(t.ctx)
			}
			if err != nil {
				return err
			}
			out := rebalanceJSON{Executed: execute, Partitions: r.Partitions, Preferred: r.Preferred, Movable: r.Movable(), Moves: []leaderMoveJSON{}}
			for _, m := range r.Moves {
				out.Moves = append(out.Moves, leaderMoveJSON{m.Topic, m.Partition, m.From, m.To, m.Skipped})
			}
			return t.emit(out, func(w *table) { printRebalance(w, out) })
		},
	}
	rebalance.Flags().BoolVar(&execute, "execute", false, "move the leaders (default: only print the plan)")
	var to int
	move := &cobra.Command{
		Use:   "move-leader TOPIC PARTITION [--to NODE]",
		Short: "Move one partition's leadership (a forced election) to NODE, or to the next in-sync replica",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := strconv.ParseInt(args[1], 10, 32)
			if err != nil || p < 0 {
				return usageErr("partition %q: want a partition number", args[1])
			}
			if to < 0 {
				return usageErr("--to %d: want a node id (0 = the next in-sync replica)", to)
			}
			t, err := a.openAdmin(cmd, &f)
			if err != nil {
				return err
			}
			defer t.close()
			before, err := t.qm.DescribeTopic(t.ctx, args[0])
			if err != nil {
				return err
			}
			if int(p) >= len(before.PartitionList) {
				return usageErr("topic %s has %d partitions (0..%d)", args[0], len(before.PartitionList), len(before.PartitionList)-1)
			}
			if err := t.qm.ForceElection(t.ctx, args[0], int32(p), to); err != nil {
				return err
			}
			after, err := t.qm.DescribeTopic(t.ctx, args[0])
			if err != nil {
				return err
			}
			out := moveLeaderJSON{args[0], int32(p), before.PartitionList[p].Leader, after.PartitionList[p].Leader}
			return t.emit(out, func(w *table) {
				w.row(fmt.Sprintf("%s/%d: leader %d -> %d", out.Topic, out.Partition, out.From, out.To))
			})
		},
	}
	move.Flags().IntVar(&to, "to", 0, "the new leader (0 = the next running in-sync replica)")
	cmd.AddCommand(append([]*cobra.Command{rebalance, move}, a.clusterEditCommands(&f)...)...)
	return cmd
}

func printRebalance(w *table, out rebalanceJSON) {
	imb := func(pref int) string {
		if out.Partitions == 0 {
			return "0%"
		}
		return strconv.Itoa((out.Partitions-pref)*100/out.Partitions) + "%"
	}
	head := "planned (nothing changed; add --execute to move)"
	after := out.Preferred + out.Movable
	if out.Executed {
		head = "made"
	}
	w.row(fmt.Sprintf("%d of %d partitions led by their preferred replica (imbalance %s); %d moves %s; imbalance after: %s",
		out.Preferred, out.Partitions, imb(out.Preferred), out.Movable, head, imb(after)))
	if len(out.Moves) == 0 {
		return
	}
	w.row("TOPIC", "PARTITION", "LEADER", "", "PREFERRED", "SKIPPED")
	for _, m := range out.Moves {
		skip := m.Skipped
		if skip == "" {
			skip = "-"
		}
		from := strconv.Itoa(m.From)
		if m.From == 0 {
			from = "none"
		}
		w.row(m.Topic, m.Partition, from, "->", m.To, skip)
	}
}
