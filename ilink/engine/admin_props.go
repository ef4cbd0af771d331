package engine

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"ilinkdash/ilink/wire"
)

// Queue-manager properties (QMGR PROPERTY / SET QMGR PROPERTY). The one
// documented property is subGroupTimeoutSec, engine key SUBGROUPTIMEOUT:
// seconds, 1..300, default 30 (spec C-44, C-45). The group coordinator
// reads it through SubGroupTimeout at every join, so a change applies at
// once to new joins and to members at their next rejoin (C-47).

const (
	DefaultSubGroupTimeoutSec = 30
	MinSubGroupTimeoutSec     = 1
	MaxSubGroupTimeoutSec     = 300
)

type qmgrProps struct {
	mu             sync.Mutex
	subGroupTimout int // seconds
}

func (p *qmgrProps) init() { p.subGroupTimout = DefaultSubGroupTimeoutSec }

// SubGroupTimeout is the queue manager's subGroupTimeoutSec: how long a
// group member may stay silent before it is removed.
func (e *Engine) SubGroupTimeout() time.Duration {
	p := &e.adm.props
	p.mu.Lock()
	defer p.mu.Unlock()
	return time.Duration(p.subGroupTimout) * time.Second
}

// SetSubGroupTimeout sets subGroupTimeoutSec; sec must be 1..300.
func (e *Engine) SetSubGroupTimeout(sec int) error {
	if eb := e.setQmgrProperty(wire.PropSubGroupTimeout, strconv.Itoa(sec)); eb != nil {
		return fmt.Errorf("engine: %s (%s)", eb.Name, eb.Tail)
	}
	return nil
}

func normPropKey(k string) string { return strings.ToUpper(strings.TrimSpace(k)) }

func (e *Engine) qmgrProperty(key string) (string, *wire.ErrorBody) {
	p := &e.adm.props
	switch normPropKey(key) {
	case wire.PropSubGroupTimeout:
		p.mu.Lock()
		defer p.mu.Unlock()
		return strconv.Itoa(p.subGroupTimout), nil
	}
	return "", unknownQmgrProperty(key)
}

func (e *Engine) setQmgrProperty(key, value string) *wire.ErrorBody {
	p := &e.adm.props
	switch normPropKey(key) {
	case wire.PropSubGroupTimeout:
		n, err := strconv.Atoi(strings.TrimSpace(value))
		if err != nil || n < MinSubGroupTimeoutSec || n > MaxSubGroupTimeoutSec {
			return &wire.ErrorBody{Name: wire.ErrInvalidProperty, Tail: fmt.Sprintf("%s %s out of range %d..%d",
				wire.PropSubGroupTimeout, value, MinSubGroupTimeoutSec, MaxSubGroupTimeoutSec)}
		}
		p.mu.Lock()
		p.subGroupTimout = n
		p.mu.Unlock()
		e.logf("engine: %s = %d", wire.PropSubGroupTimeout, n)
		return nil
	}
	return unknownQmgrProperty(key)
}

func unknownQmgrProperty(key string) *wire.ErrorBody {
	return &wire.ErrorBody{Name: wire.ErrInvalidProperty, Tail: fmt.Sprintf("unknown queue manager property %q", key)}
}

func handleQmgrProperty(r *request) {
	var req wire.QmgrPropertyRequest
	if !r.decode(&req) || !r.qmgrRunning(req.Qmgr) {
		return
	}
	v, eb := r.c.e.qmgrProperty(req.Key)
	if eb != nil {
		r.fail(eb)
		return
	}
	r.reply(&wire.QmgrPropertyReply{Key: normPropKey(req.Key), Value: v})
}

func handleSetQmgrProperty(r *request) {
	var req wire.QmgrPropertyRequest
	if !r.decode(&req) || !r.qmgrRunning(req.Qmgr) {
		return
	}
	e := r.c.e
	if eb := e.setQmgrProperty(req.Key, req.Value); eb != nil {
		r.fail(eb)
		return
	}
	v, _ := e.qmgrProperty(req.Key)
	r.reply(&wire.QmgrPropertyReply{Key: normPropKey(req.Key), Value: v})
}
