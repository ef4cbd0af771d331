package ilink

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"sync/atomic"

	"ilinkdash/ilink/wire"
)

// MsgID is a message id. The client chooses it (8 random bytes per process
// followed by a counter), so a put retried after failover carries the same
// id as the first attempt (spec S-14) and receivers can de-duplicate.
type MsgID [wire.MsgIDLen]byte

// String is the id in lower-case hex.
func (id MsgID) String() string { return hex.EncodeToString(id[:]) }

// IsZero reports whether id is the zero id.
func (id MsgID) IsZero() bool { return id == MsgID{} }

// ParseMsgID parses the hex form produced by String.
func ParseMsgID(s string) (MsgID, error) {
	var id MsgID
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != len(id) {
		return id, configError("message id %q: want %d hex digits", s, 2*len(id))
	}
	copy(id[:], b)
	return id, nil
}

var (
	msgIDPrefix  = randomPrefix()
	msgIDCounter atomic.Uint64
)

func randomPrefix() (p [8]byte) {
	_, _ = rand.Read(p[:]) // crypto/rand.Read never fails (Go 1.24+)
	return p
}

// NewMsgID returns a fresh id, unique within the process and, through the
// random prefix, across processes.
func NewMsgID() MsgID {
	var id MsgID
	copy(id[:8], msgIDPrefix[:])
	binary.BigEndian.PutUint64(id[8:], msgIDCounter.Add(1))
	return id
}

func msgIDFrom(b []byte) MsgID {
	var id MsgID
	copy(id[:], b)
	return id
}
