package consumer

import (
	"context"
	"sync"

	"ilinkdash/ilink"
	"ilinkdash/ilink/wire"
)

// coordinator sends a group's requests to its coordinator node, finding
// it with FIND COORDINATOR and finding it again after NOT_COORDINATOR
// (4175), LOADING (4176) or a dead connection (spec C-27, C-28, C-49).
type coordinator struct {
	cl    *cluster
	opt   *Options
	group string

	mu   sync.Mutex
	node uint16
	conn *ilink.Conn
}

func newCoordinator(cl *cluster, opt *Options) *coordinator {
	return &coordinator{cl: cl, opt: opt, group: opt.Group}
}

// forget drops c as the coordinator connection.
func (co *coordinator) forget(c *ilink.Conn) {
	co.mu.Lock()
	if co.conn == c {
		co.conn, co.node = nil, 0
	}
	co.mu.Unlock()
}

// find returns the connection to the group's coordinator.
func (co *coordinator) find(ctx context.Context) (*ilink.Conn, error) {
	co.mu.Lock()
	if co.conn != nil && co.conn.Err() == nil {
		c := co.conn
		co.mu.Unlock()
		return c, nil
	}
	co.mu.Unlock()
	bc, err := co.cl.anyConn(ctx)
	if err != nil {
		return nil, err
	}
	var rep wire.CoordinatorReply
	if err := bc.Do(ctx, wire.CodeFindCoordinator, 0, &wire.GroupRequest{Group: co.group}, &rep); err != nil {
		if ilink.IsSessionError(err) {
			bc.Close()
		}
		return nil, err
	}
	c, err := co.cl.connTo(ctx, rep.NodeID, rep.Addr)
	if err != nil {
		return nil, err
	}
	co.mu.Lock()
	co.conn, co.node = c, rep.NodeID
	co.mu.Unlock()
	return c, nil
}

// do sends one request to the coordinator. After NOT_COORDINATOR, LOADING
// or a communication failure it waits 100 ms, 200 ms, 400 ms, 800 ms, then
// 1 s between attempts, looking the coordinator up again each time (spec
// C-33); when the 10 s budget is spent it fails with MIMQE_NOT_AVAILABLE
// (group coordinator for <group>) (C-34). Other errors, the rebalance
// reports 4161 / 4178 included, return at once.
func (co *coordinator) do(ctx context.Context, code wire.Code, timeoutMs uint32, req, resp wire.Message) error {
	return co.doWait(ctx, code, timeoutMs, req, resp, (*ilink.Call).Wait)
}

// doWait is do waiting for each sent request's reply with wait (do's is
// Call.Wait: until the reply or ctx's end).
func (co *coordinator) doWait(ctx context.Context, code wire.Code, timeoutMs uint32, req, resp wire.Message,
	wait func(*ilink.Call, context.Context) error) error {
	start := co.opt.now()
	backoff := CoordinatorBackoffMin
	for {
		c, err := co.find(ctx)
		if err == nil {
			err = ctx.Err()
		}
		if err == nil {
			var call *ilink.Call
			if call, err = c.Send(code, timeoutMs, req, resp, nil); err == nil {
				err = wait(call, ctx)
			}
			if err == nil {
				return nil
			}
			if isCoordinatorRetry(err) {
				co.forget(c)
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !isCoordinatorRetry(err) {
			return err
		}
		elapsed := co.opt.now().Sub(start)
		if elapsed >= co.opt.coordBudget {
			co.opt.Logf("consumer: group %s: no coordinator within %v (last: %v)", co.group, co.opt.coordBudget, err)
			return notAvailableError(co.group)
		}
		wait := min(backoff, co.opt.coordBudget-elapsed)
		co.opt.Logf("consumer: group %s: %v: %v; looking the coordinator up again in %v", co.group, code, err, wait)
		if err := co.opt.sleep(ctx, wait); err != nil {
			return err
		}
		backoff = min(2*backoff, CoordinatorBackoffMax)
	}
}
