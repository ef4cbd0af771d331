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
	if spec.Group == "" {
		opt.Group = TempGroupName()
	}
	if err := StartAt(&opt, spec.From); err != nil {
		return nil, err
	}
	sctx, cancel := context.WithCancel(ctx)
	c, err := consumer.Subscribe(sctx, strings.Join(s.cfg.DataAddrs, ","), spec.Target, opt)
	if err != nil {
		cancel()
		return nil, err
	}
	t := &tailStream{
		c:      c,
		ch:     make(chan tail.Batch, tailChanBatches),
		reqs:   make(chan tailReq),
		cancel: cancel,
		done:   make(chan struct{}),
	}
	t.waiting.Store(-1)
	go t.run(sctx, c)
	return t, nil
}

// StartAt sets the start mode of opt from a position (the tail's From).
func StartAt(opt *consumer.Options, from position.Position) error {
	switch from.Kind {
	case position.Latest:
		opt.Start = consumer.StartLatest
	case position.Earliest:
		opt.Start = consumer.StartEarliest
	case position.Offset:
		if from.Partition >= 0 {
			return fmt.Errorf("start %s: a tail starts every partition at the same place; open it, then jump (o) to %s", from, from)
		}
		opt.Start, opt.StartOffset = consumer.StartOffset, from.Offset
	case position.Time:
		opt.Start, opt.StartTime = consumer.StartTime, from.Time
	default:
		return fmt.Errorf("start: unknown position kind %v", from.Kind)
	}
	return nil
}

// tailStream is one tail: the goroutine in run owns the consumer; Seek,
// Pause and Close reach it as requests, never through a shared lock, so
// none of them waits behind a send to a full channel.
type tailStream struct {
	c       *consumer.Consumer // owned by run; FetchHealth is safe from anywhere
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
	ctx   context.Context
	reply chan tailReply // buffered: the owner never blocks on it
}

type tailReply struct {
	epoch uint64
	err   error
}

func (t *tailStream) Records() <-chan tail.Batch { return t.ch }

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

// run is the owner goroutine: read a batch, offer it to the view while
// serving requests, repeat. A seek drops the batch in hand (it is of the
// old epoch) and bumps the epoch.
func (t *tailStream) run(ctx context.Context, c *consumer.Consumer) {
	defer close(t.done)
	defer c.Close() // leaving deletes a temporary group
	defer close(t.ch)
	var (
		epoch   uint64
		paused  bool
		pending []tail.Record
		lagAt   time.Time
	)
	serve := func(r tailReq) {
		var rep tailReply
		switch {
		case r.ctx.Err() != nil:
			rep.err = r.ctx.Err() // the caller gave up: do nothing
		case r.kind == reqSeek:
			if rep.err = seek(r.ctx, c, r.to); rep.err == nil {
				epoch++
				pending = nil
				if paused {
					c.ResumeFetching()
					paused = false
					t.waiting.Store(-1)
				}
			}
		case r.kind == reqPause:
			paused = true
			lagAt = time.Time{}
			rep.err = c.PauseFetching(r.ctx)
		case r.kind == reqResume:
			c.ResumeFetching()
			paused = false
			t.waiting.Store(-1)
		}
		rep.epoch = epoch
		r.reply <- rep
	}
	for ctx.Err() == nil {
		if pending != nil {
			select {
			case t.ch <- tail.Batch{Epoch: epoch, Records: pending}:
				pending = nil
			case r := <-t.reqs:
				serve(r)
			case <-ctx.Done():
				return
			}
			continue
		}
		select {
		case r := <-t.reqs:
			serve(r)
			continue
		default:
		}
		if paused && time.Since(lagAt) >= tailLagEvery {
			lagAt = time.Now()
			lctx, cancel := context.WithTimeout(ctx, tailLagEvery)
			if n, err := c.Lag(lctx); err == nil {
				t.waiting.Store(n)
			}
			cancel()
		}
		recs, err := c.ReadBatch(ctx, tailReadMax, tailReadWait)
		if err != nil && !ilink.IsNoMessage(err) {
			if ctx.Err() != nil {
				return
			}
			if ilink.IsRejected(err) || ilink.IsConfigError(err) {
				t.err.Store(&err)
				return
			}
			continue // session trouble: the consumer recovers by itself
		}
		if len(recs) > 0 {
			pending = make([]tail.Record, len(recs))
			for i, r := range recs {
				pending[i] = TailRecordOf(r)
			}
		}
	}
}

// seek moves c to a position (the jump).
func seek(ctx context.Context, c *consumer.Consumer, to position.Position) error {
	switch to.Kind {
	case position.Time:
		return c.SeekToTime(ctx, to.Time)
	case position.Latest:
		// No record is at or after the far future: every partition moves to its end.
		return c.SeekToTime(ctx, time.Now().Add(100*365*24*time.Hour))
	case position.Earliest:
		return c.SeekToTime(ctx, time.Unix(0, 0))
	}
	found := false
	var parts []string
	for _, tp := range c.Assignment() {
		for _, p := range tp.Partitions {
			parts = append(parts, strconv.Itoa(int(p)))
			if to.Partition >= 0 && p != to.Partition {
				continue
			}
			found = true
			if err := c.SeekToOffset(tp.Topic, p, to.Offset); err != nil {
				return err
			}
		}
	}
	if !found {
		if to.Partition >= 0 {
			return fmt.Errorf("partition %d is not tailed (partitions %s)", to.Partition, strings.Join(parts, ", "))
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
func (t *tailStream) Seek(ctx context.Context, to position.Position) (uint64, error) {
	rep, err := t.request(ctx, tailReq{kind: reqSeek, to: to})
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
