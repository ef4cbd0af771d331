// Package search scans a topic (or every topic of a pattern) between two
// positions for records that match a key, a value substring or regular
// expression, or a header, for `ilinkdash search` and the dashboard's tail
// search. It reads with a direct (assign) consumer and no group: nothing is
// committed and no group moves, however long the scan.
//
// The range of each partition is fixed when the scan of its topic starts:
// from the position of Spec.From (earliest by default) to the offset of
// Spec.To (by default the end captured then, so records produced during the
// scan are not waited for). Progress reports records scanned against the
// total of those ranges, the rate and the time left.
package search

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/consumer"
	"ilinkdash/ilink/position"
	"ilinkdash/ilink/schema"
	"ilinkdash/ilink/wire"
)

// Spec is what to look for, and where. Every criterion given must match
// (AND); none matches every record.
type Spec struct {
	// Target is a topic name or a pattern (ORDER.*), with the consumer's
	// pattern rules.
	Target string
	// Partitions limits the scan (nil = every partition).
	Partitions []int32
	// Key, when not nil, must equal the record's key.
	Key []byte
	// ValueContains, when not empty, must occur in the value.
	ValueContains []byte
	// ValueRegex, when set, must match the value.
	ValueRegex *regexp.Regexp
	// Header, when set, must be one of the record's headers.
	Header *HeaderMatch
	// From and To bound the scan (position forms; nil From = earliest, nil
	// To = the end captured at the start). To is exclusive for a time (the
	// records before it) and inclusive for an offset. A P@OFFSET From
	// scans only partition P; TOPIC:P@OFFSET only that partition of that
	// topic (on a pattern a one-partition position must name its topic:
	// position.CheckTarget). A one-partition To bounds only its partition.
	From, To *position.Position
	// Max stops after this many matches (0 = no limit).
	Max int
	// Schemas, when set, are the decode rules (ilink/schema): the value
	// criteria then match the decoded JSON text of a value its topic's
	// codec decodes (a value that does not decode is matched as bytes),
	// and Fields can be given.
	Schemas *schema.Set
	// Fields must all match the decoded value (field:PATH=VALUE); a
	// record whose topic has no value codec, or whose value does not
	// decode, matches none.
	Fields []schema.FieldTerm
}

// HeaderMatch is a header criterion: a header named Key, with Value when
// AnyValue is false.
type HeaderMatch struct {
	Key      string
	Value    []byte
	AnyValue bool
}

// ParseHeader reads --header K=V (K alone: a header named K, any value).
func ParseHeader(s string) (*HeaderMatch, error) {
	k, v, ok := strings.Cut(s, "=")
	if strings.TrimSpace(k) == "" {
		return nil, fmt.Errorf("header %q: want NAME=VALUE, or NAME for any value", s)
	}
	if !ok {
		return &HeaderMatch{Key: k, AnyValue: true}, nil
	}
	return &HeaderMatch{Key: k, Value: []byte(v)}, nil
}

// Empty reports whether the spec has no criterion (every record matches).
func (s *Spec) Empty() bool {
	return s.Key == nil && len(s.ValueContains) == 0 && s.ValueRegex == nil && s.Header == nil && len(s.Fields) == 0
}

// Match reports whether r matches every criterion, its value taken as
// bytes (no schema).
func (s *Spec) Match(r *consumer.Record) bool {
	return s.match(r, r.Value)
}

// match is Match with the value text the value criteria look at.
func (s *Spec) match(r *consumer.Record, value []byte) bool {
	if s.Key != nil && !bytes.Equal(r.Key, s.Key) {
		return false
	}
	if len(s.ValueContains) > 0 && !bytes.Contains(value, s.ValueContains) {
		return false
	}
	if s.ValueRegex != nil && !s.ValueRegex.Match(value) {
		return false
	}
	if h := s.Header; h != nil {
		found := false
		for _, rh := range r.Headers {
			if rh.Key == h.Key && (h.AnyValue || bytes.Equal(rh.Value, h.Value)) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// Progress is a snapshot of a scan.
type Progress struct {
	Topic   string // the topic being scanned ("" before the first)
	Topics  int    // topics to scan
	Done    int    // topics scanned
	Scanned int64  // records read inside the ranges
	Total   int64  // records in the ranges of the topics started so far
	Matches int64
	Elapsed time.Duration
	Rate    float64       // records scanned per second
	ETA     time.Duration // time left at this rate (0 when unknown or done)
	// Finished: the scan is over (every range read, Max reached, or
	// cancelled: then Cancelled is set).
	Finished, Cancelled bool
}

// Options tune a scan.
type Options struct {
	ClientName string
	// OnProgress is called every ProgressEvery (default 250 ms) while the
	// scan runs, and once at the end, from the scanning goroutine.
	OnProgress    func(Progress)
	ProgressEvery time.Duration
	// Prefetch is the consumer's per-partition prefetch (0 = its default).
	Prefetch int
	// Hub reaches a spoke through its hub (addrs is then the hub's
	// address); nil = dial addrs directly.
	Hub  *ilink.HubRoute
	Logf func(string, ...any)
}

// Run scans and calls emit for every match (records of one partition in
// offset order) from the calling goroutine; emit may keep the record (the
// consumer never reuses its buffers). An error from emit stops the scan
// and is returned. Cancelling ctx stops the scan: Run then returns the
// progress with Cancelled and no error.
func Run(ctx context.Context, addrs string, spec Spec, opt Options, emit func(*consumer.Record) error) (Progress, error) {
	if strings.TrimSpace(spec.Target) == "" {
		return Progress{}, errors.New("search: empty topic or pattern")
	}
	if opt.ProgressEvery <= 0 {
		opt.ProgressEvery = 250 * time.Millisecond
	}
	for _, p := range []*position.Position{spec.From, spec.To} {
		if p == nil {
			continue
		}
		if err := p.CheckTarget(spec.Target, consumer.MatchPattern); err != nil {
			return Progress{}, fmt.Errorf("search: %w", err)
		}
	}
	topics := []string{spec.Target}
	if f := spec.From; f != nil && f.OnePartition() && f.Topic != "" {
		topics = []string{f.Topic} // one partition of one topic
	} else if consumer.IsPattern(spec.Target) {
		var err error
		ropt := consumer.NewOptions()
		ropt.Hub = opt.Hub
		if topics, err = consumer.ResolveWith(ctx, addrs, spec.Target, ropt); err != nil {
			return Progress{}, err
		}
		if len(topics) == 0 {
			return Progress{}, fmt.Errorf("search: no topic matches %s", spec.Target)
		}
	}
	s := &scan{spec: spec, opt: opt, emit: emit, start: time.Now(), pr: Progress{Topics: len(topics)}}
	s.next = s.start.Add(opt.ProgressEvery)
	for _, t := range topics {
		if err := s.topic(ctx, addrs, t); err != nil {
			if ctx.Err() != nil {
				break
			}
			return s.finish(ctx), err
		}
		if s.stop || ctx.Err() != nil {
			break
		}
		s.pr.Done++
	}
	return s.finish(ctx), nil
}

type scan struct {
	spec  Spec
	opt   Options
	emit  func(*consumer.Record) error
	start time.Time
	next  time.Time // next progress report
	pr    Progress
	stop  bool // Max reached
}

func (s *scan) finish(ctx context.Context) Progress {
	s.pr.Finished = true
	s.pr.Cancelled = ctx.Err() != nil
	s.stamp(time.Now())
	s.pr.ETA = 0
	if s.opt.OnProgress != nil {
		s.opt.OnProgress(s.pr)
	}
	return s.pr
}

func (s *scan) stamp(now time.Time) {
	s.pr.Elapsed = now.Sub(s.start)
	if secs := s.pr.Elapsed.Seconds(); secs > 0 {
		s.pr.Rate = float64(s.pr.Scanned) / secs
	}
	s.pr.ETA = 0
	if left := s.pr.Total - s.pr.Scanned; left > 0 && s.pr.Rate > 0 {
		s.pr.ETA = time.Duration(float64(left) / s.pr.Rate * float64(time.Second))
	}
}

func (s *scan) report(now time.Time) {
	if s.opt.OnProgress == nil || now.Before(s.next) {
		return
	}
	s.next = now.Add(s.opt.ProgressEvery)
	s.stamp(now)
	s.opt.OnProgress(s.pr)
}

// startOptions maps From to the consumer's start mode (and the partitions
// of a P@OFFSET form).
func (s *scan) startOptions(opt *consumer.Options) []int32 {
	parts := s.spec.Partitions
	opt.Start = consumer.StartEarliest
	if f := s.spec.From; f != nil {
		switch f.Kind {
		case position.Latest:
			opt.Start = consumer.StartLatest
		case position.Offset:
			opt.Start, opt.StartOffset = consumer.StartOffset, f.Offset
			if f.Partition >= 0 {
				parts = []int32{f.Partition}
			}
		case position.Time:
			opt.Start, opt.StartTime = consumer.StartTime, f.Time
		}
	}
	return parts
}

// ends fixes where each partition's range stops (exclusive), from To and
// the end offsets captured now.
func (s *scan) ends(ctx context.Context, c *consumer.Consumer, topic string) (map[int32]int64, error) {
	latest, err := c.OffsetsAt(ctx, wire.ListLatest)
	if err != nil {
		return nil, err
	}
	end := make(map[int32]int64, len(latest))
	for _, o := range latest {
		end[o.Partition] = o.Offset
	}
	to := s.spec.To
	if to == nil || to.Kind == position.Latest {
		return end, nil
	}
	switch to.Kind {
	case position.Earliest:
		early, err := c.OffsetsAt(ctx, wire.ListEarliest)
		if err != nil {
			return nil, err
		}
		for _, o := range early {
			end[o.Partition] = o.Offset
		}
	case position.Offset:
		for p := range end {
			if to.Applies(topic, p) {
				end[p] = min(end[p], to.Offset+1)
			}
		}
	case position.Time:
		at, err := c.OffsetsAt(ctx, to.Time.UnixMilli())
		if err != nil {
			return nil, err
		}
		for _, o := range at {
			end[o.Partition] = min(end[o.Partition], o.Offset)
		}
	}
	return end, nil
}

func (s *scan) topic(ctx context.Context, addrs, topic string) error {
	s.pr.Topic = topic
	copt := consumer.NewOptions()
	copt.Group = "" // assign with no group: nothing is committed
	copt.Durable = false
	copt.Commit = consumer.CommitManual
	copt.ClientName = s.opt.ClientName
	if copt.ClientName == "" {
		copt.ClientName = "ilinkdash-search"
	}
	if s.opt.Prefetch > 0 {
		copt.Prefetch = s.opt.Prefetch
	}
	copt.Logf = s.opt.Logf
	copt.Hub = s.opt.Hub
	parts := s.startOptions(&copt)
	c, err := consumer.Assign(ctx, addrs, topic, parts, copt)
	if err != nil {
		return fmt.Errorf("search %s: %w", topic, err)
	}
	defer c.Close()
	end, err := s.ends(ctx, c, topic)
	if err != nil {
		return fmt.Errorf("search %s: end offsets: %w", topic, err)
	}
	open := map[int32]bool{}
	for p, e := range end {
		if pos := c.Position(topic, p); pos >= 0 && pos < e {
			open[p] = true
			s.pr.Total += e - pos
		}
	}
	s.report(time.Now())
	match, err := s.spec.matcher(topic)
	if err != nil {
		return fmt.Errorf("search %s: %w", topic, err)
	}
	for len(open) > 0 {
		recs, err := c.ReadBatch(ctx, 2000, 200*time.Millisecond)
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case ilink.IsNoMessage(err):
		case err != nil && ilink.IsSessionError(err) && !ilink.HasName(err, ilink.NameSessionClosed):
			if s.opt.Logf != nil {
				s.opt.Logf("search %s: %v (still trying)", topic, err)
			}
		case err != nil:
			return fmt.Errorf("search %s: %w", topic, err)
		}
		for _, r := range recs {
			if !open[r.Partition] || r.Offset >= end[r.Partition] {
				continue
			}
			s.pr.Scanned++
			if match(r) {
				if err := s.emit(r); err != nil {
					return err // not handed over: not counted
				}
				s.pr.Matches++
				if ctx.Err() != nil {
					return ctx.Err()
				}
				if s.spec.Max > 0 && s.pr.Matches >= int64(s.spec.Max) {
					s.stop = true
					return nil
				}
			}
		}
		for p := range open {
			if c.Position(topic, p) >= end[p] {
				delete(open, p)
			}
		}
		s.report(time.Now())
	}
	return nil
}
