package consumer

import "fmt"

// consumerState is the consumer's lifecycle (under Consumer.mu). Being
// out of the group after Expiry and having a rejoin in progress overlap
// once: the rejoin a read asked for after an expiry. That overlap is a
// state of its own (stateRejoining) rather than two booleans, so reads
// in it still ask for a rejoin and a rejoin that fails goes back to
// stateExpired, not to stateRunning.
//
// PauseFetching is not part of it: the application pauses fetching in
// any state, and a rebalance or an expiry leaves that pause as it was, so
// it stays a flag of its own (Consumer.fetchPaused).
type consumerState uint8

const (
	stateRunning     consumerState = iota // records are handed over
	stateRebalancing                      // a rejoin is in progress: nothing is handed over
	stateExpired                          // left the group after Expiry; the next read asks for a rejoin
	stateRejoining                        // stateExpired with the rejoin in progress
	stateClosed                           // every read fails; nothing leaves this state
)

func (s consumerState) String() string {
	switch s {
	case stateRunning:
		return "running"
	case stateRebalancing:
		return "rebalancing"
	case stateExpired:
		return "expired"
	case stateRejoining:
		return "rejoining"
	case stateClosed:
		return "closed"
	}
	return fmt.Sprintf("consumerState(%d)", uint8(s))
}

// transitions lists the states each state may move to besides itself
// (staying is always allowed).
var transitions = [...][]consumerState{
	stateRunning:     {stateRebalancing, stateExpired, stateClosed},
	stateRebalancing: {stateRunning, stateRejoining, stateClosed},
	stateExpired:     {stateRejoining, stateRunning, stateClosed},
	stateRejoining:   {stateRebalancing, stateExpired, stateClosed},
	stateClosed:      nil,
}

// canMove reports whether from may move to to.
func canMove(from, to consumerState) bool {
	if from == to {
		return true
	}
	if int(from) >= len(transitions) {
		return false
	}
	for _, s := range transitions[from] {
		if s == to {
			return true
		}
	}
	return false
}

// setStateLocked moves the consumer to to, when the transition table
// allows it; it reports whether it did. Readers are woken when the state
// changed.
func (c *Consumer) setStateLocked(to consumerState) bool {
	from := c.state
	if !canMove(from, to) {
		c.opt.Logf("consumer: state %v → %v refused", from, to)
		return false
	}
	if from != to {
		c.state = to
		c.notifyLocked()
	}
	return true
}

// The events below give the next state from any state (or the same one),
// so callers need not know where the consumer stands:
// c.setStateLocked(c.state.joined()).

// rebalanceStarted: nothing is handed over until rebalanceOver (the
// group loop rejoining, or a read that found its commit refused).
func (s consumerState) rebalanceStarted() consumerState {
	switch s {
	case stateRunning:
		return stateRebalancing
	case stateExpired:
		return stateRejoining
	}
	return s
}

// rebalanceOver: records are handed over again; after a rejoin that
// could not join, the consumer is still out of the group.
func (s consumerState) rebalanceOver() consumerState {
	switch s {
	case stateRebalancing:
		return stateRunning
	case stateRejoining:
		return stateExpired
	}
	return s
}

// joined: JOIN GROUP answered; the consumer is a member again.
func (s consumerState) joined() consumerState {
	switch s {
	case stateExpired:
		return stateRunning
	case stateRejoining:
		return stateRebalancing
	}
	return s
}

// expired: the member left the group after Expiry passed between reads.
func (s consumerState) expired() consumerState {
	switch s {
	case stateRunning:
		return stateExpired
	case stateRebalancing:
		return stateRejoining
	}
	return s
}

// handsOver reports whether reads take records in state s.
func (s consumerState) handsOver() bool { return s == stateRunning || s == stateExpired }

// outOfGroup reports whether the member left after Expiry: a read asks
// for a rejoin.
func (s consumerState) outOfGroup() bool { return s == stateExpired || s == stateRejoining }

// mayExpire reports whether the expiry watch may leave the group: not
// when out of it already, and not once closing (Close commits and leaves
// itself, and OnRebalance is not called at Close).
func (s consumerState) mayExpire() bool { return s == stateRunning || s == stateRebalancing }
