package live

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"ilinkdash/ui/views/tail"

	"ilinkdash/ilink/consumer"
	"ilinkdash/ilink/position"
	"ilinkdash/ilink/schema"
	"ilinkdash/ilink/search"
)

var _ tail.Searcher = (*Sources)(nil)

// searchSpec turns the view's spec into ilink/search's.
func searchSpec(v tail.SearchSpec, now time.Time) (search.Spec, error) {
	s := search.Spec{Target: v.Target, Key: v.Key, ValueContains: []byte(v.ValueContains), Schemas: v.Schemas}
	for _, f := range v.Fields {
		ft, err := schema.ParseFieldTerm(f)
		if err != nil {
			return s, err
		}
		s.Fields = append(s.Fields, ft)
	}
	if v.ValueRegex != "" {
		re, err := regexp.Compile(v.ValueRegex)
		if err != nil {
			return s, fmt.Errorf("value regex: %w", err)
		}
		s.ValueRegex = re
	}
	if v.Header != "" {
		h, err := search.ParseHeader(v.Header)
		if err != nil {
			return s, err
		}
		s.Header = h
	}
	for _, p := range []struct {
		text string
		dst  **position.Position
	}{{v.From, &s.From}, {v.To, &s.To}} {
		if strings.TrimSpace(p.text) == "" {
			continue
		}
		pos, err := position.Parse(p.text, now)
		if err != nil {
			return s, err
		}
		*p.dst = &pos
	}
	return s, nil
}

// StartSearch implements tail.Searcher with ilink/search: an assign
// consumer and no group, from the data addresses.
func (s *Sources) StartSearch(ctx context.Context, spec tail.SearchSpec) (tail.SearchRun, error) {
	if len(s.cfg.DataAddrs) == 0 {
		return nil, errors.New("search needs a data address (set --addr or the context's addresses)")
	}
	sp, err := searchSpec(spec, time.Now())
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	r := &searchRun{ch: make(chan tail.Record, 1024), cancel: cancel}
	r.prog.Topic = spec.Target
	addrs := strings.Join(s.cfg.DataAddrs, ",")
	opt := search.Options{ClientName: s.cfg.ClientName, Logf: s.cfg.Logf, ProgressEvery: 200 * time.Millisecond, OnProgress: r.set, Hub: s.hub}
	go func() {
		defer close(r.ch)
		p, err := search.Run(ctx, addrs, sp, opt, func(rec *consumer.Record) error {
			select {
			case r.ch <- KeptRecordOf(rec):
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
		r.set(p)
		r.mu.Lock()
		r.prog.Done, r.prog.Err = true, err
		r.mu.Unlock()
		cancel()
	}()
	return r, nil
}

type searchRun struct {
	ch     chan tail.Record
	cancel context.CancelFunc
	mu     sync.Mutex
	prog   tail.SearchProgress
}

func (r *searchRun) set(p search.Progress) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.prog.Topic, r.prog.Scanned, r.prog.Total, r.prog.Matches = p.Topic, p.Scanned, p.Total, p.Matches
	r.prog.Rate, r.prog.ETA, r.prog.Cancelled = p.Rate, p.ETA, p.Cancelled
}

func (r *searchRun) Records() <-chan tail.Record { return r.ch }

func (r *searchRun) Progress() tail.SearchProgress {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.prog
}

func (r *searchRun) Cancel() { r.cancel() }
