package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"ilinkdash/ilink/admin"
	"ilinkdash/ui/common"
	"ilinkdash/ui/views/tab"
)

type partitionJSON struct {
	Partition     int32 `json:"partition"`
	Leader        int   `json:"leader"`
	LeaderEpoch   int32 `json:"leader_epoch"`
	Replicas      []int `json:"replicas"`
	InSync        []int `json:"in_sync"`
	StartOffset   int64 `json:"start_offset"`
	EndOffset     int64 `json:"end_offset"`
	HighWatermark int64 `json:"high_watermark"`
	// PreferredLeader is the first replica of the placement (0 = none).
	PreferredLeader int `json:"preferred_leader"`
}

type topicDescJSON struct {
	topicJSON
	PartitionList []partitionJSON `json:"partition_list"`
}

type memberJSON struct {
	MemberID   string               `json:"member_id"`
	ClientName string               `json:"client_name"`
	Host       string               `json:"host"`
	Assignment []topicPartitionJSON `json:"assignment"`
	LastSeen   string               `json:"last_seen"`
}

type topicPartitionJSON struct {
	Topic      string  `json:"topic"`
	Partitions []int32 `json:"partitions"`
}

// groupOffsetJSON is one partition of a group: null for what is unknown
// or absent, never -1.
type groupOffsetJSON struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Committed *int64 `json:"committed"`
	NoCommit  bool   `json:"no_commit"`
	LogStart  *int64 `json:"log_start"`
	EndOffset *int64 `json:"end_offset"`
	Lag       *int64 `json:"lag"`
	MemberID  string `json:"member_id"`
}

func optOffset(n int64) *int64 {
	if n < 0 {
		return nil
	}
	return &n
}

type groupDescJSON struct {
	Name                    string            `json:"name"`
	State                   string            `json:"state"`
	Generation              int32             `json:"generation"`
	Coordinator             int               `json:"coordinator"`
	Durable                 bool              `json:"durable"`
	Lag                     *int64            `json:"lag"`
	PartitionsWithoutCommit int               `json:"partitions_without_commit"`
	Members                 []memberJSON      `json:"members"`
	Offsets                 []groupOffsetJSON `json:"offsets"`
}

func (a *app) describeCommand() *cobra.Command {
	var f adminFlags
	cmd := &cobra.Command{
		Use:   "describe topic|group NAME",
		Short: "Describe a topic (per partition) or a consumer group (members and offsets)",
		Example: "  ilinkdash describe topic ORDER.EVENT --admin host:9998\n" +
			"  ilinkdash describe group billing -o json",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if args[0] != "topic" && args[0] != "group" {
				return usageErr("describe %q: want topic or group", args[0])
			}
			return a.withAdmin(cmd, &f, func(t *adminTarget) error {
				if args[0] == "topic" {
					return t.describeTopic(args[1])
				}
				return t.describeGroup(args[1])
			})
		},
	}
	f.register(cmd)
	return cmd
}

func (t *adminTarget) describeTopic(name string) error {
	d, err := t.qm.DescribeTopic(t.ctx, name)
	if err != nil {
		return err
	}
	out := topicDescJSON{topicJSON: topicToJSON(d.TopicInfo), PartitionList: []partitionJSON{}}
	for _, p := range d.PartitionList {
		out.PartitionList = append(out.PartitionList, partitionJSON{p.Partition, p.Leader, p.LeaderEpoch,
			nonNilInts(p.Replicas), nonNilInts(p.InSync), p.StartOffset, p.EndOffset, p.HighWatermark, p.PreferredLeader()})
	}
	preferred := 0
	for _, p := range out.PartitionList {
		if p.Leader != 0 && p.Leader == p.PreferredLeader {
			preferred++
		}
	}
	return t.emit(out, func(w *table) {
		w.row("TOPIC", out.Name)
		w.row("INTERNAL", out.Internal)
		w.row("PARTITIONS", out.Partitions)
		w.row("REPLICAS", out.Replicas)
		w.row("MIN-SYNC", out.MinSync)
		w.row("RETENTION", tab.Retention(out.RetentionMs, 0))
		w.row("RETENTION-BYTES", retentionBytes(out.RetentionBytes))
		w.row("EPOCH", out.Epoch)
		w.row("UNDER-REPLICATED", out.UnderReplicated)
		w.row("OFFLINE", out.Offline)
		w.row("PREFERRED-LEADERS", fmt.Sprintf("%d of %d partitions led by their preferred replica", preferred, len(out.PartitionList)))
		w.row("OFFSETS", fmt.Sprintf("start %d, end %d (sums)", out.StartOffsetSum, out.EndOffsetSum))
		w.row("IN/S", rate(out.RecordsInPerSec)+" records, "+rate(out.BytesInPerSec)+" bytes")
		w.row("OUT/S", rate(out.RecordsOutPerSec)+" records, "+rate(out.BytesOutPerSec)+" bytes")
		w.row()
		w.row("PARTITION", "LEADER", "PREFERRED", "EPOCH", "REPLICAS (placement)", "IN-SYNC", "START", "END", "HW")
		for _, p := range out.PartitionList {
			w.row(p.Partition, p.Leader, p.PreferredLeader, p.LeaderEpoch, ids(p.Replicas), ids(p.InSync), p.StartOffset, p.EndOffset, p.HighWatermark)
		}
	})
}

// retentionBytes is a topic's per-partition size limit for a table.
func retentionBytes(n int64) string {
	if n <= 0 {
		return "unlimited"
	}
	return common.Bytes(n) + " per partition"
}

func groupToJSON(d admin.GroupDescription) groupDescJSON {
	out := groupDescJSON{Name: d.Name, State: string(d.State), Generation: d.Generation, Coordinator: d.Coordinator,
		Durable: d.Durable, Members: []memberJSON{}, Offsets: []groupOffsetJSON{}}
	for _, m := range d.Members {
		mj := memberJSON{MemberID: m.MemberID, ClientName: m.ClientName, Host: m.Host, Assignment: []topicPartitionJSON{}}
		if !m.LastSeen.IsZero() {
			mj.LastSeen = m.LastSeen.UTC().Format(time.RFC3339Nano)
		}
		for _, a := range m.Assignment {
			ps := a.Partitions
			if ps == nil {
				ps = []int32{}
			}
			mj.Assignment = append(mj.Assignment, topicPartitionJSON{a.Topic, ps})
		}
		out.Members = append(out.Members, mj)
	}
	ps := make([]admin.PartitionOffsets, 0, len(d.Offsets))
	for _, o := range d.Offsets {
		l := o.Lag()
		oj := groupOffsetJSON{Topic: o.Topic, Partition: o.Partition, Committed: optOffset(o.Committed), NoCommit: l.NoCommit,
			LogStart: optOffset(o.LogStart), EndOffset: optOffset(o.End), MemberID: o.MemberID}
		if !l.Unknown {
			oj.Lag = &l.Records
		}
		out.Offsets = append(out.Offsets, oj)
		ps = append(ps, o.PartitionOffsets)
	}
	if lt := admin.GroupLag(ps); lt.Known() {
		out.Lag = &lt.Records
		out.PartitionsWithoutCommit = lt.NoCommit
	} else {
		out.PartitionsWithoutCommit = lt.NoCommit
	}
	return out
}

func (t *adminTarget) describeGroup(name string) error {
	d, err := t.qm.DescribeGroup(t.ctx, name)
	if err != nil {
		return err
	}
	out := groupToJSON(d)
	if d.State == admin.GroupDead {
		// An unknown group is described as Dead: say so and fail (the JSON
		// is still printed for a script that reads it).
		if t.json {
			if err := writeJSON(t.out, out, true); err != nil {
				return err
			}
		}
		return noSuch("group", name)
	}
	return t.emit(out, func(w *table) {
		w.row("GROUP", out.Name)
		w.row("STATE", out.State)
		w.row("GENERATION", out.Generation)
		w.row("COORDINATOR", out.Coordinator)
		w.row("DURABLE", out.Durable)
		w.row("LAG", optCell(out.Lag))
		w.row("WITHOUT COMMIT", out.PartitionsWithoutCommit)
		w.row()
		w.row("MEMBER", "CLIENT", "HOST", "ASSIGNMENT")
		for _, m := range out.Members {
			as := make([]string, len(m.Assignment))
			for i, a := range m.Assignment {
				ps := make([]int, len(a.Partitions))
				for j, p := range a.Partitions {
					ps[j] = int(p)
				}
				as[i] = a.Topic + ":" + ids(ps)
			}
			w.row(m.MemberID, m.ClientName, m.Host, strings.Join(as, " "))
		}
		w.row()
		w.row("TOPIC", "PARTITION", "COMMITTED", "LOG-START", "END", "LAG", "MEMBER")
		for _, o := range out.Offsets {
			committed := "no commit"
			if o.Committed != nil {
				committed = fmt.Sprint(*o.Committed)
			}
			w.row(o.Topic, o.Partition, committed, optCell(o.LogStart), optCell(o.EndOffset), optCell(o.Lag), o.MemberID)
		}
	})
}

// optCell is an optional number in a table: "-" when absent.
func optCell(n *int64) string {
	if n == nil {
		return "-"
	}
	return fmt.Sprint(*n)
}
