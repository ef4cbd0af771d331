package wire

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
