package cli

import (
	"ilinkdash/config"
	"ilinkdash/ilink/admin/history"
	"ilinkdash/ui"
)

// lagKeeper is the lag history a headless command (exporter, serve) keeps
// of one context: the dashboard's file of that context (lagOpener), fed
// every snapshot of the context's watcher by a history.Recorder, so the
// dashboard opened later (or serve's sessions) chart what was watched.
type lagKeeper struct {
	st   *history.Store // nil: no history this run
	rec  *history.Recorder
	logf func(string, ...any)
}

// lagContext is the name r's history file is kept under: the dashboard's
// (ui.Context.Name: the context's, else demo or default), so the
// dashboard, serve and the exporter of one context share one file.
func lagContext(r config.Resolved) string { return ui.NewContext(r.Context, r.Embedded, nil).Name }

// openLagHistory opens r's history with open (lagOpener's). A file set
// aside is said on logf and a fresh one kept; one that cannot be opened
// (another ilinkdash holds its lock) is said too and the command runs
// without history: the history is a convenience, the watch is the job.
func openLagHistory(open ui.LagOpener, r config.Resolved, logf func(string, ...any)) *lagKeeper {
	k := &lagKeeper{logf: logf}
	st, warn, err := open(lagContext(r))
	if warn != nil {
		logf("lag history: %v", warn)
	}
	if err != nil {
		logf("no lag history this run: %v", err)
		return k
	}
	k.st = st
	logf("lag history: recording into %s", st.Path())
	return k
}

// attach records every snapshot of m's watcher (before m runs).
func (k *lagKeeper) attach(m *monitor) {
	if k.st == nil {
		return
	}
	k.rec = history.NewRecorder(k.st, k.logf)
	m.observers = append(m.observers, k.rec.Record)
}

// close writes the snapshot in hand and what the store observed, and
// closes the file; after the watcher stopped.
func (k *lagKeeper) close() {
	if k.rec != nil {
		k.rec.Close()
	}
	if k.st != nil {
		if err := k.st.Close(); err != nil {
			k.logf("lag history: %v", err)
		}
	}
}
