package ilink

import (
	"context"
	"sync/atomic"
	"time"

	"ilinkdash/ilink/wire"
)

// Call is one request in flight on a Conn: a promise that the connection's
// reader goroutine completes when the matching reply arrives, or that the
// connection's failure completes with a session error.
type Call struct {
	code     wire.Code
	corr     uint32
	resp     wire.Message
	fn       func(error)
	deadline time.Time // reply expected by then (wait + request timeout)
	maxBody  int       // the request bounds its reply body to this (Conn.DoBounded); 0 = not

	state atomic.Uint32 // callPending → callClaimed (by the completer) or callAbandoned (by a waiter)
	done  chan struct{}
	err   error
}

const (
	callPending uint32 = iota
	callClaimed
	callAbandoned
)

func newCall(code wire.Code, resp wire.Message, fn func(error), deadline time.Time) *Call {
	return &Call{code: code, resp: resp, fn: fn, deadline: deadline, done: make(chan struct{})}
}

// Code is the request code.
func (c *Call) Code() wire.Code { return c.code }

// Done is closed when the call completed (not when it was abandoned).
func (c *Call) Done() <-chan struct{} { return c.done }

// Err is the call's result once Done is closed: nil (the response message
// was decoded into the resp given to Send), an *Error, or a Go error.
func (c *Call) Err() error { return c.err }

// Wait blocks until the call completes or ctx is done. A call abandoned
// because of ctx stays in the connection's FIFO: its reply is still read
// and discarded, so later replies stay matched, and resp is never written
// after Wait returns.
func (c *Call) Wait(ctx context.Context) error {
	select {
	case <-c.done:
		return c.err
	case <-ctx.Done():
		if c.state.CompareAndSwap(callPending, callAbandoned) {
			return ctxError(ctx)
		}
		<-c.done // the completer holds it: finishing is a matter of a decode
		return c.err
	}
}

// claim gives the completer exclusive right to finish the call.
func (c *Call) claim() bool { return c.state.CompareAndSwap(callPending, callClaimed) }

func (c *Call) finish(err error) {
	c.err = err
	close(c.done)
	if c.fn != nil {
		c.fn(err)
	}
}
