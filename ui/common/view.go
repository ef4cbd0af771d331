package common

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// View is one tab, as the root model drives it (soft-serve's component
// contract). Views are pointers and mutate in Update; they never block.
type View interface {
	ID() ViewID
	// Title is the tab label.
	Title() string
	Init() tea.Cmd
	// SetSize gives the body area the view renders into.
	SetSize(w, h int)
	// Update handles a message and returns follow-up commands. The root
	// sends every DataMsg and PollErrMsg to every view, ViewMsgs to their
	// addressee, and keys and mouse events to the active view only (mouse
	// Y is relative to the view's first line).
	Update(msg tea.Msg) tea.Cmd
	// View renders the body: at most h lines, none wider than w.
	View() string
	// FullHelp returns this view's help columns for the `?` overlay;
	// disabled (read-only) bindings are left out by the help renderer.
	FullHelp() [][]key.Binding
	// ShortHelp returns the few keys shown on the hint line.
	ShortHelp() []key.Binding
	// Capturing reports that a text input or a dialog has focus: the root
	// then sends every key (but ctrl+c) to the view.
	Capturing() bool
	// Back handles esc when nothing captures it (leave a detail, clear a
	// filter) and reports whether it did anything.
	Back() bool
	// Wants lists the on-demand resources the view needs while active.
	Wants() []ResID
	// Primary is the resource whose age the status bar shows for the view.
	Primary() ResID
	// Status is a short, already sanitized, description of where the view
	// is (a selected topic, rows shown, sort order) for the status bar.
	Status() string
}

// Focuser is implemented by views that act when they become the active tab
// or stop being it (the tail closes its stream when left). The root calls
// Blur on the view it leaves, then Focus on the one it shows.
type Focuser interface {
	Focus() tea.Cmd
	Blur() tea.Cmd
}

// Closer is implemented by views that hold resources beyond the program's
// polling (the tail's stream, the publish run). The root calls Shutdown
// when it quits or rebuilds its views after :ctx; Shutdown must not block.
type Closer interface {
	Shutdown()
}

// HelpTitler optionally names the columns of a view's FullHelp in the `?`
// overlay (default: "Navigation" for the first of several, then the view's
// title).
type HelpTitler interface {
	HelpTitles() []string
}
