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

// HelloRequest opens every connection. Each of its strings is at most
// MaxHelloString bytes (CheckStrings).
type HelloRequest struct {
	ClientName       string
	ClientVersion    string
	Mode             SessionMode
	ConsumerProtocol uint8
	QueueManager     string // expected queue manager; empty = any
}

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

func (m *HelloRequest) Encode(w *Writer) {
	w.String(m.ClientName)
	w.String(m.ClientVersion)
	w.U8(uint8(m.Mode))
	w.U8(m.ConsumerProtocol)
	w.String(m.QueueManager)
}

func (m *HelloRequest) Decode(r *Reader) {
	m.ClientName = r.String()
	m.ClientVersion = r.String()
	m.Mode = SessionMode(r.U8())
	m.ConsumerProtocol = r.U8()
	m.QueueManager = r.String()
}

// NodeInfo describes one cluster node in a HELLO reply.
type NodeInfo struct {
	ID     uint16
	Addr   string // data listener host:port
	Admin  string // admin listener host:port
	Leader bool   // cluster leader at the time of the reply
	Up     bool
}

func (n *NodeInfo) Encode(w *Writer) {
	w.U16(n.ID)
	w.String(n.Addr)
	w.String(n.Admin)
	w.Bool(n.Leader)
	w.Bool(n.Up)
}

func (n *NodeInfo) Decode(r *Reader) {
	n.ID = r.U16()
	n.Addr = r.String()
	n.Admin = r.String()
	n.Leader = r.Bool()
	n.Up = r.Bool()
}

// HelloReply accepts a connection. The node list follows the handshake
// fields so that one reachable address teaches the client every node
// (spec S-03).
type HelloReply struct {
	NodeID        uint16
	QueueManager  string
	Cluster       string
	EngineVersion string
	SessionID     uint64
	Nodes         []NodeInfo
}

func (m *HelloReply) Encode(w *Writer) {
	w.U16(m.NodeID)
	w.String(m.QueueManager)
	w.String(m.Cluster)
	w.String(m.EngineVersion)
	w.U64(m.SessionID)
	writeArray(w, m.Nodes, (*NodeInfo).Encode)
}

func (m *HelloReply) Decode(r *Reader) {
	m.NodeID = r.U16()
	m.QueueManager = r.String()
	m.Cluster = r.String()
	m.EngineVersion = r.String()
	m.SessionID = r.U64()
	m.Nodes = readArray(r, 6, (*NodeInfo).Decode)
}

// Empty is the body of requests and replies that carry nothing
// (PING, COMMIT, ROLLBACK and their replies).
type Empty struct{}

func (*Empty) Encode(*Writer) {}
func (*Empty) Decode(*Reader) {}

// QueueRequest names a queue (OPEN QUEUE, QUEUE DEPTH).
type QueueRequest struct{ Queue string }

func (m *QueueRequest) Encode(w *Writer) { w.String(m.Queue) }
func (m *QueueRequest) Decode(r *Reader) { m.Queue = r.String() }

// DepthReply answers OPEN QUEUE and QUEUE DEPTH with the committed depth.
type DepthReply struct{ Depth uint64 }

func (m *DepthReply) Encode(w *Writer) { w.U64(m.Depth) }
func (m *DepthReply) Decode(r *Reader) { m.Depth = r.U64() }

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

// PutRequest stores one message. Headers (at the end of the layout) are
// the message's properties, shown by BROWSE QUEUE.
type PutRequest struct {
	Queue   string
	MsgID   []byte // MsgIDLen bytes
	Payload []byte
	Headers []RecordHeader
}

func (m *PutRequest) Encode(w *Writer) {
	w.String(m.Queue)
	w.Bytes(m.MsgID)
	w.Bytes(m.Payload)
	writeArray(w, m.Headers, (*RecordHeader).encodeProp)
}

func (m *PutRequest) Decode(r *Reader) {
	m.Queue = r.String()
	m.MsgID = r.Bytes()
	m.Payload = r.Bytes()
	m.Headers = readArray(r, 2, (*RecordHeader).decodeProp)
}

// PutReply confirms a put; Depth is the queue's committed depth after it.
type PutReply struct {
	MsgID []byte
	Depth uint64
}

func (m *PutReply) Encode(w *Writer) { w.Bytes(m.MsgID); w.U64(m.Depth) }
func (m *PutReply) Decode(r *Reader) { m.MsgID = r.Bytes(); m.Depth = r.U64() }

// GetRequest takes the next message (or the one whose id is MatchID).
// The wait travels in the frame header's TimeoutMs.
type GetRequest struct {
	Queue   string
	MatchID []byte // nil = any
}

func (m *GetRequest) Encode(w *Writer) { w.String(m.Queue); w.Bytes(m.MatchID) }
func (m *GetRequest) Decode(r *Reader) { m.Queue = r.String(); m.MatchID = r.Bytes() }

// GetReply carries one message. No message within the wait is an error
// response named ErrNoMessage.
type GetReply struct {
	MsgID       []byte
	Payload     []byte
	PutTimeMs   int64
	Redelivered bool // the message went back to the queue once (rollback or lost session)
}

func (m *GetReply) Encode(w *Writer) {
	w.Bytes(m.MsgID)
	w.Bytes(m.Payload)
	w.I64(m.PutTimeMs)
	w.Bool(m.Redelivered)
}

func (m *GetReply) Decode(r *Reader) {
	m.MsgID = r.Bytes()
	m.Payload = r.Bytes()
	m.PutTimeMs = r.I64()
	m.Redelivered = r.Bool()
}
