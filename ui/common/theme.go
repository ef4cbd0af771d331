package common

import (
	"image/color"
	"strings"

	"charm.land/lipgloss/v2"
)

// Theme holds the semantic colours of the dashboard, nothing else. Styles
// are derived from it by NewStyles; no component defines its own colours.
type Theme struct {
	Dark bool

	Text    color.Color // body text
	Muted   color.Color // secondary text: labels, units, hints
	Faint   color.Color // tertiary: separators, empty sparkline cells
	Accent  color.Color // active tab, titles, keys in help
	Accent2 color.Color // secondary accent: sparklines, sort marks
	Success color.Color // OK, leader, running
	Warning color.Color // LAGGING, syncing, under-replicated
	Error   color.Color // STALLED, DEAD, down, errors
	Info    color.Color // REBALANCING, notices

	SelectedFg color.Color // cursor row
	SelectedBg color.Color
	BarFg      color.Color // tab and status bars
	BarBg      color.Color
	DemoBg     color.Color // DEMO badge
	ROBg       color.Color // RO badge
	BadgeFg    color.Color
}

// DarkTheme is the palette for dark terminal backgrounds.
func DarkTheme() Theme {
	return Theme{
		Dark:       true,
		Text:       lipgloss.Color("#D8DEE9"),
		Muted:      lipgloss.Color("#8F9BB3"),
		Faint:      lipgloss.Color("#4C566A"),
		Accent:     lipgloss.Color("#88C0D0"),
		Accent2:    lipgloss.Color("#B48EAD"),
		Success:    lipgloss.Color("#A3BE8C"),
		Warning:    lipgloss.Color("#EBCB8B"),
		Error:      lipgloss.Color("#BF616A"),
		Info:       lipgloss.Color("#81A1C1"),
		SelectedFg: lipgloss.Color("#ECEFF4"),
		SelectedBg: lipgloss.Color("#3B4252"),
		BarFg:      lipgloss.Color("#D8DEE9"),
		BarBg:      lipgloss.Color("#2E3440"),
		DemoBg:     lipgloss.Color("#B48EAD"),
		ROBg:       lipgloss.Color("#D08770"),
		BadgeFg:    lipgloss.Color("#2E3440"),
	}
}

// LightTheme is the palette for light terminal backgrounds.
func LightTheme() Theme {
	return Theme{
		Dark:       false,
		Text:       lipgloss.Color("#2E3440"),
		Muted:      lipgloss.Color("#5E6779"),
		Faint:      lipgloss.Color("#A0A8B8"),
		Accent:     lipgloss.Color("#1F6F8B"),
		Accent2:    lipgloss.Color("#7B4F96"),
		Success:    lipgloss.Color("#2F7D32"),
		Warning:    lipgloss.Color("#9A6700"),
		Error:      lipgloss.Color("#B42318"),
		Info:       lipgloss.Color("#1D4ED8"),
		SelectedFg: lipgloss.Color("#1B1F27"),
		SelectedBg: lipgloss.Color("#D8DEE9"),
		BarFg:      lipgloss.Color("#2E3440"),
		BarBg:      lipgloss.Color("#E5E9F0"),
		DemoBg:     lipgloss.Color("#7B4F96"),
		ROBg:       lipgloss.Color("#C2410C"),
		BadgeFg:    lipgloss.Color("#FFFFFF"),
	}
}

// ANSITheme is the palette for a 16-colour terminal (TERM=linux, a
// serial console): the sixteen colours by number, which such a terminal
// draws in its own palette. Downsampled, the hex themes lose their
// distinctions (muted, faint and the bar all become the same grey or
// black), so these are chosen, not converted.
func ANSITheme(dark bool) Theme {
	c := func(n string) color.Color { return lipgloss.Color(n) }
	t := Theme{
		Dark:    dark,
		Text:    c("7"),
		Muted:   c("8"),
		Faint:   c("8"),
		Accent:  c("6"),
		Accent2: c("5"),
		Success: c("2"),
		Warning: c("3"),
		Error:   c("1"),
		Info:    c("4"),

		SelectedFg: c("0"),
		SelectedBg: c("6"),
		BarFg:      c("0"),
		BarBg:      c("7"),
		DemoBg:     c("5"),
		ROBg:       c("3"),
		BadgeFg:    c("0"),
	}
	if dark {
		t.Text, t.Accent, t.Success, t.Warning, t.Error = c("15"), c("14"), c("10"), c("11"), c("9")
	} else {
		t.Text, t.BarFg, t.BarBg = c("0"), c("15"), c("4")
	}
	return t
}

// ColorMode says how much styling the terminal gets.
type ColorMode int

const (
	// FullColor uses the theme's colours (the renderer downsamples them to
	// what the terminal supports).
	FullColor ColorMode = iota
	// NoColor is for NO_COLOR: no colour at all, structure carried by bold,
	// faint, underline and reverse video.
	NoColor
	// Plain emits no escape sequence at all; golden tests use it.
	Plain
	// Dumb is for a terminal that shows no attribute at all (TERM=dumb:
	// the renderer strips every SGR): no escape sequence, and what
	// reverse video would show is marked in text instead (the cursor row
	// starts with '>', the active tab is bracketed).
	Dumb
)

// Textual reports whether the styles carry nothing, so that marks must be
// drawn as text.
func (s *Styles) Textual() bool { return s.Mode == Plain || s.Mode == Dumb }

// CursorRow paints the row under a cursor, w cells wide: reverse video,
// or in Dumb mode a leading '>' (the row loses its last cell).
func (s *Styles) CursorRow(line string, w int) string {
	if s.Mode == Dumb {
		return ">" + PadStyled(ClipStyled(line, max(w-1, 0)), max(w-1, 0))
	}
	return s.Selected.Render(PadStyled(line, w))
}

// ForLevel is the style of a message of level l: OK, Warn or Err for
// theirs, Info for LevelInfo.
func (s *Styles) ForLevel(l Level) Style {
	switch l {
	case LevelOK:
		return s.OK
	case LevelWarn:
		return s.Warn
	case LevelError:
		return s.Err
	}
	return s.Info
}

// Style is a lipgloss style reduced to the SGR prefix and suffix it renders
// around a single-line string, so painting a table cell is two string
// concatenations instead of a lipgloss render. Only inline attributes
// (colours, bold, faint, italic, underline, reverse) survive the reduction;
// that is all the dashboard uses for cells.
type Style struct {
	pre, post string
}

// NewStyle reduces a lipgloss style.
func NewStyle(l lipgloss.Style) Style {
	r := l.Render("x")
	i := strings.IndexByte(r, 'x')
	if i < 0 {
		return Style{}
	}
	return Style{pre: r[:i], post: r[i+1:]}
}

// Render paints a single-line string.
func (s Style) Render(str string) string {
	if s.pre == "" || str == "" {
		return str
	}
	return s.pre + str + s.post
}

// Styles is every style the dashboard draws with, built once from a Theme
// and a ColorMode and shared through Context. Nothing else defines styles.
type Styles struct {
	Mode ColorMode

	Text, Muted, Faint, Bold, Title, Accent, Accent2 Style

	OK, Warn, Err, Info Style // semantic words: health, states, alerts

	TabActive, TabInactive, TabBar Style
	BadgeDemo, BadgeRO             Style

	Header, SortMark, Selected, Filter Style
	// SortKey marks a column title's shift+letter (underlined).
	SortKey Style

	StatusBar, StatusErr, StatusWarn, StatusOK, StatusMuted Style

	HelpKey, HelpDesc, HelpTitle Style

	Spark, SparkOut Style

	DialogBorder, DialogTitle, DialogDanger, DialogKey, DialogFocus, DialogLabel Style
}

// NewStyles builds the styles of a theme in a colour mode.
func NewStyles(t Theme, mode ColorMode) *Styles {
	s := &Styles{Mode: mode}
	n := lipgloss.NewStyle
	switch mode {
	case Plain, Dumb:
		return s // every Style zero: no escape sequences at all
	case NoColor:
		bold := NewStyle(n().Bold(true))
		rev := NewStyle(n().Reverse(true))
		faint := NewStyle(n().Faint(true))
		under := NewStyle(n().Underline(true))
		s.Bold, s.Title, s.Accent = bold, bold, bold
		s.Muted, s.Faint = faint, faint
		s.Err, s.Warn = bold, NewStyle(n().Underline(true))
		s.TabActive, s.BadgeDemo, s.BadgeRO = NewStyle(n().Reverse(true).Bold(true)), rev, rev
		s.Header, s.SortMark = under, bold
		s.SortKey = NewStyle(n().Underline(true).Bold(true))
		s.Selected = rev
		s.Filter = bold
		s.StatusErr, s.StatusWarn = bold, under
		s.StatusMuted = faint
		s.HelpKey, s.HelpTitle = bold, under
		s.DialogTitle, s.DialogDanger, s.DialogKey, s.DialogFocus = bold, NewStyle(n().Bold(true).Underline(true)), bold, rev
		s.DialogLabel = faint
		return s
	}
	fg := func(c color.Color) Style { return NewStyle(n().Foreground(c)) }
	s.Text = fg(t.Text)
	s.Muted = fg(t.Muted)
	s.Faint = fg(t.Faint)
	s.Bold = NewStyle(n().Bold(true).Foreground(t.Text))
	s.Title = NewStyle(n().Bold(true).Foreground(t.Accent))
	s.Accent = fg(t.Accent)
	s.Accent2 = fg(t.Accent2)
	s.OK = fg(t.Success)
	s.Warn = NewStyle(n().Bold(true).Foreground(t.Warning))
	s.Err = NewStyle(n().Bold(true).Foreground(t.Error))
	s.Info = fg(t.Info)
	s.TabActive = NewStyle(n().Bold(true).Foreground(t.BadgeFg).Background(t.Accent))
	s.TabInactive = NewStyle(n().Foreground(t.Muted).Background(t.BarBg))
	s.TabBar = NewStyle(n().Foreground(t.BarFg).Background(t.BarBg))
	s.BadgeDemo = NewStyle(n().Bold(true).Foreground(t.BadgeFg).Background(t.DemoBg))
	s.BadgeRO = NewStyle(n().Bold(true).Foreground(t.BadgeFg).Background(t.ROBg))
	s.Header = NewStyle(n().Bold(true).Foreground(t.Muted))
	s.SortMark = fg(t.Accent2)
	s.SortKey = NewStyle(n().Bold(true).Underline(true).Foreground(t.Muted))
	s.Selected = NewStyle(n().Bold(true).Foreground(t.SelectedFg).Background(t.SelectedBg))
	s.Filter = fg(t.Accent)
	s.StatusBar = NewStyle(n().Foreground(t.BarFg).Background(t.BarBg))
	s.StatusErr = NewStyle(n().Bold(true).Foreground(t.Error).Background(t.BarBg))
	s.StatusWarn = NewStyle(n().Foreground(t.Warning).Background(t.BarBg))
	s.StatusOK = NewStyle(n().Foreground(t.Success).Background(t.BarBg))
	s.StatusMuted = NewStyle(n().Foreground(t.Muted).Background(t.BarBg))
	s.HelpKey = NewStyle(n().Bold(true).Foreground(t.Accent))
	s.HelpDesc = fg(t.Text)
	s.HelpTitle = NewStyle(n().Bold(true).Underline(true).Foreground(t.Accent2))
	s.Spark = fg(t.Accent)
	s.SparkOut = fg(t.Accent2)
	s.DialogBorder = fg(t.Accent)
	s.DialogTitle = NewStyle(n().Bold(true).Foreground(t.Accent))
	s.DialogDanger = NewStyle(n().Bold(true).Foreground(t.Error))
	s.DialogKey = NewStyle(n().Bold(true).Foreground(t.Accent2))
	s.DialogFocus = NewStyle(n().Foreground(t.SelectedFg).Background(t.SelectedBg))
	s.DialogLabel = fg(t.Muted)
	return s
}
