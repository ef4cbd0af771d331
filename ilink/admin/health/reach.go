package health

import (
	"context"
	"errors"
	"net"
	"strings"

	"ilinkdash/ilink"
	"ilinkdash/ilink/wire"
)

// Unreachable reports whether a call failed to reach the cluster at all
// (no connection, a lost session, no answer in time), as opposed to the
// engine answering with an error. The dashboard then says "cannot reach
// <addr>: <reason>"; `check` exits UNKNOWN.
func Unreachable(err error) bool {
	var ne net.Error
	return ilink.IsSessionError(err) || errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne)
}

// NotServing reports whether a read found no node serving it: the
// cluster could not be reached (Unreachable), or the node that answered has
// no running queue manager (MIMQE_QMGR_NOT_RUNNING, which an admin client
// that leaves stopped nodes returns only once no other node served it). A
// node list read before such a failure is no longer the nodes' state.
func NotServing(err error) bool {
	return Unreachable(err) || ilink.HasName(err, wire.ErrQmgrNotRunning)
}

// ReachReason is why the cluster could not be reached, in few words: a
// failed connection's own reason without the address ("connect:
// connection refused"), "no answer in time" for a timeout, else the
// error's text. Raw text: sanitize to display.
func ReachReason(err error) string {
	if e := ilink.AsError(err); e != nil && e.Name == ilink.NameConnectFailed && e.Tail != "" {
		t := e.Tail
		if i := strings.Index(t, ": "); i > 0 && !strings.Contains(t[:i], " ") {
			t = t[i+2:] // "host:port: reason"
		}
		return t
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "no answer in time"
	}
	return err.Error()
}
