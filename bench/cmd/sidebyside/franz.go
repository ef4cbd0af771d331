package main

// The franz-go v1.22.3 producer and consumer against a kfake cluster, both
// used only as libraries.

import (
	"context"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() {
	register(&stackImpl{
		name:        "franz",
		notes:       franzNotes,
		serve:       franzServe,
		newProducer: newFranzProducer,
		newConsumer: newFranzConsumer,
	})
}

func franzNotes(s *spec) []string {
	return []string{
		"franz: kfake does not replicate (writes are immediate), keeps batches compressed as received, skips throttling",
		fmt.Sprintf("franz: partitioner UniformBytesPartitioner(%d, adaptive=false) to match ilink's sticky-by-batch-size; MaxBufferedRecords unlimited, MaxBufferedBytes %d", s.BatchBytes, s.BufferBytes),
	}
}

type franzServer struct{ c *kfake.Cluster }

func franzServe(s *spec) (server, error) {
	c, err := kfake.NewCluster(
		kfake.NumBrokers(s.Nodes),
		kfake.SeedTopics(int32(s.Partitions), benchTopic, warmupTopic),
	)
	if err != nil {
		return nil, err
	}
	return &franzServer{c: c}, nil
}

func (f *franzServer) Addrs() []string { return f.c.ListenAddrs() }

func (f *franzServer) Verify(string, int) (string, bool, error) { return "", false, nil }

func (f *franzServer) Close() error { f.c.Close(); return nil }

func franzCodec(name string) (kgo.CompressionCodec, error) {
	switch name {
	case "none":
		return kgo.NoCompression(), nil
	case "lz4":
		return kgo.Lz4Compression(), nil
	case "zstd":
		return kgo.ZstdCompression(), nil
	}
	return kgo.CompressionCodec{}, fmt.Errorf("compression %q: want none, lz4 or zstd", name)
}

type franzProducer struct {
	cl         *kgo.Client
	partitions int
	cur        atomic.Pointer[acker]
	cb         func(*kgo.Record, error)
	curE       atomic.Pointer[e2eAcker]
	cbE        func(*kgo.Record, error)
	ctx        context.Context
}

func newFranzProducer(ctx context.Context, s *spec, addrs []string) (producer, error) {
	codec, err := franzCodec(s.Compression)
	if err != nil {
		return nil, err
	}
	opts := []kgo.Opt{
		kgo.SeedBrokers(addrs...),
		kgo.ProducerLinger(s.Linger),
		kgo.ProducerBatchCompression(codec),
		kgo.ProducerBatchMaxBytes(int32(s.BatchBytes)),
		kgo.MaxBufferedBytes(s.BufferBytes),
		kgo.MaxBufferedRecords(math.MaxInt32),
		kgo.RecordPartitioner(kgo.UniformBytesPartitioner(s.BatchBytes, false, true, nil)),
	}
	if s.idempotent() {
		opts = append(opts, kgo.RequiredAcks(kgo.AllISRAcks()))
	} else {
		// kgo requires acks=all for idempotent writes.
		opts = append(opts, kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite())
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, err
	}
	p := &franzProducer{cl: cl, partitions: s.Partitions, ctx: ctx}
	// One callback for the client's life: no closure per record.
	p.cb = func(_ *kgo.Record, err error) { p.cur.Load().ack(err) }
	// e2e: the scheduled time is in the value prefix (kgo truncates
	// Record.Timestamp to milliseconds).
	p.cbE = func(r *kgo.Record, err error) { p.curE.Load().ack(e2eSched(r.Value), err) }
	return p, nil
}

func (p *franzProducer) send(topic string, v []byte, a *acker) {
	if p.cur.Load() != a { // one acker per phase; all acks of the previous phase are in
		p.cur.Store(a)
	}
	p.cl.Produce(p.ctx, &kgo.Record{Topic: topic, Value: v}, p.cb)
}

func (p *franzProducer) sendTimed(topic string, v []byte, ts time.Time, a *e2eAcker) {
	if p.curE.Load() != a {
		p.curE.Store(a)
	}
	p.cl.Produce(p.ctx, &kgo.Record{Topic: topic, Value: v, Timestamp: ts}, p.cbE)
}

func (p *franzProducer) flush(ctx context.Context) error { return p.cl.Flush(ctx) }

func (p *franzProducer) close() error { p.cl.Close(); return nil }

// endOffsets asks every partition leader for the log end offset (ListOffsets
// with timestamp -1).
func (p *franzProducer) endOffsets(ctx context.Context, topic string) (int64, bool, error) {
	req := kmsg.NewPtrListOffsetsRequest()
	rt := kmsg.NewListOffsetsRequestTopic()
	rt.Topic = topic
	for i := 0; i < p.partitions; i++ {
		rp := kmsg.NewListOffsetsRequestTopicPartition()
		rp.Partition = int32(i)
		rp.Timestamp = -1
		rt.Partitions = append(rt.Partitions, rp)
	}
	req.Topics = append(req.Topics, rt)
	var total int64
	seen := 0
	for _, sh := range p.cl.RequestSharded(ctx, req) {
		if sh.Err != nil {
			return 0, true, sh.Err
		}
		resp := sh.Resp.(*kmsg.ListOffsetsResponse)
		for _, t := range resp.Topics {
			for _, rp := range t.Partitions {
				if err := kerr.ErrorForCode(rp.ErrorCode); err != nil {
					return 0, true, fmt.Errorf("%s[%d]: %w", t.Topic, rp.Partition, err)
				}
				total += rp.Offset
				seen++
			}
		}
	}
	if seen != p.partitions {
		return 0, true, fmt.Errorf("list offsets answered %d partitions, want %d", seen, p.partitions)
	}
	return total, true, nil
}

type franzConsumer struct{ cl *kgo.Client }

func newFranzConsumer(_ context.Context, s *spec, addrs []string, topic string) (consumer, error) {
	parts := make(map[int32]kgo.Offset, s.Partitions)
	for i := 0; i < s.Partitions; i++ {
		parts[int32(i)] = kgo.NewOffset().AtStart()
	}
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(addrs...),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: parts}),
	)
	if err != nil {
		return nil, err
	}
	return &franzConsumer{cl: cl}, nil
}

func (c *franzConsumer) poll(ctx context.Context, fn func(int32, int64, []byte)) error {
	fs := c.cl.PollFetches(ctx)
	if errs := fs.Errors(); len(errs) > 0 {
		e := errs[0]
		return fmt.Errorf("%s[%d]: %w", e.Topic, e.Partition, e.Err)
	}
	fs.EachRecord(func(r *kgo.Record) { fn(r.Partition, r.Offset, r.Value) })
	return nil
}

func (c *franzConsumer) close() error { c.cl.Close(); return nil }
