package engine

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"ilinkdash/ilink/wire"
)

// maxPending bounds the replies one connection may owe. When it is reached
// the reader stops reading, so a client that pipelines without reading gets
// TCP back-pressure instead of unbounded engine memory.
const maxPending = 256

// conn is one client connection, kfake style: a reader goroutine reads
// frames and runs handlers; a writer goroutine writes replies. Each request
// gets a slot, queued in arrival order before its handler runs; the writer
// takes slots in that order and waits for each to complete, so replies go
// out strictly in request order even when a handler completes later from
// another goroutine (a GET that waits). The reader is never blocked by such
// a handler, only by a full slot queue.
//
// Ownership: sess is touched only by the reader goroutine (handlers run
// there; async completions capture what they need), and after the reader
// has exited, by run's cleanup. The network write side belongs to the
// writer goroutine.
type conn struct {
	e  *Engine
	ep *endpoint

	nc net.Conn
	// ahead are the bytes of nc read before it was served (endpoint.adopt):
	// the reader takes them first. The net.Conn stays unwrapped, so a
	// fetch reply's vectored write is still one writev.
	ahead      []byte
	slots      chan *slot
	closing    chan struct{} // closed once by close
	closeOnce  sync.Once
	writerDone chan struct{}
	finished   chan struct{} // closed when run has cleaned up
	async      sync.WaitGroup

	accepted   time.Time   // when the engine took the connection
	helloTimer *time.Timer // HelloTimeout (stopped by sessionOpened and at the end of run)
	opened     atomic.Bool // a HELLO opened a session (sessionOpened)
	evicted    bool        // closed to make room (endpoint.acceptLoop); under endpoint.mu

	sess *session // reader goroutine only
}

// session is what a successful HELLO established.
type session struct {
	id     uint64
	mode   wire.SessionMode
	client string
	proto  uint8 // consumer protocol the client speaks (HELLO)
	txn    *txn  // queue sessions only
	// layouts are the body layout versions the client stated in HELLO
	// (nil when it stated none: every body at version 1). Written once,
	// before any other request of the session.
	layouts map[string]uint8

	// fenced: a produce on this connection got MIMQE_FOLLOWER_NODE, so
	// every later produce on it is refused the same way (spec P-35). Set
	// from the reader or an acks=all wait, hence atomic.
	fenced atomic.Bool

	// relay, once set (SPOKE SWITCH, admin_spoke.go), receives every later
	// request of the connection instead of the dispatch table.
	relay func(*request)

	// reads are the topics of the long-poll fetches pending on this
	// connection: MIMQ_TOPIC_LEAVE for one of them is refused with
	// MIMQE_READ_IN_PROGRESS (spec T-22, coordinator.go).
	reads pendingReads
}

// slot is one reply owed by the connection, in request order.
type slot struct {
	done     chan struct{} // closed when frame and flags are final
	complete atomic.Bool
	frame    []byte
	// pieces, when set, are the frame in pieces (a fetch reply: its fields
	// and the stored batches between them), sent in one vectored write.
	pieces [][]byte

	noReply    bool          // the request had FlagNoReply: handle, send nothing
	closeAfter bool          // close the connection right after this reply
	drop       bool          // control DropReply: close instead of replying
	delay      time.Duration // control Delay: hold the completed reply this long
}

func newConn(ep *endpoint, nc net.Conn) *conn {
	return &conn{
		e:          ep.node.e,
		ep:         ep,
		nc:         nc,
		slots:      make(chan *slot, maxPending),
		closing:    make(chan struct{}),
		writerDone: make(chan struct{}),
		finished:   make(chan struct{}),
		accepted:   time.Now(),
	}
}

func (c *conn) nodeID() int { return c.ep.node.id }

// close closes the connection at once; pending replies are lost.
func (c *conn) close() {
	c.closeOnce.Do(func() {
		close(c.closing)
		c.nc.Close()
	})
}

func (c *conn) run() {
	if d := c.e.cfg.HelloTimeout; d > 0 {
		c.helloTimer = time.AfterFunc(d, c.helloExpired)
	}
	go c.writeLoop()
	c.readLoop()
	c.close()
	if c.helloTimer != nil {
		c.helloTimer.Stop()
	}
	<-c.writerDone
	c.async.Wait()
	// Connection loss rolls back the session's uncommitted work (spec Q-10).
	if c.sess != nil && c.sess.txn != nil {
		c.e.queues.endSession(c.sess.txn)
	}
	c.ep.forget(c)
	close(c.finished)
}

// deadlineReader gives every read of a connection a deadline: IdleTimeout
// between frames, FrameTimeout inside one (the FrameReader reads exactly
// one frame's bytes, so the reader knows where frames begin).
type deadlineReader struct {
	nc          net.Conn
	idle, frame time.Duration
	inFrame     bool // a byte of the current frame has arrived
	// ahead are bytes read from nc before the connection was served (a
	// tunnel's HELLO, peekHello), read first.
	ahead []byte
}

func (r *deadlineReader) Read(b []byte) (int, error) {
	if len(r.ahead) > 0 {
		n := copy(b, r.ahead)
		r.ahead = r.ahead[n:]
		r.inFrame = true
		return n, nil
	}
	d := r.idle
	if r.inFrame {
		d = r.frame
	}
	_ = r.nc.SetReadDeadline(time.Now().Add(d))
	n, err := r.nc.Read(b)
	if n > 0 {
		r.inFrame = true
	}
	return n, err
}

// helloExpired closes a connection that has not opened a session within
// HelloTimeout of being accepted.
func (c *conn) helloExpired() {
	if c.opened.Load() {
		return
	}
	c.e.logf("engine: node %d %s: no session %v after the connection was accepted (HelloTimeout); closing", c.nodeID(), c.ep.kind, c.e.cfg.HelloTimeout)
	c.close()
}

// sessionOpened is called by the HELLO handler once the session is open:
// the connection stops counting as one before HELLO (HelloTimeout,
// MaxPreHello).
func (c *conn) sessionOpened() {
	c.opened.Store(true)
	if c.helloTimer != nil {
		c.helloTimer.Stop()
	}
	c.ep.helloDone(c)
}

// handshakeCodes are the requests whose frames are wire.MaxHandshakeFrame
// at most even in an open session: HELLO (its strings are bounded), PING,
// COMMIT and ROLLBACK (empty bodies).
var handshakeCodes = map[wire.Code]bool{
	wire.CodeHello: true, wire.CodePing: true, wire.CodeCommit: true, wire.CodeRollback: true,
}

// frameLimit is the cap of the frame whose header was just read (the
// FrameReader asks before reading its body). Before HELLO every frame is
// a handshake frame: a connection that has not opened a session can make
// the engine read and hold wire.MaxHandshakeFrame bytes at most, whatever
// its header claims. Runs on the reader goroutine, the owner of sess.
func (c *conn) frameLimit(h wire.Header) int {
	if c.sess == nil || handshakeCodes[h.Code] {
		return wire.MaxHandshakeFrame
	}
	return c.e.cfg.MaxFrame
}

func (c *conn) readLoop() {
	dr := &deadlineReader{nc: c.nc, idle: c.e.cfg.IdleTimeout, frame: c.e.cfg.FrameTimeout, ahead: c.ahead}
	c.ahead = nil
	fr := wire.NewFrameReader(dr, c.e.cfg.MaxFrame)
	fr.SetLimit(c.frameLimit)
	for {
		dr.inFrame = false
		h, body, err := fr.Next()
		if err != nil {
			// Oversize or malformed frames close the connection without a
			// reply (spec W-02, W-03), exactly like EOF.
			var tl *wire.FrameTooLargeError
			var ne net.Error
			switch {
			case errors.As(err, &ne) && ne.Timeout():
				what := fmt.Sprintf("no byte for %v (IdleTimeout)", dr.idle)
				if dr.inFrame {
					what = fmt.Sprintf("a frame stalled for %v (FrameTimeout)", dr.frame)
				}
				c.e.logf("engine: node %d %s: %s; closing", c.nodeID(), c.ep.kind, what)
			case errors.As(err, &tl):
				why := "MaxFrame"
				switch {
				case c.sess == nil:
					why = "before HELLO"
				case handshakeCodes[tl.Code]:
					why = "handshake-sized request"
				}
				c.e.logf("engine: node %d %s: %v %v (%s); closing without reply", c.nodeID(), c.ep.kind, tl.Code, err, why)
			case !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed):
				c.e.logf("engine: node %d %s: read: %v", c.nodeID(), c.ep.kind, err)
			}
			return
		}
		if h.IsResponse() || h.IsError() {
			c.e.logf("engine: node %d %s: client sent a response frame; closing", c.nodeID(), c.ep.kind)
			return
		}
		act := c.e.ctl.decide(c.nodeID(), h, body)
		if act.CloseNow {
			return
		}
		s := &slot{
			done:    make(chan struct{}),
			noReply: h.Flags&wire.FlagNoReply != 0,
			drop:    act.DropReply,
			delay:   act.Delay,
		}
		select {
		case c.slots <- s:
		case <-c.closing:
			return
		}
		r := &request{c: c, hdr: h, body: body, slot: s}
		if act.Reject != nil {
			r.failReport(act.RejectReport, act.Reject)
		} else {
			dispatch(r)
		}
		if s.drop || s.closeAfter {
			// Read nothing more: the writer closes the connection once it
			// reaches this slot, and later requests must not be handled.
			<-c.closing
			return
		}
	}
}

func (c *conn) writeLoop() {
	defer close(c.writerDone)
	// A write that makes no progress for IdleTimeout (the client stopped
	// reading) fails and closes the connection.
	bw := bufio.NewWriterSize(&deadlineWriter{nc: c.nc, d: c.e.cfg.IdleTimeout}, 64<<10)
	flush := func() bool {
		if bw.Buffered() == 0 {
			return true
		}
		if err := bw.Flush(); err != nil {
			c.close()
			return false
		}
		return true
	}
	for {
		var s *slot
		select {
		case s = <-c.slots:
		default:
			// Nothing queued: push out what we have before waiting.
			if !flush() {
				return
			}
			select {
			case s = <-c.slots:
			case <-c.closing:
				return
			}
		}
		select {
		case <-s.done:
		default:
			if !flush() {
				return
			}
			select {
			case <-s.done:
			case <-c.closing:
				return
			}
		}
		if s.delay > 0 {
			if !flush() {
				return
			}
			t := time.NewTimer(s.delay)
			select {
			case <-t.C:
			case <-c.closing:
				t.Stop()
				return
			}
		}
		if s.drop {
			flush()
			c.close()
			return
		}
		if !s.noReply && !c.writeSlot(bw, s) {
			c.close()
			return
		}
		s.frame, s.pieces = nil, nil
		if s.closeAfter {
			flush()
			c.close()
			return
		}
	}
}

// writeSlot writes s's reply: a frame through bw, or a frame in pieces
// after what bw holds, in one vectored write (net.Buffers: writev on a TCP
// connection) with the writes' deadline.
func (c *conn) writeSlot(bw *bufio.Writer, s *slot) bool {
	if s.pieces == nil {
		_, err := bw.Write(s.frame)
		return err == nil
	}
	if bw.Buffered() > 0 && bw.Flush() != nil {
		return false
	}
	_ = c.nc.SetWriteDeadline(time.Now().Add(c.e.cfg.IdleTimeout))
	bufs := net.Buffers(s.pieces)
	_, err := bufs.WriteTo(c.nc)
	return err == nil
}

// deadlineWriter gives every write of a connection a deadline.
type deadlineWriter struct {
	nc net.Conn
	d  time.Duration
}

func (w *deadlineWriter) Write(b []byte) (int, error) {
	_ = w.nc.SetWriteDeadline(time.Now().Add(w.d))
	return w.nc.Write(b)
}

// request is one request being handled.
type request struct {
	c    *conn
	hdr  wire.Header
	body []byte // aliases the reader's buffer: valid only while the handler runs synchronously
	slot *slot
}

// decode decodes the body into m. A body whose layout version is not the
// client's is refused first (layoutSpoken). A body that does not decode
// makes the frame malformed: the connection is closed without a reply
// (spec W-03), and decode returns false.
func (r *request) decode(m wire.Message) bool {
	if !r.layoutSpoken(m) {
		return false
	}
	if err := wire.Decode(r.body, m); err != nil {
		r.malformed(err)
		return false
	}
	return true
}

// malformed logs a body that does not decode, naming the request and the
// body (err reads "decode *wire.PutRequest: …"), and closes the connection.
func (r *request) malformed(err error) {
	r.c.e.logf("engine: node %d %s: %v: %v; closing", r.c.nodeID(), r.c.ep.kind, r.hdr.Code, err)
	r.c.close()
}

// layoutSpoken reports whether the client speaks this engine's layout of
// body m, request or reply: its version in the client's HELLO list (1
// when not stated) is the engine's (wire.LayoutVersions, 1 when not
// listed). Otherwise it refuses the request with REPORT 4157
// MIMQE_UNSUPPORTED (<Body> layout vN - engine speaks vM) and reports
// false: bytes read or written in another layout would be misread.
func (r *request) layoutSpoken(m wire.Message) bool {
	var claimed map[string]uint8
	if s := r.c.sess; s != nil {
		claimed = s.layouts
	}
	if len(claimed) == 0 && len(wire.LayoutVersions) == 0 {
		return true // every layout at version 1 on both sides
	}
	body := wire.BodyName(m)
	theirs, ok := claimed[body]
	if !ok {
		theirs = 1
	}
	if mine := wire.BodyVersion(body); theirs != mine {
		r.failReport(wire.ReportUnsupported, &wire.ErrorBody{Name: wire.ErrUnsupported,
			Tail: fmt.Sprintf("%s layout v%d - engine speaks v%d", body, theirs, mine)})
		return false
	}
	return true
}

// reply completes the request with a response body (nil = empty body). A
// reply body in a layout the client does not speak is not sent: the
// request, already carried out, is refused instead (layoutSpoken).
func (r *request) reply(m wire.Message) {
	if m != nil && !r.layoutSpoken(m) {
		return
	}
	h := wire.Header{Flags: wire.FlagResponse, Code: r.hdr.Code, Corr: r.hdr.Corr}
	var enc func(*wire.Writer)
	if m != nil {
		enc = m.Encode
	}
	r.finish(wire.AppendFrame(nil, h, enc))
}

// fail completes the request with an error body and no REPORT code.
func (r *request) fail(eb *wire.ErrorBody) { r.failReport(0, eb) }

// failReport completes the request with an error body and a REPORT code.
func (r *request) failReport(report uint16, eb *wire.ErrorBody) {
	r.finish(errorFrame(r.hdr, report, eb))
}

// errorFrame is the error reply to the request headed req: eb, with the
// REPORT code report (0: none). Connections that are refused before they
// are served (endpoint.refuse, a tunnel no node takes) answer with it too.
func errorFrame(req wire.Header, report uint16, eb *wire.ErrorBody) []byte {
	h := wire.Header{Flags: wire.FlagResponse | wire.FlagError, Code: req.Code, Corr: req.Corr, Status: report}
	return wire.AppendFrame(nil, h, eb.Encode)
}

// closeAfterReply makes the connection close right after this request's
// reply is written (handshake refusals). Call it before replying, from the
// handler's synchronous part.
func (r *request) closeAfterReply() { r.slot.closeAfter = true }

// async runs fn in a goroutine tracked by the connection; fn must complete
// the request or return once the connection is closing. Use it for
// handlers that wait; anything fn needs from the body must be copied first.
func (r *request) async(fn func()) {
	r.c.async.Add(1)
	go func() {
		defer r.c.async.Done()
		fn()
	}()
}

// closing is closed when the connection goes away.
func (r *request) closing() <-chan struct{} { return r.c.closing }

func (r *request) finish(frame []byte) { r.finishFrame(frame, nil) }

// finishPieces answers with a frame in pieces, written with one vectored
// write without joining them.
func (r *request) finishPieces(pieces [][]byte) { r.finishFrame(nil, pieces) }

func (r *request) finishFrame(frame []byte, pieces [][]byte) {
	s := r.slot
	if !s.complete.CompareAndSwap(false, true) {
		r.c.e.logf("engine: BUG: %v answered twice", r.hdr.Code)
		return
	}
	s.frame, s.pieces = frame, pieces
	close(s.done)
}
