package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultQueue is how many events a sink holds undelivered; past it the
// oldest goes.
const DefaultQueue = 256

// queue is a bounded FIFO of events that drops its oldest when full.
type queue struct {
	name string
	logf func(string, ...any)

	mu      sync.Mutex
	items   []Event
	max     int
	wake    chan struct{} // one token: something was queued
	lastLog time.Time
	dropLog uint64 // drops since the last log line

	sent, failed, dropped atomic.Uint64
}

func newQueue(name string, size int, logf func(string, ...any)) *queue {
	if size <= 0 {
		size = DefaultQueue
	}
	if logf == nil {
		logf = func(string, ...any) {}
	}
	return &queue{name: name, logf: logf, max: size, wake: make(chan struct{}, 1)}
}

// Enqueue adds e without blocking; a full queue drops its oldest event,
// counted, and says so in the log (at most every 10 s, with the count).
func (q *queue) Enqueue(e Event) {
	q.mu.Lock()
	if len(q.items) >= q.max {
		old := q.items[0]
		q.items = q.items[1:]
		q.dropped.Add(1)
		q.dropLog++
		if now := time.Now(); now.Sub(q.lastLog) >= 10*time.Second {
			q.logf("notify %s: queue full (%d): dropped %d notification(s), the latest %s %s %s (ilinkdash_notify_dropped_total)",
				q.name, q.max, q.dropLog, old.Event, old.Kind, old.Subject)
			q.lastLog, q.dropLog = now, 0
		}
	}
	q.items = append(q.items, e)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// next waits for the oldest event (false when ctx ends).
func (q *queue) next(ctx context.Context) (Event, bool) {
	for {
		q.mu.Lock()
		if len(q.items) > 0 {
			e := q.items[0]
			q.items = q.items[1:]
			if len(q.items) == 0 {
				q.items = nil // let the backing array go
			}
			more := len(q.items) > 0
			q.mu.Unlock()
			if more {
				select {
				case q.wake <- struct{}{}:
				default:
				}
			}
			return e, true
		}
		q.mu.Unlock()
		select {
		case <-ctx.Done():
			return Event{}, false
		case <-q.wake:
		}
	}
}

// serve hands the queued events to deliver until ctx ends, counting each
// sent or failed. A failure is logged by failedFormat (event, kind,
// subject, error); one that ctx ending caused just stops serve.
func (q *queue) serve(ctx context.Context, deliver func(context.Context, Event) error, failedFormat string) {
	for {
		e, ok := q.next(ctx)
		if !ok {
			return
		}
		if err := deliver(ctx, e); err != nil {
			if ctx.Err() != nil {
				return
			}
			q.failed.Add(1)
			q.logf(failedFormat, e.Event, e.Kind, e.Subject, err)
			continue
		}
		q.sent.Add(1)
	}
}

func (q *queue) Name() string { return q.name }

func (q *queue) Counts() Counts {
	return Counts{Sent: q.sent.Load(), Failed: q.failed.Load(), Dropped: q.dropped.Load()}
}

// ---- the webhook ----

// WebhookConfig configures a Webhook.
type WebhookConfig struct {
	URL string
	// Queue bounds the events waiting (DefaultQueue when 0).
	Queue int
	// Attempts bounds the tries of one event (4 when 0): the first and
	// the retries, Backoff apart, doubling, at most MaxBackoff.
	Attempts   int
	Backoff    time.Duration // 1 s when 0
	MaxBackoff time.Duration // 30 s when 0
	// Timeout bounds one POST (10 s when 0).
	Timeout time.Duration
	Client  *http.Client
	Logf    func(string, ...any)
}

// Webhook POSTs each event as JSON to a URL, one at a time in order, with
// bounded retries: a network error, a 5xx or 429 answer is tried again
// after the backoff; another answer that is not 2xx fails at once.
type Webhook struct {
	*queue
	cfg WebhookConfig
}

// NewWebhook returns the webhook sink; Run delivers.
func NewWebhook(cfg WebhookConfig) *Webhook {
	if cfg.Attempts <= 0 {
		cfg.Attempts = 4
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = time.Second
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = 30 * time.Second
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{CheckRedirect: keepPost}
	}
	return &Webhook{queue: newQueue("webhook", cfg.Queue, cfg.Logf), cfg: cfg}
}

// Run delivers until ctx ends.
func (w *Webhook) Run(ctx context.Context) {
	w.serve(ctx, w.deliver, "notify webhook: %s %s %s not delivered: %v")
}

// retryable marks a failure worth another try.
type retryable struct{ error }

func (w *Webhook) deliver(ctx context.Context, e Event) error {
	body := e.JSON()
	wait := w.cfg.Backoff
	var err error
	for attempt := 1; ; attempt++ {
		err = w.post(ctx, body)
		var r retryable
		if err == nil || !errors.As(err, &r) {
			return err
		}
		if attempt >= w.cfg.Attempts {
			return fmt.Errorf("%w (%d attempts)", r.error, attempt)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		wait = min(2*wait, w.cfg.MaxBackoff)
	}
}

func (w *Webhook) post(ctx context.Context, body []byte) error {
	ctx, cancel := context.WithTimeout(ctx, w.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.cfg.URL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "ilinkdash-notify")
	resp, err := w.cfg.Client.Do(req)
	if err != nil {
		return retryable{err}
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return nil
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests:
		return retryable{fmt.Errorf("HTTP %s", resp.Status)}
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		return fmt.Errorf("HTTP %s: the webhook URL redirects to %s, which would get a GET without the event: give that URL", resp.Status, redactURL(resp.Header.Get("Location")))
	}
	return fmt.Errorf("HTTP %s", resp.Status)
}

// keepPost follows a redirect only where the event is posted again (307,
// 308); a 301, 302 or 303 would turn it into a GET without the event and
// count it delivered, so their answer is the webhook's answer.
func keepPost(req *http.Request, via []*http.Request) error {
	if req.Method != http.MethodPost {
		return http.ErrUseLastResponse
	}
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	return nil
}

// ---- the command ----

// CommandConfig configures a Command.
type CommandConfig struct {
	// Command is run by the shell (sh -c; cmd /C on Windows) with the
	// event's JSON on stdin and ILINKDASH_ALERT_EVENT, _KIND, _LEVEL and
	// _SUBJECT in its environment.
	Command string
	Queue   int           // DefaultQueue when 0
	Timeout time.Duration // one run's bound (10 s when 0): then it is killed
	// Concurrency bounds the runs at once (4 when 0).
	Concurrency int
	Logf        func(string, ...any)
}

// Command runs a program for each event, at most Concurrency at once,
// each for at most Timeout.
type Command struct {
	*queue
	cfg CommandConfig
}

// NewCommand returns the command sink; Run runs.
func NewCommand(cfg CommandConfig) *Command {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 4
	}
	return &Command{queue: newQueue("command", cfg.Queue, cfg.Logf), cfg: cfg}
}

// Run runs the events' commands until ctx ends.
func (c *Command) Run(ctx context.Context) {
	var wg sync.WaitGroup
	for range c.cfg.Concurrency {
		wg.Go(func() { c.serve(ctx, c.run, "notify command: %s %s %s: %v") })
	}
	wg.Wait()
}

// limitedBuffer keeps the first n bytes written.
type limitedBuffer struct {
	b bytes.Buffer
	n int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.n - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (c *Command) run(ctx context.Context, e Event) error {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	shell, flag := "sh", "-c"
	if runtime.GOOS == "windows" {
		shell, flag = "cmd", "/C"
	}
	cmd := exec.CommandContext(ctx, shell, flag, c.cfg.Command)
	cmd.Stdin = bytes.NewReader(append(e.JSON(), '\n'))
	cmd.Env = append(cmd.Environ(), "ILINKDASH_ALERT_EVENT="+e.Event, "ILINKDASH_ALERT_KIND="+e.Kind,
		"ILINKDASH_ALERT_LEVEL="+e.Level, "ILINKDASH_ALERT_SUBJECT="+e.Subject)
	out := &limitedBuffer{n: 2048}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = time.Second // a child holding the pipes does not hold us
	ownGroup(cmd)               // the timeout kills what the shell started too
	err := cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		return fmt.Errorf("killed after %v", c.cfg.Timeout)
	}
	if err != nil {
		if msg := strings.TrimSpace(out.b.String()); msg != "" {
			return fmt.Errorf("%v: %s", err, msg)
		}
		return err
	}
	return nil
}

// redactURL is raw with its password, if any, as xxxxx (a Location may
// carry one into the log).
func redactURL(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Redacted()
	}
	return raw
}
