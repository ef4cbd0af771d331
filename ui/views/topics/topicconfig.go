package topics

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	tea "charm.land/bubbletea/v2"

	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/topicrules"
	"ilinkdash/ui/common"
	"ilinkdash/ui/components"
	"ilinkdash/ui/sanitize"
	"ilinkdash/ui/views/tab"
)

// The topic configuration pane (`c` on a topic): every property of the
// topic — partitions, replicas, minSync, retention time and bytes, epoch,
// the placement of every partition with its preferred leader — and, in a
// writable context, fields for what ALTER TOPIC changes (retention,
// minSync, grow partitions). Submitting shows the diff (old → new); a
// second enter applies it, all at once or not at all.

type cfgStage int

const (
	cfgNone cfgStage = iota
	cfgLoading
	cfgForm
	cfgPreview
	cfgDone // a dialog that only closes
)

type topicCfgFlow struct {
	stage cfgStage
	name  string
	desc  admin.TopicDescription
	props string
	diff  []admin.TopicConfigChange
}

type topicConfigMsg struct {
	name   string
	desc   admin.TopicDescription
	err    error
	dlgGen uint64
	// recheck: desc is the topic read when the preview was confirmed,
	// and it no longer has the values the preview changed from (nothing
	// was applied).
	recheck bool
}

// cfgFieldKeys are the editable properties, in field order.
var cfgFieldKeys = []string{"retention.ms", "retention.bytes", "minSync", "partitions"}

func (v *View) openConfig(name string) tea.Cmd {
	v.OpenDialog(&components.Dialog{Title: "Configuration of " + common.S(name), Busy: "reading the topic…"})
	v.cfg = topicCfgFlow{stage: cfgLoading, name: name}
	src, gen := v.src, v.DlgGen
	return v.Call(func(ctx context.Context) any {
		d, err := src.DescribeTopic(ctx, name)
		return topicConfigMsg{name: name, desc: d, err: err, dlgGen: gen}
	})
}

// configLines lists every property of the topic.
func configLines(st *common.Styles, d admin.TopicDescription) []string {
	t := d.TopicInfo
	lines := []string{
		fmt.Sprintf("partitions %d · replicas %d (fixed at creation) · minSync %d · epoch %d%s", t.Partitions, t.Replicas, t.MinSync, t.Epoch,
			map[bool]string{true: " · internal (SYSTEM.)", false: ""}[t.Internal]),
		"retention " + admin.FormatTopicValue("retention.ms", t.RetentionMs) + " · retention.bytes " + admin.FormatTopicValue("retention.bytes", t.RetentionBytes) + " per partition",
		"",
		st.Muted.Render("placement (preferred leader first) · leader · in sync"),
	}
	const maxRows = 8
	for i, p := range d.PartitionList {
		if i == maxRows {
			lines = append(lines, st.Muted.Render(fmt.Sprintf("… %d more partitions", len(d.PartitionList)-maxRows)))
			break
		}
		mark := ""
		if p.Leader != 0 && p.Leader != p.PreferredLeader() {
			mark = st.Warn.Render("  not on its preferred leader")
		}
		lines = append(lines, fmt.Sprintf("[%d] %s · leader %s · %s%s", p.Partition, tab.Ints(p.Replicas), leaderText(p.Leader), tab.Ints(p.InSync), mark))
	}
	return lines
}

func leaderText(n int) string {
	if n == 0 {
		return "none"
	}
	return strconv.Itoa(n)
}

func (v *View) configReply(m topicConfigMsg) tea.Cmd {
	if m.recheck {
		if v.DialogOpen(m.dlgGen) && v.cfg.stage == cfgPreview {
			v.previewAgain(m.desc)
		}
		return nil
	}
	if !v.DialogOpen(m.dlgGen) || v.cfg.stage != cfgLoading {
		return nil
	}
	if m.err != nil {
		v.Dlg.Busy = ""
		v.Dlg.Err = "describe failed: " + sanitize.Error(m.err)
		return nil
	}
	st := v.Ctx.Styles
	t := m.desc.TopicInfo
	body := configLines(st, m.desc)
	d := &components.Dialog{Title: "Configuration of " + common.S(m.name), Body: body}
	editable := v.Ctx.Keys.TopicAlter.Enabled() && !t.Internal
	switch {
	case t.Internal:
		d.Body = append(d.Body, "", st.Muted.Render("The layout of a SYSTEM. topic is the engine's: it cannot be altered."))
	case !editable:
		d.Body = append(d.Body, "", st.Muted.Render("Read-only context: the configuration cannot be changed here."))
	default:
		d.Body = append(d.Body, "", "Change what ALTER TOPIC can change; you will see the difference first. Partitions can only grow.")
		d.SubmitLabel = "preview"
		cur := map[string]int64{"retention.ms": t.RetentionMs, "retention.bytes": t.RetentionBytes, "minSync": int64(t.MinSync), "partitions": int64(t.Partitions)}
		hints := map[string]string{"retention.ms": "7d, 12h, 30m, forever (at most 36500d)", "retention.bytes": "per partition: 512m = 512MiB, 1g, unlimited (binary)",
			"minSync": "1.." + strconv.Itoa(t.Replicas), "partitions": "grow only"}
		for _, k := range cfgFieldKeys {
			f := components.TextField(cfgLabels[k], admin.FormatTopicInput(k, cur[k]), "")
			f.Hint = hints[k]
			d.Fields = append(d.Fields, f)
		}
	}
	v.OpenDialog(d)
	v.cfg = topicCfgFlow{stage: cfgForm, name: m.name, desc: m.desc}
	return nil
}

// cfgLabels are the configuration form's labels of the alterable keys.
var cfgLabels = map[string]string{"retention.ms": "Retention", "retention.bytes": "Retention bytes", "minSync": "minSync", "partitions": "Partitions"}

// submitConfig plans the alteration from the fields and shows the diff.
func (v *View) submitConfig() {
	if len(v.Dlg.Fields) == 0 {
		v.CloseDialog()
		v.cfg = topicCfgFlow{}
		return
	}
	var sets []string
	for i, k := range cfgFieldKeys {
		sets = append(sets, k+"="+v.Dlg.Fields[i].Value())
	}
	if err := v.alterPreview(sets, nil); err != "" {
		v.Dlg.Err = err
	}
}

const nothingChanges = "nothing changes: edit a value first"

// alterPreview plans sets against the topic as last read (v.cfg.desc) and
// shows the diff, after the warn lines; or returns why it cannot.
func (v *View) alterPreview(sets, warn []string) string {
	_, all, err := admin.PlanTopicAlter(v.cfg.desc.TopicInfo, sets)
	if err != nil {
		// The rules of the create dialog and the engine (ilink/topicrules),
		// in this form's words.
		if te, ok := err.(*topicrules.Error); ok && cfgLabels[te.Field] != "" {
			err = topicrules.InField(err, cfgLabels[te.Field])
		}
		return sanitize.String(err.Error())
	}
	var changed []string
	var diff []admin.TopicConfigChange
	for _, c := range all {
		if c.Changed() {
			diff = append(diff, c)
			changed = append(changed, c.Key+"="+strconv.FormatInt(c.New, 10))
		}
	}
	if len(diff) == 0 {
		return nothingChanges
	}
	props, _, _ := admin.PlanTopicAlter(v.cfg.desc.TopicInfo, changed)
	st := v.Ctx.Styles
	body := append(slices.Clip(warn), "Planned change of "+common.S(v.cfg.name)+" (nothing is applied yet):", "")
	for _, c := range diff {
		body = append(body, fmt.Sprintf("%-16s %s → %s", c.Key, admin.FormatTopicValue(c.Key, c.Old), st.Accent.Render(admin.FormatTopicValue(c.Key, c.New))))
	}
	for _, c := range diff {
		switch c.Key {
		case "partitions":
			body = append(body, "", fmt.Sprintf("%s %s empty. Producers that know the old count keep using it until they refresh; key → partition mapping changes for new records.", common.Plural(c.New-c.Old, "new partition"), common.Agree(c.New-c.Old, "starts", "start")))
		case "retention.ms", "retention.bytes":
			if (c.New != 0 && c.New < c.Old) || (c.Old == 0 && c.New != 0) {
				body = append(body, "", st.Warn.Render("Shorter retention: records beyond it are deleted at the next retention sweep."))
			}
		}
	}
	body = append(body, "", st.Muted.Render("Apply sends ALTER TOPIC "+common.S(v.cfg.name)+" "+props+", all at once or not at all."))
	v.OpenDialog(&components.Dialog{Title: "Alter " + common.S(v.cfg.name) + " — preview", Body: body, SubmitLabel: "apply"})
	v.cfg.stage, v.cfg.props, v.cfg.diff = cfgPreview, props, diff
	return ""
}

// previewAgain shows the preview again on the topic read at the
// confirmation (d), which no longer has the values the preview changed
// from: what changed meanwhile, then the same new values planned against
// it (or why they no longer can be).
func (v *View) previewAgain(d admin.TopicDescription) {
	st := v.Ctx.Styles
	warn := []string{st.Warn.Render("⚠ Nothing was applied: " + common.S(v.cfg.name) + " changed since the preview:")}
	sets := make([]string, 0, len(v.cfg.diff))
	for _, c := range v.cfg.diff {
		if now := topicValue(d.TopicInfo, c.Key); now != c.Old {
			warn = append(warn, st.Warn.Render(fmt.Sprintf("  %s was %s, is %s now", c.Key, admin.FormatTopicValue(c.Key, c.Old), admin.FormatTopicValue(c.Key, now))))
		}
		sets = append(sets, c.Key+"="+strconv.FormatInt(c.New, 10))
	}
	warn = append(warn, "")
	v.cfg.desc = d
	if err := v.alterPreview(sets, warn); err != "" {
		if err == nothingChanges {
			err = "It has every value the preview set already: nothing is left to change."
		}
		v.OpenDialog(&components.Dialog{Title: "Alter " + common.S(v.cfg.name) + " — not applied", Body: append(warn, err), SubmitLabel: "close"})
		v.cfg.stage = cfgDone
	}
}

// topicValue is t's value of an alterable key.
func topicValue(t admin.TopicInfo, key string) int64 {
	switch key {
	case "retention.ms":
		return t.RetentionMs
	case "retention.bytes":
		return t.RetentionBytes
	case "minSync":
		return int64(t.MinSync)
	case "partitions":
		return int64(t.Partitions)
	}
	return 0
}

// applyConfig reads the topic again first: when a value the preview
// changes from is no longer the topic's, nothing is applied and the
// preview is shown again on what the topic is now.
func (v *View) applyConfig() tea.Cmd {
	name, props, diff := v.cfg.name, v.cfg.props, v.cfg.diff
	v.Dlg.Busy = "altering " + common.S(name) + "…"
	src, gen := v.src, v.DlgGen
	return v.Call(func(ctx context.Context) any {
		d, err := src.DescribeTopic(ctx, name)
		if err != nil {
			return topicActionMsg{verb: "alter", name: name, dlgGen: gen, err: fmt.Errorf("reading it before the change (nothing was applied): %w", err)}
		}
		for _, c := range diff {
			if topicValue(d.TopicInfo, c.Key) != c.Old {
				return topicConfigMsg{name: name, desc: d, dlgGen: gen, recheck: true}
			}
		}
		return topicActionMsg{verb: "alter", name: name, props: props, err: src.AlterTopic(ctx, name, props), dlgGen: gen}
	})
}

// configDialogKey drives the configuration dialogs.
func (v *View) configDialogKey(msg tea.KeyPressMsg) tea.Cmd {
	return v.DialogFlow(msg, func() { v.cfg = topicCfgFlow{} }, func(end func()) tea.Cmd {
		switch v.cfg.stage {
		case cfgForm:
			v.submitConfig()
		case cfgPreview:
			return v.applyConfig()
		case cfgDone:
			end()
		}
		return nil
	}, nil)
}
