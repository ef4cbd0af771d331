package consumer

import (
	"context"
	"time"

	"ilinkdash/ilink"
)

// listener is the goroutine of push mode.
type listener struct {
	stop chan struct{}
	done chan struct{}
}

// listenPause is the pause after an error in push mode, so a persistent
// failure does not spin.
const listenPause = 100 * time.Millisecond

// Inside is a callback's handle on the consumer that runs it: Listen's
// callbacks and Options.OnRebalance get one. StopListening, Close,
// CloseContext and Unsubscribe wait for the goroutines that run callbacks
// to end; called from inside a callback, the Consumer's own methods would
// wait for the callback itself and never return. The same methods of
// Inside do not wait for the goroutine the callback runs on: a callback
// stops, closes or replaces its listener through them, and they return at
// once (the callback in progress is the last one). Every other method of
// Consumer may be called from a callback as from anywhere. An Inside is
// for the callback it was given to; kept and used later, from elsewhere,
// it waits as the Consumer's methods do (once that listener or that run
// of the group goroutine is over). The zero Inside is outside every
// callback.
type Inside struct {
	c    *Consumer
	l    *listener     // Listen's callbacks: the listener they run on
	loop chan struct{} // OnRebalance in the group goroutine: the done of that run
}

// StopListening is Consumer.StopListening without waiting for a listener
// callback that called it.
func (in Inside) StopListening() { in.c.stopListening(in) }

// Listen is Consumer.Listen (new callbacks replace the ones running).
func (in Inside) Listen(onMessage func(Inside, *Record), onError func(Inside, error)) {
	in.c.listenFrom(in, onMessage, onError)
}

// Close is Consumer.Close without waiting for the callback that called it.
func (in Inside) Close() error { return in.CloseContext(context.Background()) }

// CloseContext is Consumer.CloseContext without waiting for the callback
// that called it.
func (in Inside) CloseContext(ctx context.Context) error { return in.c.closeFrom(ctx, in) }

// Unsubscribe is Consumer.Unsubscribe without waiting for the callback
// that called it.
func (in Inside) Unsubscribe(ctx context.Context) error { return in.c.unsubscribeFrom(ctx, in) }

// Listen switches to push mode: a goroutine hands every record to
// onMessage, in order, and background errors to onError (nil = ignored)
// (spec C-53). A record counts as handed over once it was given to
// onMessage. Calling Listen again replaces the previous callbacks. Read
// and ReadBatch may still be used; records go to whichever asks first.
// Both callbacks get an Inside, the way to stop listening or close from
// within them.
func (c *Consumer) Listen(onMessage func(Inside, *Record), onError func(Inside, error)) {
	c.listenFrom(Inside{}, onMessage, onError)
}

func (c *Consumer) listenFrom(self Inside, onMessage func(Inside, *Record), onError func(Inside, error)) {
	c.stopListening(self)
	if onMessage == nil {
		return
	}
	l := &listener{stop: make(chan struct{}), done: make(chan struct{})}
	c.lmu.Lock()
	c.listen = l
	c.lmu.Unlock()
	go c.listenLoop(l, onMessage, onError)
}

func (c *Consumer) listenLoop(l *listener, onMessage func(Inside, *Record), onError func(Inside, error)) {
	defer close(l.done)
	in := Inside{c: c, l: l}
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
				onError(in, err)
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
		onMessage(in, out[0])
	}
}

// StopListening ends push mode. When it returns no callback runs and none
// will (spec C-53). A callback stops its own listener with
// Inside.StopListening: this method, called there, would wait for the
// callback and never return.
func (c *Consumer) StopListening() { c.stopListening(Inside{}) }

// stopListening ends push mode, waiting for the listener unless it is the
// one self runs on.
func (c *Consumer) stopListening(self Inside) {
	c.lmu.Lock()
	l := c.listen
	c.listen = nil
	c.lmu.Unlock()
	if l == nil {
		return
	}
	close(l.stop)
	if l == self.l {
		return
	}
	<-l.done
}
