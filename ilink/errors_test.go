package ilink

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"ilinkdash/ilink/wire"
)

func TestErrorText(t *testing.T) {
	t.Parallel()
	cases := []struct {
		e    *Error
		want string
	}{
		{&Error{Name: "MIMQE_GROUP_NOT_EMPTY", Tail: "2 active members", Kind: KindRejected}, "MIMQE_GROUP_NOT_EMPTY (2 active members)"},
		{&Error{Name: "MIMQE_NO_MSG", Kind: KindNoMessage}, "MIMQE_NO_MSG"},
		{&Error{Name: "MIMQE_NOT_COORDINATOR", Report: 4175, Tail: "this node follows"}, "MIMQE_NOT_COORDINATOR (this node follows)"},
	}
	for _, c := range cases {
		if got := c.e.Error(); got != c.want { // spec: E-01
			t.Errorf("Error() = %q, want %q", got, c.want)
		}
	}
}

func TestFromWireKeepsFieldsAndClassifies(t *testing.T) {
	t.Parallel()
	e := fromWire(wire.ReportNotCoordinator, &wire.ErrorBody{Name: wire.ErrNotCoordinator, Tail: "this node follows", Hint: "h:1"})
	// spec: E-03 — name, REPORT code and tail separately accessible
	if e.Name != wire.ErrNotCoordinator || e.Report != 4175 || e.Tail != "this node follows" || e.Hint != "h:1" {
		t.Fatalf("fields lost: %+v", e)
	}
	if e.Kind != KindRejected { // spec: E-05
		t.Fatalf("engine answer classed %v, want rejected", e.Kind)
	}
	if k := fromWire(0, &wire.ErrorBody{Name: wire.ErrNoMessage}).Kind; k != KindNoMessage { // spec: E-07
		t.Fatalf("MIMQE_NO_MSG classed %v", k)
	}
	for _, n := range []string{wire.ErrNotLeader, wire.ErrNoLeader} {
		if k := fromWire(0, &wire.ErrorBody{Name: n}).Kind; k != KindSession { // spec: S-18
			t.Fatalf("%s classed %v, want session", n, k)
		}
	}
	if e := fromWire(0, &wire.ErrorBody{}); e.Name == "" {
		t.Fatal("empty engine error name kept")
	}
}

func TestErrorClassesAreDisjoint(t *testing.T) {
	t.Parallel()
	errs := map[ErrorKind]error{
		KindRejected:  sizeOverError(2<<20, 1<<20),
		KindSession:   sessionError(NameConnectionLost, io.EOF, ""),
		KindNoMessage: fromWire(0, &wire.ErrorBody{Name: wire.ErrNoMessage}),
		KindConfig:    configError("MaxFrame: %d", 1),
	}
	preds := map[ErrorKind]func(error) bool{
		KindRejected: IsRejected, KindSession: IsSessionError, KindNoMessage: IsNoMessage, KindConfig: IsConfigError,
	}
	for kind, err := range errs {
		wrapped := fmt.Errorf("op: %w", err)
		for pk, pred := range preds {
			if got := pred(wrapped); got != (pk == kind) { // spec: E-08
				t.Errorf("%v error %q: %v predicate = %v", kind, err, pk, got)
			}
		}
		if AsError(wrapped) == nil {
			t.Errorf("AsError lost %v", err)
		}
	}
	if IsRejected(nil) || IsSessionError(errors.New("x")) || AsError(context.Canceled) != nil {
		t.Fatal("non-iLink errors classified")
	}
}

func TestSizeOverIsRejection(t *testing.T) {
	t.Parallel()
	err := sizeOverError(5<<20, 1<<20)
	if err.Name != wire.ErrMsgSizeOver || !IsRejected(err) { // spec: E-10
		t.Fatalf("got %v kind %v", err, err.Kind)
	}
}

func TestSessionErrorUnwrapsCause(t *testing.T) {
	t.Parallel()
	err := sessionError(NameConnectionLost, io.ErrUnexpectedEOF, "")
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatal("cause not reachable with errors.Is")
	}
	if !errors.Is(fmt.Errorf("x: %w", err), &Error{Name: NameConnectionLost}) || !errors.Is(err, &Error{Kind: KindSession}) {
		t.Fatal("errors.Is by name/kind template failed")
	}
	if errors.Is(err, &Error{Kind: KindRejected}) {
		t.Fatal("errors.Is matched the wrong kind")
	}
}

func TestOptionsValidation(t *testing.T) {
	t.Parallel()
	bad := []Options{
		{MaxFrame: 1000},
		{MaxFrame: wire.HardMaxFrame + 1},
		{DialTimeout: -1},
		{RequestTimeout: -1},
		{FailoverTimeout: -1},
	}
	for _, o := range bad {
		_, err := Dial(context.Background(), "127.0.0.1:1", o)
		if !IsConfigError(err) { // spec: W-07, E-09
			t.Errorf("%+v: got %v, want config error", o, err)
		}
	}
	o, err := Options{}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if o.MaxFrame != wire.DefaultMaxFrame || o.FailoverTimeout != DefaultFailoverTimeout || o.ClientName != "ilinkdash" { // spec: W-05
		t.Fatalf("defaults: %+v", o)
	}
}
