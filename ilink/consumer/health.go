package consumer

import (
	"sync"
	"time"
)

// FetchHealth is how the consumer's fetching goes, for a display that must
// not say "live" while nothing answers (the tail's header): the consumer
// retries by itself and hides session trouble from Read (spec C-49), so
// this is where it shows.
type FetchHealth struct {
	// OK is when a fetch last got a reply, records or not (zero before
	// the first): an idle topic's long polls keep it fresh.
	OK time.Time
	// Err is the last failure to fetch (the fetch itself, or finding the
	// partitions' leaders); nil once a fetch succeeds again.
	Err error
	// FailingSince is the first failure after OK (zero while Err is nil).
	FailingSince time.Time
}

// fetchHealth is the consumer's FetchHealth, under its own lock (the fetch
// loops note every reply: no contention with c.mu).
type fetchHealth struct {
	mu sync.Mutex
	h  FetchHealth
}

func (f *fetchHealth) ok(at time.Time) {
	f.mu.Lock()
	f.h = FetchHealth{OK: at}
	f.mu.Unlock()
}

func (f *fetchHealth) failed(err error, at time.Time) {
	f.mu.Lock()
	if f.h.Err == nil {
		f.h.FailingSince = at
	}
	f.h.Err = err
	f.mu.Unlock()
}

// FetchHealth reports how fetching goes. Safe from any goroutine.
func (c *Consumer) FetchHealth() FetchHealth {
	c.health.mu.Lock()
	defer c.health.mu.Unlock()
	return c.health.h
}

// Buffer is what a consumer holds fetched and not yet read.
type Buffer struct {
	Records int  // records buffered over every partition
	Bytes   int  // their estimated memory (keys, values, headers and record overhead)
	Full    bool // every fetch loop waits for a reader to make room (Prefetch or MaxBufferedBytes reached)
}

// Buffered reports the consumer's buffer against its bounds (Prefetch per
// partition, MaxBufferedBytes in all). Safe from any goroutine.
func (c *Consumer) Buffered() Buffer {
	c.mu.Lock()
	defer c.mu.Unlock()
	// Every buffered chunk is of an assigned partition: revoking one drops
	// its records (Consumer.removeCursorLocked).
	b := Buffer{Records: c.buf.len(), Bytes: c.buf.bytes(), Full: len(c.sources) > 0}
	for _, s := range c.sources {
		b.Full = b.Full && s.blocked
	}
	return b
}
