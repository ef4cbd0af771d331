package ilink

import (
	"context"
	"sync"

	"ilinkdash/ilink/wire"
)

// Session is a queue session on the cluster leader. Its mode (auto-commit
// or transacted) is fixed at Dial (spec Q-06). A put or get that fails
// with a communication fault is retried once after an internal failover
// reconnect when the session knows more than one node and has no
// uncommitted work (ilink-spec §3.3, S-11..S-15). Methods are safe for
// concurrent use; requests of concurrent callers are pipelined on one
// connection.
type Session struct {
	opt  Options
	mode wire.SessionMode
	eps  *endpoints

	reconnectMu sync.Mutex // one reconnect (explicit or internal) at a time
	pinQM       string     // queue manager and cluster of the first handshake;
	pinCluster  string     // guarded by reconnectMu (see connectOnce)

	mu          sync.Mutex
	conn        *Conn // nil while not connected
	uncommitted bool  // transacted: puts/gets since the last commit/rollback/reconnect
	closed      bool
}

// ClusterAddresses returns the node list of the last handshake as
// "host:port" data addresses (spec S-03, S-04).
func (s *Session) ClusterAddresses() []string { return s.eps.clusterAddresses() }

// AutoCommit reports the session mode chosen at Dial.
func (s *Session) AutoCommit() bool { return s.mode == wire.ModeAutoCommit }

// InTransaction reports whether a transacted session has uncommitted work.
func (s *Session) InTransaction() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.uncommitted
}

// Reconnect closes the current connection (the engine rolls back any
// uncommitted work, spec Q-10) and makes one pass over the candidates to
// find the leader. While no leader has been elected it fails with a
// KindSession error; call it again after a pause (S-18). After success,
// AccessQueue works again (S-16).
func (s *Session) Reconnect(ctx context.Context) error {
	s.reconnectMu.Lock()
	defer s.reconnectMu.Unlock()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return closedError()
	}
	old := s.conn
	s.conn = nil
	s.uncommitted = false
	s.mu.Unlock()
	after := ""
	if old != nil {
		after = old.Addr()
		old.Close()
	}
	c, err := s.connectOnce(ctx, after)
	if err != nil {
		return err
	}
	return s.install(c)
}

// Commit commits the session's work. A connection lost before the reply
// leaves the outcome unknown: KindSession error, never retried.
func (s *Session) Commit(ctx context.Context) error {
	return s.endTransaction(ctx, wire.CodeCommit)
}

// Rollback discards the session's uncommitted puts and returns its
// uncommitted gets to their queues.
func (s *Session) Rollback(ctx context.Context) error {
	return s.endTransaction(ctx, wire.CodeRollback)
}

func (s *Session) endTransaction(ctx context.Context, code wire.Code) error {
	c, err := s.current()
	if err != nil {
		return err
	}
	if err := c.Do(ctx, code, 0, &wire.Empty{}, nil); err != nil {
		return err
	}
	s.setUncommitted(false)
	return nil
}

// Close closes the session; the engine rolls back uncommitted work.
func (s *Session) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	c := s.conn
	s.conn = nil
	s.mu.Unlock()
	if c != nil {
		c.Close()
	}
	return nil
}

// current returns the session's connection. A dead connection is returned
// together with its error, so the failover knows which one failed.
func (s *Session) current() (*Conn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, closedError()
	}
	if s.conn == nil {
		return nil, &Error{Name: NameConnectionLost, Tail: "session not connected (reconnect)", Kind: KindSession}
	}
	if err := s.conn.Err(); err != nil {
		return s.conn, err
	}
	return s.conn, nil
}

func (s *Session) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

func (s *Session) setUncommitted(v bool) {
	s.mu.Lock()
	s.uncommitted = v
	s.mu.Unlock()
}

// noteWork records the outcome of a put or get for the transaction state:
// in a transacted session, a success or an abandoned request (outcome
// unknown, connection still up) leaves uncommitted work behind.
func (s *Session) noteWork(err error) {
	if s.mode != wire.ModeTransacted {
		return
	}
	if err == nil || AsError(err) == nil {
		s.setUncommitted(true)
	}
}

// withRetry runs a put or get with the automatic failover retry of
// ilink-spec §3.3.
func (s *Session) withRetry(ctx context.Context, op func(*Conn) error) error {
	s.mu.Lock()
	hadWork := s.uncommitted
	s.mu.Unlock()
	c, err := s.current()
	if err == nil {
		err = op(c)
	}
	return s.recoverAndRetry(ctx, c, err, hadWork, op)
}

// recoverAndRetry decides what a failed put or get becomes:
//   - success, rejection (S-15), no message, cancellation: returned as is;
//   - communication fault with uncommitted work: KindSession error, no
//     retry — the application reconnects and redoes the whole transaction (S-12);
//   - communication fault without an endpoint list: KindSession error (S-13);
//   - otherwise: internal failover reconnect, then one retry whose result
//     is what the caller sees (S-11, S-17).
func (s *Session) recoverAndRetry(ctx context.Context, failed *Conn, err error, hadWork bool, op func(*Conn) error) error {
	if err == nil || !IsSessionError(err) || ctx.Err() != nil || s.isClosed() {
		return err
	}
	e := AsError(err)
	if e.Name == NameSessionClosed {
		return err
	}
	if hadWork {
		return &Error{Name: e.Name, Report: e.Report, Hint: e.Hint, Kind: KindSession, cause: e.cause,
			Tail: joinTail(e.Tail, "uncommitted transaction lost: reconnect and redo it")}
	}
	if s.eps.count() < 2 {
		return err
	}
	s.opt.Logf("ilink: %v: failing over and retrying once", err)
	if ferr := s.failover(ctx, failed); ferr != nil {
		if fe := AsError(ferr); fe != nil && fe.Kind == KindSession {
			return &Error{Name: e.Name, Report: e.Report, Kind: KindSession, cause: e.cause,
				Tail: joinTail(e.Tail, "failover failed: "+fe.Error())}
		}
		return ferr
	}
	c, cerr := s.current()
	if cerr != nil {
		return cerr
	}
	return op(c)
}

func joinTail(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
