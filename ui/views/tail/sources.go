// Package tail is the dashboard's tail tab (tab 6): live records of a topic
// or a pattern through a bounded channel into a ring buffer, with a
// filter, a detail pane, pause, jumps, save as JSON lines and a search
// beyond the buffer. The Tailer, Stream and Searcher it reads through are
// defined here; ui/live implements them over the consumer (ui/internal/fakes in
// tests), and the root model (ui) and the SSH server (ui/serve) build it.
package tail

import (
	"context"
	"io"
	"time"

	"ilinkdash/ilink/position"
	"ilinkdash/ilink/schema"
	"ilinkdash/ui/jsonl"
)

// Header is one record header (an iLink record property).
type Header = jsonl.Header

// Record is one consumed record as the tail view receives it: the
// record of the JSON lines format (ui/jsonl), so saving and replaying
// need no conversion. The view keeps the slices as they are (raw bytes are
// stored once, never copied), so the stream must not modify or reuse them
// after sending the record. ilink/consumer.Record satisfies this (its batch
// buffers are never reused); converting its Headers to Header is the
// adapter's only allocation per record.
type Record = jsonl.Record

// Spec is what the tail view asks a Tailer for.
type Spec struct {
	// Target is a topic name or a pattern (ORDER.*), with the consumer's
	// pattern rules (SYSTEM. topics only when the pattern names them).
	Target string
	// Group is the consumer group; "" = a temporary group, so tailing never
	// disturbs production groups. The view offers a named group only when
	// the context is writable (a named group commits offsets).
	Group string
	// From is where reading starts in partitions without a committed
	// offset (all of them for a temporary group), as ilink/position reads
	// it: latest (the zero value), earliest, an offset in every partition
	// (clamped to each partition's range) or a time (the first offset at
	// or after it). A one-partition position (TOPIC:P@OFFSET: `t` on a
	// group's partition row) tails that partition alone, without a
	// group, from the offset; the tail's own dialog asks for none.
	From position.Position
}

// ClosedTailReleaser is implemented by a Tailer whose tails must not
// keep their records once closed (serve: the server's tail memory is
// bounded by its open streams, --max-tails × --tail-buffer-bytes).
type ClosedTailReleaser interface {
	ReleaseClosedTails() bool
}

// Saver is where `w` writes when the tab is not the user's own program
// (ui/serve: the dashboard runs on a jump host, the user is remote): the
// server chooses the file and may refuse. A Tailer that is also a Saver
// replaces the save to a path the user types.
type Saver interface {
	// SavePlace says where a save goes (for the dialog), or why saving is
	// not possible here.
	SavePlace() (string, error)
	// SaveTail writes one save of records for target: write is called once
	// with the file and returns the bytes it wrote. It returns the name of
	// the file written and its size.
	SaveTail(ctx context.Context, target string, records int, write func(io.Writer) (int64, error)) (name string, n int64, err error)
}

// Batch is what a stream hands the view at once: records read from
// the stream's position epoch Epoch (0 when the stream starts, one more
// after each Seek). The view drops batches of an epoch older than the
// last Seek it saw return, so nothing read before a jump shows after it.
type Batch struct {
	Epoch   uint64
	Records []Record
	// Held says the stream stopped fetching after this batch: it sent
	// what the Fill of the last Seek allows (the batch may be empty).
	Held bool
}

// Fill bounds what a stream sends after a Seek, so that a jump is back
// pressure and not a flood that pushes what was jumped to out of the
// view's bounded buffer: once the stream has sent Records records or
// Bytes bytes (by RecordSize) read from the new position, it stops
// fetching as a pause does and marks that batch Held. Nothing beyond is
// fetched only to be dropped; the records after it wait in the cluster
// (Waiting counts them) until Pause(ctx, false), which lifts the bound,
// or the next Seek. A zero field is no bound; the zero Fill is none.
type Fill struct {
	Records int
	Bytes   int64
}

// Stream is one running tail. One goroutine per stream owns the
// consumer: it reads, feeds a bounded channel of batches, and serves Seek,
// Pause and Close as requests, so none of them waits behind a blocked
// send. The view drains the channel without ever blocking, at most every
// 50 ms while records flow (backing off to 250 ms when idle); a full
// channel back-pressures the consumer; the view's ring buffer caps memory
// (the oldest records are dropped, with a counter).
type Stream interface {
	// Records is the bounded channel of batches. It is closed when the
	// stream ends: after Close, when the StartTail context is cancelled, or
	// on a fatal error (then Err says why).
	Records() <-chan Batch
	// Err is the error that ended the stream (nil while it runs and after
	// a plain Close). Safe to call from any goroutine.
	Err() error
	// Seek moves every assigned partition to `to` (a P@OFFSET position
	// moves that partition of every topic, TOPIC:P@OFFSET that partition
	// of that topic), resumes a paused stream, and bounds what it then
	// sends by fill. It returns the epoch that batches read from the new
	// position carry. ctx bounds the call, queueing included.
	Seek(ctx context.Context, to position.Position, fill Fill) (epoch uint64, err error)
	// Pause stops (true) or resumes (false) fetching: while paused the
	// consumer fetches nothing, so its position holds and nothing is
	// fetched only to be dropped; resuming continues from that position,
	// and lifts a Seek's Fill bound. Records fetched before the pause
	// still arrive. ctx bounds the call.
	Pause(ctx context.Context, paused bool) error
	// Waiting is, while paused or held at a Fill bound, how many records
	// lie between the stream's position and the end of its partitions
	// (from end offsets, refreshed about every second); ok is false when
	// unknown (fetching, or not measured yet). Safe to call from any
	// goroutine.
	Waiting() (n int64, ok bool)
	// Topics is what the stream reads now: its topic, or a pattern's
	// current matches, sorted (none while no topic matches; the stream
	// keeps looking and reads a matching topic once it exists). Safe to
	// call from any goroutine.
	Topics() []string
	// Fetching is how the stream's consumer fetches. The consumer retries
	// by itself and hides session trouble from its reads, so this is how
	// the header knows not to say "live" while nothing answers. Safe to
	// call from any goroutine.
	Fetching() FetchState
	// Close stops the consumer (leaving a temporary group deletes it) and
	// closes Records. Idempotent; the view calls it in a command, never
	// in Update.
	Close() error
}

// FetchState is how a stream's fetching goes.
type FetchState struct {
	// OK is when a fetch last got a reply, records or not (zero before the
	// first, or when the stream cannot tell).
	OK time.Time
	// Err is the last failure to fetch since OK; nil while fetching works.
	Err error
	// FailingSince is when the failures since OK began.
	FailingSince time.Time
}

// Tailer starts tails. StartTail subscribes (joining the group, resolving
// a pattern, positioning per spec.From) and returns once the stream is
// running; it is called in a command, never in Update. ctx bounds the
// stream's whole life: cancelling it ends the stream as Close does.
type Tailer interface {
	StartTail(ctx context.Context, spec Spec) (Stream, error)
}

// SearchSpec is a search beyond the tail's buffer (ilink/search): every
// criterion given must match; positions take the forms of ilink/position.
type SearchSpec struct {
	Target        string
	Key           []byte // nil = any key
	ValueContains string
	ValueRegex    string
	Header        string // NAME=VALUE, or NAME for any value; "" = none
	From, To      string // "" = earliest / the end when the scan starts
	// Fields are field terms (PATH=VALUE, ilink/schema) the decoded value
	// must all match.
	Fields []string
	// Schemas are the decode rules the value criteria and Fields read the
	// decoded values by (the view's context's; nil decodes nothing).
	Schemas *schema.Set
}

// SearchProgress is a snapshot of a running search.
type SearchProgress struct {
	Topic                   string
	Scanned, Total, Matches int64
	Rate                    float64 // records scanned per second
	ETA                     time.Duration
	Done, Cancelled         bool
	Err                     error // set when it failed (Done too)
}

// SearchRun is one running search. Matches arrive on Records (bounded:
// a full channel holds the scan back), which is closed when the search
// ends; Progress is cheap and safe from any goroutine.
type SearchRun interface {
	Records() <-chan Record
	Progress() SearchProgress
	Cancel()
}

// Searcher starts searches; a Tailer that is also a Searcher gives the
// tail view its search (S). It reads with a direct consumer and no group.
type Searcher interface {
	StartSearch(ctx context.Context, spec SearchSpec) (SearchRun, error)
}
