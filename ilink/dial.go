package ilink

import (
	"context"
	"fmt"
	"strings"
	"time"

	"ilinkdash/ilink/wire"
)

// Dial opens a queue session on addrs ("host:port" or "h1:p1,h2:p2",
// spec S-01). Candidates are tried in order — the configured addresses,
// then the endpoint cache file — and a follower's leader hint is followed
// at once (S-02, S-05, S-06). While no leader exists Dial fails with a
// KindSession error named MIMQE_NO_LEADER. Invalid options or addresses
// are KindConfig errors, reported before anything is sent (E-09).
func Dial(ctx context.Context, addrs string, opt Options) (*Session, error) {
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	list, err := ParseAddrs(addrs)
	if err != nil {
		return nil, err
	}
	s := &Session{opt: opt, mode: opt.mode(), eps: newEndpoints(list, opt.EndpointCacheFile, opt.Logf)}
	c, err := s.connectOnce(ctx, "")
	if err != nil {
		return nil, err
	}
	s.conn = c
	return s, nil
}

// maxHintFollows bounds leader-hint chasing within one pass, so two nodes
// that name each other during an election cannot loop forever.
const maxHintFollows = 8

// connectOnce makes one pass over the candidates (starting after `after`),
// following leader hints. On success the HELLO node list is cached (S-03)
// and the endpoint cache file updated (S-07).
//
// A candidate that refuses the session for another reason than leadership
// (e.g. a stale cache entry whose port now belongs to another queue
// manager) is skipped. After the first handshake the session is pinned to
// the queue manager and cluster it found, so a failover can never land on
// a different cluster through a stale address. Callers serialise
// connectOnce (Dial, or reconnectMu).
func (s *Session) connectOnce(ctx context.Context, after string) (*Conn, error) {
	cfg := s.opt.connConfig()
	if cfg.QueueManager == "" {
		cfg.QueueManager = s.pinQM
	}
	queue := s.eps.candidates(after)
	tried := map[string]bool{}
	hints := 0
	var noLeader, rejected *Error
	var fails []string
	for len(queue) > 0 {
		addr := queue[0]
		queue = queue[1:]
		if tried[addr] {
			continue
		}
		tried[addr] = true
		c, err := DialConn(ctx, addr, cfg)
		if err == nil {
			if err = s.checkIdentity(c); err == nil {
				s.learn(c)
				return c, nil
			}
			c.Close()
		}
		if ctx.Err() != nil {
			return nil, ctxError(ctx)
		}
		s.opt.Logf("ilink: %s: %v", addr, err)
		e := AsError(err)
		switch {
		case e == nil:
			fails = append(fails, addr+": "+err.Error())
		case e.Name == wire.ErrNotLeader:
			fails = append(fails, addr+": "+e.Error())
			if h, herr := normalizeAddr(e.Hint); herr == nil && hints < maxHintFollows {
				hints++
				delete(tried, h)
				queue = append([]string{h}, queue...) // S-05; cached once connected (S-06)
			}
		case e.Name == wire.ErrNoLeader:
			noLeader = e
			fails = append(fails, addr+": "+e.Error())
		case e.Kind == KindSession:
			fails = append(fails, e.Error())
		default:
			if rejected == nil {
				rejected = e
			}
			fails = append(fails, addr+": "+e.Error())
		}
	}
	switch {
	case noLeader != nil:
		return nil, &Error{Name: wire.ErrNoLeader, Tail: noLeader.Tail, Report: noLeader.Report, Kind: KindSession}
	case rejected != nil:
		return nil, rejected // the engine refused the session itself (e.g. wrong queue manager)
	}
	return nil, &Error{Name: NameConnectFailed, Tail: "no leader reachable: " + strings.Join(fails, "; "), Kind: KindSession}
}

// checkIdentity pins the session to the queue manager and cluster of its
// first handshake and refuses a connection to any other.
func (s *Session) checkIdentity(c *Conn) error {
	h := c.Hello()
	if s.pinQM == "" && s.pinCluster == "" {
		s.pinQM, s.pinCluster = h.QueueManager, h.Cluster
		return nil
	}
	if h.QueueManager != s.pinQM || h.Cluster != s.pinCluster {
		return &Error{Name: NameConnectFailed, Kind: KindSession,
			Tail: fmt.Sprintf("%s: queue manager %s of cluster %s, want %s of %s", c.Addr(), h.QueueManager, h.Cluster, s.pinQM, s.pinCluster)}
	}
	return nil
}

// learn caches the node list of c's HELLO and merges every candidate into
// the endpoint cache file.
func (s *Session) learn(c *Conn) {
	h := c.Hello()
	nodes := make([]string, 0, len(h.Nodes))
	for _, n := range h.Nodes {
		nodes = append(nodes, n.Addr)
	}
	s.eps.add(c.Addr())
	s.eps.setNodes(nodes)
	s.eps.save()
}

// Failover backoff between passes while no leader accepts sessions.
const (
	failoverBackoffMin = 20 * time.Millisecond
	failoverBackoffMax = 500 * time.Millisecond
)

// failover replaces the failed connection, waiting through the no-leader
// window: passes over the candidates with a short backoff until one
// succeeds, FailoverTimeout passes or ctx ends. Concurrent callers that
// saw the same failed connection share one reconnect.
func (s *Session) failover(ctx context.Context, failed *Conn) error {
	s.reconnectMu.Lock()
	defer s.reconnectMu.Unlock()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return closedError()
	}
	if s.conn != nil && s.conn != failed && s.conn.Err() == nil {
		s.mu.Unlock()
		return nil // somebody else already reconnected
	}
	old := s.conn
	s.conn = nil
	s.mu.Unlock()
	after := ""
	if old != nil {
		after = old.Addr()
		old.Close()
	} else if failed != nil {
		after = failed.Addr()
	}
	s.opt.Logf("ilink: failover from %s", after)

	fctx, cancel := context.WithTimeout(ctx, s.opt.FailoverTimeout)
	defer cancel()
	backoff := failoverBackoffMin
	var last error
	gaveUp := func() error {
		if ctx.Err() != nil {
			return ctxError(ctx)
		}
		if last != nil {
			return last
		}
		return sessionError(NameConnectFailed, nil, "no leader within "+s.opt.FailoverTimeout.String())
	}
	for {
		if s.isClosed() {
			return closedError()
		}
		c, err := s.connectOnce(fctx, after)
		if err == nil {
			return s.install(c)
		}
		switch {
		case IsSessionError(err):
			last = err
		case fctx.Err() == nil:
			return err // the engine refused the session itself: waiting will not help
		}
		t := time.NewTimer(backoff)
		select {
		case <-fctx.Done():
			t.Stop()
			return gaveUp()
		case <-t.C:
		}
		backoff = min(backoff*2, failoverBackoffMax)
	}
}

// install makes c the session's connection.
func (s *Session) install(c *Conn) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		c.Close()
		return closedError()
	}
	s.conn = c
	return nil
}

func closedError() *Error {
	return &Error{Name: NameSessionClosed, Tail: "session closed by the application", Kind: KindSession}
}
