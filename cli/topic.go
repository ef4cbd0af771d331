package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"ilinkdash/ilink/admin"
)

type topicChangeJSON struct {
	Key     string `json:"key"`
	Old     int64  `json:"old"`
	New     int64  `json:"new"`
	Changed bool   `json:"changed"`
}

type topicAlterJSON struct {
	Topic      string            `json:"topic"`
	Properties string            `json:"properties"` // the ALTER TOPIC text sent (or to send)
	Executed   bool              `json:"executed"`
	Changes    []topicChangeJSON `json:"changes"`
}

func (a *app) topicCommand() *cobra.Command {
	var f adminFlags
	cmd := &cobra.Command{
		Use:   "topic",
		Short: "Create, delete or flush a topic, or change its configuration",
	}
	f.register(cmd)
	var sets []string
	var execute bool
	alter := &cobra.Command{
		Use:   "alter NAME --set KEY=VALUE... [--execute]",
		Short: "Plan (or, with --execute, apply) a change of retention, minSync or the partition count",
		Long: "Prints the change of every given property, old -> new, and changes nothing unless\n" +
			"--execute is given (the same plan-then-execute rule as group seek and cluster\n" +
			"rebalance). Keys: retention.ms (milliseconds, or 7d, 12h, 30m, forever),\n" +
			"retention.bytes (per partition: bytes, or 512MiB, 1GB, unlimited), minSync\n" +
			"(1..replicas), partitions (can only grow). replicas is fixed at creation. All\n" +
			"changes are applied at once or not at all.",
		Example: "  ilinkdash topic alter ORDER.EVENT --set retention.ms=7d --set partitions=6\n" +
			"  ilinkdash topic alter ORDER.EVENT --set minSync=2 --execute",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(sets) == 0 {
				return usageErr("topic alter: give at least one --set KEY=VALUE (keys retention.ms, retention.bytes, minSync, partitions)")
			}
			t, err := a.openAdmin(cmd, &f)
			if err != nil {
				return err
			}
			defer t.close()
			d, err := t.qm.DescribeTopic(t.ctx, args[0])
			if err != nil {
				return err
			}
			props, changes, err := admin.PlanTopicAlter(d.TopicInfo, sets)
			if err != nil {
				return usageErr("topic alter %s: %v", args[0], err)
			}
			if execute {
				if err := t.qm.AlterTopic(t.ctx, args[0], props); err != nil {
					return err
				}
			}
			out := topicAlterJSON{Topic: args[0], Properties: props, Executed: execute, Changes: []topicChangeJSON{}}
			for _, c := range changes {
				out.Changes = append(out.Changes, topicChangeJSON{c.Key, c.Old, c.New, c.Changed()})
			}
			return t.emit(out, func(w *table) { printTopicAlter(w, out) })
		},
	}
	alter.Flags().StringArrayVar(&sets, "set", nil, "KEY=VALUE to change (repeatable)")
	alter.Flags().BoolVar(&execute, "execute", false, "apply the change (default: only print the plan)")
	cmd.AddCommand(append([]*cobra.Command{alter}, a.topicLifecycleCommands(&f)...)...)
	return cmd
}

func printTopicAlter(w *table, out topicAlterJSON) {
	n := 0
	for _, c := range out.Changes {
		if c.Changed {
			n++
		}
	}
	head := "planned (nothing changed; add --execute to apply)"
	if out.Executed {
		head = "applied"
	}
	w.row(fmt.Sprintf("topic %s: %d of %d properties change, %s", out.Topic, n, len(out.Changes), head))
	w.row("PROPERTY", "OLD", "", "NEW")
	for _, c := range out.Changes {
		arrow := "->"
		if !c.Changed {
			arrow = "=" // unchanged
		}
		w.row(c.Key, admin.FormatTopicValue(c.Key, c.Old), arrow, admin.FormatTopicValue(c.Key, c.New))
	}
}
