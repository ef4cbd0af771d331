package main

// The ilinkdash direct consumer (package ilink/consumer, Assign with no
// group) reading topic "bench" from the earliest offset.

import (
	"context"
	"strings"

	ilinkconsumer "ilinkdash/ilink/consumer"
)

// ilinkReadMax bounds the records taken per ReadBatch call.
const ilinkReadMax = 8192

type ilinkConsumer struct {
	c *ilinkconsumer.Consumer
}

func newIlinkConsumer(ctx context.Context, _ *spec, addrs []string, topic string) (consumer, error) {
	c, err := ilinkconsumer.Assign(ctx, strings.Join(addrs, ","), topic, nil, ilinkconsumer.Options{
		ClientName: "sidebyside",
		Start:      ilinkconsumer.StartEarliest,
	})
	if err != nil {
		return nil, err
	}
	return &ilinkConsumer{c: c}, nil
}

func (c *ilinkConsumer) poll(ctx context.Context, fn func(int32, int64, []byte)) error {
	recs, err := c.c.ReadBatch(ctx, ilinkReadMax, -1)
	if err != nil {
		return err
	}
	for _, r := range recs {
		fn(r.Partition, r.Offset, r.Value)
	}
	return nil
}

func (c *ilinkConsumer) close() error { return c.c.Close() }
