package cli

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"ilinkdash/ilink/admin"
)

type offsetChangeJSON struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Old       int64  `json:"old"`
	New       int64  `json:"new"`
}

type seekJSON struct {
	Group    string             `json:"group"`
	Topic    string             `json:"topic"`
	To       string             `json:"to"`
	Executed bool               `json:"executed"`
	Changes  []offsetChangeJSON `json:"changes"`
}

type groupDeleteJSON struct {
	Group   string `json:"group"`
	Deleted bool   `json:"deleted"`
}

// parseSeekTarget reads --to: earliest, latest, an offset or an RFC 3339
// time.
func parseSeekTarget(s string) (admin.SeekTarget, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "":
		return admin.SeekTarget{}, fmt.Errorf("--to is required: earliest, latest, an offset or an RFC 3339 time")
	case "earliest":
		return admin.SeekTarget{Earliest: true}, nil
	case "latest":
		return admin.SeekTarget{Latest: true}, nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 {
			return admin.SeekTarget{}, fmt.Errorf("--to %d: offsets are not negative", n)
		}
		return admin.SeekTarget{Offset: n}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return admin.SeekTarget{}, fmt.Errorf("--to %q: want earliest, latest, an offset or an RFC 3339 time (2006-01-02T15:04:05Z)", s)
	}
	return admin.SeekTarget{Time: t}, nil
}

func (a *app) groupCommand() *cobra.Command {
	var f adminFlags
	cmd := &cobra.Command{
		Use:   "group",
		Short: "Move or delete a consumer group's committed offsets",
	}
	f.register(cmd)
	var to, topic string
	var execute bool
	seek := &cobra.Command{
		Use:   "seek GROUP --to earliest|latest|OFFSET|TIME [--topic T] [--execute]",
		Short: "Plan (or, with --execute, apply) a move of the group's committed offsets",
		Long: "Prints the planned change of every committed offset, old -> new, and changes nothing\n" +
			"unless --execute is given. The engine refuses to apply while the group has active\n" +
			"members (MIMQE_GROUP_NOT_EMPTY). TIME is RFC 3339, e.g. 2026-01-02T15:04:05Z.",
		Example: "  ilinkdash group seek billing --to earliest --topic ORDER.EVENT\n" +
			"  ilinkdash group seek billing --to 2026-01-02T15:04:05Z --execute",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			target, err := parseSeekTarget(to)
			if err != nil {
				return adminUsage("%v", err)
			}
			t, err := a.openAdmin(cmd, &f)
			if err != nil {
				return err
			}
			defer t.close()
			return t.groupSeek(args[0], topic, to, target, execute)
		},
	}
	seek.Flags().StringVar(&to, "to", "", "earliest, latest, an offset or an RFC 3339 time")
	seek.Flags().StringVar(&topic, "topic", "", "only this topic (default: every topic the group has commits on)")
	seek.Flags().BoolVar(&execute, "execute", false, "apply the change (default: only print the plan)")
	del := &cobra.Command{
		Use:   "delete GROUP",
		Short: "Delete a group and its commits (refused while it has active members)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := a.openAdmin(cmd, &f)
			if err != nil {
				return err
			}
			defer t.close()
			if err := t.qm.DeleteGroup(t.ctx, args[0]); err != nil {
				return err
			}
			return t.emit(groupDeleteJSON{args[0], true}, func(w io.Writer) { row(w, "deleted group", args[0]) })
		},
	}
	cmd.AddCommand(seek, del)
	return cmd
}

func (t *adminTarget) groupSeek(group, topic, toText string, to admin.SeekTarget, execute bool) error {
	var changes []admin.OffsetChange
	var err error
	if execute {
		changes, err = t.qm.SeekGroup(t.ctx, group, topic, to)
	} else {
		changes, err = t.qm.PlanSeekGroup(t.ctx, group, topic, to)
	}
	if err != nil {
		return err
	}
	out := seekJSON{Group: group, Topic: topic, To: toText, Executed: execute, Changes: []offsetChangeJSON{}}
	for _, c := range changes {
		out.Changes = append(out.Changes, offsetChangeJSON{c.Topic, c.Partition, c.Old, c.New})
	}
	return t.emit(out, func(w io.Writer) {
		head := "planned (nothing changed; add --execute to apply)"
		if execute {
			head = "applied"
		}
		fmt.Fprintf(w, "group %s: %d offset changes %s\n", group, len(out.Changes), head)
		row(w, "TOPIC", "PARTITION", "OLD", "", "NEW")
		for _, c := range out.Changes {
			old := strconv.FormatInt(c.Old, 10)
			if c.Old < 0 {
				old = "-"
			}
			row(w, c.Topic, c.Partition, old, "->", c.New)
		}
	})
}
