package serve

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"ilinkdash/ui/sanitize"
)

// Audit events.
const (
	EventConnect    = "connect"
	EventDisconnect = "disconnect"
	EventAction     = "action"
	// EventRefused is a connection or session the server turned away or
	// closed before it had a dashboard: Reason is the limit (max-startups,
	// no-dashboard, channels, env, term; for a session: key, command,
	// no-pty, max-sessions, max-sessions-per-key).
	EventRefused = "refused"
)

// Action outcomes.
const (
	OutcomeOK      = "ok"
	OutcomeRefused = "refused" // the client layer's read-only guard said no
	OutcomeError   = "error"
)

// AuditEntry is one line of the audit log. Field names are stable.
type AuditEntry struct {
	Time        time.Time `json:"time"`
	Event       string    `json:"event"`
	Session     uint64    `json:"session"`
	Fingerprint string    `json:"fingerprint"`
	Comment     string    `json:"comment,omitempty"`
	Role        string    `json:"role"`
	Remote      string    `json:"remote,omitempty"`
	// Context is the served context an action was on, or a session
	// opened on (its SSH command); "" for a session on the Fleet tab.
	Context string `json:"context,omitempty"`
	// Action, Target, Detail and Outcome describe a mutating action:
	// "delete-topic" on "ORDERS"; Error is the refusal or failure text.
	Action  string `json:"action,omitempty"`
	Target  string `json:"target,omitempty"`
	Detail  string `json:"detail,omitempty"`
	Outcome string `json:"outcome,omitempty"`
	Error   string `json:"error,omitempty"`
	// Term, Width and Height are the client's terminal (connect).
	Term   string `json:"term,omitempty"`
	Width  int    `json:"width,omitempty"`
	Height int    `json:"height,omitempty"`
	// Reason and Seconds close a session (disconnect): "quit", "idle",
	// "shutdown", "closed" (the connection went away), "revoked" (its key
	// left the key files) or "role-changed" (an operator key became a
	// viewer's).
	Reason  string  `json:"reason,omitempty"`
	Seconds float64 `json:"seconds,omitempty"`
}

// auditLog appends entries as JSON lines (escaped by sanitize.JSON) to a
// file (when one is configured) and a one-line summary to the server log.
// Each entry is one write on an O_APPEND file, so lines never interleave, even with another
// process appending to the same file.
type auditLog struct {
	mu   sync.Mutex
	w    io.WriteCloser // nil: no file
	path string
	logf func(string, ...any)
}

func openAudit(path string, logf func(string, ...any)) (*auditLog, error) {
	a := &auditLog{path: path, logf: logf}
	if path == "" {
		return a, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	a.w = f
	return a, nil
}

func (a *auditLog) write(e AuditEntry) {
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	e.Time = e.Time.UTC()
	a.logf("serve: %s", e.summary())
	if a.w == nil {
		return
	}
	line, err := json.Marshal(e)
	if err != nil {
		a.logf("serve: audit log: %v", err)
		return
	}
	// Escaped for the terminal an administrator reads it on, as every
	// JSON ilinkdash writes: the TERM, names and error texts are the
	// client's or the cluster's (C1 controls, DEL, bidi overrides).
	line = append(sanitize.JSON(line), '\n')
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.w == nil {
		return // closed by Shutdown
	}
	if _, err := a.w.Write(line); err != nil {
		a.logf("serve: audit log %s: %v", a.path, err)
	}
}

func (a *auditLog) close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.w == nil {
		return nil
	}
	err := a.w.Close()
	a.w = nil
	return err
}

// summary is the entry as one server log line; %q escapes what came from
// the network or a key file.
func (e AuditEntry) summary() string {
	who := fmt.Sprintf("session %d %s %s %q", e.Session, e.Role, e.Fingerprint, e.Comment)
	if e.Context != "" {
		who += fmt.Sprintf(" context %q", e.Context)
	}
	switch e.Event {
	case EventConnect:
		return fmt.Sprintf("%s connected from %s (%q %dx%d)", who, e.Remote, e.Term, e.Width, e.Height)
	case EventDisconnect:
		return fmt.Sprintf("%s disconnected (%s, %.0fs)", who, e.Reason, e.Seconds)
	case EventRefused:
		return fmt.Sprintf("refused %s %s %s: %s", e.Remote, e.Fingerprint, e.Reason, e.Detail)
	}
	s := fmt.Sprintf("%s %s %q: %s", who, e.Action, e.Target, e.Outcome)
	if e.Detail != "" {
		s += fmt.Sprintf(" %q", e.Detail)
	}
	if e.Error != "" {
		s += fmt.Sprintf(" (%q)", e.Error)
	}
	return s
}
