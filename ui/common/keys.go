package common

import (
	"reflect"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// KeyMap is every key binding of the dashboard, in one place. The `?` help
// is generated from it, so what help shows is what the keys do. Bindings of
// mutating actions are disabled in read-only mode: a disabled binding is
// left out of help and never matches (key.Matches checks Enabled), so the
// action is neither offered nor reachable from the keyboard.
type KeyMap struct {
	// Global.
	Quit, ForceQuit, Help, Command, Redraw, Refresh, NextTab, PrevTab, Back key.Binding
	// Fleet returns from a cluster's tabs to the Fleet tab (enabled only
	// while several clusters are watched: Context.Fleet).
	Fleet    key.Binding
	Tabs     [7]key.Binding
	TabsHelp key.Binding // display only: "1-7"

	// Tables.
	Up, Down, PageUp, PageDown, HalfUp, HalfDown, Top, Bottom key.Binding
	Open, Filter, Sort, Reverse, Pane                         key.Binding
	// SortBy documents the tables' shift+letter sort in `?` (display
	// only: each table's letters are its columns', components.Table).
	SortBy key.Binding

	// Topics.
	Tail, Publish, CreateTopic, DeleteTopic, FlushTopic, Internal key.Binding

	// Groups. TailPartition tails the partition under the cursor from the
	// group's committed offset (a drill-down: esc comes back).
	Seek, DeleteGroup, TailPartition key.Binding

	// ChartSpan cycles the history charts' span (the group detail's lag,
	// the Overview's in/out): 15m, 1h, 6h, 24h.
	ChartSpan key.Binding

	// Cluster.
	EditCluster, AddNode, RemoveNode, Rebalance, MoveLeader key.Binding

	// Topic configuration (the pane opens read-only too; editing needs
	// TopicAlter).
	TopicConfig, TopicAlter key.Binding

	// Queues.
	Quarantine, QueuePut, QueueTake, QueueMove, QueueRefresh, Reinject key.Binding
	// QueueSearch searches every page of the open queue (the queue
	// detail's / instead of the table filter); QueueCopy copies a part of
	// the selected message.
	QueueSearch, QueueCopy key.Binding

	// Dialogs.
	Confirm, Cancel, NextField, PrevField, Left, Right, Resend key.Binding

	// Forms (dialogs and the publish form) open navigating: no key is
	// text until FieldEdit starts editing the focused field; FieldDone
	// stops. FieldUp/FieldDown move where tab belongs to the tab bar (the
	// publish form while navigating). FormSubmit submits in either mode.
	FieldEdit, FieldDone, FieldUp, FieldDown, FormSubmit key.Binding

	// Tail.
	TailDetail, TailPause, TailFormat, TailJump, TailSave, TailCopy, TailRestart, TailStop, TailFollow, TailSearch key.Binding
	// TailPrev and TailNext switch between the tails kept (tail.Tabs).
	TailPrev, TailNext key.Binding
	// TailFilterSyntax documents the filter's prefixes in `?` (display
	// only: their "keys" are no key a terminal sends).
	TailFilterSyntax []key.Binding

	// Publish. PublishSend opens the confirmation (nothing is sent before
	// it); PublishConfirm sends what it shows.
	PublishSend, PublishConfirm, PublishEdit, PublishLeave, PublishStop key.Binding
}

// KeyHinter is implemented by a view whose keys depend on a mode (a dialog
// open, a form navigated or a field edited): KeyHints returns the keys that
// work now and true, and the hint line shows those alone, without the
// global keys (which do not reach a view that captures the keyboard).
type KeyHinter interface {
	KeyHints() ([]key.Binding, bool)
}

// NewKeyMap returns the bindings; readOnly disables the mutating ones.
func NewKeyMap(readOnly bool) *KeyMap {
	b := key.NewBinding
	k := &KeyMap{
		Quit:      b(key.WithKeys("q"), key.WithHelp("q", "quit")),
		ForceQuit: b(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit now")),
		Help:      b(key.WithKeys("?"), key.WithHelp("?", "help")),
		Command:   b(key.WithKeys(":"), key.WithHelp(":", "command")),
		Redraw:    b(key.WithKeys("ctrl+l"), key.WithHelp("ctrl+l", "redraw")),
		Refresh:   b(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "refresh now")),
		NextTab:   b(key.WithKeys("tab"), key.WithHelp("tab", "next tab")),
		PrevTab:   b(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous tab")),
		Back:      b(key.WithKeys("esc"), key.WithHelp("esc", "back / clear filter")),
		TabsHelp:  b(key.WithKeys("1", "2", "3", "4", "5", "6", "7"), key.WithHelp("1-7", "go to tab")),
		Fleet:     b(key.WithKeys("0"), key.WithHelp("0", "back to the fleet"), key.WithDisabled()),

		Up:       b(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:     b(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:   b(key.WithKeys("pgup", "ctrl+b"), key.WithHelp("pgup", "page up")),
		PageDown: b(key.WithKeys("pgdown", "ctrl+f"), key.WithHelp("pgdn", "page down")),
		HalfUp:   b(key.WithKeys("ctrl+u"), key.WithHelp("ctrl+u", "half page up")),
		HalfDown: b(key.WithKeys("ctrl+d"), key.WithHelp("ctrl+d", "half page down")),
		Top:      b(key.WithKeys("g", "home"), key.WithHelp("g", "top")),
		Bottom:   b(key.WithKeys("G", "end"), key.WithHelp("G", "bottom")),
		Open:     b(key.WithKeys("enter"), key.WithHelp("enter", "open")),
		Filter:   b(key.WithKeys("/"), key.WithHelp("/", "filter (!x excludes)")),
		Sort:     b(key.WithKeys("s"), key.WithHelp("s", "sort column")),
		Reverse:  b(key.WithKeys("S"), key.WithHelp("S", "reverse sort")),
		SortBy:   b(key.WithKeys("\x00sort by letter"), key.WithHelp("A-Z", "sort by title letter")),
		Pane:     b(key.WithKeys("v"), key.WithHelp("v", "switch pane")),

		Tail:        b(key.WithKeys("t"), key.WithHelp("t", "tail topic")),
		Publish:     b(key.WithKeys("p"), key.WithHelp("p", "publish to topic")),
		CreateTopic: b(key.WithKeys("n"), key.WithHelp("n", "new topic")),
		DeleteTopic: b(key.WithKeys("D"), key.WithHelp("D", "delete topic")),
		FlushTopic:  b(key.WithKeys("F"), key.WithHelp("F", "flush topic")),
		Internal:    b(key.WithKeys("i"), key.WithHelp("i", "show internal topics")),

		Seek:        b(key.WithKeys("o"), key.WithHelp("o", "seek offsets")),
		DeleteGroup: b(key.WithKeys("D"), key.WithHelp("D", "delete group")),

		TailPartition: b(key.WithKeys("t"), key.WithHelp("t", "tail partition (from commit)")),
		ChartSpan:     b(key.WithKeys("w"), key.WithHelp("w", "chart span 15m/1h/6h/24h")),

		EditCluster: b(key.WithKeys("e"), key.WithHelp("e", "edit properties")),
		AddNode:     b(key.WithKeys("a"), key.WithHelp("a", "add node")),
		RemoveNode:  b(key.WithKeys("D"), key.WithHelp("D", "remove node")),
		Rebalance:   b(key.WithKeys("b"), key.WithHelp("b", "rebalance leaders (preview first)")),
		MoveLeader:  b(key.WithKeys("L"), key.WithHelp("L", "move a partition's leader")),

		TopicConfig: b(key.WithKeys("c"), key.WithHelp("c", "topic configuration")),
		TopicAlter:  b(key.WithKeys("e"), key.WithHelp("e", "edit (diff preview first)")),

		Quarantine:   b(key.WithKeys("Q"), key.WithHelp("Q", "quarantine")),
		QueuePut:     b(key.WithKeys("P"), key.WithHelp("P", "put messages")),
		QueueTake:    b(key.WithKeys("T"), key.WithHelp("T", "take (get) the next message")),
		QueueMove:    b(key.WithKeys("M"), key.WithHelp("M", "move back to the source queue (preview first)")),
		QueueRefresh: b(key.WithKeys("r"), key.WithHelp("r", "browse again")),
		Reinject:     b(key.WithKeys("R"), key.WithHelp("R", "reinject (warning and preview first)")),
		QueueSearch:  b(key.WithKeys("/"), key.WithHelp("/", "search bodies and headers (every page)")),
		QueueCopy:    b(key.WithKeys("c", "y"), key.WithHelp("c", "copy id, headers or body")),
	}
	k.dialogKeys()
	k.tailAndPublishKeys()
	k.tailFilterSyntax()
	for i := range k.Tabs {
		d := string(rune('1' + i))
		k.Tabs[i] = key.NewBinding(key.WithKeys(d), key.WithHelp(d, "tab "+d))
	}
	if readOnly {
		for _, m := range k.Mutating() {
			m.SetEnabled(false)
		}
		// The publish tab (7) is absent in read-only contexts.
		k.TabsHelp = b(key.WithKeys("1", "2", "3", "4", "5", "6"), key.WithHelp("1-6", "go to tab"))
	}
	return k
}

// tailFilterSyntax is the filter syntax the help lists for the tail.
func (k *KeyMap) tailFilterSyntax() {
	syntax := [][2]string{
		{"TEXT", "key or value contains"},
		{"k:TEXT", "key contains"},
		{"v:TEXT", "value contains"},
		{"h:NAME", "has header NAME"},
		{"h:NAME=TEXT", "header value contains"},
		{"re:EXPR", "key or value matches regexp"},
		{"k:re: v:re:", "key / value matches regexp"},
		{"p:N  t:TEXT", "partition N / topic contains"},
		{"!TERM", "negates; terms are ANDed"},
	}
	for _, sx := range syntax {
		k.TailFilterSyntax = append(k.TailFilterSyntax, key.NewBinding(key.WithKeys("\x00filter "+sx[0]), key.WithHelp(sx[0], sx[1])))
	}
}

// dialogKeys are the bindings of dialogs and forms.
func (k *KeyMap) dialogKeys() {
	k.Confirm = key.NewBinding(key.WithKeys("enter", "y"), key.WithHelp("enter/y", "confirm"))
	k.Cancel = key.NewBinding(key.WithKeys("esc", "n"), key.WithHelp("esc/n", "cancel"))
	k.NextField = key.NewBinding(key.WithKeys("tab", "down"), key.WithHelp("tab/↓", "next field"))
	k.PrevField = key.NewBinding(key.WithKeys("shift+tab", "up"), key.WithHelp("shift+tab/↑", "previous field"))
	k.Left = key.NewBinding(key.WithKeys("left"), key.WithHelp("←", "previous choice"))
	k.Right = key.NewBinding(key.WithKeys("right", "space"), key.WithHelp("→/space", "next choice"))
	k.Resend = key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "resend same version"))

	k.FieldEdit = key.NewBinding(key.WithKeys("enter", "e"), key.WithHelp("enter/e", "edit field"))
	k.FieldDone = key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "stop editing"))
	k.FieldUp = key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "previous field"))
	k.FieldDown = key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "next field"))
	k.FormSubmit = key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "submit"))
}

// tailAndPublishKeys are the bindings of the tail and publish tabs.
func (k *KeyMap) tailAndPublishKeys() {
	k.TailDetail = key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "record detail"))
	k.TailPause = key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "pause / resume"))
	k.TailFormat = key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "view text/json/hex/decoded"))
	k.TailJump = key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "jump to offset or time"))
	k.TailSave = key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "save buffer (JSON lines)"))
	k.TailCopy = key.NewBinding(key.WithKeys("c", "y"), key.WithHelp("c", "copy value, key, hdrs"))
	k.TailRestart = key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "reopen the tail"))
	k.TailStop = key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "close the tail"))
	k.TailFollow = key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G", "newest + follow"))
	k.TailSearch = key.NewBinding(key.WithKeys("S"), key.WithHelp("S", "search beyond the buffer (x cancels)"))
	k.TailPrev = key.NewBinding(key.WithKeys("["), key.WithHelp("[", "previous tail (several kept)"))
	k.TailNext = key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "next tail"))

	k.PublishSend = key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "review and send"))
	k.PublishConfirm = key.NewBinding(key.WithKeys("enter", "y"), key.WithHelp("enter/y", "send"))
	k.PublishEdit = key.NewBinding(key.WithKeys("e", "enter"), key.WithHelp("e", "open the form"))
	k.PublishLeave = key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "leave the form"))
	k.PublishStop = key.NewBinding(key.WithKeys("ctrl+x", "x"), key.WithHelp("ctrl+x", "stop publishing (x when not editing)"))
}

// ReadOnlyWhy says why a mutating binding does nothing in a read-only
// context, for the flash a refused key shows: "read-only: publishing is
// off", "read-only: D does nothing (deleting is off)".
func (k *KeyMap) ReadOnlyWhy(b key.Binding) string {
	h := b.Help()
	what := "changing the cluster"
	for _, w := range []struct {
		what string
		bs   []key.Binding
	}{
		{"publishing", []key.Binding{k.Publish, k.PublishSend, k.PublishConfirm}},
		{"creating topics", []key.Binding{k.CreateTopic}},
		{"deleting", []key.Binding{k.DeleteTopic, k.DeleteGroup, k.RemoveNode}},
		{"flushing", []key.Binding{k.FlushTopic}},
		{"moving offsets", []key.Binding{k.Seek}},
		{"editing", []key.Binding{k.EditCluster, k.TopicAlter}},
		{"adding nodes", []key.Binding{k.AddNode}},
		{"moving leaders", []key.Binding{k.Rebalance, k.MoveLeader}},
		{"changing queues", []key.Binding{k.QueuePut, k.QueueTake, k.QueueMove, k.Reinject}},
	} {
		for _, x := range w.bs {
			if x.Help() == h {
				what = w.what
			}
		}
	}
	if what == "publishing" {
		return "read-only: publishing is off"
	}
	return "read-only: " + h.Key + " does nothing (" + what + " is off)"
}

// Refuse is the flash of a key that does not apply where it was pressed,
// saying why ("open a queue first"): no key does nothing silently.
func Refuse(why string) tea.Cmd { return Flash(LevelWarn, why) }

// Letters returns the letters a binding of the map uses on its own ("G",
// "S", "D", …): a table's shift+letter sort skips them, so a letter never
// both sorts and acts.
func (k *KeyMap) Letters() map[rune]bool {
	out := map[rune]bool{}
	v := reflect.ValueOf(k).Elem()
	add := func(b key.Binding) {
		for _, s := range b.Keys() {
			if r := []rune(s); len(r) == 1 && r[0] >= 'A' && r[0] <= 'Z' {
				out[r[0]] = true
			}
		}
	}
	for i := 0; i < v.NumField(); i++ {
		switch f := v.Field(i).Interface().(type) {
		case key.Binding:
			add(f)
		case []key.Binding:
			for _, b := range f {
				add(b)
			}
		}
	}
	return out
}

// Mutating returns the bindings of actions that change the cluster.
func (k *KeyMap) Mutating() []*key.Binding {
	return []*key.Binding{
		&k.Publish, &k.CreateTopic, &k.DeleteTopic, &k.FlushTopic,
		&k.Seek, &k.DeleteGroup, &k.EditCluster, &k.AddNode, &k.RemoveNode, &k.Resend,
		&k.Rebalance, &k.MoveLeader, &k.TopicAlter, &k.QueuePut, &k.QueueTake, &k.QueueMove, &k.Reinject,
		&k.PublishSend, &k.PublishConfirm,
	}
}

// GlobalHelp is the help column of keys that work everywhere.
func (k *KeyMap) GlobalHelp() []key.Binding {
	return []key.Binding{k.Help, k.Command, k.NextTab, k.PrevTab, k.TabsHelp, k.Fleet, k.Back, k.Refresh, k.Redraw, k.Quit, k.ForceQuit}
}

// TableHelp is the help column of table navigation keys.
func (k *KeyMap) TableHelp() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.HalfUp, k.HalfDown, k.Top, k.Bottom, k.Filter, k.Sort, k.Reverse, k.SortBy}
}
