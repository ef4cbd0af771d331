package wire

import "fmt"

// Session modes chosen in HELLO. A session's mode is fixed for its life
// (spec Q-06). Queue sessions need the cluster leader; producer and
// consumer data connections are accepted by any running node, because
// followers serve the partitions they lead.
type SessionMode uint8

const (
	ModeAutoCommit SessionMode = 0 // queue session, every operation committed
	ModeTransacted SessionMode = 1 // queue session, commit/rollback
	ModeProducer   SessionMode = 2 // produce connection to a partition leader
	ModeConsumer   SessionMode = 3 // fetch / group connection
	ModeAdmin      SessionMode = 4 // admin listener connection
)

// IsQueueSession reports whether the mode needs the cluster leader.
func (m SessionMode) IsQueueSession() bool { return m == ModeAutoCommit || m == ModeTransacted }

// ConsumerProtocolV2 is the consumer protocol this client speaks; an engine
// refuses topic consumption by older clients with REPORT 4157.
const ConsumerProtocolV2 = 2

// MaxHelloString (ours) bounds each string of a HelloRequest, in bytes:
// the engine refuses a longer one with MIMQE_INVALID_ARGUMENT (<field> is N
// bytes; at most 256) and closes the connection, and the client refuses to
// send one (docs/PROTOCOL.md §6).
const MaxHelloString = 256

// CheckHelloString checks one HELLO string against MaxHelloString; the
// error reads "<what> is N bytes; at most 256".
func CheckHelloString(what, s string) error {
	if len(s) > MaxHelloString {
		return fmt.Errorf("%s is %d bytes; at most %d", what, len(s), MaxHelloString)
	}
	return nil
}

// CheckStrings reports the first string of m over MaxHelloString, named
// as docs/PROTOCOL.md §6 names the field (client_name, client_version,
// queue_manager): the tail of the engine's refusal.
func (m *HelloRequest) CheckStrings() error {
	for _, f := range []struct{ name, s string }{
		{"client_name", m.ClientName},
		{"client_version", m.ClientVersion},
		{"queue_manager", m.QueueManager},
	} {
		if err := CheckHelloString(f.name, f.s); err != nil {
			return err
		}
	}
	return nil
}

// MsgIDLen is the length of a message id. The client chooses it, so a
// put retried after failover carries the same id (spec S-14).
const MsgIDLen = 16

// CheckMsgID checks a message id's length. A PUT id or a GET match id of
// another length is a bad parameter, not a malformed body: the engine
// refuses that one request with MIMQE_INVALID_ARGUMENT and the connection
// (and its transaction) stays open (docs/PROTOCOL.md §7).
func CheckMsgID(id []byte) error {
	if len(id) != MsgIDLen {
		return fmt.Errorf("message id of %d bytes (want %d)", len(id), MsgIDLen)
	}
	return nil
}
