package wire

// Error names. iLink errors reach applications as `NAME (tail)`; the names
// below are the documented ones (ilink-spec §4) plus a few of ours, marked.
const (
	ErrUnsupported         = "MIMQE_UNSUPPORTED"
	ErrNotCoordinator      = "MIMQE_NOT_COORDINATOR"
	ErrLoading             = "MIMQE_LOADING"          // ours: REPORT 4176 has no documented name
	ErrRebalanceInProgress = "MIMQE_REBALANCE"        // ours: REPORT 4161 has no documented name
	ErrGenerationMismatch  = "MIMQE_GENERATION"       // ours: REPORT 4178 has no documented name
	ErrTopicRebalanced     = "MIMQE_TOPIC_REBALANCED" // client-side surfacing of 4161/4178
	ErrNotAvailable        = "MIMQE_NOT_AVAILABLE"    // client-side coordinator budget exhausted
	ErrGroupNotEmpty       = "MIMQE_GROUP_NOT_EMPTY"  // group delete with active members
	ErrInvalidArgument     = "MIMQE_INVALID_ARGUMENT" // bad name or parameter
	ErrReadInProgress      = "MIMQE_READ_IN_PROGRESS" // LEAVE during a pending multi-topic read
	ErrNotSupported        = "MIMQE_NOT_SUPPORTED"    // publish v2 on an old engine
	ErrTopicFlushed        = "MIMQE_TOPIC_FLUSHED"    // idempotent pending batch at FLUSH
	ErrTopicEpochMismatch  = "MIMQE_TOPIC_EPOCH_MISMATCH"
	ErrMsgSizeOver         = "MIMQE_MSG_SIZE_OVER"    // client-side only
	ErrFollowerNode        = "MIMQE_FOLLOWER_NODE"    // publish to a non-leader
	ErrInvalidProperty     = "MIMQE_INVALID_PROPERTY" // cluster property
	ErrClusterNotCommitted = "MIMQE_CLUSTER_NOT_COMMITTED"
	ErrClusterDefMoved     = "MIMQE_CLUSTER_DEF_MOVED"
	ErrClusterUnreachable  = "MIMQE_CLUSTER_UNREACHABLE"
	ErrQmgrNotRunning      = "MIMQE_QMGR_NOT_RUNNING"
	ErrInvalidReqCode      = "MIMQE_INVALID_REQ_CODE"
	ErrNoMessage           = "MIMQE_NO_MSG"         // ours: get/read found nothing within the wait
	ErrNotLeader           = "MIMQE_NOT_LEADER"     // ours: session refused by a follower (carries a leader hint)
	ErrNoLeader            = "MIMQE_NO_LEADER"      // ours: session refused while no cluster leader exists
	ErrUnknownQueue        = "MIMQE_UNKNOWN_QUEUE"  // ours
	ErrUnknownTopic        = "MIMQE_UNKNOWN_TOPIC"  // ours
	ErrTopicExists         = "MIMQE_TOPIC_EXISTS"   // ours
	ErrNotInTransaction    = "MIMQE_NO_TRANSACTION" // ours: commit/rollback on an auto-commit session
	ErrSessionMode         = "MIMQE_SESSION_MODE"   // ours: request not allowed in this session mode
	ErrOutOfOrderSequence  = "MIMQE_OUT_OF_ORDER_SEQUENCE"
	ErrUnknownProducerID   = "MIMQE_UNKNOWN_PRODUCER_ID"  // ours: the partition holds no state of the producer id
	ErrTooManyConnections  = "MIMQE_TOO_MANY_CONNECTIONS" // ours: the listener's connection cap is reached
	ErrOffsetOutOfRange    = "MIMQE_OFFSET_OUT_OF_RANGE"
	ErrNotEnoughReplicas   = "MIMQE_NOT_ENOUGH_REPLICAS"
	ErrReadOnly            = "MIMQE_READ_ONLY" // client-side: mutation refused in read-only mode
	ErrUnknownMember       = "MIMQE_UNKNOWN_MEMBER"
	ErrInternal            = "MIMQE_INTERNAL"
)

// REPORT codes documented by iLink (ilink-spec §3.1, §4).
const (
	ReportUnsupported        uint16 = 4157
	ReportRebalanced         uint16 = 4161
	ReportNotCoordinator     uint16 = 4175
	ReportLoading            uint16 = 4176
	ReportGenerationMismatch uint16 = 4178
)
