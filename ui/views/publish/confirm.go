package publish

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	tmpl "ilinkdash/ilink/loadgen/template"
	"ilinkdash/ui/common"
	"ilinkdash/ui/components"
	"ilinkdash/ui/views/tab"
)

// confirm opens the confirmation of a checked form: nothing is sent until
// it is confirmed (enter or y); esc goes back to the form and sends
// nothing. It names everything the run will do, with a warning line for a
// count above warnCount and for a run without a rate limit.
func (v *View) confirm(pf pubForm) {
	v.plan = &pf
	body, warned := v.planBody(pf)
	v.OpenDialog(&components.Dialog{
		Title:       "Send " + common.Plural(pf.spec.Count, "record") + " to " + common.S(pf.spec.Topic) + "?",
		Danger:      warned,
		Body:        body,
		SubmitLabel: "send",
		CancelLabel: "back to the form",
	})
}

// confirmKey passes a key to the open confirmation.
func (v *View) confirmKey(msg tea.KeyPressMsg) tea.Cmd {
	switch out, _ := v.Dlg.Update(v.Ctx, msg); out {
	case components.Submit:
		pf := *v.plan
		v.plan = nil
		v.CloseDialog()
		return v.start(pf)
	case components.Cancel:
		v.plan = nil
		v.CloseDialog()
		v.formOpen = true
		return common.Flash(common.LevelInfo, "not sent: the publish was cancelled")
	}
	return nil
}

// planBody is the confirmation's text; warned reports a warning line.
func (v *View) planBody(pf pubForm) (body []string, warned bool) {
	st := v.Ctx.Styles
	row := func(label, val string) { body = append(body, st.DialogLabel.Render(common.Fit(label, 12))+" "+val) }
	n := pf.spec.Count

	row("Topic", common.S(pf.spec.Topic))
	count := common.Plural(n, "record")
	if v.runs > 0 && pf.countText == v.lastCount {
		count += st.Muted.Render(" (as in the last run)")
	}
	row("Count", count)
	if pf.spec.Rate > 0 {
		secs := float64(n) / pf.spec.Rate
		row("Rate", common.Rate(pf.spec.Rate)+" records/s"+st.Muted.Render(" (about "+common.Dur(time.Duration(secs*float64(time.Second)))+")"))
	} else {
		row("Rate", "no limit")
	}

	// Sizes: exact for fixed parts, "up to" for templates.
	exact := true
	size := func(t interface {
		Static() bool
		MaxLen() int
	}) int {
		if !t.Static() {
			exact = false
		}
		return t.MaxLen()
	}
	keyLen := 0
	if pf.key != nil {
		keyLen = size(pf.key)
	}
	valLen := size(pf.value)
	valPart := "value " + common.Bytes(int64(valLen))
	encoded := pf.codec != nil && pf.file == ""
	if encoded {
		// What is sent is the codec's bytes, not the JSON typed: the
		// first record's, encoded (a template's differ by record).
		if b, err := tab.EncodeJSON(pf.codec, tmpl.NewExpander().Append(nil, pf.value, 0)); err == nil {
			valLen = len(b)
			valPart = "value " + common.Bytes(int64(valLen)) + " encoded (the JSON " + common.Bytes(int64(size(pf.value))) + ")"
		}
	}
	hdrLen := 0
	for _, h := range pf.headers {
		hdrLen += len(h.key) + size(h.val)
	}
	rec := int64(keyLen + valLen + hdrLen)
	upTo, total := "", "about "
	switch {
	case encoded && !pf.value.Static():
		upTo, total = "about ", "about " // record 0's encoded size: others may be larger or smaller
	case !exact:
		upTo, total = "up to ", "at most "
	}
	parts := []string{valPart}
	if pf.key != nil {
		parts = append([]string{"key " + common.Bytes(int64(keyLen))}, parts...)
	}
	if hdrLen > 0 {
		parts = append(parts, "headers "+common.Bytes(int64(hdrLen)))
	}
	row("Size", upTo+common.Bytes(rec)+" a record, "+total+common.Bytes(rec*n)+" in all")
	row("", st.Muted.Render(strings.Join(parts, " · ")))

	row("Key", describeText(pf.keyText, pf.key == nil || pf.key.Static(), "null (no key)"))
	if pf.file != "" {
		kind := "binary, as is"
		if !pf.value.Static() {
			kind = "template"
		}
		row("Value", "file "+common.S(pf.file)+st.Muted.Render(" ("+common.Bytes(int64(pf.value.MaxLen()))+", "+kind+")"))
	} else {
		row("Value", describeText(pf.valueText, pf.value.Static(), "empty"))
	}
	if pf.codec != nil {
		row("Encoded", tab.EncodedWith(pf.codec))
	}
	if len(pf.headers) > 0 {
		row("Headers", common.Plural(len(pf.headers), "header")+": "+clip(common.S(pf.headersText), 48))
	} else {
		row("Headers", "none")
	}
	row("Compression", pf.spec.Compression+" · acks "+pf.spec.Acks)

	if n > warnCount {
		warned = true
		body = append(body, "", st.Warn.Render("⚠ "+common.Thousands(n)+" records, more than "+common.Thousands(warnCount)+": check the count."))
	}
	if pf.spec.Rate == 0 {
		if !warned {
			body = append(body, "")
		}
		warned = true
		body = append(body, st.Warn.Render("⚠ no rate limit: sent as fast as the cluster acknowledges."))
	}
	return body, warned
}

// describeText shows a key or value as typed, saying whether it is a
// template (different in every record) or the same bytes each time.
func describeText(text string, static bool, empty string) string {
	if text == "" {
		return empty
	}
	d := clip(text, 48)
	if !static {
		d += " (template)"
	}
	return common.S(d)
}

// clip shortens s to n runes with an ellipsis.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// planResult is a finished run against its plan: "100 planned, 100
// acknowledged", "… 3 failed", "… 850 not sent".
func planResult(p Progress) string {
	out := common.Thousands(p.Count) + " planned, " + common.Thousands(p.Acked) + " acknowledged"
	if p.Failed > 0 {
		out += ", " + common.Thousands(p.Failed) + " failed"
	}
	if rest := p.Count - p.Acked - p.Failed; rest > 0 {
		out += ", " + common.Thousands(rest) + " not sent"
	}
	return out
}
