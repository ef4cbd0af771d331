package ui

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
)

// maxHistory bounds the `:` history, in memory and in its file.
const maxHistory = 200

// history is the command line's history: oldest first, without
// consecutive repeats and without the quit commands (↑ then enter must
// never quit). It is kept across runs in a file (the XDG state dir, see
// config.HistoryFile), read and written in commands.
type history struct {
	path  string
	lines []string
	pos   int    // while browsing: index into lines; len(lines) = not browsing
	draft string // what was typed before browsing

	mu    sync.Mutex // orders the writes of concurrent save commands
	saved uint64
	seq   uint64
}

// historyLoadedMsg carries the file's lines to the model.
type historyLoadedMsg struct{ lines []string }

func newHistory(path string) *history { return &history{path: path} }

// load reads the file (missing or unreadable: no history).
func (h *history) load() tea.Cmd {
	if h.path == "" {
		return nil
	}
	path := h.path
	return func() tea.Msg {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		var lines []string
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			if l := strings.TrimSpace(sc.Text()); l != "" && keepInHistory(l) {
				lines = append(lines, l)
			}
		}
		return historyLoadedMsg{lines: lines}
	}
}

// loaded puts the file's lines before what was entered meanwhile.
func (h *history) loaded(lines []string) {
	h.lines = bound(append(lines, h.lines...))
	h.pos = len(h.lines)
}

func bound(lines []string) []string {
	out := lines[:0]
	for _, l := range lines {
		if len(out) == 0 || out[len(out)-1] != l {
			out = append(out, l)
		}
	}
	if len(out) > maxHistory {
		out = out[len(out)-maxHistory:]
	}
	return out
}

// keepInHistory leaves out what must not come back by ↑ and enter.
func keepInHistory(line string) bool {
	verb, _, _ := strings.Cut(line, " ")
	c := findCommand(verb)
	return c != nil && c.name != "quit"
}

// add records a command line that ran and returns the save.
func (h *history) add(line string) tea.Cmd {
	h.pos = len(h.lines)
	if line == "" || !keepInHistory(line) {
		return nil
	}
	h.lines = bound(append(h.lines, line))
	h.pos = len(h.lines)
	return h.save()
}

func (h *history) save() tea.Cmd {
	if h.path == "" {
		return nil
	}
	h.seq++
	seq, path, data := h.seq, h.path, strings.Join(h.lines, "\n")+"\n"
	return func() tea.Msg {
		h.mu.Lock()
		defer h.mu.Unlock()
		if seq <= h.saved {
			return nil // a newer snapshot is already on disk
		}
		h.saved = seq
		_ = writeFileAtomic(path, []byte(data))
		return nil
	}
}

func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".history-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// reset ends browsing (the command line opened or closed).
func (h *history) reset() { h.pos, h.draft = len(h.lines), "" }

// older returns the previous line (↑); at the oldest it stays there: the
// history never wraps around.
func (h *history) older(current string) (string, bool) {
	if len(h.lines) == 0 || h.pos == 0 {
		return "", false
	}
	if h.pos == len(h.lines) {
		h.draft = current
	}
	h.pos--
	return h.lines[h.pos], true
}

// newer returns the next line (↓), and the draft after the newest.
func (h *history) newer() (string, bool) {
	if h.pos >= len(h.lines) {
		return "", false
	}
	h.pos++
	if h.pos == len(h.lines) {
		return h.draft, true
	}
	return h.lines[h.pos], true
}

// Lines returns the history, oldest first (tests).
func (h *history) Lines() []string { return slices.Clone(h.lines) }
