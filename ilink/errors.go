package ilink

import (
	"context"
	"errors"
	"fmt"

	"ilinkdash/ilink/wire"
)

// ErrorKind tells what an application should do about an error. The kinds
// are disjoint (spec E-08): an error is never both a rejection and a
// session failure.
type ErrorKind uint8

const (
	// KindRejected: the engine judged the request and said no (or the
	// client refused it on the engine's behalf, like MIMQE_MSG_SIZE_OVER).
	// Retrying the same request is pointless; the library never does (S-15).
	KindRejected ErrorKind = iota + 1
	// KindSession: communication failed (connection lost, no reply, no
	// leader reachable). The session must reconnect (E-06).
	KindSession
	// KindNoMessage: nothing arrived within the wait (E-07).
	KindNoMessage
	// KindConfig: invalid configuration, reported before anything is sent (E-09).
	KindConfig
)

func (k ErrorKind) String() string {
	switch k {
	case KindRejected:
		return "rejected"
	case KindSession:
		return "session"
	case KindNoMessage:
		return "no-message"
	case KindConfig:
		return "config"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Client-side error names. The engine's names are in package wire; these
// are the ones only the client produces. They follow the MIMQE_ prefix
// rule (E-02) so every error reads the same way.
const (
	NameConnectFailed  = "MIMQE_CONNECT_FAILED"  // no candidate accepted the session
	NameConnectionLost = "MIMQE_CONNECTION_LOST" // I/O error, peer closed, session not connected
	NameNoReply        = "MIMQE_NO_REPLY"        // the engine did not answer within the request timeout
	NameSessionClosed  = "MIMQE_SESSION_CLOSED"  // the application closed the session
	NameProtocol       = "MIMQE_PROTOCOL_ERROR"  // malformed or unexpected frame from the peer
	NameBadConfig      = "MIMQE_BAD_CONFIG"      // invalid option or address
)

// Error is the one error type of package ilink. Name is the MIMQE_ name,
// Report the engine's REPORT code (0 if none), Tail the reason text, Hint a
// leader address when the engine named one, Kind the class (spec E-03).
type Error struct {
	Name   string
	Report uint16
	Tail   string
	Hint   string
	Kind   ErrorKind

	cause error // underlying Go error (I/O, context), for errors.Is/As
}

// Error formats the error as `NAME (tail)`, or `NAME` when there is no
// tail (spec E-01).
func (e *Error) Error() string {
	if e.Tail == "" {
		return e.Name
	}
	return e.Name + " (" + e.Tail + ")"
}

// Unwrap returns the underlying Go error, if any.
func (e *Error) Unwrap() error { return e.cause }

// Is makes errors.Is(err, &Error{Name: X}) match any *Error named X, and
// errors.Is(err, &Error{Kind: K}) match any *Error of kind K.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	if !ok {
		return false
	}
	return (t.Name == "" || t.Name == e.Name) && (t.Kind == 0 || t.Kind == e.Kind)
}

// AsError returns the *Error in err's chain, or nil.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

func isKind(err error, k ErrorKind) bool {
	e := AsError(err)
	return e != nil && e.Kind == k
}

// IsRejected reports whether the engine (or the client on its behalf)
// refused the request; retrying it is pointless (spec E-05, E-10).
func IsRejected(err error) bool { return isKind(err, KindRejected) }

// IsSessionError reports a communication or session failure: reconnect
// (spec E-06).
func IsSessionError(err error) bool { return isKind(err, KindSession) }

// IsNoMessage reports that nothing arrived within the wait (spec E-07).
func IsNoMessage(err error) bool { return isKind(err, KindNoMessage) }

// IsConfigError reports invalid configuration (spec E-09).
func IsConfigError(err error) bool { return isKind(err, KindConfig) }

// HasName reports whether err is an *Error with the given name.
func HasName(err error, name string) bool {
	e := AsError(err)
	return e != nil && e.Name == name
}

// fromWire converts an error response. An answer from the engine is a
// rejection (E-05), except no-message (E-07) and the two session
// refusals, which mean "go elsewhere / come back later" and therefore
// call for a reconnect (S-18).
func fromWire(report uint16, b *wire.ErrorBody) *Error {
	e := &Error{Name: b.Name, Report: report, Tail: b.Tail, Hint: b.Hint, Kind: KindRejected}
	switch b.Name {
	case wire.ErrNoMessage:
		e.Kind = KindNoMessage
	case wire.ErrNotLeader, wire.ErrNoLeader:
		e.Kind = KindSession
	}
	if e.Name == "" {
		e.Name = wire.ErrInternal // an engine must name its errors; never show an empty name
	}
	return e
}

// sessionError builds a KindSession error from a Go error.
func sessionError(name string, cause error, tail string) *Error {
	if tail == "" && cause != nil {
		tail = cause.Error()
	}
	return &Error{Name: name, Tail: tail, Kind: KindSession, cause: cause}
}

// configError builds a KindConfig error.
func configError(format string, args ...any) *Error {
	return &Error{Name: NameBadConfig, Tail: fmt.Sprintf(format, args...), Kind: KindConfig}
}

// sizeOverError is the client-side refusal of an oversize frame (W-08, E-10).
func sizeOverError(frameLen, max int) *Error {
	return &Error{
		Name: wire.ErrMsgSizeOver,
		Tail: fmt.Sprintf("frame of %d bytes exceeds the client cap of %d bytes", frameLen, max),
		Kind: KindRejected,
	}
}

// ctxError returns the context's error when it is done. Giving up is the
// caller's decision, not a class of iLink error, so it is returned as the
// plain context error (errors.Is(err, context.Canceled) etc.).
func ctxError(ctx context.Context) error {
	if err := context.Cause(ctx); err != nil {
		return err
	}
	return ctx.Err()
}

// ReadOnlyError is the refusal of a mutating call in read-only mode, made
// locally before anything is sent: MIMQE_READ_ONLY (<call> refused: read-only mode).
func ReadOnlyError(call string) *Error {
	return &Error{Name: wire.ErrReadOnly, Tail: call + " refused: read-only mode", Kind: KindRejected}
}
