package cli

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"ilinkdash/ilink"
	"ilinkdash/ilink/topicrules"
	"ilinkdash/ilink/wire"
	"ilinkdash/ui/common"
)

// topic create, delete and flush: what the dashboard's topic dialogs do.
// Each prints its plan and changes nothing without --execute. Create
// checks its flags with ilink/topicrules, the rules of the create dialog
// and of the engine, and the errors name the flag.

type topicCreateJSON struct {
	Topic string `json:"topic"`
	// Properties is the CREATE TOPIC text sent (or to send).
	Properties string `json:"properties"`
	Executed   bool   `json:"executed"`
	Partitions int    `json:"partitions"`
	// Replicas, MinSync and RetentionMs are null for the cluster's
	// default; RetentionMs 0 keeps records forever.
	Replicas       *int   `json:"replicas"`
	MinSync        *int   `json:"min_sync"`
	RetentionMs    *int64 `json:"retention_ms"`
	RetentionBytes *int64 `json:"retention_bytes"` // null: unlimited (the default); per partition
	// Created is the topic as the engine describes it after --execute.
	Created *topicJSON `json:"created"`
}

type topicRemoveJSON struct {
	Action     string `json:"action"` // delete or flush
	Topic      string `json:"topic"`
	Executed   bool   `json:"executed"`
	Partitions int    `json:"partitions"`
	Records    int64  `json:"records"` // what the topic holds (end - start, summed), all lost
	// Groups are the groups with commits or members on the topic: they
	// lose their offsets on it.
	Groups []string `json:"groups"`
}

// topicCreateFlags are topic create's flags as given.
type topicCreateFlags struct {
	partitions, replicas, minSync int
	retention, retentionBytes     string
	execute                       bool
}

// topicLifecycleCommands are topic create, delete and flush (registered
// by topicCommand).
func (a *app) topicLifecycleCommands(f *adminFlags) []*cobra.Command {
	var cf topicCreateFlags
	create := &cobra.Command{
		Use:   "create NAME [--partitions N] [--replicas N] [--min-sync N] [--retention D] [--retention-bytes SIZE] [--execute]",
		Short: "Plan (or, with --execute, create) a topic",
		Long: "Checks the name and every flag with the rules of the dashboard's create dialog and\n" +
			"of the engine (names of A-Z a-z 0-9 . _ -, at most 249 characters, not SYSTEM.;\n" +
			"partitions 1..1024; replicas at most the cluster's nodes; minSync 1..replicas;\n" +
			"retention at most 36500d, 0 or forever = kept forever; sizes binary: 10k = 10,240,\n" +
			"512m = 512MiB, MB/GB refused as ambiguous; 0 or unlimited = no limit), prints the\n" +
			"properties it sends, and creates nothing unless --execute. Flags not given take the\n" +
			"cluster's defaults (partitions: 3, as the dialog).",
		Example: "  ilinkdash topic create ORDER.EVENT --partitions 6 --replicas 3 --min-sync 2 --retention 7d\n" +
			"  ilinkdash topic create AUDIT.LOG --retention forever --retention-bytes 1g --execute",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.topicCreate(cmd, f, args[0], cf)
		},
	}
	fl := create.Flags()
	fl.IntVar(&cf.partitions, "partitions", 3, "partitions (1..1024)")
	fl.IntVar(&cf.replicas, "replicas", 0, "replicas of every partition (default: the cluster's; at most its nodes)")
	fl.IntVar(&cf.minSync, "min-sync", 0, "in-sync replicas an acks=all produce waits for (1..replicas; default: the cluster's)")
	fl.StringVar(&cf.retention, "retention", "", "how long records are kept: 7d, 12h, 30m, milliseconds, or forever (default: the cluster's)")
	fl.StringVar(&cf.retentionBytes, "retention-bytes", "", "size limit per partition: bytes, 512m = 512MiB, 1g = 1GiB (binary), or unlimited (default)")
	fl.BoolVar(&cf.execute, "execute", false, "create the topic (default: only print the plan)")
	setWant(fl, "partitions", "a whole number of partitions (1..1024)")
	setWant(fl, "replicas", "a whole number of replicas")
	setWant(fl, "min-sync", "a whole number of in-sync replicas")
	return []*cobra.Command{create, a.topicRemoveCommand(f, "delete"), a.topicRemoveCommand(f, "flush")}
}

func (a *app) topicRemoveCommand(f *adminFlags, action string) *cobra.Command {
	short := map[string]string{
		"delete": "Plan (or, with --execute, make) the deletion of a topic with its records and its groups' commits",
		"flush":  "Plan (or, with --execute, make) the emptying of a topic: every record and its groups' commits go",
	}[action]
	return a.plannedCommand(f, action, short,
		"Prints what is lost (the records the topic holds and the groups with offsets on it)\n"+
			"and changes nothing unless --execute. This cannot be undone.",
		action+" the topic (default: only print the plan)",
		func(t *adminTarget, name string, execute bool) error { return t.topicRemove(action, name, execute) })
}

// plannedCommand is a command ACTION NAME [--execute] on one named object:
// run prints the plan, and makes the change only with --execute.
func (a *app) plannedCommand(f *adminFlags, action, short, long, executeUsage string, run func(t *adminTarget, name string, execute bool) error) *cobra.Command {
	var execute bool
	cmd := &cobra.Command{
		Use:   action + " NAME [--execute]",
		Short: short,
		Long:  long,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withAdmin(cmd, f, func(t *adminTarget) error { return run(t, args[0], execute) })
		},
	}
	cmd.Flags().BoolVar(&execute, "execute", false, executeUsage)
	return cmd
}

// parse reads the flags into the CREATE TOPIC spec, checking each with
// ilink/topicrules; nodes is the cluster's node count (0: unknown).
func (cf topicCreateFlags) parse(cmd *cobra.Command, name string, nodes int) (topicCreateJSON, error) {
	out := topicCreateJSON{Topic: name, Partitions: cf.partitions}
	changed := cmd.Flags().Changed
	if err := topicrules.CheckName(name, false); err != nil {
		return out, err
	}
	if err := topicrules.CheckPartitions(int64(cf.partitions)); err != nil {
		return out, topicrules.InField(err, "--partitions")
	}
	props := []string{"partitions=" + strconv.Itoa(cf.partitions)}
	if changed("replicas") {
		if err := topicrules.CheckReplicas(int64(cf.replicas), nodes); err != nil {
			return out, topicrules.InField(err, "--replicas")
		}
		out.Replicas = &cf.replicas
		props = append(props, "replicas="+strconv.Itoa(cf.replicas))
	}
	if changed("min-sync") {
		// Against --replicas; without it the cluster's default replicas
		// is the engine's to know, and it checks the same rule.
		switch {
		case out.Replicas != nil:
			if err := topicrules.CheckMinSync(int64(cf.minSync), int64(*out.Replicas)); err != nil {
				return out, topicrules.InField(err, "--min-sync")
			}
		case cf.minSync < 1:
			return out, &topicrules.Error{Field: "--min-sync", Msg: fmt.Sprintf("%d; at least 1 (and at most the replicas)", cf.minSync)}
		}
		out.MinSync = &cf.minSync
		props = append(props, "minSync="+strconv.Itoa(cf.minSync))
	}
	if changed("retention") {
		ms, err := topicrules.ParseRetention(cf.retention)
		if err != nil {
			return out, topicrules.InField(err, "--retention")
		}
		out.RetentionMs = &ms
		props = append(props, "retention.ms="+strconv.FormatInt(ms, 10))
	}
	if changed("retention-bytes") {
		n, err := topicrules.ParseRetentionBytes(cf.retentionBytes)
		if err != nil {
			return out, topicrules.InField(err, "--retention-bytes")
		}
		out.RetentionBytes = &n
		props = append(props, "retention.bytes="+strconv.FormatInt(n, 10))
	}
	out.Properties = strings.Join(props, ",")
	return out, nil
}

func (a *app) topicCreate(cmd *cobra.Command, f *adminFlags, name string, cf topicCreateFlags) error {
	// The checks that need no cluster come first: a mistake is a usage
	// error before any connection (or embedded engine) is made.
	if _, err := cf.parse(cmd, name, 0); err != nil {
		return usageErr("topic create: %v", err)
	}
	t, err := a.openAdmin(cmd, f)
	if err != nil {
		return err
	}
	defer t.close()
	nodes, err := t.qm.Nodes(t.ctx)
	if err != nil {
		return err
	}
	out, err := cf.parse(cmd, name, len(nodes))
	if err != nil {
		return usageErr("topic create: %v", err)
	}
	switch _, err := t.qm.DescribeTopic(t.ctx, name); {
	case err == nil:
		return fmt.Errorf("topic %s: already exists", name)
	case !ilink.HasName(err, wire.ErrUnknownTopic):
		return err
	}
	if cf.execute {
		if err := t.qm.CreateTopic(t.ctx, name, out.Properties); err != nil {
			return err
		}
		out.Executed = true
		d, err := t.qm.DescribeTopic(t.ctx, name)
		if err != nil {
			return fmt.Errorf("topic %s created, but describing it failed: %w", name, err)
		}
		j := topicToJSON(d.TopicInfo)
		out.Created = &j
	}
	return t.emit(out, func(w *table) { printTopicCreate(w, out) })
}

func printTopicCreate(w *table, out topicCreateJSON) {
	head := "planned (nothing created; add --execute to create it)"
	if out.Executed {
		head = "created"
	}
	w.row(fmt.Sprintf("topic %s: %s; sends %s", out.Topic, head, out.Properties))
	dflt := func(s string, set bool) string {
		if !set {
			return "cluster default"
		}
		return s
	}
	row := func(key, planned string, created any) {
		if out.Created == nil {
			w.row(key, planned)
			return
		}
		w.row(key, planned, created)
	}
	if out.Created != nil {
		w.row("PROPERTY", "ASKED", "CREATED")
	} else {
		w.row("PROPERTY", "PLANNED")
	}
	c := out.Created
	if c == nil {
		c = &topicJSON{}
	}
	row("partitions", strconv.Itoa(out.Partitions), c.Partitions)
	row("replicas", dflt(optInt(out.Replicas), out.Replicas != nil), c.Replicas)
	row("minSync", dflt(optInt(out.MinSync), out.MinSync != nil), c.MinSync)
	retention := func(ms int64) string { return topicrules.FormatRetention(ms) }
	row("retention", dflt(retention(deref(out.RetentionMs)), out.RetentionMs != nil), retention(c.RetentionMs))
	row("retention.bytes", dflt(retentionBytes(deref(out.RetentionBytes)), out.RetentionBytes != nil), retentionBytes(c.RetentionBytes))
}

func optInt(p *int) string {
	if p == nil {
		return ""
	}
	return strconv.Itoa(*p)
}

func deref(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

func (t *adminTarget) topicRemove(action, name string, execute bool) error {
	d, err := t.qm.DescribeTopic(t.ctx, name)
	if err != nil {
		return err // an unknown topic: "topic X: no such topic" (notFound)
	}
	subs, err := t.qm.SubscriptionList(t.ctx, name)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	out := topicRemoveJSON{Action: action, Topic: name, Partitions: d.Partitions,
		Records: d.EndOffsetSum - d.StartOffsetSum, Groups: []string{}}
	for _, s := range subs {
		if !seen[s.Group] {
			seen[s.Group] = true
			out.Groups = append(out.Groups, s.Group)
		}
	}
	sort.Strings(out.Groups)
	if execute {
		call := t.qm.DeleteTopic
		if action == "flush" {
			call = t.qm.FlushTopic
		}
		if err := call(t.ctx, name); err != nil {
			if ilink.HasName(err, wire.ErrUnknownTopic) {
				return fmt.Errorf("topic %s: no such topic (it went between the plan and the %s)", name, action)
			}
			return err
		}
		out.Executed = true
	}
	return t.emit(out, func(w *table) {
		past := map[string]string{"delete": "deleted", "flush": "flushed"}[action]
		head := "planned (nothing changed; add --execute to " + action + " it)"
		if out.Executed {
			head = past
		}
		w.row(fmt.Sprintf("topic %s: %s %s, %s; %s", name, action, common.Plural(out.Partitions, "partition"),
			common.Plural(out.Records, "record"), head))
		if len(out.Groups) > 0 {
			w.row(fmt.Sprintf("%s lose their offsets on it: %s", common.Plural(len(out.Groups), "group"), strings.Join(out.Groups, ", ")))
		}
	})
}
