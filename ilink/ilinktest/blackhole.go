package ilinktest

import (
	"net"
	"sync"
	"sync/atomic"
	"testing"
)

// BlackHole is a loopback listener that accepts every connection and
// never answers: a cluster that hangs (worse than one that refuses, since
// reads wait for their timeouts). It counts what it accepted, so a test
// can tell a call that dialled from one refused before it, and holds the
// connections until Drop or the end of the test.
type BlackHole struct {
	Addr string

	ln          net.Listener
	closeAtOnce bool
	accepts     atomic.Int32
	mu          sync.Mutex
	conns       []net.Conn
}

// NewBlackHole starts a BlackHole, closed when the test ends.
func NewBlackHole(tb testing.TB) *BlackHole { return startHole(tb, false) }

// NewRefuser is a BlackHole that closes each connection as soon as it
// has counted it: a dial succeeds, the first read fails at once.
func NewRefuser(tb testing.TB) *BlackHole { return startHole(tb, true) }

func startHole(tb testing.TB, closeAtOnce bool) *BlackHole {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	h := &BlackHole{Addr: ln.Addr().String(), ln: ln, closeAtOnce: closeAtOnce}
	go h.accept()
	tb.Cleanup(func() { _ = ln.Close(); h.Drop() })
	return h
}

func (h *BlackHole) accept() {
	for {
		c, err := h.ln.Accept()
		if err != nil {
			return
		}
		h.accepts.Add(1)
		if h.closeAtOnce {
			_ = c.Close()
			continue
		}
		h.mu.Lock()
		h.conns = append(h.conns, c)
		h.mu.Unlock()
	}
}

// Accepts is how many connections it has accepted.
func (h *BlackHole) Accepts() int { return int(h.accepts.Load()) }

// Drop closes the connections it holds (their reads then fail at once).
func (h *BlackHole) Drop() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, c := range h.conns {
		_ = c.Close()
	}
	h.conns = nil
}
