package wire

import (
	"encoding/binary"
	"errors"
	"math"
	"strconv"
)

// Error names of the admin surface that are ours (the documented ones,
// MIMQE_INVALID_PROPERTY, MIMQE_CLUSTER_NOT_COMMITTED, MIMQE_CLUSTER_DEF_MOVED,
// MIMQE_CLUSTER_UNREACHABLE and MIMQE_QMGR_NOT_RUNNING, are in errors.go).
const (
	ErrUnknownQmgr    = "MIMQE_UNKNOWN_QMGR"    // ours: queue manager not hosted by this service
	ErrUnknownCluster = "MIMQE_UNKNOWN_CLUSTER" // ours: no such cluster definition
	ErrUnknownSpoke   = "MIMQE_UNKNOWN_SPOKE"   // ours: no spoke of that name or key is attached
	ErrSpokeSwitched  = "MIMQE_SPOKE_SWITCHED"  // ours: the connection already switched once
	ErrUnknownNode    = "MIMQE_UNKNOWN_NODE"    // ours: no node with that id
	ErrNodeState      = "MIMQE_NODE_STATE"      // ours: node control not possible in the node's state
	ErrQueueFull      = "MIMQE_QUEUE_FULL"      // ours: a put or commit would exceed the queue's max depth
)

// Tails of MIMQE_CLUSTER_NOT_COMMITTED (spec K-12..K-14), exactly as iLink
// prints them.
const (
	TailNotCommittedRetry = "not committed - retry"
	TailOutcomeUnknown    = "outcome unknown - check VIEW CLUSTER"
	TailEarlierPending    = "earlier change still pending - retry"
)

// QMGR property keys (engine keys).
const (
	PropSubGroupTimeout = "SUBGROUPTIMEOUT" // subGroupTimeoutSec: 1..300, default 30
)

// LeadTableFormat is the only format version of VIEW CLUSTER LEADERS text.
const LeadTableFormat = "ILLT1"

// ---- compact primitives (docs/PROTOCOL.md "Admin", §A.1) ----

// Varint writes a signed zigzag LEB128 varint (at most 10 bytes).
func (w *Writer) Varint(v int64) { w.B = binary.AppendVarint(w.B, v) }

// Varint reads a signed zigzag varint, which must be minimally encoded
// (no trailing 0x00 group), so every value has one encoding.
func (r *Reader) Varint() int64 {
	start := r.off
	ux := r.Uvarint()
	if r.err != nil {
		return 0
	}
	if r.off-start > 1 && r.b[r.off-1] == 0 {
		r.off = start
		r.err = errors.New("varint is not minimally encoded")
		return 0
	}
	v := int64(ux >> 1) // zigzag, as binary.Varint
	if ux&1 != 0 {
		v = ^v
	}
	return v
}

// F32 writes a float as IEEE-754 binary32 bits, big-endian (rates).
func (w *Writer) F32(v float64) { w.U32(math.Float32bits(float32(v))) }

// F32 reads a binary32 float.
func (r *Reader) F32() float64 { return float64(math.Float32frombits(r.U32())) }

// smallInt reads a varint that must fit an int32 (counts, ids, ports).
func (r *Reader) smallInt() int {
	v := r.Varint()
	if v < math.MinInt32 || v > math.MaxInt32 {
		r.Fail(errors.New("integer out of range"))
		return 0
	}
	return int(v)
}

// Node control actions.
const (
	NodeActionStop    uint8 = 1 // stop the node's queue manager (admin listener stays)
	NodeActionStart   uint8 = 2 // start a stopped queue manager, or restart a killed node
	NodeActionKill    uint8 = 3 // kill the node (memory state lost)
	NodeActionRestart uint8 = 4 // restart a killed node
)

// MaxSelectIDs bounds the message ids one MOVE MESSAGES or REINJECT names
// (and the messages a plan of every message goes through), so a plan's
// ids always fit the request that executes it.
const MaxSelectIDs = 1000

// Tri-state values of SET CLUSTER PROPERTY: IntBlank leaves an integer
// property as is (0 clears it); FlagBlank leaves a flag as is.
const (
	IntBlank  int32 = -1
	FlagBlank uint8 = 0
	FlagOff   uint8 = 1
	FlagOn    uint8 = 2
)

// check refuses a tri-state flag other than FlagBlank, FlagOff and FlagOn.
// The layout is generated (messages.def); this value rule is the part of
// the codec that is not a layout, so it is written here.
func (m *SetClusterPropertyRequest) check(r *Reader) {
	if r.Err() == nil && (m.Placement > FlagOn || m.AutoStart > FlagOn) {
		r.Fail(errors.New("bad tri-state flag"))
	}
}

// Seek modes of SEEK GROUP.
const (
	SeekToOffset   uint8 = 0
	SeekToEarliest uint8 = 1
	SeekToLatest   uint8 = 2
	SeekToTime     uint8 = 3
)

// check refuses a seek mode other than the four above (hand-written, as
// SetClusterPropertyRequest.check).
func (m *SeekGroupRequest) check(r *Reader) {
	if r.Err() == nil && m.Mode > SeekToTime {
		r.Fail(errors.New("bad seek mode"))
	}
}

// AppendSubscriptionLine appends one line of getSubscriptionList, without
// a newline: group|state|partition|commit|lag|members=N, where commit and
// lag are -1 for a partition assigned but never committed (spec A-17,
// A list joins its lines with "\n" (no trailing newline), sorted by
// group then partition; no line at all is the empty string.
func AppendSubscriptionLine(b []byte, group, state string, partition int32, commit, lag int64, members int) []byte {
	b = append(b, group...)
	b = append(b, '|')
	b = append(b, state...)
	b = append(b, '|')
	b = strconv.AppendInt(b, int64(partition), 10)
	b = append(b, '|')
	b = strconv.AppendInt(b, commit, 10)
	b = append(b, '|')
	b = strconv.AppendInt(b, lag, 10)
	b = append(b, "|members="...)
	return strconv.AppendInt(b, int64(members), 10)
}
