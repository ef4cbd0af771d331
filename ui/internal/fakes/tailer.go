package fakes

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"ilinkdash/ui/sanitize/sanitizetest"

	"ilinkdash/ui/views/tail"

	"ilinkdash/ilink/position"
)

// TailerOptions configure a fake Tailer.
type TailerOptions struct {
	// Rate is the records per second a stream generates by itself, in real
	// time (demos, load tests). 0 = manual: records appear only when the
	// test calls Emit, so tests and golden screens are deterministic.
	Rate float64
	// ValueSize pads each JSON value to about this many bytes.
	ValueSize int
	// Hostile makes every 5th record carry one of sanitizetest.Hostile in its
	// key, value or a header.
	Hostile bool
	// Partitions per topic (default 6).
	Partitions int
	// Start is the timestamp of record 0 (default Epoch); manual records
	// are 10 ms apart. Generated records carry the real time.
	Start time.Time
	// Buffer is the channel's capacity in batches of up to BatchSize
	// records (default 1,024).
	Buffer int
	// Err makes StartTail fail.
	Err error
}

// Tailer is a fake tail.Tailer producing deterministic records.
type Tailer struct {
	opt     TailerOptions
	mu      sync.Mutex
	streams []*TailStream
}

// NewTailer returns a fake tailer.
func NewTailer(opt TailerOptions) *Tailer {
	if opt.Partitions <= 0 {
		opt.Partitions = 6
	}
	if opt.Start.IsZero() {
		opt.Start = Epoch
	}
	if opt.Buffer <= 0 {
		opt.Buffer = 1024
	}
	return &Tailer{opt: opt}
}

// SetErr makes the next StartTail calls fail (nil: succeed).
func (t *Tailer) SetErr(err error) {
	t.mu.Lock()
	t.opt.Err = err
	t.mu.Unlock()
}

// StartTail implements tail.Tailer.
func (t *Tailer) StartTail(ctx context.Context, spec tail.Spec) (tail.Stream, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.opt.Err != nil {
		return nil, t.opt.Err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s := &TailStream{
		opt: t.opt, spec: spec, ch: make(chan tail.Batch, t.opt.Buffer),
		offs: make([]int64, t.opt.Partitions), done: make(chan struct{}),
	}
	for p := range s.offs {
		s.offs[p] = 1000 * int64(p+1)
	}
	s.topics = topicsFor(spec.Target)
	t.streams = append(t.streams, s)
	go func() {
		select {
		case <-ctx.Done():
			s.Close()
		case <-s.done:
		}
	}()
	if t.opt.Rate > 0 {
		go s.generate(ctx)
	}
	return s, nil
}

// Streams returns every stream started so far.
func (t *Tailer) Streams() []*TailStream {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]*TailStream(nil), t.streams...)
}

// Last returns the most recent stream (nil before the first).
func (t *Tailer) Last() *TailStream {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.streams) == 0 {
		return nil
	}
	return t.streams[len(t.streams)-1]
}

// topicsFor expands a pattern into a few topic names.
func topicsFor(target string) []string {
	if !strings.ContainsAny(target, "*?") {
		return []string{target}
	}
	var out []string
	for _, s := range []string{"EVENT", "RETRY", "AUDIT"} {
		out = append(out, strings.NewReplacer("*", s, "?", "X").Replace(target))
	}
	return out
}

// BatchSize is the most records a fake stream puts in one batch.
const BatchSize = 512

// TailStream is a fake tail.Stream. Like the real one it stops
// producing while paused: records emitted meanwhile are held (they wait
// "in the cluster", counted by Waiting) and arrive on resume.
type TailStream struct {
	opt    TailerOptions
	spec   tail.Spec
	topics []string
	ch     chan tail.Batch

	mu       sync.Mutex
	next     int64   // index of the next generated record
	offs     []int64 // next offset per partition
	clock    time.Time
	seeks    []position.Position
	fills    []tail.Fill
	epoch    uint64
	paused   bool
	fill     tail.Fill // the last Seek's bound (Records only)
	sent     int       // records sent since that Seek
	capped   bool      // stopped at the bound, as paused
	held     int       // records emitted while paused or capped
	pauses   []bool    // Pause calls, in order
	closed   bool
	err      error
	fetching tail.FetchState
	done     chan struct{}
	emitMu   sync.Mutex
}

// Spec returns the spec the stream was started with.
func (s *TailStream) Spec() tail.Spec { return s.spec }

// Records implements tail.Stream.
func (s *TailStream) Records() <-chan tail.Batch { return s.ch }

// Pause implements tail.Stream.
func (s *TailStream) Pause(ctx context.Context, paused bool) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errors.New("the tail is closed")
	}
	s.pauses = append(s.pauses, paused)
	s.paused = paused
	held := 0
	if !paused {
		held, s.held = s.held, 0
		s.fill, s.capped = tail.Fill{}, false // resuming lifts the bound
	}
	s.mu.Unlock()
	s.Emit(held)
	return nil
}

// Pauses returns the Pause calls so far (true = pause).
func (s *TailStream) Pauses() []bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]bool(nil), s.pauses...)
}

// Waiting implements tail.Stream: the records held while paused.
// Fetching implements tail.Stream: what SetFetching set (the zero value,
// which the view takes as fetching fine, until then).
func (s *TailStream) Fetching() tail.FetchState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fetching
}

// SetFetching sets what Fetching reports (a consumer that cannot fetch).
func (s *TailStream) SetFetching(f tail.FetchState) {
	s.mu.Lock()
	s.fetching = f
	s.mu.Unlock()
}

func (s *TailStream) Waiting() (int64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.paused && !s.capped {
		return 0, false
	}
	return int64(s.held), true
}

// Topics implements tail.Stream: the topics the fake makes records of.
func (s *TailStream) Topics() []string { return append([]string(nil), s.topics...) }

// Err implements tail.Stream.
func (s *TailStream) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Closed reports whether Close ran (or the stream failed).
func (s *TailStream) Closed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// WaitClosed waits up to d for the stream to be closed (the view closes
// streams in a command, on its own goroutine); it reports whether it was.
func (s *TailStream) WaitClosed(d time.Duration) bool {
	select {
	case <-s.done:
		return true
	case <-time.After(d):
		return false
	}
}

// Seeks returns the seeks asked so far.
func (s *TailStream) Seeks() []position.Position {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]position.Position(nil), s.seeks...)
}

// Fills returns the fill bounds of the seeks so far.
func (s *TailStream) Fills() []tail.Fill {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]tail.Fill(nil), s.fills...)
}

// Seek implements tail.Stream: it moves the per-partition offsets
// and starts a new epoch. Batches already queued stay in the channel, of
// the old epoch, for the view to drop. A seek resumes a paused stream;
// fill.Records bounds what Emit sends after it (fill.Bytes is ignored).
func (s *TailStream) Seek(ctx context.Context, to position.Position, fill tail.Fill) (uint64, error) {
	s.emitMu.Lock()
	defer s.emitMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return s.epoch, errors.New("MIMQE_CONSUMER_CLOSED: the tail is closed")
	}
	if err := ctx.Err(); err != nil {
		return s.epoch, err
	}
	s.seeks = append(s.seeks, to)
	s.fills = append(s.fills, fill)
	for p := range s.offs {
		if to.Partition >= 0 && int32(p) != to.Partition {
			continue
		}
		switch to.Kind {
		case position.Time:
			s.clock = to.Time
		case position.Earliest:
			s.offs[p] = 0
		case position.Offset:
			s.offs[p] = to.Offset
		}
	}
	s.epoch++
	s.paused, s.held = false, 0
	s.fill, s.sent, s.capped = fill, 0, false
	return s.epoch, nil
}

// Close implements tail.Stream.
func (s *TailStream) Close() error {
	s.end(nil)
	return nil
}

// Fail ends the stream with err (a lost connection).
func (s *TailStream) Fail(err error) { s.end(err) }

func (s *TailStream) end(err error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed, s.err = true, err
	close(s.done) // releases a put blocked on a full channel
	s.mu.Unlock()
	s.emitMu.Lock()
	close(s.ch)
	s.emitMu.Unlock()
}

// Emit generates the next n records into the channel, in batches of up
// to BatchSize (blocking while it is full). While paused the records are
// held instead (Waiting counts them) and come on resume. It does nothing
// once the stream is closed.
func (s *TailStream) Emit(n int) {
	for n > 0 {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return
		}
		if s.paused || s.capped {
			s.held += n
			s.mu.Unlock()
			return
		}
		k := min(n, BatchSize)
		if s.fill.Records > 0 {
			k = min(k, s.fill.Records-s.sent)
		}
		b := make([]tail.Record, k)
		for i := range b {
			b[i] = s.make(time.Time{})
		}
		s.sent += k
		full := s.fill.Records > 0 && s.sent >= s.fill.Records
		s.capped = full
		s.mu.Unlock()
		s.putBatch(b, full)
		n -= len(b)
	}
}

// EmitRecords sends the given records as they are, in one batch.
func (s *TailStream) EmitRecords(recs ...tail.Record) {
	s.put(recs)
}

func (s *TailStream) put(recs []tail.Record) { s.putBatch(recs, false) }

func (s *TailStream) putBatch(recs []tail.Record, held bool) {
	s.emitMu.Lock()
	defer s.emitMu.Unlock()
	s.mu.Lock()
	closed, epoch := s.closed, s.epoch
	s.mu.Unlock()
	if !closed {
		select {
		case s.ch <- tail.Batch{Epoch: epoch, Records: recs, Held: held}:
		case <-s.done:
		}
	}
}

// generate emits records at opt.Rate until the stream ends.
func (s *TailStream) generate(ctx context.Context) {
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	start, sent := time.Now(), 0.0
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.done:
			return
		case now := <-t.C:
			due := now.Sub(start).Seconds() * s.opt.Rate
			var batch []tail.Record // one batch per tick, as a consumer read
			s.mu.Lock()
			if s.closed {
				s.mu.Unlock()
				return
			}
			for ; sent < due; sent++ {
				if s.paused || s.capped {
					s.held++
				} else {
					batch = append(batch, s.make(now))
				}
			}
			s.mu.Unlock()
			if len(batch) > 0 {
				s.put(batch)
			}
		}
	}
}

// make builds record s.next (s.mu held); at zero means the fake clock.
func (s *TailStream) make(at time.Time) tail.Record {
	i := s.next
	s.next++
	p := int32(i % int64(len(s.offs)))
	off := s.offs[p]
	s.offs[p]++
	ts := at
	if ts.IsZero() {
		if !s.clock.IsZero() {
			ts = s.clock.Add(time.Duration(i) * 10 * time.Millisecond)
		} else {
			ts = s.opt.Start.Add(time.Duration(i) * 10 * time.Millisecond)
		}
	}
	statuses := []string{"NEW", "PAID", "SHIPPED", "CANCELLED", "REFUNDED"}
	val := fmt.Sprintf(`{"id":%d,"status":"%s","amount":%d.%02d,"customer":"c-%03d"`,
		i, statuses[i%int64(len(statuses))], 10+i*37%990, i%100, i*7%1000)
	if pad := s.opt.ValueSize - len(val) - 12; pad > 0 {
		val += `,"note":"` + strings.Repeat("x", pad) + `"`
	}
	val += "}"
	r := tail.Record{
		Topic:     s.topics[i%int64(len(s.topics))],
		Partition: p,
		Offset:    off,
		Timestamp: ts,
		Value:     []byte(val),
		Headers: []tail.Header{
			{Key: "trace-id", Value: []byte(fmt.Sprintf("%016x", uint64(i)*0x9e3779b97f4a7c15))},
			{Key: "source", Value: []byte("fake")},
		},
	}
	if i%10 != 9 {
		r.Key = []byte("order-" + pad5(i))
	}
	if s.opt.Hostile && i%5 == 3 {
		hs := sanitizetest.Hostile()
		h := hs[(i/5)%int64(len(hs))]
		switch (i / 5) % 4 {
		case 0:
			r.Value = h.Bytes
		case 1:
			r.Key = h.Bytes
		case 2:
			r.Headers = append(r.Headers, tail.Header{Key: "x-" + h.Name, Value: h.Bytes})
		case 3:
			r.Headers = append(r.Headers, tail.Header{Key: string(h.Bytes), Value: h.Bytes})
			r.Value = h.Bytes
		}
	}
	return r
}

func pad5(i int64) string {
	s := strconv.FormatInt(i, 10)
	if len(s) < 5 {
		s = strings.Repeat("0", 5-len(s)) + s
	}
	return s
}

var _ tail.Tailer = (*Tailer)(nil)
var _ tail.Stream = (*TailStream)(nil)
