package ilink

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"ilinkdash/ilink/wire"
)

// ClientVersion travels in HELLO.
const ClientVersion = "0.1.0"

// ConnConfig configures one connection.
type ConnConfig struct {
	ClientName     string           // default "ilinkdash"
	Mode           wire.SessionMode // HELLO mode
	QueueManager   string           // expected queue manager; empty = any
	MaxFrame       int              // client frame cap; 0 = wire.DefaultMaxFrame, else validated (W-07)
	DialTimeout    time.Duration    // TCP connect + HELLO; default 5s
	RequestTimeout time.Duration    // missing-reply limit beyond a request's own wait; default 30s
	// KeepAlive: after this long without a write the connection sends a
	// PING, so the engine, which closes connections silent for its
	// IdleTimeout (60 s by default), never cuts a healthy idle client.
	// 0 = DefaultKeepAlive (15 s); negative = never.
	KeepAlive time.Duration
	// Hub, when set, reaches every address through a hub (HubRoute).
	Hub  *HubRoute
	Logf func(format string, args ...any)
}

// DefaultKeepAlive is the default ConnConfig.KeepAlive.
const DefaultKeepAlive = 15 * time.Second

// CheckHelloStrings is the client's side of wire.MaxHelloString: a client
// name or an expected queue manager the engine would refuse in HELLO is a
// configuration error (MIMQE_BAD_CONFIG (ClientName is N bytes; at most
// 256, the bound of a HELLO string)), reported before anything is dialled.
func CheckHelloStrings(clientName, queueManager string) error {
	for _, f := range []struct{ what, s string }{{"ClientName", clientName}, {"QueueManager", queueManager}} {
		if err := wire.CheckHelloString(f.what, f.s); err != nil {
			return configError("%v, the bound of a HELLO string", err)
		}
	}
	return nil
}

// helloDefaults fills in the default client name and frame cap and checks
// them with the queue manager: the part of the HELLO a ConnConfig and the
// Options of a queue session share.
func helloDefaults(clientName *string, queueManager string, maxFrame *int) error {
	if *clientName == "" {
		*clientName = DefaultClientName
	}
	if err := CheckHelloStrings(*clientName, queueManager); err != nil {
		return err
	}
	if *maxFrame == 0 {
		*maxFrame = wire.DefaultMaxFrame
	} else if err := wire.ValidateMaxFrame(*maxFrame); err != nil {
		return configError("MaxFrame: %v", err) // spec W-07
	}
	return nil
}

func (cfg ConnConfig) withDefaults() (ConnConfig, error) {
	if err := helloDefaults(&cfg.ClientName, cfg.QueueManager, &cfg.MaxFrame); err != nil {
		return cfg, err
	}
	if cfg.DialTimeout <= 0 {
		cfg.DialTimeout = DefaultDialTimeout
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.KeepAlive == 0 {
		cfg.KeepAlive = DefaultKeepAlive
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	return cfg, nil
}

// Conn is a pipelined iLink connection, shared by sessions, producers,
// consumers and admin clients.
//
// Writes: a request is encoded by its caller, then queued together with its
// promise under one lock, so the byte order on the wire and the FIFO order
// of promises always agree. Whoever finds no write in progress becomes the
// flusher and writes everything queued so far with one writev; requests
// queued meanwhile ride along in the next round. No goroutine is started per
// request.
//
// Reads: one goroutine reads replies; replies arrive in request order, so
// each one completes the head of the FIFO after its correlation id was
// checked (a mismatch kills the connection). Any I/O error kills the
// connection and fails every pending call with a KindSession error.
type Conn struct {
	cfg   ConnConfig
	addr  string
	nc    net.Conn
	hello wire.HelloReply
	timer *time.Timer // missing-reply watchdog of the FIFO head
	ka    *time.Timer // keepalive: a PING after KeepAlive without a write

	mu         sync.Mutex
	corr       uint32
	pending    []*Call // FIFO of calls waiting for replies
	headSince  time.Time
	timerAt    time.Time // zero when the watchdog is not armed
	wq, wspare [][]byte  // frames waiting for the flusher / its spare slice
	writing    bool      // a flusher is active
	lastWrite  time.Time // when the last request was queued (keepalive)
	dead       *Error
	done       chan struct{}
}

// maxFlushRounds bounds how long a caller keeps writing other callers'
// frames before handing the flusher role to a goroutine.
const maxFlushRounds = 4

// DialConn connects to addr and performs the HELLO handshake. A refusal by
// the engine is returned as its *Error (MIMQE_NOT_LEADER carries the leader
// in Hint); a failure to connect is a KindSession error.
func DialConn(ctx context.Context, addr string, cfg ConnConfig) (*Conn, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	var c *Conn
	if cfg.Hub != nil {
		if c, err = cfg.Hub.dialHub(ctx, addr, cfg); err != nil {
			return nil, err
		}
	} else {
		nc, err := dialTCP(ctx, addr, addr, cfg.DialTimeout)
		if err != nil {
			return nil, err
		}
		c = newConn(nc, addr, cfg)
	}
	hctx, cancel := context.WithTimeout(ctx, cfg.DialTimeout)
	defer cancel()
	req := wire.HelloRequest{
		ClientName:       cfg.ClientName,
		ClientVersion:    ClientVersion,
		Mode:             cfg.Mode,
		ConsumerProtocol: wire.ConsumerProtocolV2,
		QueueManager:     cfg.QueueManager,
	}
	var rep wire.HelloReply
	if err := c.Do(hctx, wire.CodeHello, 0, &req, &rep); err != nil {
		c.Close()
		if ctx.Err() == nil && hctx.Err() != nil {
			return nil, sessionError(NameNoReply, nil, fmt.Sprintf("%s: no HELLO reply within %v", addr, cfg.DialTimeout))
		}
		return nil, err
	}
	c.hello = rep
	if cfg.Hub != nil {
		cfg.Hub.Learn(rep.Nodes)
	}
	cfg.Logf("ilink: connected to %s (node %d, qmgr %s, mode %d)", addr, rep.NodeID, rep.QueueManager, cfg.Mode)
	return c, nil
}

// dialTCP connects to addr; what names it in the error.
func dialTCP(ctx context.Context, addr, what string, timeout time.Duration) (net.Conn, error) {
	d := net.Dialer{Timeout: timeout}
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctxError(ctx)
		}
		return nil, sessionError(NameConnectFailed, err, what+": "+errText(err))
	}
	return nc, nil
}

func newConn(nc net.Conn, addr string, cfg ConnConfig) *Conn {
	c := &Conn{cfg: cfg, addr: addr, nc: nc, done: make(chan struct{})}
	c.timer = time.AfterFunc(time.Hour, c.watchdog)
	c.timer.Stop()
	if cfg.KeepAlive > 0 {
		c.lastWrite = time.Now()
		c.ka = time.AfterFunc(cfg.KeepAlive, c.keepalive)
	}
	go c.readLoop()
	return c
}

// keepalive sends a PING when nothing was written for KeepAlive, and
// re-arms itself for the next moment one may be due. The PING's reply (or
// error) is ignored: a dead connection is noticed by the reader anyway.
func (c *Conn) keepalive() {
	c.mu.Lock()
	if c.dead != nil {
		c.mu.Unlock()
		return
	}
	idle := time.Since(c.lastWrite)
	c.mu.Unlock()
	if idle >= c.cfg.KeepAlive {
		if _, err := c.Send(wire.CodePing, 0, &wire.Empty{}, nil, func(error) {}); err != nil {
			return
		}
		idle = 0
	}
	c.ka.Reset(c.cfg.KeepAlive - idle)
}

// Addr is the address dialled.
func (c *Conn) Addr() string { return c.addr }

// Hello is the engine's handshake reply.
func (c *Conn) Hello() *wire.HelloReply { return &c.hello }

// MaxFrame is the client's frame cap on this connection.
func (c *Conn) MaxFrame() int { return c.cfg.MaxFrame }

// Done is closed when the connection is dead.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err is nil while the connection is usable, else the error that killed it.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dead == nil {
		return nil
	}
	return c.dead
}

// Close kills the connection; pending calls fail with a session error.
func (c *Conn) Close() error {
	c.fail(sessionError(NameConnectionLost, net.ErrClosed, "connection closed by the client"))
	return nil
}

// Do sends a request and waits for its reply, decoded into resp (which may
// be nil for an empty body). timeoutMs travels in the header: how long the
// engine may hold the request (GET waits). If ctx ends first, Do returns
// the context's error and the reply, when it comes, is read and discarded.
func (c *Conn) Do(ctx context.Context, code wire.Code, timeoutMs uint32, req, resp wire.Message) error {
	return c.DoBounded(ctx, code, timeoutMs, req, resp, 0)
}

// DoBounded is Do for a request that bounds its reply's size (a fetch's
// MaxBytes): a reply body up to maxBody bytes is read into one buffer of
// its size at once, where a larger one grows with the bytes that arrive
// (which costs a copy per doubling past 1 MiB).
func (c *Conn) DoBounded(ctx context.Context, code wire.Code, timeoutMs uint32, req, resp wire.Message, maxBody int) error {
	if ctx.Err() != nil {
		return ctxError(ctx)
	}
	call, err := c.send(code, timeoutMs, req, resp, nil, maxBody)
	if err != nil {
		return err
	}
	return call.Wait(ctx)
}

// Send queues a request and returns its promise at once. fn, if not nil,
// is called exactly once with the result, from the connection's reader
// goroutine (keep it short), unless the call is abandoned through Wait; it
// is not called when Send itself returns an error (oversize frame:
// MIMQE_MSG_SIZE_OVER, dead connection: the session error that killed it).
func (c *Conn) Send(code wire.Code, timeoutMs uint32, req, resp wire.Message, fn func(error)) (*Call, error) {
	return c.send(code, timeoutMs, req, resp, fn, 0)
}

func (c *Conn) send(code wire.Code, timeoutMs uint32, req, resp wire.Message, fn func(error), maxBody int) (*Call, error) {
	frame, err := c.encode(wire.Header{Code: code, TimeoutMs: timeoutMs}, req)
	if err != nil {
		return nil, err
	}
	call := newCall(code, resp, fn, time.Now().Add(time.Duration(timeoutMs)*time.Millisecond+c.cfg.RequestTimeout))
	call.maxBody = maxBody
	if err := c.enqueue([][]byte{frame}, []*Call{call}); err != nil {
		return nil, err
	}
	return call, nil
}

// Request is one request of SendBatch.
type Request struct {
	Code      wire.Code
	TimeoutMs uint32       // how long the engine may hold it (GET waits)
	Req, Resp wire.Message // Resp may be nil for an empty reply body
	Fn        func(error)  // optional completion callback, as for Send
}

// SendBatch queues several requests back to back, in order, in one write
// when the connection is idle, and returns their promises. Every frame is
// checked against the cap first: if one is too big, nothing is sent.
func (c *Conn) SendBatch(reqs ...Request) ([]*Call, error) {
	frames := make([][]byte, len(reqs))
	for i, r := range reqs {
		f, err := c.encode(wire.Header{Code: r.Code, TimeoutMs: r.TimeoutMs}, r.Req)
		if err != nil {
			for _, f := range frames[:i] {
				putBuf(f)
			}
			return nil, err
		}
		frames[i] = f
	}
	now := time.Now()
	calls := make([]*Call, len(reqs))
	for i, r := range reqs {
		dl := now.Add(time.Duration(r.TimeoutMs)*time.Millisecond + c.cfg.RequestTimeout)
		calls[i] = newCall(r.Code, r.Resp, r.Fn, dl)
	}
	if err := c.enqueue(frames, calls); err != nil {
		return nil, err
	}
	return calls, nil
}

// SendNoReply writes a request the engine must not answer (FlagNoReply).
// It returns once the frame is queued; a write failure kills the connection.
func (c *Conn) SendNoReply(code wire.Code, req wire.Message) error {
	frame, err := c.encode(wire.Header{Code: code, Flags: wire.FlagNoReply}, req)
	if err != nil {
		return err
	}
	return c.enqueue([][]byte{frame}, nil)
}

// encode builds a whole frame and checks it against the client's cap
// before anything is written (spec W-08): an oversize request fails alone
// and the connection stays usable (W-09).
func (c *Conn) encode(h wire.Header, req wire.Message) ([]byte, error) {
	var enc func(*wire.Writer)
	if req != nil {
		enc = req.Encode
	}
	frame := wire.AppendFrame(getBuf(), h, enc)
	if len(frame) > c.cfg.MaxFrame {
		n := len(frame)
		putBuf(frame)
		return nil, sizeOverError(n, c.cfg.MaxFrame)
	}
	return frame, nil
}

// enqueue assigns the correlation ids, appends the promises to the FIFO
// and the frames to the write queue in one critical section, then flushes
// unless another caller is already flushing. calls is nil for no-reply
// frames, else parallel to frames.
func (c *Conn) enqueue(frames [][]byte, calls []*Call) error {
	c.mu.Lock()
	if c.dead != nil {
		err := c.dead
		c.mu.Unlock()
		for _, f := range frames {
			putBuf(f)
		}
		return err
	}
	c.lastWrite = time.Now()
	for i, frame := range frames {
		c.corr++
		binary.BigEndian.PutUint32(frame[10:14], c.corr)
		if calls != nil {
			call := calls[i]
			call.corr = c.corr
			if len(c.pending) == 0 {
				c.headSince = time.Now()
				c.armLocked(call.deadline)
			}
			c.pending = append(c.pending, call)
		}
		c.wq = append(c.wq, frame)
	}
	if c.writing {
		c.mu.Unlock()
		return nil
	}
	c.writing = true
	c.mu.Unlock()
	c.flush(maxFlushRounds)
	return nil
}

// flush writes queued frames until the queue is empty. After rounds rounds
// (rounds < 0: no limit) it hands the job to a goroutine so that a caller
// is not kept writing for others under sustained load.
func (c *Conn) flush(rounds int) {
	var sent [][]byte
	for i := 0; ; i++ {
		c.mu.Lock()
		if len(c.wq) == 0 || c.dead != nil {
			c.writing = false
			c.mu.Unlock()
			return
		}
		if rounds >= 0 && i == rounds {
			c.mu.Unlock()
			go c.flush(-1) // c.writing stays true: the role moves
			return
		}
		batch := c.wq
		c.wq, c.wspare = c.wspare[:0], nil
		c.mu.Unlock()

		sent = append(sent[:0], batch...) // WriteTo consumes its slice
		bufs := net.Buffers(batch)
		_ = c.nc.SetWriteDeadline(time.Now().Add(c.cfg.RequestTimeout))
		_, err := bufs.WriteTo(c.nc)
		for j, b := range sent {
			putBuf(b)
			sent[j] = nil
		}
		clear(batch[:cap(batch)])
		c.mu.Lock()
		c.wspare = batch[:0]
		c.mu.Unlock()
		if err != nil {
			c.fail(sessionError(NameConnectionLost, err, "write to "+c.addr+": "+errText(err)))
			c.mu.Lock()
			c.writing = false
			c.mu.Unlock()
			return
		}
	}
}

// readLoop reads replies and completes the FIFO head for each.
func (c *Conn) readLoop() {
	br := bufio.NewReaderSize(c.nc, 64<<10)
	var hb [wire.HeaderSize]byte
	for {
		if _, err := io.ReadFull(br, hb[:]); err != nil {
			c.fail(c.lostError(err))
			return
		}
		h, err := wire.ParseHeader(hb[:])
		if err != nil {
			c.fail(c.protocolError(err.Error()))
			return
		}
		if int64(h.Length) > wire.HardMaxFrame {
			c.fail(c.protocolError((&wire.FrameTooLargeError{Length: h.Length, Max: wire.HardMaxFrame}).Error()))
			return
		}
		body, err := readBody(br, h.BodyLen(), c.headMaxBody())
		if err != nil {
			c.fail(c.lostError(err))
			return
		}
		call := c.pop()
		if call == nil {
			c.fail(c.protocolError(fmt.Sprintf("unexpected frame %v corr %d with no request pending", h.Code, h.Corr)))
			return
		}
		if h.Corr != call.corr || h.Code != call.code || !h.IsResponse() {
			perr := c.protocolError(fmt.Sprintf("reply %v corr %d does not match request %v corr %d", h.Code, h.Corr, call.code, call.corr))
			c.fail(perr)
			if call.claim() {
				call.finish(perr)
			}
			return
		}
		if !call.claim() {
			continue // abandoned by its caller: reply consumed and dropped
		}
		if h.IsError() {
			var eb wire.ErrorBody
			if err := wire.Decode(body, &eb); err != nil {
				perr := c.protocolError(err.Error())
				c.fail(perr)
				call.finish(perr)
				return
			}
			call.finish(fromWire(h.Status, &eb))
			continue
		}
		if call.resp != nil {
			if err := wire.Decode(body, call.resp); err != nil {
				perr := c.protocolError(err.Error())
				c.fail(perr)
				call.finish(perr)
				return
			}
		}
		call.finish(nil)
	}
}

// readBody reads n bytes into a fresh buffer (decoded messages alias it).
// Above 1 MiB, unless the request bounded its reply to at least n bytes
// (bound), the buffer grows with the bytes that actually arrive, so a
// peer cannot make the client allocate what it never sends.
func readBody(r io.Reader, n, bound int) ([]byte, error) {
	if n == 0 {
		return nil, nil
	}
	const step = 1 << 20
	if n <= max(step, min(bound, maxPrealloc)) {
		b := make([]byte, n)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, unexpectedEOF(err)
		}
		return b, nil
	}
	b := make([]byte, 0, step)
	for len(b) < n {
		if len(b) == cap(b) {
			b = append(b, make([]byte, min(cap(b), n-len(b)))...)[:len(b)]
		}
		m, err := io.ReadFull(r, b[len(b):min(cap(b), n)])
		b = b[:len(b)+m]
		if err != nil {
			return nil, unexpectedEOF(err)
		}
	}
	return b, nil
}

// maxPrealloc caps what a bound lets readBody allocate before the bytes
// arrive: a request's own limits (a fetch's MaxBytes, up to 50 MiB) are
// not what a peer that announces and then stalls may pin per connection.
const maxPrealloc = 8 << 20

func unexpectedEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// headMaxBody is the reply bound of the FIFO head (DoBounded), 0 = none.
func (c *Conn) headMaxBody() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.pending) == 0 {
		return 0
	}
	return c.pending[0].maxBody
}

// pop removes the FIFO head.
func (c *Conn) pop() *Call {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.pending) == 0 {
		return nil
	}
	call := c.pending[0]
	c.pending[0] = nil
	c.pending = c.pending[1:]
	if len(c.pending) > 0 {
		c.headSince = time.Now()
	}
	return call
}

// armLocked makes sure the watchdog fires no later than at.
func (c *Conn) armLocked(at time.Time) {
	if !c.timerAt.IsZero() && !c.timerAt.After(at) {
		return
	}
	c.timerAt = at
	c.timer.Reset(time.Until(at))
}

// watchdog kills the connection when the FIFO head has waited longer than
// its own wait plus the request timeout: a missing reply (spec E-06).
// Calls behind the head are answered after it, so they are given the
// request timeout from the moment they became the head.
func (c *Conn) watchdog() {
	c.mu.Lock()
	c.timerAt = time.Time{}
	if c.dead != nil || len(c.pending) == 0 {
		c.mu.Unlock()
		return
	}
	head := c.pending[0]
	dl := head.deadline
	if d := c.headSince.Add(c.cfg.RequestTimeout); d.After(dl) {
		dl = d
	}
	if time.Now().Before(dl) {
		c.armLocked(dl)
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	c.fail(&Error{
		Name: NameNoReply,
		Tail: fmt.Sprintf("%s: no reply to %v within its wait plus %v", c.addr, head.code, c.cfg.RequestTimeout),
		Kind: KindSession,
	})
}

// fail kills the connection once: the socket is closed, every pending call
// fails with err, and later requests get err at once.
func (c *Conn) fail(err *Error) {
	c.mu.Lock()
	if c.dead != nil {
		c.mu.Unlock()
		return
	}
	c.dead = err
	close(c.done)
	pend := c.pending
	c.pending = nil
	for _, b := range c.wq {
		putBuf(b)
	}
	c.wq = nil
	c.mu.Unlock()
	c.timer.Stop()
	if c.ka != nil {
		c.ka.Stop()
	}
	_ = c.nc.Close()
	if err.Name != NameConnectionLost || !errors.Is(err, net.ErrClosed) {
		c.cfg.Logf("ilink: connection to %s dead: %v", c.addr, err)
	}
	for _, call := range pend {
		if call.claim() {
			call.finish(err)
		}
	}
}

func (c *Conn) lostError(err error) *Error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return sessionError(NameConnectionLost, err, c.addr+": connection closed by the engine")
	}
	return sessionError(NameConnectionLost, err, c.addr+": "+errText(err))
}

func (c *Conn) protocolError(msg string) *Error {
	return &Error{Name: NameProtocol, Tail: c.addr + ": " + msg, Kind: KindSession}
}

// errText shortens net errors ("dial tcp 127.0.0.1:1: connect: connection
// refused" → "connect: connection refused") since the address is added by
// the caller.
func errText(err error) string {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err.Error()
	}
	return err.Error()
}

// Frame buffers are recycled after they were written: small ones in
// bufPool, the large produce frames (up to the request cap) in wire's
// size-class pool (wire.GetFrameBuf).
const (
	bufInitial = 512
	bufKeepMax = 64 << 10
)

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, bufInitial); return &b }}

func getBuf() []byte { return (*bufPool.Get().(*[]byte))[:0] }

func putBuf(b []byte) {
	switch {
	case cap(b) < bufInitial:
	case cap(b) <= bufKeepMax:
		b = b[:0]
		bufPool.Put(&b)
	default:
		wire.PutFrameBuf(b)
	}
}
