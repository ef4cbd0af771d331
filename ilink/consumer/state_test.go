package consumer

import (
	"fmt"
	"testing"
)

var allStates = []consumerState{stateRunning, stateRebalancing, stateExpired, stateRejoining, stateClosed}

func TestStateTransitionTable(t *testing.T) {
	t.Parallel()
	type move struct{ from, to consumerState }
	allowed := map[move]bool{
		{stateRunning, stateRebalancing}:   true,
		{stateRunning, stateExpired}:       true,
		{stateRebalancing, stateRunning}:   true,
		{stateRebalancing, stateRejoining}: true,
		{stateExpired, stateRejoining}:     true,
		{stateExpired, stateRunning}:       true,
		{stateRejoining, stateRebalancing}: true,
		{stateRejoining, stateExpired}:     true,
	}
	for _, from := range allStates {
		for _, to := range allStates {
			want := from == to || to == stateClosed || allowed[move{from, to}]
			if got := canMove(from, to); got != want {
				t.Errorf("canMove(%v, %v) = %v, want %v", from, to, got, want)
			}
		}
	}
	if canMove(consumerState(99), stateRunning) {
		t.Error("a state out of the table may move")
	}
}

func TestStateEvents(t *testing.T) {
	t.Parallel()
	events := []struct {
		name string
		ev   func(consumerState) consumerState
		// next state from running, rebalancing, expired, rejoining, closed
		want [5]consumerState
	}{
		{"rebalanceStarted", consumerState.rebalanceStarted, [5]consumerState{stateRebalancing, stateRebalancing, stateRejoining, stateRejoining, stateClosed}},
		{"rebalanceOver", consumerState.rebalanceOver, [5]consumerState{stateRunning, stateRunning, stateExpired, stateExpired, stateClosed}},
		{"joined", consumerState.joined, [5]consumerState{stateRunning, stateRebalancing, stateRunning, stateRebalancing, stateClosed}},
		{"expired", consumerState.expired, [5]consumerState{stateExpired, stateRejoining, stateExpired, stateRejoining, stateClosed}},
	}
	for _, e := range events {
		for i, from := range allStates {
			got := e.ev(from)
			if got != e.want[i] {
				t.Errorf("%s from %v: %v, want %v", e.name, from, got, e.want[i])
			}
			// Every event stays inside the table: none is refused.
			if !canMove(from, got) {
				t.Errorf("%s from %v gives %v, which the table refuses", e.name, from, got)
			}
		}
	}
}

func TestStatePredicates(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s                                consumerState
		handsOver, outOfGroup, mayExpire bool
		str                              string
	}{
		{stateRunning, true, false, true, "running"},
		{stateRebalancing, false, false, true, "rebalancing"},
		{stateExpired, true, true, false, "expired"},
		{stateRejoining, false, true, false, "rejoining"},
		{stateClosed, false, false, false, "closed"},
		{consumerState(7), false, false, false, "consumerState(7)"},
	} {
		t.Run(tc.str, func(t *testing.T) {
			if got := tc.s.handsOver(); got != tc.handsOver {
				t.Errorf("handsOver = %v", got)
			}
			if got := tc.s.outOfGroup(); got != tc.outOfGroup {
				t.Errorf("outOfGroup = %v", got)
			}
			if got := tc.s.mayExpire(); got != tc.mayExpire {
				t.Errorf("mayExpire = %v", got)
			}
			if got := tc.s.String(); got != tc.str {
				t.Errorf("String = %q", got)
			}
		})
	}
}

// The paths the group loop and the reads take, step by step: an expiry
// and the rejoin a read asks for, a rejoin that fails out of the group,
// and Close from every state, after which nothing moves.
func TestSetStateLocked(t *testing.T) {
	t.Parallel()
	type step struct {
		to     consumerState
		want   consumerState
		moved  bool // setStateLocked's answer
		notify bool // readers woken
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"rebalance", []step{
			{stateRebalancing, stateRebalancing, true, true},
			{stateRebalancing, stateRebalancing, true, false},
			{stateRunning, stateRunning, true, true},
		}},
		{"expiry then a rejoin that joins", []step{
			{stateExpired, stateExpired, true, true},
			{stateRejoining, stateRejoining, true, true},
			{stateRebalancing, stateRebalancing, true, true},
			{stateRunning, stateRunning, true, true},
		}},
		{"a rejoin that fails stays out of the group", []step{
			{stateExpired, stateExpired, true, true},
			{stateRejoining, stateRejoining, true, true},
			{stateExpired, stateExpired, true, true},
		}},
		{"no handing over while out of the group and rejoining", []step{
			{stateExpired, stateExpired, true, true},
			{stateRunning, stateRunning, true, true},
			{stateRejoining, stateRunning, false, false},
		}},
		{"closed is final", []step{
			{stateClosed, stateClosed, true, true},
			{stateRunning, stateClosed, false, false},
			{stateRebalancing, stateClosed, false, false},
			{stateExpired, stateClosed, false, false},
			{stateRejoining, stateClosed, false, false},
			{stateClosed, stateClosed, true, false},
		}},
		{"closed while rebalancing", []step{
			{stateRebalancing, stateRebalancing, true, true},
			{stateClosed, stateClosed, true, true},
			{stateRunning, stateClosed, false, false},
		}},
		{"closed while rejoining", []step{
			{stateExpired, stateExpired, true, true},
			{stateRejoining, stateRejoining, true, true},
			{stateClosed, stateClosed, true, true},
			{stateExpired, stateClosed, false, false},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logged []string
			c := &Consumer{}
			c.opt.Logf = func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) }
			refused := 0
			for i, s := range tc.steps {
				ch := make(chan struct{})
				c.notify = ch
				moved := c.setStateLocked(s.to)
				if moved != s.moved || c.state != s.want {
					t.Fatalf("step %d (→ %v): moved %v, state %v; want %v, %v", i, s.to, moved, c.state, s.moved, s.want)
				}
				select {
				case <-ch:
					if !s.notify {
						t.Errorf("step %d (→ %v): readers woken with no change", i, s.to)
					}
				default:
					if s.notify {
						t.Errorf("step %d (→ %v): readers not woken", i, s.to)
					}
				}
				if !moved {
					refused++
				}
			}
			if len(logged) != refused {
				t.Errorf("%d refusals, %d logged: %q", refused, len(logged), logged)
			}
		})
	}
}
