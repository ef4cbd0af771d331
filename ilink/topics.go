package ilink

import (
	"context"
	"fmt"

	"ilinkdash/ilink/wire"
)

// CreateTopicIfMissing sends CREATE TOPIC (props as in PROTOCOL.md §8) on
// a data connection to the first of addrs that answers; a topic that
// already exists is no error (created false). readOnly refuses it before
// anything is dialled (MIMQE_READ_ONLY): a data connection's one
// mutating admin call has its choke point here.
func CreateTopicIfMissing(ctx context.Context, addrs []string, cfg ConnConfig, readOnly bool, topic, props string) (created bool, err error) {
	if readOnly {
		return false, ReadOnlyError("CreateTopic")
	}
	var last error
	for _, addr := range addrs {
		c, err := DialConn(ctx, addr, cfg)
		if err != nil {
			last = err
			continue
		}
		err = c.Do(ctx, wire.CodeCreateTopic, 0, &wire.CreateTopicRequest{Topic: topic, Properties: props}, nil)
		c.Close()
		switch {
		case err == nil:
			return true, nil
		case HasName(err, wire.ErrTopicExists):
			return false, nil
		case IsSessionError(err):
			last = err
			continue
		}
		return false, fmt.Errorf("create topic %s (%s): %w", topic, props, err)
	}
	if last == nil {
		last = fmt.Errorf("no address")
	}
	return false, fmt.Errorf("create topic %s: %w", topic, last)
}
