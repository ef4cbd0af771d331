package live

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"ilinkdash/ui/views/tail"

	"ilinkdash/ilink"
	"ilinkdash/ilink/consumer"
	"ilinkdash/ilink/position"
)

var tailSeq atomic.Int64

// TempGroupName is the temporary group a tail uses when none is named:
// host, process and a counter make it unique, so tailing never disturbs real groups.
func TempGroupName() string {
	host, _ := os.Hostname()
	if host == "" {
		host = "host"
	}
	host = strings.Map(func(r rune) rune {
		if r == '|' || r == ',' || r == ':' || r == ';' || r < 0x20 {
			return '-'
		}
		return r
	}, host)
	return fmt.Sprintf("ilinkdash-tail-%s-%d-%d", host, os.Getpid(), tailSeq.Add(1))
}

// TailRecordOf converts a consumed record for the tail view (and the
// tail command's JSON lines). The record's slices are shared, not copied.
func TailRecordOf(r *consumer.Record) tail.Record {
	tr := tail.Record{Topic: r.Topic, Partition: r.Partition, Offset: r.Offset, Timestamp: r.Timestamp, Key: r.Key, Value: r.Value}
	if len(r.Headers) > 0 {
		tr.Headers = make([]tail.Header, len(r.Headers))
		for i, h := range r.Headers {
			tr.Headers[i] = tail.Header{Key: h.Key, Value: h.Value}
		}
	}
	return tr
}

// KeptRecordOf converts a consumed record that the dashboard keeps (the
// tail's buffer, a search's matches) with its bytes copied into one slab
// of its own. A consumed record's slices may alias its whole fetch reply
// (up to the fetch's MaxBytes; header keys too, as strings sharing its
// bytes), so a few kept records could pin many megabytes more than the
// buffer's byte bound counts.
func KeptRecordOf(r *consumer.Record) tail.Record {
	tr := TailRecordOf(r)
	n := len(tr.Key) + len(tr.Value)
	for _, h := range tr.Headers {
		n += len(h.Value)
	}
	slab := make([]byte, 0, n)
	own := func(b []byte) []byte {
		if b == nil {
			return nil
		}
		slab = append(slab, b...)
		return slab[len(slab)-len(b) : len(slab) : len(slab)]
	}
	tr.Key, tr.Value = own(tr.Key), own(tr.Value)
	for i := range tr.Headers { // TailRecordOf made the slice: ours to change
		tr.Headers[i] = tail.Header{Key: strings.Clone(tr.Headers[i].Key), Value: own(tr.Headers[i].Value)}
	}
	return tr
}

// Tail stream bounds: a batch is at most one consumer read; the channel
// holds tailChanBatches of them (up to 32,768 records, a few 50 ms drains
// at 50,000 records/s).
const (
	tailReadMax     = 2048
	tailChanBatches = 16
	// tailReadWait bounds one read, so a request waits at most this long
	// for the owner goroutine while the stream is idle.
	tailReadWait = 100 * time.Millisecond
	// tailLagEvery is how often a paused stream asks for end offsets.
	tailLagEvery = time.Second
	// tailPrefetch bounds what the consumer buffers ahead per partition:
	// a paused tail receives at most this much after the pause.
	tailPrefetch = 2048
	// tailRefreshEvery is how often a pattern tail that matches no topic
	// looks for one (the consumer's own refresh is every 10 s).
	tailRefreshEvery = time.Second
)

// StartTail implements tail.Tailer with a consumer v2 subscription.
func (s *Sources) StartTail(ctx context.Context, spec tail.Spec) (tail.Stream, error) {
	if len(s.cfg.DataAddrs) == 0 {
		return nil, fmt.Errorf("tail needs a data address (set --addr or the context's addresses)")
	}
	opt := consumer.NewOptions()
	opt.ClientName = s.cfg.ClientName
	opt.Logf = s.cfg.Logf
	opt.Group = spec.Group
	opt.Durable = spec.Group != ""
	opt.Prefetch = tailPrefetch
	opt.ReadOnly = s.cfg.ReadOnly // the consumer refuses a named group then
	opt.Hub = s.hub
	if spec.Group == "" {
		opt.Group = TempGroupName()
	}
	one := spec.From.OnePartition()
	if one {
		// A tail of one partition (a group's partition row, `t`): that
		// partition alone, read without a group from the offset.
		if err := spec.From.CheckTarget(spec.Target, consumer.MatchPattern); err != nil {
			return nil, err
		}
		opt.Group, opt.Durable = "", false
		if err := opt.StartFrom(spec.From); err != nil {
			return nil, err
		}
	} else if err := StartAt(&opt, spec.From); err != nil {
		return nil, err
	}
	sctx, cancel := context.WithCancel(ctx)
	var c *consumer.Consumer
	var err error
	if one {
		topic := spec.From.Topic
		if topic == "" {
			topic = spec.Target
		}
		c, err = consumer.Assign(sctx, strings.Join(s.cfg.DataAddrs, ","), topic, []int32{spec.From.Partition}, opt)
	} else {
		c, err = consumer.Subscribe(sctx, strings.Join(s.cfg.DataAddrs, ","), spec.Target, opt)
	}
	if err != nil {
		cancel()
		return nil, err
	}
	t := &tailStream{
		c:      c,
		target: spec.Target,
		logf:   s.cfg.Logf,
		ch:     make(chan tail.Batch, tailChanBatches),
		reqs:   make(chan tailReq),
		cancel: cancel,
		done:   make(chan struct{}),
	}
	t.waiting.Store(-1)
	go t.run(sctx, c)
	return t, nil
}

// StartAt sets the start mode of opt from a position (the tail's From);
// StartTail reads a one-partition position itself (that partition alone).
func StartAt(opt *consumer.Options, from position.Position) error {
	if from.Kind == position.Offset && from.Partition >= 0 {
		return fmt.Errorf("start %s: a tail starts every partition at the same place; open it, then jump (o) to %s", from, from)
	}
	return opt.StartFrom(from)
}

// tailStream is one tail: the goroutine in run owns the consumer; Seek,
// Pause and Close reach it as requests, never through a shared lock, so
// none of them waits behind a send to a full channel.
type tailStream struct {
	c       *consumer.Consumer // owned by run; FetchHealth and Topics are safe from anywhere
	target  string
	logf    func(string, ...any) // nil = none
	ch      chan tail.Batch
	reqs    chan tailReq
	cancel  context.CancelFunc
	done    chan struct{}
	err     atomic.Pointer[error]
	waiting atomic.Int64 // -1 = unknown
	once    sync.Once
}

type tailReqKind int

const (
	reqSeek tailReqKind = iota
	reqPause
	reqResume
)

type tailReq struct {
	kind  tailReqKind
	to    position.Position
	fill  tail.Fill
	ctx   context.Context
	reply chan tailReply // buffered: the owner never blocks on it
}

type tailReply struct {
	epoch uint64
	err   error
}

func (t *tailStream) Records() <-chan tail.Batch { return t.ch }

func (t *tailStream) log(format string, args ...any) {
	if t.logf != nil {
		t.logf(format, args...)
	}
}

func (t *tailStream) Err() error {
	if p := t.err.Load(); p != nil {
		return *p
	}
	return nil
}

// Fetching implements tail.Stream with the consumer's FetchHealth.
func (t *tailStream) Fetching() tail.FetchState {
	h := t.c.FetchHealth()
	return tail.FetchState{OK: h.OK, Err: h.Err, FailingSince: h.FailingSince}
}

func (t *tailStream) Waiting() (int64, bool) {
	n := t.waiting.Load()
	return n, n >= 0
}

// Topics implements tail.Stream: the consumer's topics (a pattern's
// current matches).
func (t *tailStream) Topics() []string { return t.c.Topics() }

// tailOwner is the state of the owner goroutine (run): only it reads and
// writes these fields.
type tailOwner struct {
	t         *tailStream
	c         *consumer.Consumer
	pattern   bool
	epoch     uint64
	paused    bool // Pause(true)
	held      bool // stopped at the fill bound
	fill      tail.Fill
	sent      int   // records sent since the last seek
	sentBytes int64 // their tail.RecordSize
	out       *tail.Batch
	lagAt     time.Time
	lookAt    time.Time
}

// run is the owner goroutine: read a batch, offer it to the view while
// serving requests, repeat. A seek drops the batch in hand (it is of the
// old epoch), bumps the epoch and sets the fill bound; at the bound the
// stream holds (hold) as a pause does, until a resume or the next seek.
func (t *tailStream) run(ctx context.Context, c *consumer.Consumer) {
	defer close(t.done)
	defer c.Close() // leaving deletes a temporary group
	defer close(t.ch)
	o := &tailOwner{t: t, c: c, pattern: consumer.IsPattern(t.target)}
	for ctx.Err() == nil {
		if o.out != nil {
			select {
			case t.ch <- *o.out:
				o.out = nil
			case r := <-t.reqs:
				o.serve(r)
			case <-ctx.Done():
				return
			}
			continue
		}
		select {
		case r := <-t.reqs:
			o.serve(r)
			continue
		default:
		}
		o.lookAround(ctx)
		if !o.read(ctx) {
			return
		}
	}
}

func (o *tailOwner) resume() {
	o.c.ResumeFetching()
	o.paused, o.held = false, false
	o.t.waiting.Store(-1)
}

// serve answers one request of the view: seek, pause or resume.
func (o *tailOwner) serve(r tailReq) {
	var rep tailReply
	switch {
	case r.ctx.Err() != nil:
		rep.err = r.ctx.Err() // the caller gave up: do nothing
	case r.kind == reqSeek:
		if rep.err = seek(r.ctx, o.c, o.t.target, r.to); rep.err == nil {
			o.epoch++
			o.out = nil
			o.fill, o.sent, o.sentBytes = r.fill, 0, 0
			if o.paused || o.held {
				o.resume()
			}
		}
	case r.kind == reqPause:
		o.paused = true
		o.lagAt = time.Time{}
		rep.err = o.c.PauseFetching(r.ctx)
	case r.kind == reqResume:
		o.fill = tail.Fill{} // resuming lifts the bound of the last jump
		o.resume()
	}
	rep.epoch = o.epoch
	r.reply <- rep
}

// lookAround counts what waits while paused or held, and looks for
// topics when a pattern matches none yet.
func (o *tailOwner) lookAround(ctx context.Context) {
	t, c := o.t, o.c
	if (o.paused || o.held) && time.Since(o.lagAt) >= tailLagEvery {
		o.lagAt = time.Now()
		lctx, cancel := context.WithTimeout(ctx, tailLagEvery)
		if n, err := c.Lag(lctx); err == nil {
			t.waiting.Store(n)
		}
		cancel()
	}
	if o.pattern && time.Since(o.lookAt) >= tailRefreshEvery && len(c.Topics()) == 0 {
		// Nothing matches yet: look again soon, so that a topic
		// created for the pattern is tailed within a second or so.
		o.lookAt = time.Now()
		rctx, cancel := context.WithTimeout(ctx, 2*tailRefreshEvery)
		if err := c.RefreshNow(rctx); err != nil && ctx.Err() == nil {
			t.log("tail %s: looking for matching topics: %v", t.target, err)
		}
		cancel()
	}
}

// read reads a batch into o.out, up to the fill bound (then it holds);
// false ends the stream (the context's end, or an error the consumer
// does not recover from, kept for the view).
func (o *tailOwner) read(ctx context.Context) bool {
	c := o.c
	max := tailReadMax
	if o.fill.Records > 0 && !o.held {
		max = min(max, o.fill.Records-o.sent)
	}
	recs, err := c.ReadBatch(ctx, max, tailReadWait)
	if err != nil && !ilink.IsNoMessage(err) {
		if ctx.Err() != nil {
			return false
		}
		if ilink.IsRejected(err) || ilink.IsConfigError(err) {
			o.t.err.Store(&err)
			return false
		}
		return true // session trouble: the consumer recovers by itself
	}
	if len(recs) == 0 {
		return true
	}
	if o.held { // read while holding (a fetch that was under way): not sent
		putBack(c, recs)
		return true
	}
	b := tail.Batch{Epoch: o.epoch, Records: make([]tail.Record, 0, len(recs))}
	var rest []*consumer.Record
	for i, r := range recs {
		tr := KeptRecordOf(r)
		if o.fill.Bytes > 0 {
			size := tail.RecordSize(&tr)
			if o.sent > 0 && o.sentBytes+size > o.fill.Bytes {
				rest = recs[i:]
				break
			}
			o.sentBytes += size
		}
		b.Records = append(b.Records, tr)
		o.sent++
	}
	if rest != nil || (o.fill.Records > 0 && o.sent >= o.fill.Records) {
		o.held, b.Held = true, true
		o.lagAt = time.Time{}
		hold(ctx, c, rest)
	}
	o.out = &b
	return true
}

// hold stops fetching at a jump's fill bound: the records read but not
// sent (rest) go back, and what the consumer fetched ahead is dropped, so
// that its positions are just past what the view holds (Lag counts the
// rest) and reads find nothing until the fetching resumes. Reads go on
// meanwhile, as while paused, which keeps the member in its group.
func hold(ctx context.Context, c *consumer.Consumer, rest []*consumer.Record) {
	pctx, cancel := context.WithTimeout(ctx, tailLagEvery)
	_ = c.PauseFetching(pctx) // on timeout a late fetch reply is dropped by the seeks below
	cancel()
	back := map[string]map[int32]int64{}
	for _, r := range rest {
		if back[r.Topic] == nil {
			back[r.Topic] = map[int32]int64{}
		}
		if _, ok := back[r.Topic][r.Partition]; !ok {
			back[r.Topic][r.Partition] = r.Offset
		}
	}
	for _, a := range c.Assignment() {
		for _, p := range a.Partitions {
			o, ok := back[a.Topic][p]
			if !ok {
				o = c.Position(a.Topic, p)
			}
			if o >= 0 {
				_ = c.SeekToOffset(a.Topic, p, o) // drops what was fetched ahead
			}
		}
	}
}

// putBack moves each partition of recs back to its first record there.
func putBack(c *consumer.Consumer, recs []*consumer.Record) {
	seen := map[string]map[int32]bool{}
	for _, r := range recs {
		if seen[r.Topic] == nil {
			seen[r.Topic] = map[int32]bool{}
		}
		if !seen[r.Topic][r.Partition] {
			seen[r.Topic][r.Partition] = true
			_ = c.SeekToOffset(r.Topic, r.Partition, r.Offset)
		}
	}
}

// seek moves c to a position (the jump). On a pattern a one-partition
// position names its topic (TOPIC:P@OFFSET); P@OFFSET alone is refused,
// since every topic has its own partition P.
func seek(ctx context.Context, c *consumer.Consumer, target string, to position.Position) error {
	switch to.Kind {
	case position.Time:
		return c.SeekToTime(ctx, to.Time)
	case position.Latest:
		// No record is at or after the far future: every partition moves to its end.
		return c.SeekToTime(ctx, time.Now().Add(100*365*24*time.Hour))
	case position.Earliest:
		return c.SeekToTime(ctx, time.Unix(0, 0))
	}
	if err := to.CheckTarget(target, consumer.MatchPattern); err != nil {
		return err
	}
	found := false
	var parts []string
	for _, tp := range c.Assignment() {
		var ps []string
		for _, p := range tp.Partitions {
			ps = append(ps, strconv.Itoa(int(p)))
			if !to.Applies(tp.Topic, p) {
				continue
			}
			found = true
			if err := c.SeekToOffset(tp.Topic, p, to.Offset); err != nil {
				return err
			}
		}
		parts = append(parts, tp.Topic+" "+strings.Join(ps, ","))
	}
	if !found {
		if to.OnePartition() {
			what := "partition " + strconv.Itoa(int(to.Partition))
			if to.Topic != "" {
				what = to.Topic + " " + what
			}
			if len(parts) == 0 {
				return fmt.Errorf("%s is not tailed (no partition is assigned to the tail yet)", what)
			}
			return fmt.Errorf("%s is not tailed (partitions: %s)", what, strings.Join(parts, "; "))
		}
		return errors.New("no partition is assigned to the tail yet")
	}
	return nil
}

// request hands r to the owner goroutine and waits for its reply, within ctx.
func (t *tailStream) request(ctx context.Context, r tailReq) (tailReply, error) {
	r.ctx, r.reply = ctx, make(chan tailReply, 1)
	select {
	case t.reqs <- r:
	case <-ctx.Done():
		return tailReply{}, ctx.Err()
	case <-t.done:
		return tailReply{}, errTailClosed
	}
	select {
	case rep := <-r.reply:
		return rep, rep.err
	case <-ctx.Done():
		return tailReply{}, ctx.Err()
	case <-t.done:
		return tailReply{}, errTailClosed
	}
}

var errTailClosed = errors.New("the tail is closed")

// Seek implements tail.Stream.
func (t *tailStream) Seek(ctx context.Context, to position.Position, fill tail.Fill) (uint64, error) {
	rep, err := t.request(ctx, tailReq{kind: reqSeek, to: to, fill: fill})
	return rep.epoch, err
}

// Pause implements tail.Stream.
func (t *tailStream) Pause(ctx context.Context, paused bool) error {
	kind := reqResume
	if paused {
		kind = reqPause
	}
	_, err := t.request(ctx, tailReq{kind: kind})
	return err
}

// Close implements tail.Stream: the owner goroutine ends and closes
// the consumer (a temporary group goes with its member).
func (t *tailStream) Close() error {
	t.once.Do(func() {
		t.cancel()
		<-t.done
	})
	return nil
}
