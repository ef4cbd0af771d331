package cli

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"ilinkdash/config"
	"ilinkdash/ilink"
	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/wire"
	"ilinkdash/ui/sanitize"
)

// Dynamic shell completion (cobra's __complete): topic, group, context and
// node names from the configured cluster, and the values of --format, -o,
// --to, --from, --acks, --compression and --commit. A completion asks the
// cluster with a short time limit and never starts an embedded engine:
// with no target configured, or an unreachable one, it offers no names.

// completeTimeout bounds the cluster calls of one completion.
const completeTimeout = 2 * time.Second

type nameKind int

const (
	topicNames nameKind = iota
	groupNames
	nodeNames
)

// registerCompletions attaches the completion functions to the commands
// and flags (after every command is added).
func (a *app) registerCompletions() {
	_ = a.root.RegisterFlagCompletionFunc("context", a.completeContexts)
	noFiles := cobra.ShellCompDirectiveNoFileComp
	fixed := func(values ...string) cobra.CompletionFunc {
		return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) { return values, noFiles }
	}
	positions := fixed("earliest\tthe log start", "latest\tthe end (new records only)", "-5m\t5 minutes ago", "-1h\tan hour ago",
		"-24h\ta day ago", "0\toffset 0 of every partition")
	forEachCommand(a.root, func(c *cobra.Command) {
		flag := func(name string, fn cobra.CompletionFunc) {
			if c.Flags().Lookup(name) != nil || c.PersistentFlags().Lookup(name) != nil {
				_ = c.RegisterFlagCompletionFunc(name, fn)
			}
		}
		switch c.CommandPath() {
		case "ilinkdash tail":
			c.ValidArgsFunction = a.completeArgs(topicNames)
			flag("from", positions)
			flag("format", fixed("text", "json", "hex"))
			flag("output", fixed("text", "json", "hex"))
			flag("commit", fixed("auto", "manual", "immediate"))
			flag("group", a.completeNames(groupNames))
		case "ilinkdash publish":
			c.ValidArgsFunction = a.completeArgs(topicNames)
			flag("acks", fixed("all\tthe in-sync replicas (default)", "1\tthe leader", "0\tno acknowledgement"))
			flag("compression", fixed("none", "lz4", "zstd"))
			flag("output", fixed("table", "json"))
		case "ilinkdash describe":
			c.ValidArgsFunction = func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
				switch len(args) {
				case 0:
					return []string{"topic", "group"}, noFiles
				case 1:
					kind := topicNames
					if args[0] == "group" {
						kind = groupNames
					}
					return a.names(cmd, kind, toComplete), noFiles
				}
				return nil, noFiles
			}
		case "ilinkdash group seek", "ilinkdash group delete":
			c.ValidArgsFunction = a.completeArgs(groupNames)
			flag("to", positions)
			flag("topic", a.completeNames(topicNames))
		case "ilinkdash node":
			c.ValidArgsFunction = func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
				switch len(args) {
				case 0:
					return []string{"stop", "start", "kill"}, noFiles
				case 1:
					return a.names(cmd, nodeNames, toComplete), noFiles
				}
				return nil, noFiles
			}
		case "ilinkdash get":
			c.ValidArgsFunction = fixed("topics", "queues", "groups", "nodes", "cluster", "replication")
		}
		if c.CommandPath() != "ilinkdash tail" && c.CommandPath() != "ilinkdash publish" {
			flag("output", fixed("table", "json"))
		}
	})
}

// completeArgs completes the first argument with names of kind.
func (a *app) completeArgs(kind nameKind) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return a.names(cmd, kind, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// completeNames completes a flag value with names of kind.
func (a *app) completeNames(kind nameKind) cobra.CompletionFunc {
	return func(cmd *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return a.names(cmd, kind, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// completeContexts offers the config file's context names.
func (a *app) completeContexts(cmd *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	path, explicit := "", false
	if cmd.Flags().Changed(config.FlagConfig) {
		path, explicit = a.flags.Config, true
	} else if v := a.getenv(config.EnvConfig); v != "" {
		path, explicit = v, true
	}
	if explicit && path == "" {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var f *config.File
	var err error
	if explicit {
		f, err = config.Load(path)
	} else {
		f, err = config.LoadDefault(a.getenv)
	}
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return matching(f.Names(), toComplete), cobra.ShellCompDirectiveNoFileComp
}

// names asks the configured cluster for the names of kind that start with
// prefix; nil when there is no target (no embedded engine is started for a
// completion), when it is unreachable, or when completeTimeout passes.
func (a *app) names(cmd *cobra.Command, kind nameKind, prefix string) []string {
	r, hub, err := a.resolveTarget(cmd)
	if err != nil || r.Embedded {
		return nil
	}
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, completeTimeout)
	defer cancel()
	c := r.Context
	if c.Admin == "" {
		if kind != topicNames || len(c.Addresses) == 0 {
			return nil
		}
		return matching(dataTopics(ctx, c), prefix)
	}
	svc, err := admin.Connect(ctx, c.Admin, admin.Options{ClientName: c.ClientName, ReadOnly: true, DataAddrs: c.Addresses, DialTimeout: completeTimeout, Hub: hub})
	if err != nil {
		return nil
	}
	defer svc.Close()
	qm := svc.AccessAdminQmgr(c.QueueManager)
	var out []string
	switch kind {
	case topicNames:
		ts, err := qm.Topics(ctx)
		if err != nil {
			return nil
		}
		for _, t := range ts {
			if !t.Internal {
				out = append(out, t.Name)
			}
		}
	case groupNames:
		gs, err := qm.GroupList(ctx)
		if err != nil {
			return nil
		}
		for _, g := range gs {
			out = append(out, g.Name)
		}
	case nodeNames:
		ns, err := qm.Nodes(ctx)
		if err != nil {
			return nil
		}
		for _, n := range ns {
			out = append(out, strconv.Itoa(n.ID)+"\t"+n.QueueManager+" "+string(n.Role)+" "+string(n.State))
		}
	}
	return matching(out, prefix)
}

// dataTopics lists the topics over a data connection (METADATA of every
// topic), for a context without an admin address.
func dataTopics(ctx context.Context, c config.Context) []string {
	for _, addr := range c.Addresses {
		conn, err := ilink.DialConn(ctx, addr, ilink.ConnConfig{ClientName: c.ClientName, Mode: wire.ModeProducer})
		if err != nil {
			continue
		}
		var rep wire.MetadataReply
		err = conn.Do(ctx, wire.CodeMetadata, 0, &wire.MetadataRequest{}, &rep)
		conn.Close()
		if err != nil {
			continue
		}
		var out []string
		for _, t := range rep.Topics {
			if !strings.HasPrefix(t.Name, "SYSTEM.") {
				out = append(out, t.Name)
			}
		}
		return out
	}
	return nil
}

// matching keeps the candidates that start with prefix and that can be
// typed as they are (a name the sanitizer would change cannot be).
func matching(cands []string, prefix string) []string {
	var out []string
	for _, c := range cands {
		name, _, _ := strings.Cut(c, "\t")
		if strings.HasPrefix(name, prefix) && sanitize.String(c) == strings.ReplaceAll(c, "\t", " ") {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return out
}
