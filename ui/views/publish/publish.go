package publish

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"ilinkdash/config"
	"ilinkdash/ilink"
	tmpl "ilinkdash/ilink/loadgen/template"
	"ilinkdash/ilink/schema"
	"ilinkdash/ilink/wire"
	"ilinkdash/ui/common"
	"ilinkdash/ui/components"
	"ilinkdash/ui/sanitize"
	"ilinkdash/ui/views/tab"
)

// Form fields of the publish view, in order.
const (
	pfTopic = iota
	pfKey
	pfValue
	pfFile
	pfHeaders
	pfCount
	pfRate
	pfCompression
	pfAcks
	numPubFields
)

const (
	// maxPublishFile bounds the value file.
	maxPublishFile = 8 << 20
	maxPublishRate = 1_000_000
	// warnCount: a run of more records says so in its confirmation.
	warnCount = 100_000
)

var pubHints = [numPubFields]string{
	pfKey:     "blank = null key · {{seq}} {{now}} {{uuid}} {{rand N}}",
	pfValue:   "templates too",
	pfFile:    "path; replaces Value",
	pfHeaders: "NAME=VALUE, … (\\, for a comma)",
	pfCount:   "1 to 100,000,000",
	pfRate:    "records/s; 0 = as fast as possible",
}

// Messages private to the publish view.
type (
	pubStartedMsg struct {
		run     Run
		err     error
		summary string
	}
	pubTickMsg struct{}
	// pubPlannedMsg carries a form whose value file was read, to confirm.
	pubPlannedMsg struct {
		pf  pubForm
		err error
	}
	pubCreatedMsg struct {
		topic  string
		err    error
		dlgGen uint64
	}
)

// TopicCreator creates the topic a publish found missing.
type TopicCreator interface {
	CreateTopic(ctx context.Context, spec tab.TopicSpec) error
}

// Publish is the publish tab: a form (topic, key, value or file, headers,
// count, rate, compression, acks) that sends through a Publisher, and the
// live results of the run, read every 250 ms: acknowledged, errors by
// distinct text, rate, latency p50/p99, where the last records went and the
// producer's connections per node. Keys, values and header values take
// templates (package ilink/loadgen/template), checked before anything is sent. A run
// stops at the first MIMQE_UNKNOWN_TOPIC and offers to create the topic
// (then publishes again). Absent in read-only contexts.
type View struct {
	tab.Base
	pub     Publisher
	creator TopicCreator // nil: a missing topic is only reported

	fields   []*components.Field
	form     components.Form // navigating or editing a field
	formOpen bool            // the form is shown (also while a run's results are)
	formErr  string

	// plan is the validated form the open confirmation shows (nil: no
	// confirmation open); lastPlan the one the last run sent, which a
	// run after creating a missing topic sends again; lastCount the
	// Count field as that run had it.
	plan      *pubForm
	lastPlan  *pubForm
	lastCount string

	run      Run
	cancel   context.CancelFunc
	starting bool
	stopping bool
	summary  string
	last     Progress
	runs     int

	runTopic     string // the topic of the current run
	pendingTopic string // the missing topic the open dialog creates
}

// New returns the publish view; p may be nil (the tab then explains
// that publishing is unavailable).
func New(ctx *common.Context, p Publisher) *View {
	v := &View{Base: tab.New(ctx, common.ViewPublish), pub: p}
	v.fields = []*components.Field{
		pfTopic:       components.TextField("Topic", "", "topic name"),
		pfKey:         components.TextField("Key", "", "null"),
		pfValue:       components.TextField("Value", "", "empty"),
		pfFile:        components.TextField("File", "", "none"),
		pfHeaders:     components.TextField("Headers", "", "none"),
		pfCount:       components.TextField("Count", "1", ""),
		pfRate:        components.TextField("Rate", "0", ""),
		pfCompression: components.ChoiceField("Compression", "none", "lz4", "zstd"),
		pfAcks:        components.ChoiceField("Acks", acksChoices()...),
	}
	for _, f := range v.fields {
		f.Input.CharLimit = 4096
	}
	return v
}

// acksChoices offers the acks settings, the tools' one default
// (ilink.DefaultToolAcks, shared with `ilinkdash publish`) first.
func acksChoices() []string {
	out := []string{ilink.DefaultToolAcks}
	for _, a := range []string{"all", "1", "0"} {
		if a != ilink.DefaultToolAcks {
			out = append(out, a)
		}
	}
	return out
}

// SetCreator lets the view create a topic a publish found missing.
func (v *View) SetCreator(c TopicCreator) { v.creator = c }

func (v *View) Title() string         { return "Publish" }
func (v *View) Primary() common.ResID { return -1 }
func (v *View) Capturing() bool       { return (v.form.Editing() || v.Dlg != nil) && v.available() }
func (v *View) SetSize(w, h int)      { v.W, v.H = w, h }
func (v *View) available() bool       { return v.pub != nil && !v.Ctx.ReadOnly }

// Target returns the topic in the form.
func (v *View) Target() string { return v.fields[pfTopic].Input.Value() }

// Field returns the form field i (tests, prefill).
func (v *View) Field(i int) *components.Field { return v.fields[i] }

// Running reports whether a run is in progress.
func (v *View) Running() bool { return v.starting || (v.run != nil && !v.last.Done) }

// Progress returns the last progress read.
func (v *View) Progress() Progress { return v.last }

// SetTarget prefills the topic (from `p` on a topic, `:publish TOPIC`) and
// opens the form navigating, the focus on the key: nothing is typed into
// a field before enter or e edits it.
func (v *View) SetTarget(topic string) {
	if topic != "" {
		v.fields[pfTopic].Input.SetValue(topic)
		v.form.Focus = pfKey
	} else {
		v.form.Focus = pfTopic
	}
	v.form.StopEditing()
	v.form.Note = ""
	v.formOpen = true
	v.formErr = ""
}

// Editing reports whether a field of the form is being edited.
func (v *View) Editing() bool { return v.form.Editing() }

// formKeys: while navigating, tab belongs to the tab bar, so ↑/↓ (j/k)
// move; the send key opens the confirmation.
func (v *View) formKeys() components.FormKeys {
	k := v.Ctx.Keys
	return components.FormKeys{Next: []key.Binding{k.FieldDown}, Prev: []key.Binding{k.FieldUp}, Submit: k.PublishSend}
}

func (v *View) formHelp() []key.Binding {
	enter := key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "review and send"))
	return v.form.Help(v.Ctx.Keys, v.fields, v.formKeys(), enter, false)
}

// KeyHints implements common.KeyHinter: the confirmation's or another
// dialog's keys, or the keys of a field being edited (no global key
// reaches the view then).
func (v *View) KeyHints() ([]key.Binding, bool) {
	if !v.available() {
		return nil, false
	}
	if v.Dlg != nil {
		return v.Dlg.ShortHelp(v.Ctx.Keys), true
	}
	if v.form.Editing() {
		b := v.formHelp()
		if v.Running() {
			b = append(b, v.Ctx.Keys.PublishStop)
		}
		return b, true
	}
	return nil, false
}

// Shutdown implements common.Closer: it stops a running publish.
func (v *View) Shutdown() {
	if v.run != nil {
		v.run.Stop()
	}
	if v.cancel != nil {
		v.cancel()
	}
}

// ShortHelp implements common.View.
func (v *View) ShortHelp() []key.Binding {
	if !v.available() {
		return nil
	}
	k := v.Ctx.Keys
	if hints, ok := v.KeyHints(); ok {
		return hints
	}
	if v.formShown() {
		b := v.formHelp()
		if v.Running() {
			b = append(b, k.PublishStop)
		}
		if v.run != nil {
			b = append(b, k.PublishLeave)
		}
		return b
	}
	if v.Running() {
		return []key.Binding{k.PublishStop, k.PublishEdit}
	}
	return []key.Binding{k.PublishEdit}
}

// FullHelp implements common.View.
func (v *View) FullHelp() [][]key.Binding {
	k := v.Ctx.Keys
	return [][]key.Binding{{k.PublishEdit, k.FieldUp, k.FieldDown, k.FieldEdit, k.FieldDone, k.NextField, k.PrevField, k.Left, k.Right, k.PublishSend, k.PublishConfirm, k.PublishLeave, k.PublishStop}}
}

// Back implements common.View.
func (v *View) Back() bool {
	switch {
	case v.formErr != "" || v.form.Note != "":
		v.formErr, v.form.Note = "", ""
		return true
	case v.formOpen && v.run != nil:
		// Leave the form for the run's results.
		v.formOpen = false
		return true
	}
	return false
}

// Status implements common.View.
func (v *View) Status() string {
	if v.run == nil {
		return ""
	}
	p := v.last
	switch {
	case v.Running():
		return "publishing " + common.Thousands(p.Acked+p.Failed) + "/" + common.Thousands(p.Count) + " · " + common.Rate(p.Rate) + " rec/s"
	case p.Stopped:
		return "stopped after " + common.Thousands(p.Acked) + " acknowledged"
	}
	return "published " + common.Thousands(p.Acked) + "/" + common.Thousands(p.Count)
}

// Update implements common.View.
func (v *View) Update(msg tea.Msg) tea.Cmd {
	if v.DialogInput(msg) {
		return nil
	}
	switch msg := msg.(type) {
	case common.ViewMsg:
		return v.handleViewMsg(msg)
	case tea.KeyPressMsg:
		return v.handleKey(msg)
	case tea.PasteMsg:
		if v.available() && v.formShown() && v.form.Paste(v.fields, msg) == components.FormChanged {
			v.formErr = ""
		}
	case tea.MouseClickMsg:
		if !v.available() || msg.Button != tea.MouseLeft {
			return nil
		}
		if i := msg.Y - 1; i >= 0 && i < numPubFields && v.formShown() {
			// A click on a field is an explicit choice to edit it.
			v.form.Focus = i
			v.form.Edit(v.fields)
			v.form.Sync(v.fields)
		}
	}
	return nil
}

func (v *View) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	if !v.available() {
		return nil
	}
	k := v.Ctx.Keys
	if v.Dlg != nil {
		return v.dialogKey(msg)
	}
	if msg.String() == "ctrl+x" {
		return v.stop()
	}
	if !v.formShown() {
		switch {
		case key.Matches(msg, k.PublishEdit):
			v.formOpen = true
		case key.Matches(msg, k.PublishStop):
			return v.stop()
		}
		return nil
	}
	switch v.form.Key(k, v.fields, v.formKeys(), false, msg) {
	case components.FormChanged:
		v.formErr = ""
	case components.FormSubmit:
		return v.submit()
	case components.FormUnhandled:
		if !v.form.Editing() && key.Matches(msg, k.PublishStop) {
			return v.stop()
		}
		v.form.NoteNotEditing(v.fields, msg)
	}
	return nil
}

func (v *View) stop() tea.Cmd {
	if v.run == nil || !v.Running() || v.stopping {
		return nil
	}
	v.stopping = true
	v.run.Stop()
	return common.Flash(common.LevelInfo, "stopping: waiting for the records in flight…")
}

// pubHeader is a parsed header: a name and a value template.
type pubHeader struct {
	key string
	val *tmpl.Template
}

// parsePubHeaders reads "NAME=VALUE, NAME2=VALUE2" (\, is a literal comma).
func parsePubHeaders(s string) ([]pubHeader, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	var items []string
	var cur strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == ',':
			cur.WriteByte(',')
			i++
		case s[i] == ',':
			items = append(items, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(s[i])
		}
	}
	items = append(items, cur.String())
	var out []pubHeader
	for _, it := range items {
		it = strings.TrimSpace(it)
		if it == "" {
			continue
		}
		name, val, ok := strings.Cut(it, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, fmt.Errorf("headers: %q is not NAME=VALUE", it)
		}
		if sanitize.String(name) != name {
			return nil, fmt.Errorf("headers: the name %q holds control characters", sanitize.String(name))
		}
		t, err := tmpl.Parse("header "+name, strings.TrimSpace(val))
		if err != nil {
			return nil, err
		}
		out = append(out, pubHeader{key: name, val: t})
	}
	return out, nil
}

// pubForm is the validated form.
type pubForm struct {
	spec    Spec
	key     *tmpl.Template // nil = null key
	value   *tmpl.Template
	file    string
	headers []pubHeader
	// codec, when the topic's decode rule gives its values one, encodes
	// the JSON the value (or file) expands to (ilink/schema).
	codec schema.Codec
	// What the form said, for the confirmation.
	keyText, valueText, headersText, countText string
}

// validate checks the form; it reports the first problem in words and
// the field it is in.
func (v *View) validate() (pubForm, int, error) {
	pf, err := v.check()
	field := pfTopic
	var fe fieldErr
	if errors.As(err, &fe) {
		field, err = fe.field, fe.err
	}
	return pf, field, err
}

// fieldErr is a problem of one field of the form.
type fieldErr struct {
	field int
	err   error
}

func (e fieldErr) Error() string { return e.err.Error() }

func (v *View) check() (pubForm, error) {
	var pf pubForm
	f := v.fields
	topic := f[pfTopic].Value()
	switch {
	case topic == "":
		return pf, fieldErr{pfTopic, fmt.Errorf("give the topic to publish to")}
	case sanitize.String(topic) != topic || strings.ContainsAny(topic, " *?,;|:"):
		return pf, fieldErr{pfTopic, errors.New("a topic name has no spaces, control characters or any of * ? , ; | : in it")}
	}
	pf.spec.Topic = topic
	pf.keyText, pf.valueText, pf.headersText = f[pfKey].Input.Value(), f[pfValue].Input.Value(), f[pfHeaders].Input.Value()
	pf.countText = f[pfCount].Value()
	var err error
	if k := f[pfKey].Input.Value(); k != "" {
		if pf.key, err = tmpl.Parse("key", k); err != nil {
			return pf, fieldErr{pfKey, err}
		}
	}
	val := f[pfValue].Input.Value()
	pf.file = f[pfFile].Value()
	if val != "" && pf.file != "" {
		return pf, fieldErr{pfFile, fmt.Errorf("give a value or a file, not both")}
	}
	if fr, ok := v.pub.(FileReader); ok && pf.file != "" {
		if err := fr.ReadsFiles(); err != nil {
			return pf, fieldErr{pfFile, err}
		}
	}
	if pf.value, err = tmpl.Parse("value", val); err != nil {
		return pf, fieldErr{pfValue, err}
	}
	if pf.headers, err = parsePubHeaders(f[pfHeaders].Input.Value()); err != nil {
		return pf, fieldErr{pfHeaders, err}
	}
	if err := checkRecordSize(pf, "value"); err != nil {
		return pf, fieldErr{pfValue, err}
	}
	pf.codec = v.Ctx.Schemas.Topic(topic).Value.Codec
	if pf.file == "" {
		if err := checkEncodes(pf, "value"); err != nil {
			return pf, fieldErr{pfValue, err}
		}
	}
	cs := strings.ReplaceAll(strings.ReplaceAll(f[pfCount].Value(), ",", ""), "_", "")
	if cs == "" {
		cs = "1"
	}
	n, err := strconv.ParseInt(cs, 10, 64)
	if err != nil || n < 1 || n > MaxCount {
		return pf, fieldErr{pfCount, fmt.Errorf("count must be a whole number from 1 to %s", common.Thousands(MaxCount))}
	}
	pf.spec.Count = n
	rs := f[pfRate].Value()
	if rs == "" {
		rs = "0"
	}
	rate, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSuffix(rs, "/s"), " "), 64)
	if err != nil || rate < 0 || rate > maxPublishRate || rate != rate {
		return pf, fieldErr{pfRate, fmt.Errorf("rate must be a number of records per second from 0 (as fast as possible) to %s", common.Thousands(maxPublishRate))}
	}
	pf.spec.Rate = rate
	pf.spec.Compression = f[pfCompression].Value()
	pf.spec.Acks = f[pfAcks].Value()
	return pf, nil
}

// checkRecordSize refuses a form whose value (what names it: the value
// field or the file) can expand beyond what one record carries, with the
// key and headers at the longest their templates expand to: the producer
// would fail every record with MIMQE_MSG_SIZE_OVER. The bound is that of
// the producer a run gets (ui/live: only its compression and acks differ
// from ilink's defaults, and they do not change it), the same as
// `ilinkdash publish --size`'s (ilink.ProducerConfig.MaxValueSize).
func checkRecordSize(pf pubForm, what string) error {
	keyLen := -1
	if pf.key != nil {
		keyLen = pf.key.MaxLen()
	}
	hl := make([]wire.HeaderLen, len(pf.headers))
	for i, h := range pf.headers {
		hl[i] = wire.HeaderLen{Key: len(h.key), Value: h.val.MaxLen()}
	}
	limit, err := ilink.ProducerConfig{}.MaxValueSize(pf.spec.Topic, keyLen, hl)
	if err != nil {
		return err
	}
	if n := pf.value.MaxLen(); n > limit {
		return fmt.Errorf("%s: up to %s bytes a record; a record to %s carries a value of at most %s bytes (a produce request is at most %s bytes; the record, batch and request envelope, key and headers take the rest)",
			what, common.Thousands(int64(n)), common.S(pf.spec.Topic), common.Thousands(int64(max(limit, 0))), common.Thousands(ilink.DefaultMaxRequestSize))
	}
	return nil
}

// checkEncodes refuses a value (what names it) that the topic's codec
// cannot encode: the JSON it expands to for the first record (templates
// expanded) must fit the schema. The codec's error names the field.
func checkEncodes(pf pubForm, what string) error {
	if pf.codec == nil {
		return nil
	}
	doc := tmpl.NewExpander().Append(nil, pf.value, 0)
	if _, err := tab.EncodeJSON(pf.codec, doc); err != nil {
		return fmt.Errorf("%s %v; nothing is sent", what, err)
	}
	return nil
}

// loadFile reads the value file (in a command): at most maxPublishFile
// bytes; a UTF-8 file with "{{" is a template.
func loadFile(path string) (*tmpl.Template, error) {
	path, err := config.ExpandHome(path)
	if err != nil {
		return nil, fmt.Errorf("file: %v", err)
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("file: %v", err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("file: %s is a directory", path)
	}
	if st.Size() > maxPublishFile {
		return nil, fmt.Errorf("file: %s is %s; the limit is %s", path, common.Bytes(st.Size()), common.Bytes(maxPublishFile))
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("file: %v", err)
	}
	if utf8.Valid(b) && strings.Contains(string(b), "{{") {
		return tmpl.Parse("file "+path, string(b))
	}
	return tmpl.Literal(b), nil
}

// recordFunc builds the Spec.Record of a validated form.
func recordFunc(pf pubForm, exp *tmpl.Expander) func(int64, *Record) {
	hbufs := make([][]byte, len(pf.headers))
	var keyBuf, valBuf []byte
	var staticVal []byte
	var staticErr error
	if pf.value.Static() {
		staticVal = pf.value.Literal()
		if staticVal == nil {
			staticVal = []byte{}
		}
		if pf.codec != nil {
			staticVal, staticErr = encodeValue(pf.codec, staticVal)
		}
	}
	return func(seq int64, r *Record) {
		r.Err = nil
		if pf.key == nil {
			r.Key = nil
		} else {
			keyBuf = exp.Append(keyBuf[:0], pf.key, seq)
			r.Key = keyBuf
		}
		switch {
		case pf.value.Static():
			r.Value, r.Err = staticVal, staticErr
		case pf.codec != nil:
			valBuf = exp.Append(valBuf[:0], pf.value, seq)
			r.Value, r.Err = encodeValue(pf.codec, valBuf)
		default:
			valBuf = exp.Append(valBuf[:0], pf.value, seq)
			r.Value = valBuf
		}
		r.Headers = r.Headers[:0]
		for i, h := range pf.headers {
			hbufs[i] = exp.Append(hbufs[i][:0], h.val, seq)
			r.Headers = append(r.Headers, Header{Key: h.key, Value: hbufs[i]})
		}
	}
}

// encodeValue encodes the JSON doc with c; its error says the record did
// not fit (the first record was checked before the run).
func encodeValue(c schema.Codec, doc []byte) ([]byte, error) {
	b, err := tab.EncodeJSON(c, doc)
	if err != nil {
		return nil, fmt.Errorf("%w (not sent)", err)
	}
	return b, nil
}

// submit checks the form and opens the confirmation: nothing is sent
// before it is confirmed. A value file is read first (in a command), so
// the confirmation shows the size that will be sent.
func (v *View) submit() tea.Cmd {
	if v.Running() {
		v.formErr = "a publish is running (ctrl+x stops it)"
		return nil
	}
	pf, field, err := v.validate()
	if err != nil {
		// The field at fault is edited, its value selected.
		v.formErr = err.Error()
		v.form.Focus = field
		v.form.Edit(v.fields)
		v.form.Sync(v.fields)
		return nil
	}
	v.formErr = ""
	v.form.StopEditing()
	v.form.Sync(v.fields)
	if pf.file == "" {
		v.confirm(pf)
		return nil
	}
	return v.Address(v.Gen, func() any {
		t, err := loadFile(pf.file)
		if err != nil {
			return pubPlannedMsg{err: err}
		}
		pf.value = t
		if err := checkRecordSize(pf, "file: "+pf.file); err != nil {
			return pubPlannedMsg{err: err}
		}
		if err := checkEncodes(pf, "file: "+pf.file); err != nil {
			return pubPlannedMsg{err: err}
		}
		return pubPlannedMsg{pf: pf}
	})
}

// start sends a confirmed plan.
func (v *View) start(pf pubForm) tea.Cmd {
	v.formErr = ""
	v.starting, v.stopping = true, false
	v.formOpen = false
	v.form.StopEditing()
	v.form.Sync(v.fields)
	v.Gen++
	v.runs++
	ctx, cancel := context.WithCancel(context.Background())
	if v.cancel != nil {
		v.cancel()
	}
	v.cancel = cancel
	pub := v.pub
	summary := v.describe(pf)
	v.runTopic = pf.spec.Topic
	v.lastPlan, v.lastCount = &pf, pf.countText
	return v.Address(v.Gen, func() any {
		pf.spec.Record = recordFunc(pf, tmpl.NewExpander())
		run, err := pub.StartPublish(ctx, pf.spec)
		return pubStartedMsg{run: run, err: err, summary: summary}
	})
}

func (v *View) describe(pf pubForm) string {
	parts := []string{common.Plural(pf.spec.Count, "record")}
	if pf.spec.Rate > 0 {
		parts = append(parts, common.Rate(pf.spec.Rate)+"/s")
	} else {
		parts = append(parts, "full speed")
	}
	parts = append(parts, pf.spec.Compression, "acks "+pf.spec.Acks)
	return "to " + common.S(pf.spec.Topic) + " · " + strings.Join(parts, " · ")
}

func (v *View) handleViewMsg(msg common.ViewMsg) tea.Cmd {
	if msg.Gen != v.Gen {
		if m, ok := msg.Msg.(pubStartedMsg); ok && m.run != nil {
			m.run.Stop()
		}
		return nil
	}
	switch m := msg.Msg.(type) {
	case pubPlannedMsg:
		if m.err != nil {
			v.formErr = "not sent: " + sanitize.Error(m.err)
			v.formOpen = true
			return nil
		}
		v.confirm(m.pf)
		return nil
	case pubStartedMsg:
		v.starting = false
		if m.err != nil {
			v.formErr = "not sent: " + sanitize.Error(m.err)
			v.formOpen = true
			return nil
		}
		v.run, v.summary = m.run, m.summary
		v.last = m.run.Progress()
		// The progress is read at the budget's counter pace (250 ms;
		// 1 s in low bandwidth).
		return v.After(v.Ctx.Pace.Counters(), v.Gen, pubTickMsg{})
	case pubTickMsg:
		if v.run == nil {
			return nil
		}
		v.last = v.run.Progress()
		if !v.last.Done {
			return v.After(v.Ctx.Pace.Counters(), v.Gen, pubTickMsg{})
		}
		v.stopping = false
		p := v.last
		text := "published " + common.Plural(p.Acked, "record") + " in " + common.Dur(p.Elapsed)
		level := common.LevelOK
		if p.Stopped {
			text = "stopped: " + common.Thousands(p.Acked) + " of " + common.Plural(p.Count, "record") + " acknowledged"
			level = common.LevelWarn
		}
		if p.Failed > 0 {
			text += " · " + common.Thousands(p.Failed) + " failed"
			level = common.LevelWarn
		}
		if p.Err != nil {
			text += " · " + sanitize.Error(p.Err)
			level = common.LevelError
		}
		if p.MissingTopic {
			v.openCreate(v.runTopic, p)
			return nil
		}
		return common.Flash(level, text)
	case pubCreatedMsg:
		return v.created(m)
	}
	return nil
}

// openCreate offers to create the topic a run found missing.
func (v *View) openCreate(topic string, p Progress) {
	disp := common.S(topic)
	body := []string{"The publish stopped at the first MIMQE_UNKNOWN_TOPIC: " + disp + " does not exist (" + common.Thousands(p.Count-p.Acked) + " of " + common.Plural(p.Count, "record") + " not published)."}
	if v.creator == nil {
		body = append(body, "", "Create it in the Topics tab (n), then publish again.")
		v.OpenDialog(&components.Dialog{Title: "Topic " + disp + " does not exist", Body: body})
		return
	}
	body = append(body, "", "Create it now and publish the same records again? Blank fields take the cluster's defaults.")
	v.OpenDialog(&components.Dialog{
		Title:       "Topic " + disp + " does not exist",
		Body:        body,
		SubmitLabel: "create and publish",
		Fields: []*components.Field{
			components.TextField("Partitions", "3", ""),
			components.TextField("Replicas", "", "cluster default"),
		},
	})
	v.pendingTopic = topic
}

func (v *View) dialogKey(msg tea.KeyPressMsg) tea.Cmd {
	if v.plan != nil {
		return v.confirmKey(msg)
	}
	return v.DialogFlow(msg, nil, func(end func()) tea.Cmd {
		if v.pendingTopic == "" || v.creator == nil {
			end()
			return nil
		}
		return v.submitCreate()
	}, nil)
}

func (v *View) submitCreate() tea.Cmd {
	f := v.Dlg.Fields
	spec := tab.TopicSpec{Name: v.pendingTopic}
	// The one rule of the create dialogs (ilink/topicrules): the node
	// count is not known here, the engine checks the replicas against it.
	if err := spec.ParseSize(f[0].Value(), f[1].Value(), 0); err != nil {
		v.Dlg.Err = err.Error()
		return nil
	}
	if v.Dlg.Review == "" {
		v.Dlg.Review = spec.Review() + " Then the same records are published."
		return nil
	}
	v.Dlg.Err, v.Dlg.Busy = "", "creating "+common.S(spec.Name)+"…"
	c, gen := v.creator, v.DlgGen
	return v.Call(func(ctx context.Context) any {
		return pubCreatedMsg{topic: spec.Name, err: c.CreateTopic(ctx, spec), dlgGen: gen}
	})
}

// created publishes again once the missing topic exists.
func (v *View) created(m pubCreatedMsg) tea.Cmd {
	if m.err != nil {
		return v.ActionFailed(m.dlgGen, m.err, "create failed: ", "create "+common.S(m.topic)+" failed: ")
	}
	if v.DialogOpen(m.dlgGen) {
		v.CloseDialog()
	}
	v.pendingTopic = ""
	// The create dialog said the same records follow: the plan confirmed
	// before, not the form as it may be now.
	again := v.submit
	if v.lastPlan != nil {
		pf := *v.lastPlan
		again = func() tea.Cmd { return v.start(pf) }
	}
	return tea.Batch(common.Flash(common.LevelOK, "topic "+common.S(m.topic)+" created · publishing again"), common.Refresh(common.ResTopics), again())
}

// ---- rendering ----

func (v *View) formShown() bool { return v.formOpen || v.run == nil }

// View implements common.View.
func (v *View) View() string {
	st := v.Ctx.Styles
	switch {
	case v.Ctx.ReadOnly:
		return common.Frame([]string{st.Title.Render("Publish"), "", "Publishing is disabled: this context is read-only."}, v.W, v.H)
	case v.pub == nil:
		lines := []string{st.Title.Render("Publish"), ""}
		lines = append(lines, common.Wrap("Publishing is not available in this session: no producer is configured for this context.", v.W)...)
		return common.Frame(lines, v.W, v.H)
	}
	if v.Dlg != nil {
		return v.DialogView()
	}
	var lines []string
	if v.formShown() {
		lines = v.formLines(st)
	} else {
		lines = v.summaryLines(st)
	}
	lines = append(lines, v.resultLines(st)...)
	return common.Frame(lines, v.W, v.H)
}

func (v *View) formLines(st *common.Styles) []string {
	v.form.Sync(v.fields)
	title := "Publish"
	if t := v.fields[pfTopic].Input.Value(); t != "" {
		title += " to " + common.S(t)
	}
	// The mode, in words: what a typed key does now.
	head := st.Title.Render(title)
	if v.form.Editing() {
		head += st.Info.Render("  ✎ editing " + v.fields[v.form.Focus].Label + " (esc stops)")
	} else {
		head += st.Muted.Render("  navigating (enter or e edits a field)")
	}
	lines := []string{common.ClipStyled(head, v.W)}
	labelW := 12
	for i, f := range v.fields {
		marker := "  "
		if i == v.form.Focus {
			marker = "▸ "
			if v.form.Editing() {
				marker = "✎ "
			}
			marker = st.DialogKey.Render(marker)
		}
		label := marker + st.DialogLabel.Render(common.Fit(f.Label, labelW)) + " "
		avail := max(v.W-labelW-3, 4)
		var val string
		if f.Kind == components.FieldChoice {
			val = "‹ " + f.Value() + " ›"
			if i == v.form.Focus {
				val = st.DialogFocus.Render(val)
			}
		} else {
			f.Input.SetWidth(min(avail, max(avail-len(pubHints[i])-2, 24)))
			val = f.Input.View(st)
		}
		line := label + val
		if h := pubHints[i]; h != "" && common.Width(line)+2+common.Width(h) <= v.W {
			line += "  " + st.Faint.Render(h)
		}
		lines = append(lines, line)
	}
	if v.formErr != "" {
		for _, l := range common.Wrap(v.formErr, max(v.W-2, 1)) {
			lines = append(lines, st.Err.Render(l))
		}
	}
	if v.form.Note != "" {
		lines = append(lines, st.Warn.Render(common.Trunc(v.form.Note, v.W)))
	}
	// Too short: keep the focused field on screen.
	if room := v.H - 4; len(lines) > room && room > 2 {
		first := min(max(v.form.Focus+1-(room-2), 1), len(lines)-(room-1))
		lines = append([]string{lines[0]}, lines[max(first, 1):]...)
	}
	return lines
}

func (v *View) summaryLines(st *common.Styles) []string {
	head := st.Title.Render("Publish "+v.summary) + st.Muted.Render("  e edits")
	return []string{common.ClipStyled(head, v.W)}
}

func (v *View) resultLines(st *common.Styles) []string {
	if v.starting {
		return []string{"", st.Info.Render("◌ starting the producer…")}
	}
	if v.run == nil {
		return nil
	}
	p := v.last
	out := []string{""}
	state := st.OK.Render("● running " + common.Dur(p.Elapsed))
	switch {
	case p.Done && p.Stopped:
		state = st.Warn.Render("■ stopped after " + common.Dur(p.Elapsed))
	case p.Done:
		state = st.OK.Render("✓ done in " + common.Dur(p.Elapsed))
	case v.stopping:
		state = st.Warn.Render("◌ stopping…")
	}
	out = append(out, st.Title.Render("Results")+"  "+state)

	doneN := p.Acked + p.Failed
	frac := 0.0
	if p.Count > 0 {
		frac = float64(doneN) / float64(p.Count)
	}
	counts := common.Thousands(p.Acked) + "/" + common.Thousands(p.Count) + " acknowledged"
	barW := min(max(v.W-common.Width(counts)-30, 0), 40)
	line := ""
	if barW >= 8 {
		// Acknowledged records fill the bar; failed ones are marked ✗,
		// so a run whose every record failed never draws a full bar.
		fill := int(frac * float64(barW))
		bad := 0
		if doneN > 0 {
			bad = min(fill, int(math.Ceil(float64(fill)*float64(p.Failed)/float64(doneN))))
		}
		line = st.Accent.Render(strings.Repeat("█", fill-bad)) + st.Err.Render(strings.Repeat("✗", bad)) + st.Faint.Render(strings.Repeat("░", barW-fill)) + " "
	}
	line += counts
	if p.Failed > 0 {
		line += st.Faint.Render(" · ") + st.Err.Render(common.Thousands(p.Failed)+" failed")
	}
	if inflight := p.Sent - doneN; inflight > 0 {
		line += st.Faint.Render(" · ") + st.Muted.Render(common.Thousands(inflight)+" in flight")
	}
	out = append(out, line)
	if p.Done {
		// What the run did against what was confirmed.
		sty := st.OK
		if p.Acked < p.Count {
			sty = st.Warn
		}
		out = append(out, sty.Render(planResult(p)))
	}
	lat := "latency -"
	if p.Acked > 0 {
		lat = "latency p50 " + fmtLatency(p.LatencyP50) + " · p99 " + fmtLatency(p.LatencyP99)
	}
	out = append(out, common.Rate(p.Rate)+" rec/s"+st.Faint.Render(" · ")+lat)
	if len(p.Last) > 0 {
		var b strings.Builder
		b.WriteString(st.Muted.Render("last "))
		for i, at := range p.Last {
			if i > 0 {
				b.WriteString("  ")
			}
			off := "?"
			if at.Offset >= 0 {
				off = common.Thousands(at.Offset)
			}
			b.WriteString("P" + tab.Itoa(int64(at.Partition)) + "@" + off)
		}
		out = append(out, b.String())
	}
	if len(p.Connections) > 0 {
		ids := make([]int, 0, len(p.Connections))
		for id := range p.Connections {
			ids = append(ids, id)
		}
		sort.Ints(ids)
		var parts []string
		for _, id := range ids {
			parts = append(parts, "node "+tab.Itoa(int64(id))+": "+tab.Itoa(int64(p.Connections[id])))
		}
		out = append(out, st.Muted.Render("connections ")+strings.Join(parts, st.Faint.Render(" · ")))
	}
	if p.Err != nil {
		out = append(out, st.Err.Render("⚠ "+sanitize.Error(p.Err)))
	}
	if len(p.Errors) > 0 {
		out = append(out, st.Err.Render("errors"))
		for _, e := range p.Errors {
			out = append(out, "  "+st.Err.Render(common.Thousands(e.Count)+"×")+" "+sanitize.String(e.Text))
		}
	}
	return out
}

// fmtLatency formats a latency rounded to the precision shown: 850µs,
// 4.2ms, 37ms, 1.25s.
func fmtLatency(d time.Duration) string {
	switch {
	case d < time.Millisecond-time.Microsecond/2:
		return strconv.FormatInt(d.Round(time.Microsecond).Microseconds(), 10) + "µs"
	case d < 10*time.Millisecond-50*time.Microsecond:
		return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 1, 64) + "ms"
	case d < time.Second-time.Millisecond/2:
		return strconv.FormatInt(d.Round(time.Millisecond).Milliseconds(), 10) + "ms"
	}
	return strconv.FormatFloat(d.Seconds(), 'f', 2, 64) + "s"
}
