package ilink

import (
	"context"

	"ilinkdash/ilink/wire"
)

// PutOnce opens a short session on addrs, puts every body on queue in
// order and closes the session: an operator's occasional put, with no
// session kept between. In a read-only opt it is refused before anything
// is dialled (the session's own refusal, Queue.Put, would come only once
// connected).
func PutOnce(ctx context.Context, addrs string, opt Options, queue string, bodies [][]byte) error {
	_, err := PutOnceHeaders(ctx, addrs, opt, queue, bodies, nil)
	return err
}

// PutOnceHeaders is PutOnce with the same headers on every message. It
// returns how many were put: each commits as it is put (auto-commit), so
// a put stopped by a failing message (a full queue) leaves those before
// it on the queue.
func PutOnceHeaders(ctx context.Context, addrs string, opt Options, queue string, bodies [][]byte, headers []wire.RecordHeader) (int, error) {
	if err := opt.refuse("Put"); err != nil {
		return 0, err
	}
	put := 0
	err := withQueueOnce(ctx, addrs, opt, queue, func(q *Queue) error {
		for _, b := range bodies {
			if _, err := q.PutHeaders(ctx, b, headers); err != nil {
				return err
			}
			put++
		}
		return nil
	})
	return put, err
}

// GetOnce opens a short session on addrs, takes the next message of queue
// without waiting (nil when the queue is empty) and closes the session. A
// read-only opt is refused before anything is dialled.
func GetOnce(ctx context.Context, addrs string, opt Options, queue string) (*Message, error) {
	if err := opt.refuse("Get"); err != nil {
		return nil, err
	}
	var m *Message
	err := withQueueOnce(ctx, addrs, opt, queue, func(q *Queue) error {
		var err error
		m, err = q.Get(ctx, 0)
		if IsNoMessage(err) {
			m, err = nil, nil
		}
		return err
	})
	return m, err
}

// GetOnceMatch is GetOnce for the message with id only (nil when it is no
// longer on queue, or in flight): an operator's take of the message a
// preview showed, not of whatever is first by then.
func GetOnceMatch(ctx context.Context, addrs string, opt Options, queue string, id MsgID) (*Message, error) {
	if err := opt.refuse("Get"); err != nil {
		return nil, err
	}
	var m *Message
	err := withQueueOnce(ctx, addrs, opt, queue, func(q *Queue) error {
		var err error
		m, err = q.GetMatch(ctx, id, 0)
		if IsNoMessage(err) {
			m, err = nil, nil
		}
		return err
	})
	return m, err
}

func withQueueOnce(ctx context.Context, addrs string, opt Options, queue string, fn func(*Queue) error) error {
	q, s, err := DialQueue(ctx, addrs, opt, queue)
	if err != nil {
		return err
	}
	defer s.Close()
	return fn(q)
}

// DialQueue opens a session on addrs and queue on it, for a short use of
// one queue: closing the session ends both.
func DialQueue(ctx context.Context, addrs string, opt Options, queue string) (*Queue, *Session, error) {
	s, err := Dial(ctx, addrs, opt)
	if err != nil {
		return nil, nil, err
	}
	q, err := s.AccessQueue(ctx, queue)
	if err != nil {
		s.Close()
		return nil, nil, err
	}
	return q, s, nil
}
