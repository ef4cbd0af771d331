package admin

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/engine/enginetest"
	"ilinkdash/ilink/wire"
)

// The integration tests run the admin client against the in-process
// engine over loopback TCP.

var engineSeq atomic.Int64

// startEngine starts an engine with unique queue manager and cluster
// names (a port freed by a killed node may be reused by another test's
// engine; the names make such a foreign listener refuse us).
func startEngine(t testing.TB, cfg engine.Config) *engine.Engine {
	t.Helper()
	if cfg.ElectionDelay == 0 {
		cfg.ElectionDelay = 200 * time.Millisecond
	}
	n := engineSeq.Add(1)
	if cfg.QueueManager == "" {
		cfg.QueueManager = fmt.Sprintf("QMA%d", n)
	}
	if cfg.Cluster == "" {
		cfg.Cluster = fmt.Sprintf("CA%d", n)
	}
	if testing.Verbose() {
		var over atomic.Bool
		if tt, ok := t.(*testing.T); ok {
			tt.Cleanup(func() { over.Store(true) })
		}
		cfg.Logf = func(format string, args ...any) {
			if !over.Load() {
				t.Logf(format, args...)
			}
		}
	}
	return enginetest.Start(t, cfg)
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// connect opens a service on node id's admin listener.
func connect(t testing.TB, e *engine.Engine, id int, opt Options) *Service {
	t.Helper()
	s, err := Connect(testCtx(t), e.AdminAddrs()[id-1], opt)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// startAdmin starts an engine (cfg, through startEngine) and connects a
// service to node id's admin listener: what most integration tests begin
// with. It returns the engine, the service, the service's queue manager
// and the test's context.
func startAdmin(t testing.TB, cfg engine.Config, id int) (*engine.Engine, *Service, *Qmgr, context.Context) {
	t.Helper()
	e := startEngine(t, cfg)
	s := connect(t, e, id, Options{})
	return e, s, s.AccessAdminQmgr(""), testCtx(t)
}

// dialQueue opens a session on node 1's data listener, closed at the
// test's end, and accesses queue on it.
func dialQueue(t testing.TB, ctx context.Context, e *engine.Engine, autoCommit bool, queue string) (*ilink.Session, *ilink.Queue) {
	t.Helper()
	sess, err := ilink.Dial(ctx, e.DataAddrs()[0], ilink.Options{AutoCommit: autoCommit})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	return sess, must[*ilink.Queue](t)(sess.AccessQueue(ctx, queue))
}

// onceOptions are the options of the tests' one-shot puts and gets.
var onceOptions = ilink.Options{ClientName: "admin-test", AutoCommit: true}

// putOnce puts bodies on queue, each with headers (none if nil), in one
// short session on node 1's data listener (ilink.PutOnceHeaders).
func putOnce(t testing.TB, ctx context.Context, e *engine.Engine, queue string, headers []wire.RecordHeader, bodies ...[]byte) {
	t.Helper()
	if _, err := ilink.PutOnceHeaders(ctx, e.DataAddrs()[0], onceOptions, queue, bodies, headers); err != nil {
		t.Fatalf("put on %s: %v", queue, err)
	}
}

// defineQueues defines each queue through q with the default definition.
func defineQueues(t testing.TB, ctx context.Context, q *Qmgr, names ...string) {
	t.Helper()
	for _, name := range names {
		must[QueueProperty](t)(q.DefineQueue(ctx, name, QueueDefinition{}))
	}
}

// noErr fails the test at once on err: must for calls that return only
// an error.
func noErr(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// errOf is the error of a call that returns a value too, for wantErr.
func errOf[T any](_ T, err error) error { return err }

// wantErr checks that err is an *ilink.Error named name whose tail
// contains tail.
func wantErr(t testing.TB, err error, name, tail string) *ilink.Error {
	t.Helper()
	e := ilink.AsError(err)
	if e == nil {
		t.Fatalf("error %v (%T), want %s (%s)", err, err, name, tail)
	}
	if e.Name != name || !strings.Contains(e.Tail, tail) {
		t.Fatalf("error %q, want %s (...%s...)", e.Error(), name, tail)
	}
	return e
}

func must[T any](t testing.TB) func(v T, err error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// waitTimeout bounds the tests' waits for the engine (ilinktest.WaitFor).
const waitTimeout = 10 * time.Second

// codeCounter counts requests per code with an engine control.
type codeCounter struct {
	counts [4096]atomic.Int32
}

func countCodes(t testing.TB, e *engine.Engine) *codeCounter {
	c := &codeCounter{}
	remove := e.Control(func(ev *engine.ControlEvent) engine.ControlAction {
		if int(ev.Code) < len(c.counts) {
			c.counts[ev.Code].Add(1)
		}
		return engine.ControlAction{}
	})
	t.Cleanup(remove)
	return c
}

func (c *codeCounter) n(code wire.Code) int { return int(c.counts[code].Load()) }

func isCtx(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}
