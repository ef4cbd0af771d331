package live

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/consumer"
	"ilinkdash/ui/views"
)

// tailChanSize keeps up with 50,000 records/s at the view's 50 ms drains.
const tailChanSize = 8192

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
func TailRecordOf(r *consumer.Record) views.TailRecord {
	tr := views.TailRecord{Topic: r.Topic, Partition: r.Partition, Offset: r.Offset, Timestamp: r.Timestamp, Key: r.Key, Value: r.Value}
	if len(r.Headers) > 0 {
		tr.Headers = make([]views.HeaderKV, len(r.Headers))
		for i, h := range r.Headers {
			tr.Headers[i] = views.HeaderKV{Key: h.Key, Value: h.Value}
		}
	}
	return tr
}

// StartTail implements views.Tailer with a consumer v2 subscription.
func (s *Sources) StartTail(ctx context.Context, spec views.TailSpec) (views.TailStream, error) {
	if len(s.cfg.DataAddrs) == 0 {
		return nil, fmt.Errorf("tail needs a data address (set --addr or the context's addresses)")
	}
	opt := consumer.NewOptions()
	opt.ClientName = s.cfg.ClientName
	opt.Logf = s.cfg.Logf
	opt.Group = spec.Group
	opt.Durable = spec.Group != ""
	if spec.Group == "" {
		opt.Group = TempGroupName()
	} else if s.cfg.ReadOnly {
		// A named group commits offsets: a write the read-only context must not make.
		return nil, ilink.ReadOnlyError("tail with a named group")
	}
	if err := applyFrom(&opt, spec.From); err != nil {
		return nil, err
	}
	sctx, cancel := context.WithCancel(ctx)
	c, err := consumer.Subscribe(sctx, strings.Join(s.cfg.DataAddrs, ","), spec.Target, opt)
	if err != nil {
		cancel()
		return nil, err
	}
	t := &tailStream{c: c, ch: make(chan views.TailRecord, tailChanSize), cancel: cancel, done: make(chan struct{})}
	go t.run(sctx)
	return t, nil
}

// applyFrom turns the view's From into a start mode.
func applyFrom(opt *consumer.Options, from string) error {
	switch from {
	case "", "latest":
		opt.Start = consumer.StartLatest
	case "earliest":
		opt.Start = consumer.StartEarliest
	default:
		if off, err := strconv.ParseInt(from, 10, 64); err == nil && off >= 0 {
			opt.Start, opt.StartOffset = consumer.StartOffset, off
			return nil
		}
		t, err := time.Parse(time.RFC3339Nano, from)
		if err != nil {
			return fmt.Errorf("tail from %q: want latest, earliest, an offset or an RFC 3339 time", from)
		}
		opt.Start, opt.StartTime = consumer.StartTime, t
	}
	return nil
}

type tailStream struct {
	c      *consumer.Consumer
	ch     chan views.TailRecord
	cancel context.CancelFunc
	done   chan struct{}

	// mu is held by the reader while it reads and forwards one batch, and
	// by Seek while it drains the channel and moves the positions, so no
	// record from before a seek is forwarded after it.
	mu   sync.Mutex
	err  atomic.Pointer[error]
	once sync.Once
}

func (t *tailStream) Records() <-chan views.TailRecord { return t.ch }

func (t *tailStream) Err() error {
	if p := t.err.Load(); p != nil {
		return *p
	}
	return nil
}

func (t *tailStream) run(ctx context.Context) {
	defer close(t.done)
	defer close(t.ch)
	for ctx.Err() == nil {
		if !t.forwardBatch(ctx) {
			return
		}
	}
}

// forwardBatch reads one batch and hands it to the view; false ends the stream.
func (t *tailStream) forwardBatch(ctx context.Context) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	recs, err := t.c.ReadBatch(ctx, 2048, 200*time.Millisecond)
	if err != nil && !ilink.IsNoMessage(err) {
		if ctx.Err() != nil {
			return false
		}
		if ilink.IsRejected(err) || ilink.IsConfigError(err) {
			t.err.Store(&err)
			return false
		}
		return true // session trouble: the consumer recovers by itself
	}
	for _, r := range recs {
		tr := TailRecordOf(r)
		select {
		case t.ch <- tr:
		case <-ctx.Done():
			return false
		}
	}
	return true
}

// Seek implements views.TailStream.
func (t *tailStream) Seek(ctx context.Context, to views.TailSeek) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for drained := false; !drained; {
		select {
		case <-t.ch:
		default:
			drained = true
		}
	}
	switch {
	case !to.Time.IsZero():
		return t.c.SeekToTime(ctx, to.Time)
	case to.Offset == views.TailLatest && to.Partition < 0:
		// No record is at or after the far future: every partition moves to its end.
		return t.c.SeekToTime(ctx, time.Now().Add(100*365*24*time.Hour))
	case to.Offset == views.TailEarliest && to.Partition < 0:
		return t.c.SeekToTime(ctx, time.Unix(0, 0))
	}
	for _, tp := range t.c.Assignment() {
		for _, p := range tp.Partitions {
			if to.Partition >= 0 && p != to.Partition {
				continue
			}
			off := to.Offset
			if off < 0 {
				return fmt.Errorf("seek one partition to latest/earliest: give an offset or a time")
			}
			if err := t.c.SeekToOffset(tp.Topic, p, off); err != nil {
				return err
			}
		}
	}
	return nil
}

// Close implements views.TailStream: the temporary group goes with its member.
func (t *tailStream) Close() error {
	var err error
	t.once.Do(func() {
		t.cancel()
		<-t.done
		err = t.c.Close()
	})
	return err
}
