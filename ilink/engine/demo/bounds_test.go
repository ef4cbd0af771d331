package demo

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/consumer"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/ilinktest"
)

// TestDemoConsumersBufferAtMostTheirBound: a demo consumer that does not
// read (as the stalled archiver, or the lagging analytics group) stops
// fetching at ConsumerPrefetch records per partition, where one with the
// consumer's defaults buffers the topic up to its default prefetch (issue 21: the
// demo's consumers were the engine process's growing heap).
func TestDemoConsumersBufferAtMostTheirBound(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engine.Config{})
	if err := e.CreateTopic("BOUND", "partitions=1,replicas=1"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	addrs := strings.Join(e.DataAddrs(), ",")
	p, err := ilink.NewProducer(ctx, addrs, ilink.ProducerConfig{ClientName: "bound-test"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	const records = 64 * ConsumerPrefetch
	for i := range records {
		p.Send(&ilink.ProducerRecord{Topic: "BOUND", Value: fmt.Appendf(nil, `{"order":"order-%06d","seq":%d}`, i, i)}, nil)
	}
	if err := p.Flush(ctx); err != nil {
		t.Fatal(err)
	}

	d := &Demo{}
	bounded, err := consumer.Subscribe(ctx, addrs, "BOUND", d.consumerOptions("bounded"))
	if err != nil {
		t.Fatal(err)
	}
	defer bounded.Close()
	ilinktest.WaitFor(t, 30*time.Second, "the bounded consumer's fetch loops wait for room", func() bool { return bounded.Buffered().Full })
	// At most one fetch beyond the bound, and a fetch asks for at most
	// ConsumerBufferedBytes of wire bytes: far fewer records than the
	// topic's, and at most 5 times the bound in decoded bytes.
	if b := bounded.Buffered(); b.Records < ConsumerPrefetch || b.Records >= records/2 || b.Bytes > 5*ConsumerBufferedBytes {
		t.Errorf("demo consumer buffers %d records (%d B) of %d; bound %d records per partition, %d B", b.Records, b.Bytes, records, ConsumerPrefetch, ConsumerBufferedBytes)
	}

	// Without the demo's bound the same consumer holds the whole topic, or
	// as much as the consumer's default prefetch (which one fetch may
	// pass, depending on the fetch size).
	opt := consumer.NewOptions()
	opt.Group = "unbounded"
	unbounded, err := consumer.Subscribe(ctx, addrs, "BOUND", opt)
	if err != nil {
		t.Fatal(err)
	}
	defer unbounded.Close()
	want := min(records, consumer.DefaultPrefetch)
	ilinktest.WaitFor(t, 30*time.Second, fmt.Sprintf("the default consumer buffers %d records (the topic, or its default prefetch)", want), func() bool { return unbounded.Buffered().Records >= want })
}

// TestDemoTrimsItsDeadLetterQueues: nobody moves the demo's dead letters
// back, so the demo keeps each DLQ at DeadLetterCap at most; a DLQ that
// starts above it is trimmed to it.
func TestDemoTrimsItsDeadLetterQueues(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engine.Config{})
	const limit = 10
	if _, err := Seed(e, Set{Queues: []Queue{{Name: "PAYMENT.DLQ", Messages: 3 * limit}}}); err != nil {
		t.Fatal(err)
	}
	if n, _ := e.QueueDepth("PAYMENT.DLQ"); n != 3*limit {
		t.Fatalf("PAYMENT.DLQ seeded with %d messages, want %d", n, 3*limit)
	}
	d, err := Start(e, Options{Rate: 50, LeaderMoveEvery: -1, RebalanceEvery: -1, RewindEvery: -1, DeadLetterCap: limit})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ilinktest.WaitFor(t, 30*time.Second, "PAYMENT.DLQ trimmed to the cap", func() bool {
		n, err := e.QueueDepth("PAYMENT.DLQ")
		return err == nil && n <= limit
	})
}
