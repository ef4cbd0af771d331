package ilink

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"ilinkdash/ilink/wire"
)

func dialFake(t *testing.T, addr string, cfg ConnConfig) *Conn {
	t.Helper()
	c, err := DialConn(context.Background(), addr, cfg)
	if err != nil {
		t.Fatalf("DialConn: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestConnPipelinesAndMatchesInOrder(t *testing.T) {
	t.Parallel()
	const n = 5
	fs := newSessionServer(t, func(fc *fakeConn) {
		// Read every request before answering any: the client must not
		// wait for a reply before writing the next request.
		var hs []wire.Header
		for range n {
			h, _, ok := fc.read(2 * time.Second)
			if !ok {
				return
			}
			hs = append(hs, h)
		}
		for i, h := range hs {
			fc.reply(h, &wire.DepthReply{Depth: uint64(100 + i)})
		}
		fc.read(2 * time.Second) // wait for the client to hang up
	})
	c := dialFake(t, fs.addr(), ConnConfig{})
	calls := make([]*Call, n)
	reps := make([]wire.DepthReply, n)
	for i := range n {
		var err error
		calls[i], err = c.Send(wire.CodeQueueDepth, 0, &wire.QueueRequest{Queue: "Q"}, &reps[i], nil)
		if err != nil {
			t.Fatal(err)
		}
	}
	for i, call := range calls {
		if err := call.Wait(context.Background()); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if reps[i].Depth != uint64(100+i) {
			t.Fatalf("call %d got depth %d, want %d", i, reps[i].Depth, 100+i)
		}
	}
}

func TestConnCallbackForm(t *testing.T) {
	t.Parallel()
	fs := newSessionServer(t, func(fc *fakeConn) {
		h, _, ok := fc.read(2 * time.Second)
		if ok {
			fc.replyErr(h, wire.ReportNotCoordinator, &wire.ErrorBody{Name: wire.ErrNotCoordinator, Tail: "this node follows"})
		}
		fc.read(2 * time.Second)
	})
	c := dialFake(t, fs.addr(), ConnConfig{})
	got := make(chan error, 1)
	if _, err := c.Send(wire.CodePing, 0, &wire.Empty{}, nil, func(err error) { got <- err }); err != nil {
		t.Fatal(err)
	}
	err := <-got
	e := AsError(err)
	if e == nil || e.Name != wire.ErrNotCoordinator || e.Report != wire.ReportNotCoordinator || !IsRejected(err) {
		t.Fatalf("got %v", err)
	}
	if got, want := err.Error(), "MIMQE_NOT_COORDINATOR (this node follows)"; got != want { // spec: E-01
		t.Fatalf("text %q, want %q", got, want)
	}
}

func TestConnCorrelationMismatchKillsConnection(t *testing.T) {
	t.Parallel()
	fs := newSessionServer(t, func(fc *fakeConn) {
		h, _, ok := fc.read(2 * time.Second)
		if !ok {
			return
		}
		h.Corr += 7
		fc.reply(h, &wire.Empty{})
		fc.read(2 * time.Second)
	})
	c := dialFake(t, fs.addr(), ConnConfig{})
	err := c.Do(context.Background(), wire.CodePing, 0, &wire.Empty{}, nil)
	if !IsSessionError(err) || !HasName(err, NameProtocol) {
		t.Fatalf("mismatch: got %v, want a %s session error", err, NameProtocol)
	}
	if err := c.Do(context.Background(), wire.CodePing, 0, &wire.Empty{}, nil); !IsSessionError(err) {
		t.Fatalf("after mismatch: got %v, want session error", err)
	}
	select {
	case <-c.Done():
	default:
		t.Fatal("connection not dead after a correlation mismatch")
	}
}

func TestConnCanceledCallKeepsFIFOInStep(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	fs := newSessionServer(t, func(fc *fakeConn) {
		h1, _, ok := fc.read(2 * time.Second)
		if !ok {
			return
		}
		<-release // hold the first reply until its caller gave up
		fc.reply(h1, &wire.DepthReply{Depth: 1})
		h2, _, ok := fc.read(2 * time.Second)
		if !ok {
			return
		}
		fc.reply(h2, &wire.DepthReply{Depth: 2})
		fc.read(2 * time.Second)
	})
	c := dialFake(t, fs.addr(), ConnConfig{})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	var r1 wire.DepthReply
	err := c.Do(ctx, wire.CodeQueueDepth, 0, &wire.QueueRequest{Queue: "Q"}, &r1)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("first call: got %v, want deadline exceeded", err)
	}
	close(release)
	var r2 wire.DepthReply
	if err := c.Do(context.Background(), wire.CodeQueueDepth, 0, &wire.QueueRequest{Queue: "Q"}, &r2); err != nil {
		t.Fatalf("second call: %v", err)
	}
	if r2.Depth != 2 || r1.Depth != 0 {
		t.Fatalf("second call got depth %d (want 2), abandoned reply written: %d", r2.Depth, r1.Depth)
	}
}

func TestConnSizeOverKeepsConnection(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var seen []int
	fs := newFakeServer(t, func(fc *fakeConn) {
		fc.serve(func(h wire.Header, _ []byte) bool {
			mu.Lock()
			seen = append(seen, int(h.Length))
			mu.Unlock()
			fc.reply(h, &wire.PutReply{MsgID: make([]byte, 16)})
			return true
		})
	})
	c := dialFake(t, fs.addr(), ConnConfig{MaxFrame: wire.MinMaxFrame})
	id := NewMsgID()
	big := &wire.PutRequest{Queue: "Q", MsgID: id[:], Payload: make([]byte, wire.MinMaxFrame)}
	err := c.Do(context.Background(), wire.CodePut, 0, big, &wire.PutReply{})
	if !IsRejected(err) || !HasName(err, wire.ErrMsgSizeOver) { // spec: W-08, E-10
		t.Fatalf("oversize put: got %v, want rejected %s", err, wire.ErrMsgSizeOver)
	}
	small := &wire.PutRequest{Queue: "Q", MsgID: id[:], Payload: []byte("ok")}
	if err := c.Do(context.Background(), wire.CodePut, 0, small, &wire.PutReply{}); err != nil { // spec: W-09
		t.Fatalf("put after size over: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, n := range seen {
		if n > wire.MinMaxFrame {
			t.Fatalf("a frame of %d bytes reached the server", n) // spec: W-08 (nothing sent)
		}
	}
	if len(seen) != 1 {
		t.Fatalf("server saw %d frames, want 1", len(seen))
	}
}

func TestConnIOErrorFailsEveryPendingCall(t *testing.T) {
	t.Parallel()
	fs := newSessionServer(t, func(fc *fakeConn) {
		fc.read(2 * time.Second)
		fc.read(2 * time.Second)
		// hang up without replying
	})
	c := dialFake(t, fs.addr(), ConnConfig{})
	a, err := c.Send(wire.CodePing, 0, &wire.Empty{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Send(wire.CodePing, 0, &wire.Empty{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, call := range []*Call{a, b} {
		if err := call.Wait(context.Background()); !IsSessionError(err) || !HasName(err, NameConnectionLost) { // spec: E-06
			t.Fatalf("pending call: got %v, want %s", err, NameConnectionLost)
		}
	}
}

func TestConnMissingReplyKillsConnection(t *testing.T) {
	t.Parallel()
	fs := newSessionServer(t, func(fc *fakeConn) {
		fc.read(5 * time.Second) // never answer
		fc.read(5 * time.Second)
	})
	c := dialFake(t, fs.addr(), ConnConfig{RequestTimeout: 100 * time.Millisecond})
	start := time.Now()
	err := c.Do(context.Background(), wire.CodeGet, 50, &wire.GetRequest{Queue: "Q"}, &wire.GetReply{})
	el := time.Since(start)
	if !IsSessionError(err) || !HasName(err, NameNoReply) { // spec: E-06 (missing reply)
		t.Fatalf("got %v, want %s", err, NameNoReply)
	}
	if el < 150*time.Millisecond || el > 3*time.Second {
		t.Fatalf("missing reply detected after %v, want about wait+timeout = 150ms", el)
	}
}

func TestConnNoReplyRequest(t *testing.T) {
	t.Parallel()
	got := make(chan wire.Header, 1)
	fs := newSessionServer(t, func(fc *fakeConn) {
		h, _, ok := fc.read(2 * time.Second)
		if !ok {
			return
		}
		got <- h
		h2, _, ok := fc.read(2 * time.Second)
		if ok {
			fc.reply(h2, &wire.Empty{})
		}
		fc.read(2 * time.Second)
	})
	c := dialFake(t, fs.addr(), ConnConfig{})
	if err := c.SendNoReply(wire.CodePing, &wire.Empty{}); err != nil {
		t.Fatal(err)
	}
	if h := <-got; h.Flags&wire.FlagNoReply == 0 {
		t.Fatalf("flags %v, want FlagNoReply", h.Flags)
	}
	if err := c.Do(context.Background(), wire.CodePing, 0, &wire.Empty{}, nil); err != nil {
		t.Fatalf("request after a no-reply request: %v", err)
	}
}

func TestConnConfigValidation(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, wire.MinMaxFrame - 1, wire.HardMaxFrame + 1} {
		_, err := DialConn(context.Background(), "127.0.0.1:1", ConnConfig{MaxFrame: n})
		if !IsConfigError(err) { // spec: W-07, E-09
			t.Errorf("MaxFrame %d: got %v, want config error", n, err)
		}
	}
	for _, n := range []int{wire.MinMaxFrame, wire.HardMaxFrame} {
		if _, err := (ConnConfig{MaxFrame: n}).withDefaults(); err != nil { // spec: W-07
			t.Errorf("MaxFrame %d refused: %v", n, err)
		}
	}
	if cfg, _ := (ConnConfig{}).withDefaults(); cfg.MaxFrame != 128<<20 { // spec: W-05
		t.Errorf("default MaxFrame %d", cfg.MaxFrame)
	}
}

func TestDialConnRefusedIsSessionError(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, func(fc *fakeConn) {})
	addr := fs.addr()
	fs.ln.Close()
	_, err := DialConn(context.Background(), addr, ConnConfig{DialTimeout: time.Second})
	if !IsSessionError(err) || !HasName(err, NameConnectFailed) { // spec: E-06
		t.Fatalf("got %v", err)
	}
}

// CommitAndGet must write the GET before it reads the COMMIT's reply.
func TestCommitAndGetIsPipelined(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, func(fc *fakeConn) {
		fc.serve(func(h wire.Header, _ []byte) bool {
			switch h.Code {
			case wire.CodeOpenQueue:
				fc.reply(h, &wire.DepthReply{})
			case wire.CodeCommit:
				// Do not answer the commit until the get has arrived.
				g, _, ok := fc.read(time.Second)
				if !ok || g.Code != wire.CodeGet {
					return false // not pipelined: the client sees the connection drop
				}
				fc.reply(h, &wire.Empty{})
				fc.reply(g, &wire.GetReply{MsgID: make([]byte, 16), Payload: []byte("m1"), PutTimeMs: 1})
			}
			return true
		})
	})
	s, err := Dial(context.Background(), fs.addr(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	q, err := s.AccessQueue(context.Background(), "Q")
	if err != nil {
		t.Fatal(err)
	}
	m, err := q.CommitAndGet(context.Background(), time.Second)
	if err != nil { // spec: Q-12
		t.Fatalf("CommitAndGet: %v", err)
	}
	if string(m.Payload) != "m1" {
		t.Fatalf("payload %q", m.Payload)
	}
}

func TestConnConcurrentCallersGetTheirOwnReplies(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, func(fc *fakeConn) {
		fc.serve(func(h wire.Header, body []byte) bool {
			var q wire.QueueRequest
			if wire.Decode(body, &q) != nil {
				return false
			}
			n, _ := strconv.ParseUint(q.Queue, 10, 64)
			fc.reply(h, &wire.DepthReply{Depth: n})
			return true
		})
	})
	c := dialFake(t, fs.addr(), ConnConfig{})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 100 {
				want := uint64(g*1000 + i)
				var rep wire.DepthReply
				if err := c.Do(context.Background(), wire.CodeQueueDepth, 0, &wire.QueueRequest{Queue: strconv.FormatUint(want, 10)}, &rep); err != nil {
					t.Error(err)
					return
				}
				if rep.Depth != want {
					t.Errorf("got %d, want %d", rep.Depth, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkConnPipelined measures the client's request path against a
// minimal peer that answers each request as soon as it is read, flushing
// when its input runs dry.
func BenchmarkConnPipelined(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	go func() {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		br := bufio.NewReaderSize(nc, 64<<10)
		bw := bufio.NewWriterSize(nc, 64<<10)
		fr := wire.NewFrameReader(br, wire.HardMaxFrame)
		var out []byte
		for {
			h, _, err := fr.Next()
			if err != nil {
				return
			}
			var m wire.Message = &wire.Empty{}
			if h.Code == wire.CodeHello {
				m = &wire.HelloReply{NodeID: 1}
			}
			out = wire.AppendFrame(out[:0], wire.Header{Flags: wire.FlagResponse, Code: h.Code, Corr: h.Corr}, m.Encode)
			bw.Write(out)
			if br.Buffered() == 0 {
				if bw.Flush() != nil {
					return
				}
			}
		}
	}()
	c, err := DialConn(context.Background(), ln.Addr().String(), ConnConfig{})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	b.ReportAllocs()
	b.SetParallelism(16)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := c.Do(context.Background(), wire.CodePing, 0, &wire.Empty{}, nil); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// firstReadLen records the size of the first Read asked of it.
type firstReadLen struct {
	r     *strings.Reader
	first int
}

func (f *firstReadLen) Read(p []byte) (int, error) {
	if f.first == 0 {
		f.first = len(p)
	}
	return f.r.Read(p)
}

// TestReadBodyBound: a reply body within its request's bound (DoBounded)
// is read into one buffer of its size at once; without a bound a body
// past 1 MiB is read 1 MiB at a time, into a buffer that grows as bytes
// arrive. Both give the same bytes, and a stream that ends early fails.
func TestReadBodyBound(t *testing.T) {
	t.Parallel()
	const n = 3<<20 + 5
	data := strings.Repeat("0123456789abcdef", n/16+1)[:n]
	for _, tc := range []struct {
		bound, firstRead int
	}{{0, 1 << 20}, {n - 1, 1 << 20}, {n, n}, {8 << 20, n}, {64 << 20, n}} {
		f := &firstReadLen{r: strings.NewReader(data)}
		b, err := readBody(f, n, tc.bound)
		if err != nil || string(b) != data {
			t.Fatalf("bound %d: %d bytes, err %v", tc.bound, len(b), err)
		}
		if f.first != tc.firstRead {
			t.Errorf("bound %d: first read of %d bytes, want %d", tc.bound, f.first, tc.firstRead)
		}
		if _, err := readBody(strings.NewReader(data[:n-1]), n, tc.bound); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("bound %d: a body one byte short: err %v", tc.bound, err)
		}
	}
	// Past maxPrealloc a large bound does not allocate ahead: a peer that
	// announces 9 MiB under a 64 MiB fetch gets a buffer that grows.
	big := maxPrealloc + 1<<20
	f := &firstReadLen{r: strings.NewReader(strings.Repeat("x", big))}
	if b, err := readBody(f, big, 64<<20); err != nil || len(b) != big || f.first != 1<<20 {
		t.Errorf("9 MiB under a 64 MiB bound: %d bytes, first read %d, err %v; want a 1 MiB first read", len(b), f.first, err)
	}
}
