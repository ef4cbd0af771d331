package ilink

import (
	"strings"
	"time"

	"ilinkdash/ilink/wire"
)

// Producer defaults (ilink-spec §3.5, §5).
const (
	DefaultProducerAcks          = 1
	DefaultLingerMs              = 5
	DefaultBatchSize             = 262_144
	DefaultMaxRequestSize        = 1_048_576
	DefaultBufferMemory          = 33_554_432
	DefaultRetries               = 3
	DefaultRetryBackoffMs        = 100
	DefaultDeliveryTimeoutMs     = 120_000
	DefaultMaxInFlight           = 5
	DefaultMetadataMaxAgeMs      = 30_000
	MaxRequestSizeLimit          = wire.HardMaxFrame - wire.HeaderSize // 999,999,974 (spec P-07)
	maxIdempotentInFlight        = 5                                   // the engine's de-duplication window
	largeRecordBytes             = 1 << 20                             // retry protection threshold (P-31, P-32)
	retryProtectionDrops         = 2                                   // silent drops in a row that fail a large record
	producerRequestTimeoutMax    = 30 * time.Second
	producerRequestTimeoutMin    = time.Second
	producerReconnectBackoffMax  = time.Second
	producerIdleConnGrace        = 200 * time.Millisecond
	producerHousekeepingMin      = 10 * time.Millisecond
	producerHousekeepingMax      = 250 * time.Millisecond
	producerMetadataMinInterval  = 20 * time.Millisecond
	producerFirstMetadataTimeout = 30 * time.Second
)

// Special values of ProducerConfig fields whose zero value means "default".
const (
	// AcksNone asks for no acknowledgement (the spec's acks(0)): requests
	// go out with FlagNoReply and futures complete once written, with
	// offset -1. Acks 0 in ProducerConfig means the default (1), so that
	// the zero config is the documented default.
	AcksNone = -2
	// AcksLeader: the partition leader appended the batch.
	AcksLeader = 1
	// AcksAll: the high watermark covers the batch (the in-sync replicas have it).
	AcksAll = -1
	// NoLinger (LingerMs) sends a batch as soon as a request slot is free.
	NoLinger = -1
	// NoRetries (Retries) fails a batch at the first retriable rejection.
	NoRetries = -1
)

// DefaultToolAcks is the acknowledgement ilinkdash's own publishers use
// unless told otherwise: `ilinkdash publish --acks` and the dashboard's
// publish form. "all" waits for the in-sync replicas, which with the
// idempotent producer is the setting that loses nothing acknowledged. The
// library's zero-config default stays 1 (spec P-04); this is the tools'
// choice, kept in this one place.
const DefaultToolAcks = "all"

// ParseAcks reads an acknowledgement as people write it: "0" (AcksNone),
// "1" (AcksLeader), "all" or "-1" (AcksAll).
func ParseAcks(s string) (int, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "0":
		return AcksNone, nil
	case "1":
		return AcksLeader, nil
	case "all", "-1":
		return AcksAll, nil
	}
	return 0, configError("acks %q: want 0, 1 or all", s)
}

// ProducerConfig configures a Producer. The zero value is the documented
// default configuration (ilink-spec §3.5). NewProducer copies it (spec P-03):
// changing the struct, or the bool EnableIdempotence points to, afterwards
// has no effect.
type ProducerConfig struct {
	ClientName string // HELLO client name; default "ilinkdash"
	// Acks: 0 = default (1); 1 = leader (AcksLeader); -1 = all in-sync
	// replicas (AcksAll); AcksNone (-2) = the spec's acks(0), no reply.
	Acks int
	// LingerMs is how long a partition batch waits for more records before
	// it is sendable: 0 = default 5; NoLinger (negative) = no wait.
	LingerMs int
	// BatchSize bounds one partition batch (uncompressed bytes, batch
	// header included) unless it carries a single record; also the sticky
	// partitioner's switch size. 0 = 262,144.
	BatchSize int
	// MaxRequestSize bounds one record and one produce request (envelope,
	// the frame body). 0 = 1,048,576; larger than 999,999,974 is clamped.
	MaxRequestSize int
	// MaxFrameLength is the client frame cap: 0 = 128 MiB, else
	// 1,048,576..999,999,999. The record cap is
	// min(MaxRequestSize, MaxFrameLength-25).
	MaxFrameLength int
	// BufferMemory caps the bytes of records accepted by Send and not yet
	// completed (encoded size). A Send that would exceed it blocks until
	// memory is released or DeliveryTimeoutMs passes (then its record
	// fails with MIMQE_DELIVERY_TIMEOUT); a record larger than the whole
	// buffer fails at once with MIMQE_MSG_SIZE_OVER. 0 = 33,554,432.
	BufferMemory int
	// Retries bounds resends after retriable engine rejections (e.g.
	// MIMQE_NOT_ENOUGH_REPLICAS). Lost connections and leader moves are
	// not counted: they are retried until DeliveryTimeoutMs. 0 = 3;
	// NoRetries (negative) = none.
	Retries int
	// RetryBackoffMs is the wait before a rejected batch is resent, and the
	// first reconnect backoff. 0 = 100.
	RetryBackoffMs int
	// DeliveryTimeoutMs bounds the time from a batch's first record to its
	// completion, retries included (spec P-16). 0 = 120,000.
	DeliveryTimeoutMs int
	// EnableIdempotence: nil = on, except that it switches itself off with
	// AcksNone or MaxInFlight > 5; an explicit true with either of those is
	// a configuration error (spec P-11..P-13).
	EnableIdempotence *bool
	// MaxInFlight bounds the unanswered produce requests per connection and
	// the batches in flight per partition. 0 = 5.
	MaxInFlight int
	// Compression is the codec of every batch (a batch that would not
	// shrink is sent uncompressed).
	Compression wire.Codec
	// MetadataMaxAgeMs is the period of the metadata refresh that finds
	// moved leaders and new partitions of the topics written to (besides
	// the refreshes after errors). 0 = 30,000.
	MetadataMaxAgeMs int
	// ReadOnly is a read-only context's producer: NewProducer refuses it
	// with MIMQE_READ_ONLY (publish refused: read-only mode) before
	// anything is dialled. The producer's read-only choke point.
	ReadOnly bool
	// Hub, when set, reaches the cluster through a hub: a spoke (HubRoute).
	Hub *HubRoute
	// Logf receives diagnostic lines; nil = silent.
	Logf func(format string, args ...any)
}

// producerConfig is the validated copy a Producer works with.
type producerConfig struct {
	clientName      string
	acks            int8 // wire value
	linger          time.Duration
	batchSize       int
	maxRequestSize  int
	maxFrame        int
	recordCap       int
	bufferMemory    int64
	retries         int
	retryBackoff    time.Duration
	deliveryTimeout time.Duration
	requestTimeout  time.Duration // engine wait (acks=all) and missing-reply limit
	idempotent      bool
	maxInFlight     int
	codec           wire.Codec
	metadataMaxAge  time.Duration
	readOnly        bool
	logf            func(format string, args ...any)
}

// validate checks cfg and returns the producer's own copy with every default
// filled in. Errors are KindConfig errors (spec E-09), reported before
// anything is sent.
func (cfg ProducerConfig) validate() (producerConfig, error) {
	var c producerConfig
	c.clientName = cfg.ClientName
	if c.clientName == "" {
		c.clientName = DefaultClientName
	}
	if err := CheckHelloStrings(c.clientName, ""); err != nil {
		return c, err
	}
	switch cfg.Acks {
	case 0, AcksLeader:
		c.acks = wire.AcksLeader
	case AcksAll:
		c.acks = wire.AcksAll
	case AcksNone:
		c.acks = wire.AcksNone
	default:
		return c, configError("Acks %d: want 1 (leader), -1 (all) or AcksNone (%d, no reply); 0 means the default 1", cfg.Acks, AcksNone)
	}
	switch {
	case cfg.LingerMs == 0:
		c.linger = DefaultLingerMs * time.Millisecond
	case cfg.LingerMs < 0:
		c.linger = 0
	default:
		c.linger = time.Duration(cfg.LingerMs) * time.Millisecond
	}
	ints := []struct {
		name string
		v    int
		def  int
		dst  *int
	}{
		{"BatchSize", cfg.BatchSize, DefaultBatchSize, &c.batchSize},
		{"MaxRequestSize", cfg.MaxRequestSize, DefaultMaxRequestSize, &c.maxRequestSize},
		{"MaxInFlight", cfg.MaxInFlight, DefaultMaxInFlight, &c.maxInFlight},
	}
	for _, f := range ints {
		switch {
		case f.v < 0:
			return c, configError("%s %d: must not be negative", f.name, f.v)
		case f.v == 0:
			*f.dst = f.def
		default:
			*f.dst = f.v
		}
	}
	if c.maxRequestSize > MaxRequestSizeLimit {
		c.maxRequestSize = MaxRequestSizeLimit // spec P-07
	}
	c.maxFrame = cfg.MaxFrameLength
	if c.maxFrame == 0 {
		c.maxFrame = wire.DefaultMaxFrame
	} else if err := wire.ValidateMaxFrame(c.maxFrame); err != nil {
		return c, configError("MaxFrameLength: %v", err) // spec W-07
	}
	c.recordCap = min(c.maxRequestSize, c.maxFrame-wire.HeaderSize) // spec P-08
	switch {
	case cfg.BufferMemory < 0:
		return c, configError("BufferMemory %d: must not be negative", cfg.BufferMemory)
	case cfg.BufferMemory == 0:
		c.bufferMemory = DefaultBufferMemory
	default:
		c.bufferMemory = int64(cfg.BufferMemory)
	}
	if err := cfg.timing(&c); err != nil {
		return c, err
	}
	if !cfg.Compression.Valid() {
		return c, configError("Compression %v: want none, lz4 or zstd", cfg.Compression)
	}
	c.codec = cfg.Compression

	if err := cfg.idempotence(&c); err != nil {
		return c, err
	}
	c.readOnly = cfg.ReadOnly
	c.logf = cfg.Logf
	if c.logf == nil {
		c.logf = func(string, ...any) {}
	}
	return c, nil
}

// timing fills c's retries and timeouts: a negative duration is refused,
// 0 takes the default.
func (cfg ProducerConfig) timing(c *producerConfig) error {
	switch {
	case cfg.Retries == 0:
		c.retries = DefaultRetries
	case cfg.Retries < 0:
		c.retries = 0
	default:
		c.retries = cfg.Retries
	}
	var err error
	if c.retryBackoff, err = msSetting("RetryBackoffMs", cfg.RetryBackoffMs, DefaultRetryBackoffMs); err != nil {
		return err
	}
	if c.deliveryTimeout, err = msSetting("DeliveryTimeoutMs", cfg.DeliveryTimeoutMs, DefaultDeliveryTimeoutMs); err != nil {
		return err
	}
	c.requestTimeout = min(max(c.deliveryTimeout/2, producerRequestTimeoutMin), producerRequestTimeoutMax)
	c.metadataMaxAge, err = msSetting("MetadataMaxAgeMs", cfg.MetadataMaxAgeMs, DefaultMetadataMaxAgeMs)
	return err
}

// msSetting reads a millisecond setting: negative is refused, 0 is def.
func msSetting(name string, ms, def int) (time.Duration, error) {
	switch {
	case ms < 0:
		return 0, configError("%s %d: must not be negative", name, ms)
	case ms == 0:
		return time.Duration(def) * time.Millisecond, nil
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// idempotence decides c.idempotent (spec P-11..P-13): on by default unless
// acks 0 or more than 5 in flight; asked for with either, refused.
func (cfg ProducerConfig) idempotence(c *producerConfig) error {
	conflict := ""
	switch {
	case c.acks == wire.AcksNone:
		conflict = "acks 0 (AcksNone)"
	case c.maxInFlight > maxIdempotentInFlight:
		conflict = "MaxInFlight > 5"
	}
	if cfg.EnableIdempotence == nil {
		c.idempotent = conflict == ""
	} else {
		c.idempotent = *cfg.EnableIdempotence
		if c.idempotent && conflict != "" {
			return configError("EnableIdempotence true conflicts with %s (idempotence needs acks 1 or all and MaxInFlight <= 5)", conflict)
		}
	}
	return nil
}

// Envelope overheads (docs: PRODUCE body in ilink/wire/messages_topics.go):
// acks u8 + topic count uvarint; per topic name (uvarint length + bytes) +
// epoch i32 + partition count uvarint; per partition i32 + bytes length
// uvarint. Uvarints are counted at their 5-byte maximum.
const (
	envelopeBase         = 1 + 5
	envelopePerTopic     = 5 + 4 + 5
	envelopePerPartition = 4 + 5
)

// loneEnvelope is the request body size of one batch of batchBytes for
// topic: what a record must fit in (spec P-08, P-09).
func loneEnvelope(topic string, batchBytes int) int {
	return envelopeBase + envelopePerTopic + len(topic) + envelopePerPartition + batchBytes
}

// MaxValueSize is the largest value, in bytes, that a producer with this
// configuration sends to topic in a record with a key of keyLen bytes (-1 =
// nil) and these headers: the record with its batch header and request
// envelope must fit in the record cap (min(MaxRequestSize,
// MaxFrameLength-25)), and the record in BufferMemory; a larger one fails
// with MIMQE_MSG_SIZE_OVER. Tools check a value size against it before
// they build values (ilinkdash publish --size, the dashboard's publish
// form). It is -1 when not even an empty value fits.
func (cfg ProducerConfig) MaxValueSize(topic string, keyLen int, headers []wire.HeaderLen) (int, error) {
	c, err := cfg.validate()
	if err != nil {
		return 0, err
	}
	fits := func(v int) bool {
		est := wire.RecordSizeEstimateLen(keyLen, v, headers)
		return recordEnvelopeSize(topic, est) <= c.recordCap && int64(est) <= c.bufferMemory
	}
	if !fits(0) {
		return -1, nil
	}
	lo, hi := 0, c.recordCap+1 // fits(lo); !fits(hi): the record is larger than its value
	for hi-lo > 1 {
		if mid := lo + (hi-lo)/2; fits(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, nil
}

// recordWireSize is the size a record adds to a lone envelope beyond the
// record itself: the batch header and the envelope of one partition.
func recordEnvelopeSize(topic string, recordSize int) int {
	return loneEnvelope(topic, wire.BatchHeaderSize+recordSize)
}
