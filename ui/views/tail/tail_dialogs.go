package tail

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"ilinkdash/config"
	"ilinkdash/ilink/position"
	"ilinkdash/ui/common"
	"ilinkdash/ui/components"
	"ilinkdash/ui/jsonl"
	"ilinkdash/ui/sanitize"
	"ilinkdash/ui/views/tab"
)

// Parts of a record the copy dialog offers, the value first (the default).
const (
	copyValue   = "value (raw)"
	copyKey     = "key (raw)"
	copyHeaders = "headers (key: value lines)"
	// copyDecoded is offered (first) for a value its schema decoded.
	copyDecoded = "value (decoded JSON)"
)

// openCopy asks which part of the pinned record to copy, as the queue
// detail does for a message. The record is kept (a copy of the entry) so
// that records arriving while the dialog is open change nothing.
func (v *View) openCopy() {
	e, _, ok := v.pinned()
	if !ok {
		return
	}
	v.copyE = *e
	d := &components.Dialog{
		Title:       "Copy from record " + recordWhere(e),
		Body:        []string{"Copies to the terminal's clipboard (OSC 52): the record's value, its key or its headers, as they are."},
		SubmitLabel: "copy",
		Fields:      []*components.Field{components.ChoiceField("Copy", copyValue, copyKey, copyHeaders)},
	}
	if e.vd != nil {
		d.Fields[0] = components.ChoiceField("Copy", copyDecoded, copyValue, copyKey, copyHeaders)
		d.Body = append(d.Body, "Or the value as its schema decoded it (the JSON the decoded format shows).")
	}
	d.Fields[0].Hint = "←/→"
	v.OpenDialog(d)
	v.dlgKind = "copy"
}

// recordWhere names a record by partition and offset: P3@1234.
func recordWhere(e *tailEntry) string {
	return "P" + tab.Itoa(int64(e.part)) + "@" + tab.Itoa(e.off)
}

// copyPart copies one part of the record the copy dialog was opened on.
// Header values go as bytes, like the value: the clipboard is not the
// terminal.
func (v *View) copyPart(part string) tea.Cmd {
	e := &v.copyE
	where := recordWhere(e)
	var (
		text []byte
		what string // "the key of P3@1234"
		done string // what the flash says was copied
		is   = " is"
	)
	switch part {
	case copyKey:
		text, what = e.key(), "the key of "+where
		done = what
	case copyHeaders:
		hs := e.headers()
		if len(hs) == 0 {
			return common.Flash(common.LevelWarn, "nothing to copy: "+where+" has no headers")
		}
		var b strings.Builder
		for _, h := range hs {
			b.WriteString(h.Key + ": " + string(h.Value) + "\n")
		}
		text, what, is = []byte(b.String()), "the headers of "+where, " are"
		done = "the " + common.Plural(len(hs), "header") + " of " + where
	case copyDecoded:
		text, what = e.vd, "the decoded value of "+where
		done = what
	default:
		text, what = e.value(), "the value of "+where
		done = "the raw value of " + where
	}
	if text == nil {
		return common.Flash(common.LevelWarn, "nothing to copy: "+what+" is null")
	}
	return common.CopyToClipboard(string(text), done, what+is, " (w saves the buffer)")
}

func (v *View) openNew() {
	d := &components.Dialog{
		Title:       "Tail a topic or a pattern",
		Body:        []string{"A pattern such as ORDER.* tails every matching topic (SYSTEM. topics only when named)."},
		SubmitLabel: "tail",
		Fields: []*components.Field{
			components.TextField("Topic or pattern", v.spec.Target, "e.g. ORDER.EVENT or ORDER.*"),
			components.TextField("From", "latest", "latest · earliest · 1234 · 2026-11-30 10:00 · -15m"),
		},
	}
	if !v.Ctx.ReadOnly {
		d.Fields = append(d.Fields, components.TextField("Group", "", "blank = temporary group (recommended)"))
		d.Body = append(d.Body, "A named group commits its offsets as it reads; leave it blank to tail without touching any group.")
	} else {
		d.Body = append(d.Body, "Read-only context: the tail uses a temporary group.")
	}
	v.OpenDialog(d)
	v.dlgKind = "new"
}

func (v *View) openJump() {
	if !v.Running() || v.state == tailStarting {
		v.OpenDialog(&components.Dialog{Title: "Jump", Body: []string{"The tail is not running: r reopens it, t starts another."}})
		v.dlgKind = "info"
		return
	}
	// One line per kind of form, each short enough for an 80-column box,
	// so that no date is cut at a hyphen.
	offsets, hint := "Offsets: 1234 (all partitions) · 3@1234 (partition 3)", "offset, P@offset, earliest, latest or a time"
	if v.pattern() {
		// Every topic of a pattern has its own partition 3: name one.
		offsets, hint = "Offsets: 1234 (all) · ORDER.KR:3@1234 (partition 3 of ORDER.KR)", "offset, TOPIC:P@offset, earliest, latest or a time"
	}
	v.OpenDialog(&components.Dialog{
		Title: "Jump to an offset or a time",
		Body: []string{
			"Moves every partition of the tail; the buffer is cleared and",
			"filled from there, then the tail holds (space resumes, G: the end).",
			offsets,
			"Ends: earliest · latest",
			"Times: 2026-11-30 10:00 · 10:00 (today) · -15m · 2h ago",
		},
		SubmitLabel: "jump",
		Fields:      []*components.Field{components.TextField("To", "", hint)},
	})
	v.dlgKind = "jump"
}

func (v *View) defaultSavePath() string {
	name := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			return r
		}
		return '_'
	}, v.spec.Target)
	if name == "" {
		name = "records"
	}
	return "./ilinkdash-tail-" + name + "-" + v.Ctx.Now().Format("20060102-150405") + ".jsonl"
}

func (v *View) openSave() {
	n := v.ring.n
	if n == 0 {
		v.OpenDialog(&components.Dialog{Title: "Save", Body: []string{"The buffer is empty: nothing to save."}})
		v.dlgKind = "info"
		return
	}
	body := []string{"Writes the records as JSON lines, the format of `ilinkdash tail --format json` (binary keys and values in base64). An existing file is not overwritten."}
	fields := []*components.Field{components.TextField("File", v.defaultSavePath(), "")}
	if v.saver != nil {
		place, err := v.saver.SavePlace()
		if err != nil {
			v.OpenDialog(&components.Dialog{Title: "Save", Body: []string{sanitize.Error(err)}})
			v.dlgKind = "info"
			return
		}
		body = []string{"Writes the records as JSON lines, the format of `ilinkdash tail --format json`, to a new file the server names in " + sanitize.String(place) + "."}
		fields = nil
	}
	if v.filter != nil {
		f := components.ChoiceField("Records",
			"matching the filter ("+common.Thousands(int64(v.matches.len()))+")",
			"the whole buffer ("+common.Thousands(int64(n))+")")
		fields = append(fields, f)
	} else {
		body = append(body, common.Plural(n, "record")+".")
	}
	v.OpenDialog(&components.Dialog{Title: "Save the tail buffer", Body: body, Fields: fields, SubmitLabel: "save"})
	v.dlgKind = "save"
	v.saveEnd, v.saveAll, v.saveMatches = v.ring.next, n, v.matches.len()
}

func (v *View) dialogKey(msg tea.KeyPressMsg) tea.Cmd {
	// Closing any dialog lets go of the record a copy dialog held.
	return v.DialogFlow(msg, func() { v.copyE = tailEntry{} }, func(end func()) tea.Cmd {
		switch v.dlgKind {
		case "new":
			return v.submitNew()
		case "jump":
			return v.submitJump()
		case "save":
			return v.submitSave()
		case "search":
			return v.submitSearch()
		case "copy":
			cmd := v.copyPart(v.Dlg.Fields[0].Value())
			end()
			return cmd
		}
		end()
		return nil
	}, nil)
}

func (v *View) submitNew() tea.Cmd {
	f := v.Dlg.Fields
	target := f[0].Value()
	switch {
	case target == "":
		v.Dlg.Err = "give a topic name or a pattern"
		return nil
	case sanitize.String(target) != target || strings.ContainsAny(target, " ,;|"):
		v.Dlg.Err = "a topic or pattern has no spaces, control characters or , ; |"
		return nil
	}
	from, err := position.Parse(f[1].Value(), v.Ctx.Now())
	switch {
	case strings.TrimSpace(f[1].Value()) == "":
		from, err = fromLatest, nil
	case err != nil:
		v.Dlg.Err = "from: " + err.Error()
		return nil
	case from.OnePartition():
		v.Dlg.Err = "from " + from.String() + ": a tail starts every partition at the same place; open it, then jump (o) to " + from.String()
		return nil
	}
	spec := Spec{Target: target, From: from}
	if len(f) > 2 {
		spec.Group = f[2].Value()
		if spec.Group != "" && (sanitize.String(spec.Group) != spec.Group || strings.ContainsAny(spec.Group, " ")) {
			v.Dlg.Err = "a group name has no spaces or control characters"
			return nil
		}
	}
	v.CloseDialog()
	if v.open != nil {
		return v.open(spec) // Tabs: another tail beside this one
	}
	return v.start(spec, false)
}

func (v *View) submitJump() tea.Cmd {
	to, err := position.Parse(v.Dlg.Fields[0].Value(), v.Ctx.Now())
	if err != nil {
		v.Dlg.Err = err.Error()
		return nil
	}
	// The stream checks the topic against the pattern; here the form.
	if err := to.CheckTarget(v.spec.Target, func(string, string) bool { return true }); err != nil {
		v.Dlg.Err = err.Error()
		return nil
	}
	if v.state != tailLive || v.stream == nil {
		v.Dlg.Err = "the tail is not running"
		return nil
	}
	fill := Fill{Records: v.capacity, Bytes: v.ring.maxBytes}
	if v.defaultFormat(v.spec.Target) == components.FormatDecoded {
		// The stream counts the bytes it reads; their decoded documents
		// (about twice a binary record) arrive with them and count in
		// the buffer too, so what the jump reads is bounded to a third.
		fill.Bytes /= 3
	}
	if to.Kind == position.Latest {
		fill = Fill{} // the end: live, nothing to hold on to
	}
	return v.seekTo(to, fill, v.DlgGen)
}

// seekTo moves the stream to `to` with fill (the dialog's jump, or G at
// the end after one); dlgGen is the dialog's, 0 without one.
func (v *View) seekTo(to position.Position, fill Fill, dlgGen uint64) tea.Cmd {
	label := jumpLabel(to, v.Ctx.Now().Location())
	v.state = tailSeeking
	if v.Dlg != nil && dlgGen != 0 {
		v.Dlg.Busy = "jumping to " + label + "…"
	}
	s := v.stream
	return v.Call(func(ctx context.Context) any {
		epoch, err := s.Seek(ctx, to, fill)
		return tailSeekMsg{err: err, epoch: epoch, label: label, fill: fill, dlgGen: dlgGen}
	})
}

// jumpLabel names a jump's target for the header and the flash.
func jumpLabel(p position.Position, loc *time.Location) string {
	switch p.Kind {
	case position.Earliest:
		return "the earliest records"
	case position.Latest:
		return "the latest records"
	case position.Offset:
		if p.Partition < 0 {
			return p.Label() + " in every partition"
		}
		return p.Label()
	}
	return p.Time.In(loc).Format("2006-01-02 15:04:05")
}

func (v *View) submitSave() tea.Cmd {
	f := v.Dlg.Fields
	var path string
	if v.saver == nil {
		if path = f[0].Value(); path == "" {
			v.Dlg.Err = "give a file name"
			return nil
		}
		f = f[1:]
	}
	all := v.filter == nil || (len(f) > 0 && f[0].Choice == 1)
	entries, gone := v.saveEntries(all)
	v.Dlg.Err = ""
	v.Dlg.Busy = "saving " + common.Plural(len(entries), "record") + "…"
	gen, saver, target := v.DlgGen, v.saver, v.spec.Target
	return v.Address(v.Gen, func() any {
		var p string
		var n int64
		var err error
		if saver != nil {
			ctx, cancel := tab.CallCtx()
			defer cancel()
			p, n, err = saver.SaveTail(ctx, target, len(entries), func(w io.Writer) (int64, error) { return writeJSONL(w, entries) })
		} else {
			p, n, err = saveJSONL(path, entries)
		}
		return tailSavedMsg{path: p, n: len(entries), gone: gone, bytes: n, err: err, dlgGen: gen}
	})
}

// saveEntries is what the save dialog counted when it opened (saveEnd):
// the whole buffer's records, or the filter's matches, before it — not
// those that arrived while it was open. gone counts the counted ones the
// buffer has dropped since (a full buffer while the tail runs).
func (v *View) saveEntries(all bool) (entries []tailEntry, gone int) {
	end, counted := v.saveEnd, v.saveMatches
	if all {
		counted = v.saveAll
		entries = make([]tailEntry, 0, counted)
		for seq := v.ring.first(); seq < end; seq++ {
			entries = append(entries, *v.ring.at(seq))
		}
	} else {
		entries = make([]tailEntry, 0, counted)
		for _, seq := range v.matches.items() {
			if seq < end {
				entries = append(entries, *v.ring.at(seq))
			}
		}
	}
	return entries, max(counted-len(entries), 0)
}

// writeJSONL writes entries as JSON lines to w.
func writeJSONL(w io.Writer, entries []tailEntry) (int64, error) {
	bw := bufio.NewWriterSize(w, 256<<10)
	var n int64
	buf := make([]byte, 0, 4096)
	for i := range entries {
		r := entries[i].record()
		buf = jsonl.Append(buf[:0], &r)
		m, err := bw.Write(buf)
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
	return n, bw.Flush()
}

// saveJSONL writes entries as JSON lines to a new file (never
// overwriting); a leading ~/ is the home directory, ~user is refused. A partial file is
// removed on error.
func saveJSONL(path string, entries []tailEntry) (string, int64, error) {
	path, err := config.ExpandHome(path) // the one "~" rule
	if err != nil {
		return path, 0, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if os.IsExist(err) {
			return path, 0, fmt.Errorf("%s already exists (choose another name)", path)
		}
		return path, 0, err
	}
	n, err := writeJSONL(f, entries)
	if err != nil {
		f.Close()
		os.Remove(path)
		return path, n, err
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return path, n, err
	}
	return path, n, nil
}

func (v *View) saved(m tailSavedMsg) tea.Cmd {
	if m.err != nil {
		return v.ActionFailed(m.dlgGen, m.err, "save failed: ", "save failed: ")
	}
	if v.DialogOpen(m.dlgGen) {
		v.CloseDialog()
	}
	text := "saved " + common.Plural(m.n, "record") + " (" + common.Bytes(m.bytes) + ") to " + sanitize.String(m.path)
	if m.gone > 0 {
		return common.Flash(common.LevelWarn, text+"; "+common.Plural(m.gone, "record")+" counted had left the full buffer")
	}
	return common.Flash(common.LevelOK, text)
}
