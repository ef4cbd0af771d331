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
	for _, ss := range open {
		if why := s.lostRights(ss); why != "" {
			ss.stop(why)
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
// log lines and audit entries.
type refusalLog struct {
	mu    sync.Mutex
	kinds map[string]*refusalRate
}

type refusalRate struct {
	last    time.Time
	skipped int
}

// allow reports whether a refusal of kind is written now, and how many
// of its kind were not written since the last one.
func (r *refusalLog) allow(kind string, now time.Time) (bool, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.kinds == nil {
		r.kinds = map[string]*refusalRate{}
	}
	k := r.kinds[kind]
	if k == nil {
		k = &refusalRate{}
		r.kinds[kind] = k
	}
	if !k.last.IsZero() && now.Sub(k.last) < time.Second {
		k.skipped++
		return false, 0
	}
	skipped := k.skipped
	k.last, k.skipped = now, 0
	return true, skipped
}

// refused logs a refusal of the gate or of admission, and audits it;
// fingerprint is "" before the connection offered an authorized key.
func (s *Server) refused(kind, remote, fingerprint, detail string) {
	ok, skipped := s.refusal.allow(kind, time.Now())
	if !ok {
		return
	}
	e := AuditEntry{Event: EventRefused, Reason: kind, Remote: remote, Fingerprint: fingerprint, Detail: detail}
	if skipped > 0 {
		e.Detail += fmt.Sprintf(" (and %d more refused so in the last second)", skipped)
	}
	s.audit.write(e)
}
