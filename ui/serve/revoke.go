package serve

import (
	"fmt"
	"sync"
	"time"
)

// keyCheckInterval is how often the open sessions are checked against
// the key files: a removed key's session ends within about this long
// (the goal is 5 s), and a mutating call checks its key itself first
// (sessionSources.act), so no action passes in between.
const keyCheckInterval = time.Second

// watchKeys re-checks every open session's key until the server ends.
func (s *Server) watchKeys() {
	t := time.NewTicker(keyCheckInterval)
	defer t.Stop()
	for {
		select {
		case <-s.base.Done():
			return
		case <-t.C:
			s.recheckSessions()
		}
	}
}

// recheckSessions ends the sessions whose key left the key files, and the
// operator sessions whose key is now only a viewer's: a session's role is
// fixed at admission (its client objects are), so losing operator rights
// ends it, and the user reconnects as a viewer. A viewer key that became
// an operator's keeps its read-only session until it reconnects.
func (s *Server) recheckSessions() {
	s.mu.Lock()
	open := make([]*session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		open = append(open, ss)
	}
	s.mu.Unlock()
	idle := s.cfg.Serve.IdleTimeout
	for _, ss := range open {
		switch why := s.lostRights(ss); {
		case why != "":
			ss.stop(why)
		case idle > 0 && time.Since(time.Unix(0, ss.lastInput.Load())) > idle+stopGrace:
			// The idle timer is the program's own; a program blocked on
			// a client that stopped reading never takes it.
			ss.stop(reasonIdle)
		}
	}
}

// lostRights reports why ss may no longer run as admitted ("" = it may):
// reasonRevoked or reasonDemoted.
func (s *Server) lostRights(ss *session) string {
	who, ok := s.keys.identify(ss.key)
	switch {
	case !ok:
		return reasonRevoked
	case ss.who.Role == RoleOperator && who.Role != RoleOperator:
		return reasonDemoted
	}
	return ""
}

// errPerKey refuses a session over --max-sessions-per-key.
type errPerKey struct{ max int }

func (e errPerKey) Error() string {
	return fmt.Sprintf("ilinkdash serve: this key already has as many dashboards open as it may (%d, --max-sessions-per-key); close one and try again", e.max)
}

// refusalLog keeps refusal lines to one a second per kind, so a flood of
// refused connections is a line a second with a count, not a flood of
// log lines and audit entries. The last refusal it holds back is written
// when its second is over, with the count of the others, unless a later
// refusal of its kind carries that count first: a burst is accounted for
// even when nothing follows it.
type refusalLog struct {
	mu     sync.Mutex
	kinds  map[string]*refusalRate
	closed bool
}

type refusalRate struct {
	last    time.Time
	skipped int
	held    AuditEntry  // the last refusal not written
	timer   *time.Timer // writes held when the second is over
}

// admit reports whether refusal e is written now, with the count of its
// kind not written since the last one in its detail; one held back is
// written later through write.
func (r *refusalLog) admit(e AuditEntry, now time.Time, write func(AuditEntry)) (AuditEntry, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.kinds == nil {
		r.kinds = map[string]*refusalRate{}
	}
	k := r.kinds[e.Reason]
	if k == nil {
		k = &refusalRate{}
		r.kinds[e.Reason] = k
	}
	if !k.last.IsZero() && now.Sub(k.last) < time.Second {
		k.skipped++
		k.held = e
		if k.timer == nil && !r.closed {
			kind := e.Reason
			k.timer = time.AfterFunc(k.last.Add(time.Second).Sub(now), func() { r.flush(kind, write) })
		}
		return e, false
	}
	if k.timer != nil {
		k.timer.Stop()
		k.timer = nil
	}
	e = withSkipped(e, k.skipped)
	k.last, k.skipped = now, 0
	return e, true
}

// flush writes the refusal of kind held back, with the count of the
// others (under the lock, so that close waits for it).
func (r *refusalLog) flush(kind string, write func(AuditEntry)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := r.kinds[kind]
	if r.closed || k == nil || k.skipped == 0 {
		return
	}
	k.timer = nil
	e := withSkipped(k.held, k.skipped-1)
	k.last, k.skipped = time.Now(), 0
	write(e)
}

// close writes every refusal held back, and no more later.
func (r *refusalLog) close(write func(AuditEntry)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	for _, k := range r.kinds {
		if k.timer != nil {
			k.timer.Stop()
			k.timer = nil
		}
		if k.skipped > 0 {
			write(withSkipped(k.held, k.skipped-1))
			k.skipped = 0
		}
	}
}

func withSkipped(e AuditEntry, skipped int) AuditEntry {
	if skipped > 0 {
		e.Detail += fmt.Sprintf(" (and %d more refused so in the last second)", skipped)
	}
	return e
}

// refused logs a refusal of the gate or of admission, and audits it;
// fingerprint is "" before the connection offered an authorized key.
func (s *Server) refused(kind, remote, fingerprint, detail string) {
	e := AuditEntry{Event: EventRefused, Reason: kind, Remote: remote, Fingerprint: fingerprint, Detail: detail}
	if e, ok := s.refusal.admit(e, time.Now(), s.audit.write); ok {
		s.audit.write(e)
	}
}
