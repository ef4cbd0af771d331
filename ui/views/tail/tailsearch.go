package tail

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"ilinkdash/ilink/position"
	"ilinkdash/ilink/schema"
	"ilinkdash/ui/common"
	"ilinkdash/ui/components"
	"ilinkdash/ui/sanitize"
)

// The tail's search beyond the buffer (S): a scan of the topic between two
// positions for a key, a value substring or regex, or a header, through
// the Tailer's Searcher (ilink/search: a direct consumer, no group). The
// live tail closes, the buffer is cleared and the matches stream into the
// list as they are found, with a progress bar (scanned, rate, time left);
// x cancels, r reopens the live tail. The results are a list of their own:
// the filter in force is cleared when the search starts (the search's
// criteria choose the records; a filter typed afterwards narrows the
// results, and its line says so), and r starts the live tail on an empty
// buffer, never mixed with them. The match count shown is the number of
// matches the list received.

// searchEvery is the drain and progress cadence of a running search.
const searchEvery = 100 * time.Millisecond

type tailSearch struct {
	spec   SearchSpec
	run    SearchRun
	prog   SearchProgress
	err    error // StartSearch failed
	ticks  uint64
	cancel context.CancelFunc
}

func (s *tailSearch) running() bool { return s != nil && s.err == nil && !s.prog.Done }

type (
	searchStartedMsg struct {
		run SearchRun
		err error
	}
	searchTickMsg struct{ seq uint64 }
)

func (v *View) searcher() (Searcher, bool) {
	s, ok := v.tailer.(Searcher)
	return s, ok
}

func (v *View) openSearch() {
	if _, ok := v.searcher(); !ok {
		return
	}
	topic := v.spec.Target
	d := &components.Dialog{
		Title: "Search beyond the buffer",
		Body: []string{
			"Scans the topic (or pattern) between two positions with a direct consumer — no group moves — and lists the records that match every criterion given. The live tail closes and the buffer is cleared.",
			"Positions: earliest · 1234 · 3@1234 · 2026-11-30 10:00 · 10:00 · -1h. To empty = the end now.",
		},
		SubmitLabel: "search",
		Fields: []*components.Field{
			components.TextField("Topic", topic, "topic or pattern (ORDER.*)"),
			components.TextField("Key", "", "exactly this key"),
			components.TextField("Value contains", "", "text"),
			components.TextField("Value regex", "", `e.g. "amount":[0-9]{6}`),
			components.TextField("Header", "", "NAME=VALUE, or NAME"),
			components.TextField("From", "earliest", "position"),
			components.TextField("To", "", "position (empty: the end now)"),
			components.TextField("Decoded fields", "", "PATH=VALUE … (status=PAID customer.address.city=Seoul)"),
		},
	}
	if topic != "" {
		d.Focus(1)
	}
	v.OpenDialog(d)
	v.dlgKind = "search"
}

// submitSearch checks the form and starts the search.
func (v *View) submitSearch() tea.Cmd {
	f := v.Dlg.Fields
	spec := SearchSpec{Target: f[0].Value(), ValueContains: f[2].Input.Value(), ValueRegex: f[3].Value(),
		Header: f[4].Value(), From: f[5].Value(), To: f[6].Value(), Fields: strings.Fields(f[7].Value()), Schemas: v.Ctx.Schemas}
	if k := f[1].Input.Value(); k != "" {
		spec.Key = []byte(k)
	}
	fail := func(i int, msg string) tea.Cmd {
		v.Dlg.Err = msg
		v.Dlg.Focus(i)
		return nil
	}
	switch {
	case spec.Target == "":
		return fail(0, "give the topic (or pattern) to search")
	case spec.Key == nil && spec.ValueContains == "" && spec.ValueRegex == "" && spec.Header == "" && len(spec.Fields) == 0:
		return fail(1, "give a key, a value, a regex, a header or a decoded field to look for")
	}
	for _, fld := range spec.Fields {
		ft, err := schema.ParseFieldTerm(fld)
		if err != nil {
			return fail(7, err.Error())
		}
		if v.defaultFormat(spec.Target) != components.FormatDecoded {
			return fail(7, "field:"+fld+": a field term needs a schema, and no decode rule matches "+spec.Target)
		}
		if strings.ContainsAny(spec.Target, "*?") {
			continue // each topic of a pattern may have its own schema
		}
		// A field the schema lacks would match nothing, silently.
		if err := schema.CheckFieldPath(v.Ctx.Schemas.Topic(spec.Target).Value.Codec, ft.Path); err != nil {
			return fail(7, "field:"+fld+": "+err.Error())
		}
	}
	if spec.ValueRegex != "" {
		if _, err := regexp.Compile(spec.ValueRegex); err != nil {
			return fail(3, "value regex: "+err.Error())
		}
	}
	if k, _, _ := strings.Cut(spec.Header, "="); spec.Header != "" && strings.TrimSpace(k) == "" {
		return fail(4, "header: want NAME=VALUE, or NAME for any value")
	}
	for i, p := range []string{spec.From, spec.To} {
		if p == "" {
			continue
		}
		if _, err := position.Parse(p, v.Ctx.Now()); err != nil {
			return fail(5+i, err.Error())
		}
	}
	v.CloseDialog()
	return v.startSearch(spec)
}

// startSearch closes the live tail, clears the buffer and starts spec.
func (v *View) startSearch(spec SearchSpec) tea.Cmd {
	sr, _ := v.searcher()
	cmds := []tea.Cmd{v.stop("search: the live tail is closed · r reopens it"), v.cancelSearch()}
	if v.filter != nil {
		cmds = append(cmds, common.Flash(common.LevelInfo, "search: the filter /"+common.S(v.filter.src)+" is cleared (the search's criteria choose the records)"))
		v.setFilter(nil)
		v.filterIn.Reset()
		v.filterErr = ""
	}
	v.clearBuffer()
	v.total, v.rate = 0, common.RateWindow{}
	v.vp.resume()
	v.filling, v.held = false, false
	v.Gen++
	v.spec = Spec{Target: spec.Target}
	v.from = "search"
	v.state, v.note, v.err = tailClosed, "search results", nil
	ctx, cancel := context.WithCancel(context.Background())
	v.srch = &tailSearch{spec: spec, cancel: cancel}
	set := v.Ctx.Schemas
	v.format = v.defaultFormat(spec.Target)
	cmds = append(cmds, v.Address(v.Gen, func() any {
		run, err := sr.StartSearch(ctx, spec)
		if err == nil {
			run = decodeSearch(run, set) // matches decode on its goroutine
		}
		return searchStartedMsg{run: run, err: err}
	}))
	return tea.Batch(cmds...)
}

// cancelSearch stops a running search (the matches found stay).
func (v *View) cancelSearch() tea.Cmd {
	s := v.srch
	if s == nil {
		return nil
	}
	if s.cancel != nil {
		s.cancel()
		s.cancel = nil
	}
	if s.run != nil && !s.prog.Done {
		s.run.Cancel()
	}
	return nil
}

func (v *View) searchTick() tea.Cmd {
	v.srch.ticks++
	return v.After(searchEvery, v.Gen, searchTickMsg{seq: v.srch.ticks})
}

// searchMsg handles the search's replies and ticks (stale ones, of an
// earlier search or tail, carry another gen and are dropped).
func (v *View) searchMsg(msg common.ViewMsg) (tea.Cmd, bool) {
	switch m := msg.Msg.(type) {
	case searchStartedMsg:
		if msg.Gen != v.Gen || v.srch == nil {
			if m.run != nil {
				m.run.Cancel()
			}
			return nil, true
		}
		if m.err != nil {
			v.srch.err = m.err
			return nil, true
		}
		v.srch.run = m.run
		return v.searchTick(), true
	case searchTickMsg:
		s := v.srch
		if msg.Gen != v.Gen || s == nil || s.run == nil || m.seq != s.ticks {
			return nil, true
		}
		if s.prog.Done {
			// Over: the last matches still go on screen at the pace.
			if v.pace(v.Ctx.Now()) {
				return v.searchTick(), true
			}
			return nil, true
		}
		ch := s.run.Records()
		for n := 0; n < tailMaxBatch; n++ {
			select {
			case r, ok := <-ch:
				if !ok {
					s.prog = s.run.Progress()
					s.prog.Done = true
					if v.pace(v.Ctx.Now()) {
						return v.searchTick(), true
					}
					return nil, true
				}
				v.ingest(&r)
				continue
			default:
			}
			break
		}
		v.pace(v.Ctx.Now()) // the matches show at the budget's pace, like live records
		s.prog = s.run.Progress()
		return v.searchTick(), true
	}
	return nil, false
}

// searchLines is the search's status: a progress bar while it runs, the
// outcome when it is over.
func (v *View) searchLines(st *common.Styles) []string {
	s := v.srch
	if s == nil {
		return nil
	}
	what := common.S(s.spec.Target) + " " + searchCriteria(s.spec)
	// The matches are those the list received (v.total: the search
	// started it at 0), not the scanner's count, which may include one
	// it found but could not hand over before a cancel.
	p := s.prog
	switch {
	case s.err != nil:
		return []string{st.Err.Render(common.Trunc("search "+what+" failed: "+sanitize.Error(s.err), v.W))}
	case p.Done && p.Err != nil:
		return []string{st.Err.Render(common.Trunc(fmt.Sprintf("search %s failed after %s records: %s", what, common.Thousands(p.Scanned), sanitize.Error(p.Err)), v.W))}
	case p.Done:
		verb := "done"
		if p.Cancelled {
			verb = "cancelled"
		}
		return []string{st.Info.Render(common.Trunc(fmt.Sprintf("search %s · %s: %s in %s records · r reopens the live tail",
			what, verb, common.PluralOf(v.total, "match", "matches"), common.Thousands(p.Scanned)), v.W))}
	}
	pct := 0.0
	if p.Total > 0 {
		pct = float64(p.Scanned) / float64(p.Total)
	}
	left := "-"
	if p.ETA > 0 {
		left = common.Dur(p.ETA)
	}
	tail := fmt.Sprintf(" %3d%% · %s of %s scanned · %s/s · %s left · %s · x cancels", int(pct*100),
		common.Thousands(p.Scanned), common.Thousands(p.Total), common.Count(int64(p.Rate)), left, common.PluralOf(v.total, "match", "matches"))
	barW := max(min(v.W-sanitize.Width(tail)-12, 40), 5)
	fill := int(pct * float64(barW))
	bar := st.Accent.Render(strings.Repeat("█", fill)) + st.Faint.Render(strings.Repeat("░", barW-fill))
	return []string{common.Trunc(st.Info.Render("◌ search ")+bar+tail, v.W), st.Muted.Render(common.Trunc(what, v.W))}
}

func searchCriteria(s SearchSpec) string {
	var parts []string
	if s.Key != nil {
		parts = append(parts, "key="+sanitize.Bytes(s.Key))
	}
	if s.ValueContains != "" {
		parts = append(parts, "value~"+sanitize.String(s.ValueContains))
	}
	if s.ValueRegex != "" {
		parts = append(parts, "re:"+sanitize.String(s.ValueRegex))
	}
	if s.Header != "" {
		parts = append(parts, "h:"+sanitize.String(s.Header))
	}
	for _, f := range s.Fields {
		parts = append(parts, "field:"+sanitize.String(f))
	}
	from := s.From
	if from == "" {
		from = "earliest"
	}
	to := s.To
	if to == "" {
		to = "the end"
	}
	parts = append(parts, "from "+sanitize.String(from)+" to "+sanitize.String(to))
	return strings.Join(parts, " ")
}
