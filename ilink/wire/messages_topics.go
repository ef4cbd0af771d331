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

// Acks values of a produce request.
const (
	AcksNone   int8 = 0
	AcksLeader int8 = 1
	AcksAll    int8 = -1
)

// CodeInitProducer asks the engine for a producer id (idempotent producers).
const CodeInitProducer Code = 1206

func init() { RegisterCodeName(CodeInitProducer, "INIT PRODUCER") }
