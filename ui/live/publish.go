package live

import (
	"context"
	"fmt"
	"strings"
	"time"

	"ilinkdash/ui/views/publish"

	"ilinkdash/ilink"
	"ilinkdash/ilink/wire"
)

// StartPublish implements publish.Publisher with a fresh multi-connection
// producer per run (its compression and acks are per run).
func (s *Sources) StartPublish(ctx context.Context, spec publish.Spec) (publish.Run, error) {
	if len(s.cfg.DataAddrs) == 0 {
		return nil, fmt.Errorf("publish needs a data address (set --addr or the context's addresses)")
	}
	cfg, err := producerConfig(spec, s.cfg.ClientName)
	if err != nil {
		return nil, err
	}
	cfg.Logf = s.cfg.Logf
	cfg.ReadOnly = s.cfg.ReadOnly // the producer refuses to start then
	cfg.Hub = s.hub
	p, err := ilink.NewProducer(ctx, strings.Join(s.cfg.DataAddrs, ","), cfg)
	if err != nil {
		return nil, err
	}
	return publish.Drive(ctx, spec, &producerSender{p: p}), nil
}

// producerConfig maps the form's compression and acks onto the producer's.
func producerConfig(spec publish.Spec, client string) (ilink.ProducerConfig, error) {
	codec, err := wire.ParseCodec(spec.Compression)
	if spec.Compression == "" {
		codec, err = wire.CodecNone, nil
	}
	if err != nil {
		return ilink.ProducerConfig{}, err
	}
	a := spec.Acks
	if a == "" {
		a = ilink.DefaultToolAcks // the one default, shared with `ilinkdash publish`
	}
	acks, err := ilink.ParseAcks(a)
	if err != nil {
		return ilink.ProducerConfig{}, err
	}
	return ilink.ProducerConfig{ClientName: client, Compression: codec, Acks: acks}, nil
}

// producerSender is the publish.Sender over ilink.Producer.
type producerSender struct{ p *ilink.Producer }

func (ps *producerSender) Send(topic string, r *publish.Record, done func(partition int32, offset int64, err error)) {
	rec := ilink.ProducerRecord{Topic: topic, Key: r.Key, Value: r.Value}
	if len(r.Headers) > 0 {
		rec.Headers = make([]wire.RecordHeader, len(r.Headers))
		for i, h := range r.Headers {
			rec.Headers[i] = wire.RecordHeader{Key: h.Key, Value: h.Value}
		}
	}
	ps.p.Send(&rec, func(m ilink.RecordMetadata, err error) { done(m.Partition, m.Offset, err) })
}

func (ps *producerSender) Connections() map[int]int { return ps.p.Stats().Connections }

// Close flushes and closes the producer, bounded by ctx.
func (ps *producerSender) Close(ctx context.Context) error {
	errc := make(chan error, 1)
	go func() { errc <- ps.p.Close() }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		return fmt.Errorf("closing the producer: %w", ctx.Err())
	case <-time.After(30 * time.Second):
		return fmt.Errorf("closing the producer: still flushing after 30s")
	}
}
