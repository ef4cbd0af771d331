package cli

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/position"
	"ilinkdash/ui/common"
)

type offsetChangeJSON struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Old       int64  `json:"old"`
	New       int64  `json:"new"`
	LogStart  *int64 `json:"log_start"`
	EndOffset *int64 `json:"end_offset"`
	// Skip is the records the change skips (negative: read again), by the
	// lag rule: a seek to the end skips the group's lag. Null when unknown.
	Skip *int64 `json:"skip"`
}

type seekJSON struct {
	Group    string             `json:"group"`
	Topic    string             `json:"topic"`
	To       string             `json:"to"`
	Executed bool               `json:"executed"`
	Skip     int64              `json:"skip"` // the sum of the changes' known skips
	Changes  []offsetChangeJSON `json:"changes"`
	// Differences (with --execute) are where the applied seek is not the
	// plan it was computed from (admin.SeekDifferences); empty when the
	// seek did exactly what the plan said.
	Differences []string `json:"differences"`
}

type groupDeleteJSON struct {
	Group   string `json:"group"`
	Deleted bool   `json:"deleted"`
}

// parseSeekTarget reads --to with the one position parser
// (ilink/position): earliest, latest, an offset, a time (RFC 3339, a local
// date and time, HH:MM[:SS] today) or a relative time (-5m, 2h ago).
// P@OFFSET (and TOPIC:P@OFFSET) moves that one partition of the topic
// (seekTopic says which topic).
func parseSeekTarget(s string, now time.Time) (admin.SeekTarget, position.Position, error) {
	if strings.TrimSpace(s) == "" {
		return admin.SeekTarget{}, position.Position{}, fmt.Errorf("--to is required: %s", position.Forms)
	}
	p, err := position.Parse(s, now)
	if err != nil {
		return admin.SeekTarget{}, p, fmt.Errorf("--to: %v", err)
	}
	switch p.Kind {
	case position.Earliest:
		return admin.SeekTarget{Earliest: true}, p, nil
	case position.Latest:
		return admin.SeekTarget{Latest: true}, p, nil
	case position.Time:
		return admin.SeekTarget{Time: p.Time}, p, nil
	}
	if p.OnePartition() {
		return admin.SeekTarget{Offset: p.Offset, Partitions: []int32{p.Partition}}, p, nil
	}
	return admin.SeekTarget{Offset: p.Offset}, p, nil
}

// seekTopic is the topic a seek to p moves: --topic, or the topic of a
// TOPIC:P@OFFSET; a one-partition seek must name one.
func seekTopic(p position.Position, topic string) (string, error) {
	switch {
	case !p.OnePartition():
		return topic, nil
	case p.Topic != "" && topic != "" && p.Topic != topic:
		return "", fmt.Errorf("--to %s names topic %s but --topic is %s", p, p.Topic, topic)
	case p.Topic != "":
		return p.Topic, nil
	case topic == "":
		return "", fmt.Errorf("--to %s moves one partition (P@OFFSET): name its topic with --topic T or --to T:%s", p, p)
	}
	return topic, nil
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
			"members (MIMQE_GROUP_NOT_EMPTY). --to takes the positions of tail --from and of the\n" +
			"dashboard's seek: earliest, latest, an offset, a time (RFC 3339, a local date and\n" +
			"time, HH:MM[:SS] today) or a relative time (-5m, -2h, 2h ago). A time moves to the\n" +
			"first offset at or after it. P@OFFSET (with --topic) or TOPIC:P@OFFSET moves that one\n" +
			"partition and leaves the others. --execute plans first and applies exactly the planned\n" +
			"offsets (a later end is not chased), then reports any difference from the plan.",
		Example: "  ilinkdash group seek billing --to earliest --topic ORDER.EVENT\n" +
			"  ilinkdash group seek billing --to 2@5 --topic ORDER.EVENT --execute\n" +
			"  ilinkdash group seek billing --to -15m\n" +
			"  ilinkdash group seek billing --to 2026-01-02T15:04:05Z --execute",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			target, pos, err := parseSeekTarget(to, a.now())
			if err != nil {
				return usageErr("%v", err)
			}
			topic, err := seekTopic(pos, topic)
			if err != nil {
				return usageErr("%v", err)
			}
			return a.withAdmin(cmd, &f, func(t *adminTarget) error { return t.groupSeek(args[0], topic, to, pos, target, execute) })
		},
	}
	seek.Flags().StringVar(&to, "to", "", "where to: earliest, latest, an offset, P@OFFSET or TOPIC:P@OFFSET (one partition), a time (2026-01-02T15:04:05Z, 2026-01-02 15:04, 10:00 today) or a relative time (-5m, 2h ago)")
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
			if err := t.groupExists(args[0], groupDeleteJSON{args[0], false}); err != nil {
				return err
			}
			if err := t.qm.DeleteGroup(t.ctx, args[0]); err != nil {
				return err
			}
			return t.emit(groupDeleteJSON{args[0], true}, func(w *table) { w.row("deleted group", args[0]) })
		},
	}
	cmd.AddCommand(seek, del)
	return cmd
}

func (t *adminTarget) groupSeek(group, topic, toText string, pos position.Position, to admin.SeekTarget, execute bool) error {
	// The plan first; an execution applies exactly the planned offsets
	// (to.Planned) and reports where the result differs from them.
	changes, err := t.qm.PlanSeekGroup(t.ctx, group, topic, to)
	if err != nil {
		return err
	}
	if topic == "" && len(changes) == 0 {
		// Without --topic a seek moves the commits the group has; an
		// unknown group has none. (With --topic, an unknown group's seek
		// makes its first commits.)
		if err := t.groupExists(group, seekJSON{Group: group, To: toText, Changes: []offsetChangeJSON{}, Differences: []string{}}); err != nil {
			return err
		}
	}
	diffs := []string{}
	if execute && len(changes) > 0 {
		plan := changes
		to.Planned = plan
		if changes, err = t.qm.SeekGroup(t.ctx, group, topic, to); err != nil {
			return err
		}
		diffs = append(diffs, admin.SeekDifferences(plan, changes)...)
	}
	out := seekJSON{Group: group, Topic: topic, To: toText, Executed: execute, Changes: []offsetChangeJSON{}, Differences: diffs}
	for _, c := range changes {
		cj := offsetChangeJSON{Topic: c.Topic, Partition: c.Partition, Old: c.Old, New: c.New,
			LogStart: optOffset(c.LogStart), EndOffset: optOffset(c.End)}
		if n, ok := c.Skip(); ok {
			cj.Skip = &n
			out.Skip += n
		}
		out.Changes = append(out.Changes, cj)
	}
	return t.emit(out, func(w *table) {
		head := "planned (nothing changed; add --execute to apply)"
		if execute {
			head = "applied"
		}
		skip := "the group skips " + common.Plural(out.Skip, "record")
		if out.Skip < 0 {
			skip = "the group reads " + common.Plural(-out.Skip, "record") + " again"
		}
		w.row(fmt.Sprintf("group %s: %s to %s %s; %s", group, common.Plural(len(out.Changes), "offset change"), pos.Label(), head, skip))
		w.row("TOPIC", "PARTITION", "OLD", "", "NEW", "SKIP")
		for _, c := range out.Changes {
			old := strconv.FormatInt(c.Old, 10)
			if c.Old < 0 {
				old = "no commit"
			}
			w.row(c.Topic, c.Partition, old, "->", c.New, optCell(c.Skip))
		}
		for _, d := range out.Differences {
			w.row("differs from the plan: " + d)
		}
	})
}

// groupExists fails with "group G: no such group" when the engine
// describes group as Dead (unknown); with -o json it prints v first, so a
// script still reads the command's JSON.
func (t *adminTarget) groupExists(group string, v any) error {
	d, err := t.qm.DescribeGroup(t.ctx, group)
	if err != nil || d.State != admin.GroupDead {
		return err
	}
	if t.json {
		if err := writeJSON(t.out, v, true); err != nil {
			return err
		}
	}
	return noSuch("group", group)
}
