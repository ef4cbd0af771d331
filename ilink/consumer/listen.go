package consumer

import (
	"context"
	"runtime"
	"sync/atomic"
	"time"

	"ilinkdash/ilink"
)

// listener is the goroutine of push mode.
type listener struct {
	stop chan struct{}
	done chan struct{}
	gid  atomic.Uint64
}

// listenPause is the pause after an error in push mode, so a persistent
// failure does not spin.
const listenPause = 100 * time.Millisecond

// Listen switches to push mode: a goroutine hands every record to
// onMessage, in order, and background errors to onError (nil = ignored)
// (spec C-53). A record counts as handed over once it was given to
// onMessage. Calling Listen again replaces the previous callbacks. Read
// and ReadBatch may still be used; records go to whichever asks first.
func (c *Consumer) Listen(onMessage func(*Record), onError func(error)) {
	c.StopListening()
	if onMessage == nil {
		return
	}
	l := &listener{stop: make(chan struct{}), done: make(chan struct{})}
	c.lmu.Lock()
	c.listen = l
	c.lmu.Unlock()
	go c.listenLoop(l, onMessage, onError)
}

func (c *Consumer) listenLoop(l *listener, onMessage func(*Record), onError func(error)) {
	defer close(l.done)
	l.gid.Store(goid())
	ctx := context.Background()
	var slot [1]*Record
	for {
		c.readMu.Lock()
		out, err := c.take(ctx, 1, -1, slot[:0], l.stop)
		c.readMu.Unlock()
		if err == errStopped {
			return
		}
		if err != nil {
			if ilink.IsNoMessage(err) {
				continue
			}
			if onError != nil {
				onError(err)
			}
			if ilink.HasName(err, ilink.NameSessionClosed) && c.isClosed() {
				return
			}
			select {
			case <-l.stop:
				return
			case <-time.After(listenPause):
			}
			continue
		}
		onMessage(out[0])
	}
}

// StopListening ends push mode. When it returns no callback runs and none
// will (spec C-53); called from inside a callback, it returns at once and
// the callback in progress is the last one.
func (c *Consumer) StopListening() {
	c.lmu.Lock()
	l := c.listen
	c.listen = nil
	c.lmu.Unlock()
	if l == nil {
		return
	}
	close(l.stop)
	if goid() == l.gid.Load() {
		return
	}
	<-l.done
}

// goid returns the id of the calling goroutine, parsed from the first line
// of its stack ("goroutine 123 [running]:"). It is used only to let a
// callback stop the goroutine that runs it without waiting for itself.
func goid() uint64 {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	b := buf[:n]
	const prefix = "goroutine "
	if len(b) < len(prefix) || string(b[:len(prefix)]) != prefix {
		return 0
	}
	var id uint64
	for _, ch := range b[len(prefix):] {
		if ch < '0' || ch > '9' {
			break
		}
		id = id*10 + uint64(ch-'0')
	}
	return id
}
