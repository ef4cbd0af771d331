// Package common holds what the dashboard's root model, components and
// views share: the program Context (size, configuration, styles, keys,
// clock), the message types that carry asynchronous results to their owner,
// the key map, the theme, and text helpers. It imports no view.
package common

import (
	"ilinkdash/ilink/schema"

	"time"

	tea "charm.land/bubbletea/v2"

	"ilinkdash/config"
)

// Context is the one value every part of the dashboard shares (gh-dash's
// ProgramContext, soft-serve's Common). The root model owns it; views keep
// the pointer and read it when they render, so a resize or a theme change
// reaches everyone without being passed around.
type Context struct {
	// Width and Height are the terminal size in cells.
	Width, Height int

	// Config is the effective context configuration (refresh intervals,
	// theme, tail buffer...).
	Config config.Context
	// Name is the context name shown in the status bar.
	Name string
	// Contexts are the names :ctx completes.
	Contexts []string
	// ReadOnly hides every mutating action (the client layer refuses them
	// anyway; the dashboard just does not offer them).
	ReadOnly bool
	// Demo marks the embedded demo engine (DEMO badge).
	Demo bool
	// Target is where the dashboard connects (the admin address list), as
	// "connecting to …" and "cannot reach …" name it.
	Target string

	// Now is the clock; tests fix it.
	Now func() time.Time
	// Tick arms a timer (tea.Tick in production). Tests replace it to run
	// polling by hand.
	Tick func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd

	// ThemeName is config.ThemeAuto, ThemeDark or ThemeLight; Dark is the
	// resolved background (auto starts dark until the terminal answers).
	ThemeName string
	Dark      bool
	Mode      ColorMode
	// ANSI16 is set when the terminal has only the sixteen ANSI colours
	// (TERM=linux): Rebuild then takes ANSITheme.
	ANSI16 bool
	Styles *Styles
	Keys   *KeyMap

	// Pace is the bandwidth budget (Config.LowBandwidth, and the slow
	// terminal detector the root sets).
	Pace Pace

	// Schemas say how records of a topic and messages of a queue are
	// decoded (the context's decode: rules, the command line's one-off
	// schema, the demo's built-in ones); nil decodes nothing.
	Schemas *schema.Set

	// History is the recorded lag history the charts read (nil: none, the
	// charts say so); HistorySpan is the span chosen, an index of
	// HistorySpans (the ChartSpan key cycles it; the group detail and the
	// Overview share it).
	History     History
	HistorySpan int

	// Fleet: this dashboard is one of several clusters watched at once
	// (ui.Fleet); KeyMap.Fleet then returns to the Fleet tab.
	Fleet bool
}

// ContextName is the name the dashboard shows for cfg (and keys its lag
// history by): its own, else "demo" on the embedded engine, else
// "default".
func ContextName(cfg config.Context, demo bool) string {
	switch {
	case cfg.Name != "":
		return cfg.Name
	case demo:
		return "demo"
	}
	return "default"
}

// NewContext builds a Context from the effective configuration. getenv is
// used for NO_COLOR only (pass os.Getenv). demo marks the embedded engine.
func NewContext(cfg config.Context, demo bool, getenv func(string) string) *Context {
	c := &Context{
		Width:     80,
		Height:    24,
		Config:    cfg,
		Name:      ContextName(cfg, demo),
		ReadOnly:  cfg.ReadOnly,
		Demo:      demo,
		Now:       time.Now,
		Tick:      tea.Tick,
		ThemeName: cfg.Theme,
		Dark:      cfg.Theme != config.ThemeLight,
		Target:    cfg.Admin,
		Pace:      Pace{LowBandwidth: cfg.LowBandwidth},

		HistorySpan: 1, // 1 h
	}
	if getenv != nil && getenv("NO_COLOR") != "" {
		c.Mode = NoColor
	}
	c.Rebuild()
	return c
}

// Rebuild recomputes Styles and Keys after Dark, Mode or ReadOnly changed.
func (c *Context) Rebuild() {
	t := DarkTheme()
	switch {
	case c.ANSI16:
		t = ANSITheme(c.Dark)
	case !c.Dark:
		t = LightTheme()
	}
	c.Styles = NewStyles(t, c.Mode)
	c.Keys = NewKeyMap(c.ReadOnly)
	c.Keys.Fleet.SetEnabled(c.Fleet)
}

// StaleAfter is the age past which a resource's data is marked stale:
// three polling intervals.
func (c *Context) StaleAfter(r ResID) time.Duration { return 3 * c.Interval(r) }

// Interval returns the polling interval of a resource from the context's
// refresh settings, with the defaults for anything unset.
func (c *Context) Interval(r ResID) time.Duration {
	if r < 0 || r >= NumRes || resources[r].every == nil {
		return 2 * time.Second
	}
	if v := resources[r].every(c.Config.Refresh); v > 0 {
		return v
	}
	return resources[r].every(config.DefaultRefresh())
}
