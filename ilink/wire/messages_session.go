package wire

import (
	"fmt"
	"reflect"
	"sort"
)

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

// BodyLayout is one entry of HELLO's layout list: a body of messages.def
// and the layout version the client speaks of it (docs/PROTOCOL.md §6).
type BodyLayout struct {
	Body    string
	Version uint8
}

// encodeTrailer appends the layout list after HELLO's fields, only when
// this build has a body above version 1: a HELLO of a build whose layouts
// are all the first release's is byte for byte the HELLO without a list.
func (m *HelloRequest) encodeTrailer(w *Writer) { writeLayouts(w, LayoutVersions) }

func writeLayouts(w *Writer, versions map[string]uint8) {
	if len(versions) == 0 {
		return
	}
	ls := make([]BodyLayout, 0, len(versions))
	for body, v := range versions {
		ls = append(ls, BodyLayout{body, v})
	}
	sort.Slice(ls, func(i, j int) bool { return ls[i].Body < ls[j].Body })
	writeArray(w, ls, func(l *BodyLayout, w *Writer) { w.String(l.Body); w.U8(l.Version) })
}

// DecodeHello decodes a HELLO body: the HelloRequest, then the layout list
// when bytes remain (nil when the client stated none). Like Decode, it
// requires every byte to be consumed.
func DecodeHello(body []byte, m *HelloRequest) ([]BodyLayout, error) {
	r := NewReader(body)
	m.Decode(r)
	var ls []BodyLayout
	if r.err == nil && r.Remaining() > 0 {
		ls = readArray(r, 2, func(l *BodyLayout, r *Reader) { l.Body = r.String(); l.Version = r.U8() })
	}
	if r.err != nil {
		return nil, fmt.Errorf("decode %T: %w", m, r.err)
	}
	if r.Remaining() != 0 {
		return nil, fmt.Errorf("decode %T: %d %w", m, r.Remaining(), ErrTrailingBytes)
	}
	return ls, nil
}

// unversionedBodies are read before a layout list can be: HELLO's and
// the error body. They only ever grow by a trailing extension.
var unversionedBodies = map[string]bool{"HelloRequest": true, "HelloReply": true, "ErrorBody": true}

// CheckLayouts checks the values of a HELLO layout list: a version is at
// least 1, a body name is at most MaxHelloString bytes, no body is stated
// twice, and HELLO's bodies and ErrorBody are at version 1. The error is
// the tail of the engine's refusal.
func CheckLayouts(ls []BodyLayout) error {
	seen := make(map[string]bool, len(ls))
	for _, l := range ls {
		if err := CheckHelloString("layout body name", l.Body); err != nil {
			return err
		}
		if l.Version == 0 {
			return fmt.Errorf("layout version 0 of %s (versions start at 1)", l.Body)
		}
		if unversionedBodies[l.Body] && l.Version != 1 {
			return fmt.Errorf("layout version %d of %s (it has no versions)", l.Version, l.Body)
		}
		if seen[l.Body] {
			return fmt.Errorf("layout of %s stated twice", l.Body)
		}
		seen[l.Body] = true
	}
	return nil
}

// BodyName is the name messages.def gives the body m (its Go type).
func BodyName(m Message) string { return reflect.TypeOf(m).Elem().Name() }

// BodyVersion is the layout version this build speaks of the body named
// body: its entry in LayoutVersions, else 1.
func BodyVersion(body string) uint8 {
	if v, ok := LayoutVersions[body]; ok {
		return v
	}
	return 1
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
