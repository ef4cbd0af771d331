package ui

import (
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"ilinkdash/ilink/admin"
	"ilinkdash/ui/common"
	"ilinkdash/ui/sanitize"
)

// The `:` command line (k9s habit). Commands:
//
//	:overview :topics :groups :cluster :queues   switch tab (also :ov :tp :g :cl :qu)
//	:tail PATTERN                                 open the tail on a topic or pattern
//	:publish [TOPIC]                              open the publish form (not read-only)
//	:ctx [NAME]                                   switch context (list them without NAME)
//	:refresh  :help  :q  :quit                    refresh now, help, quit
//
// Tab completes the command, then topic names (tail, publish) or context
// names (ctx), and cycles through the matches shown. ↑/↓ walk the history
// of the commands run (kept across runs, see history.go); they stop at
// its ends and never wrap, and the quit commands are not kept, so ↑ then
// enter never quits.

type command struct {
	name    string
	aliases []string
	arg     string // "", "PATTERN", "[TOPIC]", "[NAME]"
}

var commands = []command{
	{name: "overview", aliases: []string{"ov", "o"}},
	{name: "topics", aliases: []string{"topic", "tp", "t"}},
	{name: "groups", aliases: []string{"group", "cg", "g"}},
	{name: "cluster", aliases: []string{"cl", "c"}},
	{name: "queues", aliases: []string{"queue", "qu"}},
	{name: "tail", arg: "PATTERN"},
	{name: "publish", arg: "[TOPIC]"},
	{name: "ctx", aliases: []string{"context"}, arg: "[NAME]"},
	{name: "refresh"},
	{name: "help"},
	{name: "quit", aliases: []string{"q", "q!", "exit"}},
}

func (m *Model) openCmd() {
	m.cmdOpen = true
	m.cmd.Reset()
	m.cmd.Focus()
	m.hist.reset()
	m.updateCompletion()
}

func (m *Model) closeCmd() {
	m.cmdOpen = false
	m.cmd.Blur()
	m.cmdMatch = nil
}

// completions returns the candidates for the current text.
func (m *Model) completions(text string) []string {
	if i := strings.IndexByte(text, ' '); i >= 0 {
		verb, arg := text[:i], strings.TrimLeft(text[i+1:], " ")
		var pool []string
		switch verb {
		case "tail", "publish":
			pool = m.topicNames
		case "ctx", "context":
			pool = m.ctx.Contexts
		}
		var out []string
		for _, p := range pool {
			if strings.HasPrefix(strings.ToLower(p), strings.ToLower(arg)) {
				out = append(out, verb+" "+p)
			}
			if len(out) >= 50 {
				break
			}
		}
		return out
	}
	var out []string
	for _, c := range commands {
		if c.name == "publish" && m.ctx.ReadOnly {
			continue
		}
		if strings.HasPrefix(c.name, text) {
			out = append(out, c.name)
		}
	}
	return out
}

func (m *Model) updateCompletion() {
	m.cmdMatch = m.completions(m.cmd.Value())
	m.cmdSel = 0
}

func commonPrefix(xs []string) string {
	if len(xs) == 0 {
		return ""
	}
	p := xs[0]
	for _, x := range xs[1:] {
		for !strings.HasPrefix(x, p) {
			p = p[:len(p)-1]
		}
	}
	return p
}

func (m *Model) cmdKey(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "esc", "ctrl+g":
		m.closeCmd()
		return nil
	case "enter":
		text := strings.TrimSpace(m.cmd.Value())
		m.closeCmd()
		return tea.Batch(m.runCommand(text), m.hist.add(text))
	case "tab":
		if len(m.cmdMatch) == 0 {
			return nil
		}
		val := m.cmd.Value()
		lcp := commonPrefix(m.cmdMatch)
		var next string
		switch {
		case len(m.cmdMatch) == 1:
			next = m.cmdMatch[0]
		case len(lcp) > len(val):
			next = lcp
		default:
			next = m.cmdMatch[m.cmdSel%len(m.cmdMatch)]
			m.cmdSel++
			m.cmd.SetValue(next)
			return nil
		}
		if c := findCommand(next); c != nil && c.arg != "" && !strings.Contains(next, " ") {
			next += " "
		}
		m.cmd.SetValue(next)
		m.updateCompletion()
		return nil
	case "up", "ctrl+p":
		if line, ok := m.hist.older(m.cmd.Value()); ok {
			m.cmd.SetValue(line)
			m.updateCompletion()
		}
		return nil
	case "down", "ctrl+n":
		if line, ok := m.hist.newer(); ok {
			m.cmd.SetValue(line)
			m.updateCompletion()
		}
		return nil
	}
	if m.cmd.Update(msg) {
		m.updateCompletion()
	}
	return nil
}

func findCommand(name string) *command {
	for i, c := range commands {
		if c.name == name || slices.Contains(c.aliases, name) {
			return &commands[i]
		}
	}
	return nil
}

// runCommand executes a command line.
func (m *Model) runCommand(text string) tea.Cmd {
	if text == "" {
		return nil
	}
	verb, arg, _ := strings.Cut(text, " ")
	arg = strings.TrimSpace(arg)
	c := findCommand(verb)
	if c == nil {
		m.setFlash(common.LevelError, "unknown command :"+sanitize.String(verb)+" (try :help)")
		return nil
	}
	switch c.name {
	case "overview":
		return m.setActive(common.ViewOverview)
	case "topics":
		return m.setActive(common.ViewTopics)
	case "groups":
		return m.setActive(common.ViewGroups)
	case "cluster":
		return m.setActive(common.ViewCluster)
	case "queues":
		return m.setActive(common.ViewQueues)
	case "tail":
		if arg == "" {
			m.setFlash(common.LevelError, "usage: :tail PATTERN (a topic name or a pattern such as ORDER.*)")
			return nil
		}
		return common.Send(common.OpenTailMsg{Pattern: arg})
	case "publish":
		return common.Send(common.OpenPublishMsg{Topic: arg})
	case "ctx":
		if arg == "" {
			names := make([]string, len(m.ctx.Contexts))
			for i, n := range m.ctx.Contexts {
				names[i] = sanitize.String(n)
			}
			if len(names) == 0 {
				m.setFlash(common.LevelInfo, "context "+sanitize.String(m.ctx.Name)+" (no other context configured)")
			} else {
				m.setFlash(common.LevelInfo, "contexts: "+strings.Join(names, ", ")+" (current: "+sanitize.String(m.ctx.Name)+")")
			}
			return nil
		}
		return m.switchContext(arg)
	case "refresh":
		return m.refreshActive()
	case "help":
		m.helpOpen, m.helpScroll = true, 0
		return nil
	case "quit":
		return m.quit()
	}
	return nil
}

func topicNamesOf(data any) []string {
	ts, ok := data.([]admin.TopicInfo)
	if !ok {
		return nil
	}
	names := make([]string, 0, len(ts))
	for _, t := range ts {
		names = append(names, t.Name)
	}
	slices.Sort(names)
	return names
}
