package consumer

import (
	"context"
	"fmt"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/position"
	"ilinkdash/ilink/wire"
)

// StartMode says where a partition is read from when the group holds no
// commit for it (spec C-13, C-14): a commit always wins.
type StartMode int

const (
	// StartEarliest reads from the earliest retained offset (the default).
	StartEarliest StartMode = iota
	// StartLatest reads only records produced after the subscribe: from
	// the end of each partition when it is assigned, and from the start
	// of a topic a pattern subscription finds that did not exist when it
	// began, so that the records written before the next refresh are not
	// skipped.
	StartLatest
	// StartOffset reads from Options.StartOffset (clamped into the log).
	StartOffset
	// StartTime reads from the first record at or after Options.StartTime
	// (LIST_OFFSETS).
	StartTime
)

func (m StartMode) String() string {
	switch m {
	case StartEarliest:
		return "earliest"
	case StartLatest:
		return "latest"
	case StartOffset:
		return "offset"
	case StartTime:
		return "time"
	}
	return fmt.Sprintf("StartMode(%d)", int(m))
}

// CommitMode says who commits positions (ilink-spec §3.6).
type CommitMode int

const (
	// CommitAuto commits the positions of the records already handed to
	// the application every AutoCommitInterval, right before a rebalance
	// that may take partitions away, and at Close (spec C-07..C-09).
	CommitAuto CommitMode = iota
	// CommitImmediate commits each fetched batch before any of its records
	// is handed over: one extra round trip per fetch (spec C-11).
	CommitImmediate
	// CommitManual commits only through Commit and CommitOffset (spec C-12).
	CommitManual
)

func (m CommitMode) String() string {
	switch m {
	case CommitAuto:
		return "auto"
	case CommitImmediate:
		return "immediate"
	case CommitManual:
		return "manual"
	}
	return fmt.Sprintf("CommitMode(%d)", int(m))
}

// Defaults of Options.
const (
	DefaultAutoCommitInterval = 5 * time.Second // spec C-06
	DefaultExpiry             = 5 * time.Minute // spec C-20: Expiry 0 means this
	DefaultPrefetch           = 10000           // records buffered ahead per partition
	DefaultMaxBufferedBytes   = 64 << 20
	DefaultPatternRefresh     = 10 * time.Second
	DefaultClientName         = ilink.DefaultClientName

	// The coordinator retry schedule (spec C-33, C-34): waits start at
	// 100 ms and double up to 1 s; after 10 s in total the call fails with
	// MIMQE_NOT_AVAILABLE (group coordinator for <group>).
	CoordinatorBackoffMin = 100 * time.Millisecond
	CoordinatorBackoffMax = time.Second
	CoordinatorBudget     = 10 * time.Second
)

// Internal defaults, overridable by tests through unexported fields.
//
// defaultPartitionFetchSize is half of Kafka's usual 1 MiB: a reply of a
// node leading two partitions then stays near the 1 MiB of a core's L2
// cache while it is read, checked and decoded (issue 28: 1M x 100 B read
// back 13-19 % faster in `sidebyside`, 0.15-0.17 against 0.16-0.19 µs of
// CPU a record; 4 MiB was slower still, 128 KiB no better).
const (
	defaultFetchMaxWait       = 500 * time.Millisecond // long-poll of one fetch
	defaultPartitionFetchSize = 512 << 10              // MaxBytes per partition in a fetch
	defaultFetchMaxBytes      = 50 << 20               // MaxBytes of a whole fetch
)

// Options configure a consumer. Use NewOptions for the defaults (Durable is
// true there); the zero value is a temporary group in AUTO mode reading
// from the earliest offset.
type Options struct {
	// Group is the subscription name, which is the group name (spec C-01).
	// The engine validates it (MIMQE_INVALID_ARGUMENT, spec C-39..C-42).
	// Subscribe needs it; Assign uses it only for commits (optional).
	Group string

	// Start applies only to partitions without a commit in the group.
	Start       StartMode
	StartOffset int64     // StartOffset mode
	StartTime   time.Time // StartTime mode

	Commit             CommitMode
	AutoCommitInterval time.Duration // 0 = 5s (spec C-06)

	// Durable=false makes a temporary group, deleted by the engine with
	// its last member (spec C-16).
	Durable bool

	// ReadOnly is a read-only context's consumer: it may read through a
	// temporary group of its own or without a group, but Subscribe refuses
	// a durable group and Assign a group to commit to (MIMQE_READ_ONLY,
	// before anything is dialled): joining rebalances the group's real
	// readers and its commits move them. The consumer's read-only choke point.
	ReadOnly bool

	// Expiry is the longest time allowed between two reads; when it
	// passes the consumer leaves the group on its own and the next read
	// rejoins (spec C-18, C-19). 0 = 5 minutes (C-20).
	Expiry time.Duration

	// Prefetch is the number of records buffered ahead per partition
	// (0 = DefaultPrefetch); MaxBufferedBytes bounds the bytes buffered by
	// the whole consumer (0 = 64 MiB). A fetch is issued for a partition
	// only while both are below their bound, so the buffer holds at most
	// one fetch beyond them.
	Prefetch         int
	MaxBufferedBytes int

	// OnRebalance is called, from the consumer's group goroutine, after
	// the member's assignment changed: newly assigned and revoked
	// partitions (spec C-54). It is not called at Close. It closes or
	// unsubscribes the consumer through in (Inside.Close), not the
	// Consumer's methods, which would wait for the goroutine it runs on.
	OnRebalance func(in Inside, assigned, revoked []wire.TopicPartitions)

	ClientName     string          // default "ilinkdash"
	PatternRefresh time.Duration   // pattern re-evaluation period (spec T-18); 0 = 10s
	DialTimeout    time.Duration   // per connection; 0 = ilink.DefaultDialTimeout
	Hub            *ilink.HubRoute // reach a spoke through its hub; nil = dial directly
	Logf           func(string, ...any)

	// Test knobs (package-internal).
	coordBudget  time.Duration                                    // 0 = CoordinatorBudget
	sleep        func(ctx context.Context, d time.Duration) error // nil = timer sleep
	now          func() time.Time                                 // nil = time.Now
	fetchMaxWait time.Duration                                    // 0 = defaultFetchMaxWait
	partFetch    int32                                            // 0 = defaultPartitionFetchSize
}

// NewOptions returns the defaults: a durable group, AUTO commits every 5 s,
// start at the earliest offset. Set Group before subscribing.
func NewOptions() Options {
	return Options{
		Durable:            true,
		AutoCommitInterval: DefaultAutoCommitInterval,
		Expiry:             DefaultExpiry,
		Prefetch:           DefaultPrefetch,
		MaxBufferedBytes:   DefaultMaxBufferedBytes,
		PatternRefresh:     DefaultPatternRefresh,
		ClientName:         DefaultClientName,
	}
}

// readOnlyRefusal applies ReadOnly to a Subscribe (assigned false) or an
// Assign.
func (o Options) readOnlyRefusal(assigned bool) error {
	switch {
	case !o.ReadOnly:
		return nil
	case assigned && o.Group != "":
		return ilink.ReadOnlyError("commit to group " + o.Group)
	case !assigned && o.Durable:
		return ilink.ReadOnlyError("join of durable group " + o.Group)
	}
	return nil
}

// StartFrom sets Start, and StartOffset or StartTime, from a parsed
// position: the one mapping of a --from (or the tail's From) onto start
// modes. A position's partition is the caller's: Assign reads it alone.
func (o *Options) StartFrom(p position.Position) error {
	switch p.Kind {
	case position.Earliest:
		o.Start = StartEarliest
	case position.Latest:
		o.Start = StartLatest
	case position.Offset:
		o.Start, o.StartOffset = StartOffset, p.Offset
	case position.Time:
		o.Start, o.StartTime = StartTime, p.Time
	default:
		return configError("start: unknown position kind %v", p.Kind)
	}
	return nil
}

// withDefaults validates o (spec E-09: before anything is sent) and fills
// in the defaults.
func (o Options) withDefaults() (Options, error) {
	if o.Start < StartEarliest || o.Start > StartTime {
		return o, configError("Start: unknown start mode %d", int(o.Start))
	}
	if o.Start == StartOffset && o.StartOffset < 0 {
		return o, configError("StartOffset: negative offset %d", o.StartOffset)
	}
	if o.Start == StartTime && o.StartTime.IsZero() {
		return o, configError("StartTime: start mode time needs a time")
	}
	if o.Commit < CommitAuto || o.Commit > CommitManual {
		return o, configError("Commit: unknown commit mode %d", int(o.Commit))
	}
	for _, d := range []struct {
		name string
		v    *time.Duration
		def  time.Duration
	}{
		{"AutoCommitInterval", &o.AutoCommitInterval, DefaultAutoCommitInterval},
		{"Expiry", &o.Expiry, DefaultExpiry},
		{"PatternRefresh", &o.PatternRefresh, DefaultPatternRefresh},
		{"DialTimeout", &o.DialTimeout, ilink.DefaultDialTimeout},
	} {
		switch {
		case *d.v < 0:
			return o, configError("%s: negative duration %v", d.name, *d.v)
		case *d.v == 0:
			*d.v = d.def
		}
	}
	if o.Prefetch < 0 {
		return o, configError("Prefetch: negative %d", o.Prefetch)
	}
	if o.Prefetch == 0 {
		o.Prefetch = DefaultPrefetch
	}
	if o.MaxBufferedBytes < 0 {
		return o, configError("MaxBufferedBytes: negative %d", o.MaxBufferedBytes)
	}
	if o.MaxBufferedBytes == 0 {
		o.MaxBufferedBytes = DefaultMaxBufferedBytes
	}
	if o.ClientName == "" {
		o.ClientName = DefaultClientName
	}
	if err := ilink.CheckHelloStrings(o.ClientName, ""); err != nil {
		return o, err
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	if o.coordBudget == 0 {
		o.coordBudget = CoordinatorBudget
	}
	if o.sleep == nil {
		o.sleep = sleepCtx
	}
	if o.now == nil {
		o.now = time.Now
	}
	if o.fetchMaxWait == 0 {
		o.fetchMaxWait = defaultFetchMaxWait
	}
	if o.partFetch == 0 {
		o.partFetch = defaultPartitionFetchSize
	}
	return o, nil
}

func (o *Options) connConfig() ilink.ConnConfig {
	return ilink.ConnConfig{
		ClientName:  o.ClientName,
		Mode:        wire.ModeConsumer,
		DialTimeout: o.DialTimeout,
		Hub:         o.Hub,
		Logf:        o.Logf,
	}
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
