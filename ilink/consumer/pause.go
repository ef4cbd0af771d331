package consumer

import (
	"context"

	"ilinkdash/ilink/wire"
)

// ---- pausing the fetch loops (franz-go's PauseFetchTopics) -----------------

// PauseFetching stops fetching for every partition, assigned now or later,
// until ResumeFetching. It returns once no fetch is on the wire (or ctx
// ends): from then on nothing is asked of the engine, so the partitions'
// positions hold where the application stopped reading and no record is
// fetched only to be thrown away. Records already buffered are still
// handed over by reads; the group membership (heartbeats, commits) goes on,
// and a reader that keeps calling Read while paused keeps the member clear
// of Expiry. Pausing a paused consumer only waits again.
func (c *Consumer) PauseFetching(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.state == stateClosed {
		return closedError()
	}
	c.fetchPaused = true
	for c.inflightLocked() {
		if c.fetchDone == nil {
			c.fetchDone = make(chan struct{})
		}
		ch := c.fetchDone
		c.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			c.mu.Lock()
			return ctx.Err()
		}
		c.mu.Lock()
	}
	return nil
}

// ResumeFetching undoes PauseFetching: every fetch loop looks at its
// partitions again and fetches from their positions.
func (c *Consumer) ResumeFetching() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.fetchPaused {
		return
	}
	c.fetchPaused = false
	for _, s := range c.sources {
		s.blocked = false
		s.signal()
	}
}

// FetchingPaused reports whether PauseFetching is in effect.
func (c *Consumer) FetchingPaused() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.fetchPaused
}

func (c *Consumer) inflightLocked() bool {
	for _, cur := range c.cursors {
		if cur.inflight {
			return true
		}
	}
	return false
}

// Lag returns how many records lie between the consumer's position (the
// next offset the application gets, buffered records included) and the
// end of every assigned partition, from LIST_OFFSETS at the leaders: what
// a paused reader has waiting.
func (c *Consumer) Lag(ctx context.Context) (int64, error) {
	c.mu.Lock()
	if c.state == stateClosed {
		c.mu.Unlock()
		return 0, closedError()
	}
	want := make(map[tp]int64, len(c.cursors))
	for k := range c.cursors {
		want[k] = wire.ListLatest
	}
	c.mu.Unlock()
	if len(want) == 0 {
		return 0, nil
	}
	ends, err := c.cl.listOffsets(ctx, want)
	if err != nil {
		return 0, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var n int64
	for k, end := range ends {
		if cur := c.cursors[k]; cur != nil && end > cur.pos {
			n += end - cur.pos
		}
	}
	return n, nil
}
