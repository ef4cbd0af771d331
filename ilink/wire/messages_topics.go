package wire

// Topic request codes (docs/PROTOCOL.md §8).
const (
	CodeMetadata     Code = 1200
	CodeProduce      Code = 1201
	CodeFetch        Code = 1202
	CodeListOffsets  Code = 1203
	CodeAdminPublish Code = 1204
	CodeCreateTopic  Code = 1205
)

func init() {
	RegisterCodeName(CodeMetadata, "METADATA")
	RegisterCodeName(CodeProduce, "PRODUCE")
	RegisterCodeName(CodeFetch, "FETCH")
	RegisterCodeName(CodeListOffsets, "LIST_OFFSETS")
	RegisterCodeName(CodeAdminPublish, "PUBLISH")
	RegisterCodeName(CodeCreateTopic, "CREATE TOPIC")
}

// Special timestamps of LIST_OFFSETS.
const (
	ListLatest   int64 = -1
	ListEarliest int64 = -2
)

// PartError is the per-partition error pair used in topic replies; an empty
// Name means success.
type PartError struct {
	Name string
	Tail string
}

func (e *PartError) encode(w *Writer) { w.String(e.Name); w.String(e.Tail) }
func (e *PartError) decode(r *Reader) { e.Name = r.String(); e.Tail = r.String() }

// MetadataRequest asks for topics' partition-leader tables; nil Topics = all.
type MetadataRequest struct {
	Topics []string
}

func (m *MetadataRequest) Encode(w *Writer) {
	w.Bool(m.Topics != nil)
	if m.Topics != nil {
		w.Strings(m.Topics)
	}
}

func (m *MetadataRequest) Decode(r *Reader) {
	if r.Bool() {
		m.Topics = r.Strings()
		if m.Topics == nil {
			m.Topics = []string{}
		}
	}
}

// PartitionMeta is one row of the partition-leader table (spec K-22).
type PartitionMeta struct {
	ID          int32
	Leader      uint16 // node id; 0 = no leader right now
	LeaderEpoch int32
	Replicas    []uint16
	InSync      []uint16
}

// TopicMeta describes a topic; Err is set (MIMQE_UNKNOWN_TOPIC) for a
// requested topic that does not exist.
type TopicMeta struct {
	Name       string
	Err        PartError
	Epoch      int32 // bumped by delete/recreate and by FLUSH
	Partitions []PartitionMeta
}

// MetadataReply carries the node list and the partition-leader tables.
type MetadataReply struct {
	Nodes  []NodeInfo
	Topics []TopicMeta
}

func (m *MetadataReply) Encode(w *Writer) {
	writeArray(w, m.Nodes, (*NodeInfo).Encode)
	writeArray(w, m.Topics, (*TopicMeta).encode)
}

func (t *TopicMeta) encode(w *Writer) {
	w.String(t.Name)
	t.Err.encode(w)
	w.I32(t.Epoch)
	writeArray(w, t.Partitions, (*PartitionMeta).encode)
}

func (t *TopicMeta) decode(r *Reader) {
	t.Name = r.String()
	t.Err.decode(r)
	t.Epoch = r.I32()
	t.Partitions = readArray(r, 12, (*PartitionMeta).decode)
}

func (p *PartitionMeta) encode(w *Writer) {
	w.I32(p.ID)
	w.U16(p.Leader)
	w.I32(p.LeaderEpoch)
	writeNodeIDs(w, p.Replicas)
	writeNodeIDs(w, p.InSync)
}

func (p *PartitionMeta) decode(r *Reader) {
	p.ID = r.I32()
	p.Leader = r.U16()
	p.LeaderEpoch = r.I32()
	p.Replicas = readNodeIDs(r)
	p.InSync = readNodeIDs(r)
}

func (m *MetadataReply) Decode(r *Reader) {
	m.Nodes = readArray(r, 6, (*NodeInfo).Decode)
	m.Topics = readArray(r, 8, (*TopicMeta).decode)
}

func writeNodeIDs(w *Writer, ids []uint16) {
	writeArray(w, ids, func(id *uint16, w *Writer) { w.U16(*id) })
}

func readNodeIDs(r *Reader) []uint16 {
	return readArray(r, 2, func(id *uint16, r *Reader) { *id = r.U16() })
}

// Acks values of a produce request.
const (
	AcksNone   int8 = 0
	AcksLeader int8 = 1
	AcksAll    int8 = -1
)

// ProducePartition carries the record batches of one partition (one or more
// batches back to back, each in the batch format of §9).
type ProducePartition struct {
	Partition int32
	Batches   []byte
}

// ProduceTopic groups partitions of one topic.
type ProduceTopic struct {
	Topic string
	// Epoch is the topic epoch the producer learned from METADATA. A FLUSH
	// or a delete/recreate bumps it; batches sent at an older epoch are
	// refused with MIMQE_TOPIC_FLUSHED or MIMQE_TOPIC_EPOCH_MISMATCH.
	Epoch      int32
	Partitions []ProducePartition
}

// ProduceRequest is one envelope: batches for every ready partition that the
// receiving node leads. The engine's wait for acks=all is the header's
// timeout_ms. acks=0 requests are sent with FlagNoReply.
type ProduceRequest struct {
	Acks   int8
	Topics []ProduceTopic
}

func (m *ProduceRequest) Encode(w *Writer) {
	w.U8(uint8(m.Acks))
	writeArray(w, m.Topics, (*ProduceTopic).encode)
}

func (t *ProduceTopic) encode(w *Writer) {
	w.String(t.Topic)
	w.I32(t.Epoch)
	writeArray(w, t.Partitions, func(p *ProducePartition, w *Writer) {
		w.I32(p.Partition)
		w.Bytes(p.Batches)
	})
}

func (t *ProduceTopic) decode(r *Reader) {
	t.Topic = r.String()
	t.Epoch = r.I32()
	t.Partitions = readArray(r, 5, func(p *ProducePartition, r *Reader) {
		p.Partition = r.I32()
		p.Batches = r.Bytes()
	})
}

func (m *ProduceRequest) Decode(r *Reader) {
	m.Acks = int8(r.U8())
	m.Topics = readArray(r, 2, (*ProduceTopic).decode)
}

// ProducePartitionResult answers one partition of a produce request.
// BaseOffset is the offset of the first record of the first batch; for a
// duplicate batch it is the original offset. LeaderHint is the node id of
// the partition's leader when Err is MIMQE_FOLLOWER_NODE (0 if unknown).
type ProducePartitionResult struct {
	Partition     int32
	Err           PartError
	BaseOffset    int64
	LogAppendTime int64
	LeaderHint    uint16
}

// ProduceTopicResult groups partition results of one topic.
type ProduceTopicResult struct {
	Topic      string
	Partitions []ProducePartitionResult
}

// ProduceReply answers a produce request partition by partition.
type ProduceReply struct {
	Topics []ProduceTopicResult
}

func (p *ProducePartitionResult) encode(w *Writer) {
	encodePartResult(w, p.Partition, &p.Err, p.BaseOffset, p.LogAppendTime, p.LeaderHint)
}

func (p *ProducePartitionResult) decode(r *Reader) {
	decodePartResult(r, &p.Partition, &p.Err, &p.BaseOffset, &p.LogAppendTime, &p.LeaderHint)
}

func (t *ProduceTopicResult) split() (*string, *[]ProducePartitionResult) {
	return &t.Topic, &t.Partitions
}

func (m *ProduceReply) Encode(w *Writer) {
	writeByTopic(w, m.Topics, (*ProduceTopicResult).split, (*ProducePartitionResult).encode)
}

func (m *ProduceReply) Decode(r *Reader) {
	m.Topics = readByTopic(r, partResultSize, (*ProduceTopicResult).split, (*ProducePartitionResult).decode)
}

// FetchPartition asks for records of one partition from Offset on.
type FetchPartition struct {
	Partition int32
	Offset    int64
	MaxBytes  int32
}

// FetchTopic groups partitions of one topic.
type FetchTopic struct {
	Topic      string
	Partitions []FetchPartition
}

// FetchRequest is a long-poll: the engine answers when MinBytes are
// available or the header's timeout_ms passes.
type FetchRequest struct {
	MinBytes int32
	MaxBytes int32
	Topics   []FetchTopic
}

func (p *FetchPartition) encode(w *Writer) {
	w.I32(p.Partition)
	w.I64(p.Offset)
	w.I32(p.MaxBytes)
}

func (p *FetchPartition) decode(r *Reader) {
	p.Partition = r.I32()
	p.Offset = r.I64()
	p.MaxBytes = r.I32()
}

func (t *FetchTopic) split() (*string, *[]FetchPartition) { return &t.Topic, &t.Partitions }

func (m *FetchRequest) Encode(w *Writer) {
	w.I32(m.MinBytes)
	w.I32(m.MaxBytes)
	writeByTopic(w, m.Topics, (*FetchTopic).split, (*FetchPartition).encode)
}

func (m *FetchRequest) Decode(r *Reader) {
	m.MinBytes = r.I32()
	m.MaxBytes = r.I32()
	m.Topics = readByTopic(r, 16, (*FetchTopic).split, (*FetchPartition).decode)
}

// FetchPartitionResult carries whole record batches (the first may start
// before the requested offset; the client skips records below it).
// Err MIMQE_OFFSET_OUT_OF_RANGE comes with LogStart and HighWatermark so the
// client can reset; MIMQE_FOLLOWER_NODE comes with LeaderHint.
type FetchPartitionResult struct {
	Partition     int32
	Err           PartError
	HighWatermark int64
	LogStart      int64
	LeaderHint    uint16
	Batches       []byte
}

// FetchTopicResult groups partition results.
type FetchTopicResult struct {
	Topic      string
	Partitions []FetchPartitionResult
}

// FetchReply answers a fetch.
type FetchReply struct {
	Topics []FetchTopicResult
}

func (p *FetchPartitionResult) encode(w *Writer) {
	encodePartResult(w, p.Partition, &p.Err, p.HighWatermark, p.LogStart, p.LeaderHint)
	w.Bytes(p.Batches)
}

func (p *FetchPartitionResult) decode(r *Reader) {
	decodePartResult(r, &p.Partition, &p.Err, &p.HighWatermark, &p.LogStart, &p.LeaderHint)
	p.Batches = r.Bytes()
}

func (t *FetchTopicResult) split() (*string, *[]FetchPartitionResult) { return &t.Topic, &t.Partitions }

func (m *FetchReply) Encode(w *Writer) {
	writeByTopic(w, m.Topics, (*FetchTopicResult).split, (*FetchPartitionResult).encode)
}

func (m *FetchReply) Decode(r *Reader) {
	m.Topics = readByTopic(r, partResultSize+1, (*FetchTopicResult).split, (*FetchPartitionResult).decode)
}

// ListOffsetsPartition asks for the first offset whose timestamp is at or
// after Timestamp (ms), or ListLatest / ListEarliest.
type ListOffsetsPartition struct {
	Partition int32
	Timestamp int64
}

// ListOffsetsTopic groups partitions.
type ListOffsetsTopic struct {
	Topic      string
	Partitions []ListOffsetsPartition
}

// ListOffsetsRequest is LIST_OFFSETS (time → offset).
type ListOffsetsRequest struct {
	Topics []ListOffsetsTopic
}

func (p *ListOffsetsPartition) encode(w *Writer) {
	w.I32(p.Partition)
	w.I64(p.Timestamp)
}

func (p *ListOffsetsPartition) decode(r *Reader) {
	p.Partition = r.I32()
	p.Timestamp = r.I64()
}

func (t *ListOffsetsTopic) split() (*string, *[]ListOffsetsPartition) { return &t.Topic, &t.Partitions }

func (m *ListOffsetsRequest) Encode(w *Writer) {
	writeByTopic(w, m.Topics, (*ListOffsetsTopic).split, (*ListOffsetsPartition).encode)
}

func (m *ListOffsetsRequest) Decode(r *Reader) {
	m.Topics = readByTopic(r, 12, (*ListOffsetsTopic).split, (*ListOffsetsPartition).decode)
}

// ListOffsetsPartitionResult: Offset is the end offset when no record is at
// or after the time.
type ListOffsetsPartitionResult struct {
	Partition  int32
	Err        PartError
	Offset     int64
	Timestamp  int64
	LeaderHint uint16
}

// ListOffsetsTopicResult groups partition results.
type ListOffsetsTopicResult struct {
	Topic      string
	Partitions []ListOffsetsPartitionResult
}

// ListOffsetsReply answers LIST_OFFSETS.
type ListOffsetsReply struct {
	Topics []ListOffsetsTopicResult
}

func (p *ListOffsetsPartitionResult) encode(w *Writer) {
	encodePartResult(w, p.Partition, &p.Err, p.Offset, p.Timestamp, p.LeaderHint)
}

func (p *ListOffsetsPartitionResult) decode(r *Reader) {
	decodePartResult(r, &p.Partition, &p.Err, &p.Offset, &p.Timestamp, &p.LeaderHint)
}

func (t *ListOffsetsTopicResult) split() (*string, *[]ListOffsetsPartitionResult) {
	return &t.Topic, &t.Partitions
}

func (m *ListOffsetsReply) Encode(w *Writer) {
	writeByTopic(w, m.Topics, (*ListOffsetsTopicResult).split, (*ListOffsetsPartitionResult).encode)
}

func (m *ListOffsetsReply) Decode(r *Reader) {
	m.Topics = readByTopic(r, partResultSize, (*ListOffsetsTopicResult).split, (*ListOffsetsPartitionResult).decode)
}

// AdminPublishRequest publishes one record over an admin connection:
// round-robin partition, acks=1, no idempotence (spec A-06..A-09).
type AdminPublishRequest struct {
	Topic   string
	Key     []byte
	Value   []byte
	Headers []RecordHeader
}

func (m *AdminPublishRequest) Encode(w *Writer) {
	w.String(m.Topic)
	w.Bytes(m.Key)
	w.Bytes(m.Value)
	writeArray(w, m.Headers, (*RecordHeader).encodeProp)
}

func (m *AdminPublishRequest) Decode(r *Reader) {
	m.Topic = r.String()
	m.Key = r.Bytes()
	m.Value = r.Bytes()
	m.Headers = readArray(r, 2, (*RecordHeader).decodeProp)
}

// AdminPublishReply is (offset, timestamp, partition).
type AdminPublishReply struct {
	Offset      int64
	TimestampMs int64
	Partition   int32
}

func (m *AdminPublishReply) Encode(w *Writer) {
	w.I64(m.Offset)
	w.I64(m.TimestampMs)
	w.I32(m.Partition)
}

func (m *AdminPublishReply) Decode(r *Reader) {
	m.Offset = r.I64()
	m.TimestampMs = r.I64()
	m.Partition = r.I32()
}

// CreateTopicRequest creates a topic from a property string such as
// "partitions=3,replicas=2,retention.ms=3600000,retention.bytes=1073741824"
// (spec W-13, T-01).
type CreateTopicRequest struct {
	Topic      string
	Properties string
}

func (m *CreateTopicRequest) Encode(w *Writer) { w.String(m.Topic); w.String(m.Properties) }
func (m *CreateTopicRequest) Decode(r *Reader) { m.Topic = r.String(); m.Properties = r.String() }

// CodeInitProducer asks the engine for a producer id (idempotent producers).
const CodeInitProducer Code = 1206

func init() { RegisterCodeName(CodeInitProducer, "INIT PRODUCER") }

// InitProducerRequest asks for a fresh producer id.
type InitProducerRequest struct{ ClientName string }

func (m *InitProducerRequest) Encode(w *Writer) { w.String(m.ClientName) }
func (m *InitProducerRequest) Decode(r *Reader) { m.ClientName = r.String() }

// InitProducerReply carries the producer id and epoch; sequences of a new
// producer id start at 0 in every partition.
type InitProducerReply struct {
	ProducerID int64
	Epoch      int16
}

func (m *InitProducerReply) Encode(w *Writer) { w.I64(m.ProducerID); w.I16(m.Epoch) }
func (m *InitProducerReply) Decode(r *Reader) { m.ProducerID = r.I64(); m.Epoch = r.I16() }

// writeByTopic writes a per-topic array, the shape of FETCH, LIST_OFFSETS
// and the topic replies: each entry's topic name, then its partitions
// (split gives an entry's two fields).
func writeByTopic[T, P any](w *Writer, ts []T, split func(*T) (*string, *[]P), enc func(*P, *Writer)) {
	writeArray(w, ts, func(t *T, w *Writer) {
		name, parts := split(t)
		w.String(*name)
		writeArray(w, *parts, enc)
	})
}

// readByTopic reads what writeByTopic wrote; minPart is the smallest
// encoded partition entry (readArray).
func readByTopic[T, P any](r *Reader, minPart int, split func(*T) (*string, *[]P), dec func(*P, *Reader)) []T {
	return readArray(r, 2, func(t *T, r *Reader) {
		name, parts := split(t)
		*name = r.String()
		*parts = readArray(r, minPart, dec)
	})
}

// partResultSize is the smallest partition result of PRODUCE, FETCH and
// LIST_OFFSETS: partition i32, an empty PartError, two i64, leader_hint u16.
const partResultSize = 4 + 2 + 8 + 8 + 2

// encodePartResult writes the head every partition result shares:
// partition, error, two offsets or times, leader hint.
func encodePartResult(w *Writer, part int32, err *PartError, a, b int64, hint uint16) {
	w.I32(part)
	err.encode(w)
	w.I64(a)
	w.I64(b)
	w.U16(hint)
}

func decodePartResult(r *Reader, part *int32, err *PartError, a, b *int64, hint *uint16) {
	*part = r.I32()
	err.decode(r)
	*a = r.I64()
	*b = r.I64()
	*hint = r.U16()
}
