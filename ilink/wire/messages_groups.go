package wire

// Group request codes (docs/PROTOCOL.md §10). Join, heartbeat, commit and
// offset fetch go to the group's coordinator: the leader of the group's
// SYSTEM.GROUPS partition.
const (
	CodeFindCoordinator Code = 1300
	CodeJoinGroup       Code = 1301
	CodeHeartbeat       Code = 1302
	CodeLeaveGroup      Code = 1303
	CodeOffsetCommit    Code = 1304
	CodeOffsetFetch     Code = 1305
	CodeDeleteGroup     Code = 1306
)

func init() {
	RegisterCodeName(CodeFindCoordinator, "FIND COORDINATOR")
	RegisterCodeName(CodeJoinGroup, "JOIN GROUP")
	RegisterCodeName(CodeHeartbeat, "HEARTBEAT")
	RegisterCodeName(CodeLeaveGroup, "LEAVE GROUP")
	RegisterCodeName(CodeOffsetCommit, "OFFSET COMMIT")
	RegisterCodeName(CodeOffsetFetch, "OFFSET FETCH")
	RegisterCodeName(CodeDeleteGroup, "DELETE GROUP")
}

// GroupsTopic is the internal topic holding group commits.
const GroupsTopic = "SYSTEM.GROUPS"

// TopicPartitions names partitions of one topic.
type TopicPartitions struct {
	Topic      string
	Partitions []int32
}

func (tp *TopicPartitions) encode(w *Writer) {
	w.String(tp.Topic)
	writeArray(w, tp.Partitions, encodeI32)
}

func (tp *TopicPartitions) decode(r *Reader) {
	tp.Topic = r.String()
	tp.Partitions = readArray(r, 4, decodeI32)
}

func encodeI32(v *int32, w *Writer) { w.I32(*v) }
func decodeI32(v *int32, r *Reader) { *v = r.I32() }

func writeTopicPartitions(w *Writer, tps []TopicPartitions) {
	writeArray(w, tps, (*TopicPartitions).encode)
}

func readTopicPartitions(r *Reader) []TopicPartitions {
	return readArray(r, 2, (*TopicPartitions).decode)
}

// GroupRequest names a group (FIND COORDINATOR).
type GroupRequest struct{ Group string }

func (m *GroupRequest) Encode(w *Writer) { w.String(m.Group) }
func (m *GroupRequest) Decode(r *Reader) { m.Group = r.String() }

// CoordinatorReply names the coordinator node of a group.
type CoordinatorReply struct {
	NodeID uint16
	Addr   string
}

func (m *CoordinatorReply) Encode(w *Writer) { w.U16(m.NodeID); w.String(m.Addr) }
func (m *CoordinatorReply) Decode(r *Reader) { m.NodeID = r.U16(); m.Addr = r.String() }

// JoinGroupRequest joins (or rejoins, with MemberID set) a group. Topics are
// the topics the member consumes (a pattern subscription sends what it
// resolved). Durable=false makes a temporary group, deleted with its last
// member.
type JoinGroupRequest struct {
	Group      string
	MemberID   string
	ClientName string
	Host       string
	Topics     []string
	Durable    bool
}

func (m *JoinGroupRequest) Encode(w *Writer) {
	w.String(m.Group)
	w.String(m.MemberID)
	w.String(m.ClientName)
	w.String(m.Host)
	w.Strings(m.Topics)
	w.Bool(m.Durable)
}

func (m *JoinGroupRequest) Decode(r *Reader) {
	m.Group = r.String()
	m.MemberID = r.String()
	m.ClientName = r.String()
	m.Host = r.String()
	m.Topics = r.Strings()
	m.Durable = r.Bool()
}

// JoinGroupReply gives the member its id, the generation and the partitions
// it owns now. A partition held by another member is handed over only after
// that member rejoins, so a new member may start with fewer partitions and
// learn of more through a heartbeat answered with REPORT 4161.
type JoinGroupReply struct {
	MemberID            string
	Generation          int32
	Assignment          []TopicPartitions
	HeartbeatIntervalMs int32
	SessionTimeoutMs    int32
}

func (m *JoinGroupReply) Encode(w *Writer) {
	w.String(m.MemberID)
	w.I32(m.Generation)
	writeTopicPartitions(w, m.Assignment)
	w.I32(m.HeartbeatIntervalMs)
	w.I32(m.SessionTimeoutMs)
}

func (m *JoinGroupReply) Decode(r *Reader) {
	m.MemberID = r.String()
	m.Generation = r.I32()
	m.Assignment = readTopicPartitions(r)
	m.HeartbeatIntervalMs = r.I32()
	m.SessionTimeoutMs = r.I32()
}

// MemberRequest identifies a member (HEARTBEAT, LEAVE GROUP). A heartbeat is
// answered with REPORT 4161 when the member must rejoin (its assignment
// changes) and 4178 when its generation is stale.
type MemberRequest struct {
	Group      string
	MemberID   string
	Generation int32
}

func (m *MemberRequest) Encode(w *Writer) {
	w.String(m.Group)
	w.String(m.MemberID)
	w.I32(m.Generation)
}

func (m *MemberRequest) Decode(r *Reader) {
	m.Group = r.String()
	m.MemberID = r.String()
	m.Generation = r.I32()
}

// OffsetEntry is one committed offset: the next offset to read.
type OffsetEntry struct {
	Topic     string
	Partition int32
	Offset    int64
	Err       PartError // replies only
}

func (e *OffsetEntry) encode(w *Writer) {
	w.String(e.Topic)
	w.I32(e.Partition)
	w.I64(e.Offset)
	e.Err.encode(w)
}

func (e *OffsetEntry) decode(r *Reader) {
	e.Topic = r.String()
	e.Partition = r.I32()
	e.Offset = r.I64()
	e.Err.decode(r)
}

func writeOffsets(w *Writer, es []OffsetEntry) { writeArray(w, es, (*OffsetEntry).encode) }
func readOffsets(r *Reader) []OffsetEntry      { return readArray(r, 15, (*OffsetEntry).decode) }

// OffsetCommitRequest stores next-offsets. MemberID "" with Generation -1 is
// a commit outside group membership (manual Assign, admin seek): the engine
// accepts it only while the group has no active member.
type OffsetCommitRequest struct {
	Group      string
	MemberID   string
	Generation int32
	Offsets    []OffsetEntry
}

func (m *OffsetCommitRequest) Encode(w *Writer) {
	w.String(m.Group)
	w.String(m.MemberID)
	w.I32(m.Generation)
	writeOffsets(w, m.Offsets)
}

func (m *OffsetCommitRequest) Decode(r *Reader) {
	m.Group = r.String()
	m.MemberID = r.String()
	m.Generation = r.I32()
	m.Offsets = readOffsets(r)
}

// OffsetsReply answers OFFSET COMMIT (per-partition errors, REPORT 4161 for
// a partition reassigned since the member's join) and OFFSET FETCH
// (Offset -1 = no commit).
type OffsetsReply struct {
	Offsets []OffsetEntry
}

func (m *OffsetsReply) Encode(w *Writer) { writeOffsets(w, m.Offsets) }
func (m *OffsetsReply) Decode(r *Reader) { m.Offsets = readOffsets(r) }

// OffsetFetchRequest reads a group's commits; nil Topics = every topic.
type OffsetFetchRequest struct {
	Group  string
	Topics []TopicPartitions
}

func (m *OffsetFetchRequest) Encode(w *Writer) {
	w.String(m.Group)
	w.Bool(m.Topics != nil)
	if m.Topics != nil {
		writeTopicPartitions(w, m.Topics)
	}
}

func (m *OffsetFetchRequest) Decode(r *Reader) {
	m.Group = r.String()
	if r.Bool() {
		m.Topics = readTopicPartitions(r)
		if m.Topics == nil {
			m.Topics = []TopicPartitions{}
		}
	}
}

// DeleteGroupRequest deletes a group and its commits (unsubscribe). The
// caller's own member, if any, is not counted as active; others are:
// MIMQE_GROUP_NOT_EMPTY (N active members).
type DeleteGroupRequest struct {
	Group    string
	MemberID string
}

func (m *DeleteGroupRequest) Encode(w *Writer) { w.String(m.Group); w.String(m.MemberID) }
func (m *DeleteGroupRequest) Decode(r *Reader) { m.Group = r.String(); m.MemberID = r.String() }

// TopicLeaveRequest is MIMQ_TOPIC_LEAVE (3401): drop one topic from a
// pattern subscription's group membership.
type TopicLeaveRequest struct {
	Group    string
	MemberID string
	Topic    string
}

func (m *TopicLeaveRequest) Encode(w *Writer) {
	w.String(m.Group)
	w.String(m.MemberID)
	w.String(m.Topic)
}

func (m *TopicLeaveRequest) Decode(r *Reader) {
	m.Group = r.String()
	m.MemberID = r.String()
	m.Topic = r.String()
}
