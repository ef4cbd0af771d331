package ui

import (
	"errors"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"

	"ilinkdash/ilink/admin"
	lagfile "ilinkdash/ilink/admin/history"
	"ilinkdash/ui/common"
	"ilinkdash/ui/sanitize"
	"ilinkdash/ui/views/tab"
)

// LagOpener opens the lag history of a context (by its name): the store,
// a warning (a file set aside), or why there is none.
type LagOpener func(context string) (*lagfile.Store, error, error)

// WithLagHistoryOpener lets `:ctx NAME` move to NAME's history: the old
// one is closed and the new one opened in a command, then recorded into
// and read. Without it a switch detaches the history. The caller closes
// what it opened after the program (Store.Close is idempotent).
func WithLagHistoryOpener(open LagOpener) Option { return func(m *Model) { m.lagOpen = open } }

// lagOpenedMsg is a context's history opened after a switch.
type lagOpenedMsg struct {
	context   string
	st        *lagfile.Store
	warn, err error
}

// switchLag detaches the history of the context left and, with an opener,
// opens the new context's in a command.
func (m *Model) switchLag(context string) tea.Cmd {
	old := m.lag
	m.lag, m.ctx.History = nil, nil
	open := m.lagOpen
	if open == nil {
		return nil
	}
	return func() tea.Msg {
		if old != nil && !old.shared {
			_ = old.st.Close()
		}
		st, warn, err := open(context)
		return lagOpenedMsg{context: context, st: st, warn: warn, err: err}
	}
}

// lagOpened attaches a switched-to context's history, unless another
// switch came after it.
func (m *Model) lagOpened(msg lagOpenedMsg) tea.Cmd {
	if msg.context != m.ctx.Name || m.switching != "" {
		if msg.st != nil {
			return func() tea.Msg { _ = msg.st.Close(); return nil }
		}
		return nil
	}
	switch {
	case msg.err != nil:
		m.setFlash(common.LevelWarn, "no lag history for "+sanitize.String(msg.context)+": "+sanitize.Error(msg.err))
	case msg.warn != nil:
		m.setFlash(common.LevelWarn, sanitize.Error(msg.warn))
	}
	if msg.st != nil {
		m.lag = &lagHistory{st: msg.st}
		m.ctx.History = m.lag
	}
	return nil
}

// WithLagHistory records every poll into st and lets the charts read it
// (the group detail's lag, the Overview's in/out); warn (the file set
// aside at Open, or why there is no history: st nil) is said on the hint
// line at the start. The
// caller closes st after the program. A `:ctx` switch detaches it (the
// file is the first context's), or, with WithLagHistoryOpener, moves to
// the new context's.
func WithLagHistory(st *lagfile.Store, warn error) Option {
	return func(m *Model) {
		if warn != nil {
			m.setFlash(common.LevelWarn, sanitize.Error(warn))
		}
		if st != nil {
			m.lag = &lagHistory{st: st}
			m.ctx.History = m.lag
		}
	}
}

// WithSharedLagHistory lets the charts read st, which another records
// into: serve's sessions, whose context's history one watcher over the
// shared poller records (one writer however many sessions watch). The
// root neither records into st nor closes it. nil: no history.
func WithSharedLagHistory(st *lagfile.Store) Option {
	return func(m *Model) {
		if st != nil {
			m.lag = &lagHistory{st: st, shared: true}
			m.ctx.History = m.lag
		}
	}
}

// lagHistory is the history as the views read it (common.History) and
// as the root records into it.
type lagHistory struct {
	st     *lagfile.Store
	shared bool        // WithSharedLagHistory: read only, never closed here
	warned atomic.Bool // a write error was said once
}

func points(pts []lagfile.Point) []common.HistPoint {
	out := make([]common.HistPoint, len(pts))
	for i, p := range pts {
		out[i] = common.HistPoint{At: p.At, V: p.V}
	}
	return out
}

// GroupLag implements common.History.
func (h *lagHistory) GroupLag(group string, span time.Duration) ([]common.HistPoint, error) {
	pts, err := h.st.Query(lagfile.GroupLag(group), span)
	return points(pts), err
}

// ClusterInOut implements common.History.
func (h *lagHistory) ClusterInOut(span time.Duration) (in, out []common.HistPoint, err error) {
	pi, err := h.st.Query(lagfile.ClusterIn(), span)
	if err != nil {
		return nil, nil, err
	}
	po, err := h.st.Query(lagfile.ClusterOut(), span)
	return points(pi), points(po), err
}

// Step implements common.History.
func (h *lagHistory) Step(span time.Duration) time.Duration { return h.st.Step(span) }

// samples are what a polled list adds to the history: the groups' lag
// and commit rate as the one tracker judged them (it has taken the list
// in), the topics' and the cluster's rates, the queues' depths.
func samples(msg common.DataMsg, tracker *tab.HealthTracker) []lagfile.Sample {
	switch d := msg.Data.(type) {
	case []admin.GroupInfo:
		var out []lagfile.Sample
		for _, r := range tracker.Groups() {
			out = lagfile.GroupSample(out, &r.St)
		}
		return out
	case []admin.TopicInfo:
		return lagfile.TopicSamples(nil, d)
	case []admin.QueueInfo:
		return lagfile.QueueSamples(nil, d)
	}
	return nil
}

// record writes a poll's samples in a command (the file is I/O); the
// first failure is said on the hint line, the rest are not.
func (h *lagHistory) record(msg common.DataMsg, tracker *tab.HealthTracker) tea.Cmd {
	if h.shared {
		return nil
	}
	ss := samples(msg, tracker)
	if len(ss) == 0 {
		return nil
	}
	at := msg.At
	return func() tea.Msg {
		// A store closed by a :ctx switch while this write waited says
		// nothing: the context it belonged to is gone.
		if err := h.st.Record(at, ss); err != nil && !errors.Is(err, lagfile.ErrClosed) && !h.warned.Swap(true) {
			return common.FlashMsg{Level: common.LevelWarn, Text: "lag history: " + sanitize.Error(err)}
		}
		return nil
	}
}
