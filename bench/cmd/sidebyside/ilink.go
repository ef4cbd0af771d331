package main

// The ilinkdash producer (package ilink) against the in-process ilink engine
// (package ilink/engine), through the Go API of docs/DESIGN.md §3.1.

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/wire"
)

func init() {
	register(&stackImpl{
		name:        "ilink",
		notes:       ilinkNotes,
		serve:       ilinkServe,
		newProducer: newIlinkProducer,
		newConsumer: newIlinkConsumer,
	})
}

func ilinkNotes(s *spec) []string {
	return []string{
		"ilink: the engine replicates (followers pull from the leader); rows are labelled with the topic's replicas; acks=all waits for the high watermark (in-sync set)",
		"ilink: ProducerConfig{Acks, LingerMs, BatchSize, BufferMemory, Compression, EnableIdempotence} set from the flags (--linger 0 -> LingerMs ilink.NoLinger; LingerMs 0 would mean the 5 ms default); everything else default (MaxInFlight 5)",
	}
}

type ilinkServer struct {
	e        *engine.Engine
	replicas int
}

func ilinkServe(s *spec) (server, error) {
	e, err := engine.Start(engine.Config{Nodes: s.Nodes})
	if err != nil {
		return nil, err
	}
	props := fmt.Sprintf("partitions=%d,replicas=%d", s.Partitions, s.Replicas)
	for _, t := range []string{benchTopic, warmupTopic} {
		if err := e.CreateTopic(t, props); err != nil {
			_ = e.Close()
			return nil, fmt.Errorf("create topic %s (%s): %w", t, props, err)
		}
	}
	return &ilinkServer{e: e, replicas: s.Replicas}, nil
}

func (v *ilinkServer) Addrs() []string { return v.e.DataAddrs() }

// Verify sums end - start over the topic's partitions (log offsets on the
// leaders) and checks the replication the row is labelled with: every
// partition has the configured replicas, all in sync, all at the log end,
// and the high watermark at the log end.
func (v *ilinkServer) Verify(topic string, want int) (string, bool, error) {
	start, end := v.e.TopicOffsets(topic)
	var total int64
	for i := range end {
		total += end[i] - start[i]
	}
	if total != int64(want) {
		return "", true, fmt.Errorf("engine holds %d records in %q (%d partitions), want %d", total, topic, len(end), want)
	}
	parts, err := v.e.TopicPartitions(topic)
	if err != nil {
		return "", true, err
	}
	for _, p := range parts {
		if len(p.Replicas) != v.replicas || len(p.InSync) != v.replicas {
			return "", true, fmt.Errorf("%s[%d]: replicas %v, in sync %v, want %d replicas", topic, p.Partition, p.Replicas, p.InSync, v.replicas)
		}
		if p.HighWatermark != p.EndOffset {
			return "", true, fmt.Errorf("%s[%d]: high watermark %d, log end %d", topic, p.Partition, p.HighWatermark, p.EndOffset)
		}
		for i, re := range p.ReplicaEnds {
			if re != p.EndOffset {
				return "", true, fmt.Errorf("%s[%d]: replica on node %d ends at %d, leader at %d", topic, p.Partition, p.Replicas[i], re, p.EndOffset)
			}
		}
	}
	return fmt.Sprintf("%d records in %d partitions, each on %d replica(s), all in sync and at the log end", total, len(end), v.replicas), true, nil
}

func (v *ilinkServer) Close() error { return v.e.Close() }

type ilinkProducer struct {
	p    *ilink.Producer
	cur  atomic.Pointer[acker]
	cb   func(ilink.RecordMetadata, error)
	curE atomic.Pointer[e2eAcker]
	cbE  func(ilink.RecordMetadata, error)
}

func newIlinkProducer(ctx context.Context, s *spec, addrs []string) (producer, error) {
	codec, err := wire.ParseCodec(s.Compression)
	if err != nil {
		return nil, err
	}
	if s.Linger%time.Millisecond != 0 {
		return nil, fmt.Errorf("--linger %v: the ilink producer takes whole milliseconds", s.Linger)
	}
	acks := ilink.AcksAll
	if !s.idempotent() {
		acks = ilink.AcksLeader
	}
	linger := ilinkLingerMs(s.Linger)
	idem := s.idempotent()
	p, err := ilink.NewProducer(ctx, strings.Join(addrs, ","), ilink.ProducerConfig{
		ClientName:        "sidebyside",
		Acks:              acks,
		LingerMs:          linger,
		BatchSize:         s.BatchBytes,
		BufferMemory:      s.BufferBytes,
		EnableIdempotence: &idem,
		Compression:       codec,
	})
	if err != nil {
		return nil, err
	}
	ip := &ilinkProducer{p: p}
	// One callback for the producer's life: no closure per record.
	ip.cb = func(_ ilink.RecordMetadata, err error) { ip.cur.Load().ack(err) }
	// e2e: RecordMetadata.Timestamp is the record's timestamp as given to
	// Send (nanoseconds), which is the scheduled send time.
	ip.cbE = func(md ilink.RecordMetadata, err error) { ip.curE.Load().ack(md.Timestamp.UnixNano(), err) }
	return ip, nil
}

// ilinkLingerMs maps the --linger flag to ProducerConfig.LingerMs. The
// config's 0 means the default (5 ms), so a flag of 0 (no linger, as for
// kgo.ProducerLinger(0)) becomes ilink.NoLinger.
func ilinkLingerMs(d time.Duration) int {
	if d <= 0 {
		return ilink.NoLinger
	}
	return int(d / time.Millisecond)
}

func (p *ilinkProducer) sendTimed(topic string, v []byte, ts time.Time, a *e2eAcker) {
	if p.curE.Load() != a {
		p.curE.Store(a)
	}
	p.p.Send(&ilink.ProducerRecord{Topic: topic, Value: v, Timestamp: ts}, p.cbE)
}

func (p *ilinkProducer) send(topic string, v []byte, a *acker) {
	if p.cur.Load() != a { // one acker per phase; all acks of the previous phase are in
		p.cur.Store(a)
	}
	p.p.Send(&ilink.ProducerRecord{Topic: topic, Value: v}, p.cb)
}

func (p *ilinkProducer) flush(ctx context.Context) error { return p.p.Flush(ctx) }

func (p *ilinkProducer) close() error { return p.p.Close() }

// endOffsets: the producer has no offsets API; the engine side verifies.
func (p *ilinkProducer) endOffsets(context.Context, string) (int64, bool, error) {
	return 0, false, nil
}
