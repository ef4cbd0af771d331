package ilink

import (
	"context"
	"errors"
	"testing"
	"time"

	"ilinkdash/ilink/wire"
)

func boolp(b bool) *bool { return &b }

func TestProducerConfigDefaults(t *testing.T) {
	t.Parallel()
	c, err := ProducerConfig{}.validate()
	if err != nil {
		t.Fatal(err)
	}
	if c.acks != wire.AcksLeader { // spec: P-04
		t.Errorf("acks = %d, want 1", c.acks)
	}
	if c.batchSize != 262144 { // spec: P-05
		t.Errorf("batchSize = %d, want 262144", c.batchSize)
	}
	if c.maxRequestSize != 1048576 { // spec: P-06
		t.Errorf("maxRequestSize = %d, want 1048576", c.maxRequestSize)
	}
	if !c.idempotent { // spec: P-11
		t.Error("idempotence is off by default")
	}
	if c.maxFrame != 128<<20 { // spec: W-05
		t.Errorf("maxFrame = %d, want 128 MiB", c.maxFrame)
	}
	if c.recordCap != 1048576 { // spec: P-08 (min(maxRequestSize, maxFrameLength-25))
		t.Errorf("recordCap = %d", c.recordCap)
	}
	if c.linger != 5*time.Millisecond || c.bufferMemory != 33554432 || c.retries != 3 ||
		c.retryBackoff != 100*time.Millisecond || c.deliveryTimeout != 120*time.Second || c.maxInFlight != 5 {
		t.Errorf("defaults: %+v", c)
	}

	// The documented example values are accepted.
	c, err = ProducerConfig{Acks: 1, LingerMs: 5, BufferMemory: 33554432, Retries: 3, RetryBackoffMs: 100, DeliveryTimeoutMs: 120000}.validate()
	if err != nil { // spec: P-14
		t.Fatalf("documented example values refused: %v", err)
	}
	if c.acks != 1 || c.linger != 5*time.Millisecond || c.bufferMemory != 33554432 || c.retries != 3 ||
		c.retryBackoff != 100*time.Millisecond || c.deliveryTimeout != 120*time.Second { // spec: P-14
		t.Errorf("example values not kept: %+v", c)
	}
}

func TestProducerConfigClampAndCap(t *testing.T) {
	t.Parallel()
	c, err := ProducerConfig{MaxRequestSize: 2_000_000_000, MaxFrameLength: 999_999_999}.validate()
	if err != nil {
		t.Fatal(err)
	}
	if c.maxRequestSize != 999_999_974 { // spec: P-07
		t.Errorf("maxRequestSize = %d, want clamp 999,999,974", c.maxRequestSize)
	}
	if c.recordCap != 999_999_974 { // spec: P-08
		t.Errorf("recordCap = %d", c.recordCap)
	}
	// The frame cap bounds the record cap (spec: P-08).
	c, err = ProducerConfig{MaxRequestSize: 8 << 20, MaxFrameLength: 2 << 20}.validate()
	if err != nil {
		t.Fatal(err)
	}
	if c.recordCap != 2<<20-25 { // spec: P-08
		t.Errorf("recordCap = %d, want %d", c.recordCap, 2<<20-25)
	}
	for _, bad := range []int{1_048_575, 1_000_000_000, -1} {
		if _, err := (ProducerConfig{MaxFrameLength: bad}).validate(); !IsConfigError(err) { // spec: W-07
			t.Errorf("MaxFrameLength %d: err = %v, want a config error", bad, err)
		}
	}
}

func TestProducerConfigIdempotence(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		cfg     ProducerConfig
		want    bool
		wantErr bool
	}{
		{"default", ProducerConfig{}, true, false},
		{"acks all", ProducerConfig{Acks: AcksAll}, true, false},
		{"acks 0 auto-off", ProducerConfig{Acks: AcksNone}, false, false},                                      // spec: P-12
		{"inflight 6 auto-off", ProducerConfig{MaxInFlight: 6}, false, false},                                  // spec: P-12
		{"explicit + acks 0", ProducerConfig{Acks: AcksNone, EnableIdempotence: boolp(true)}, false, true},     // spec: P-13
		{"explicit + inflight 6", ProducerConfig{MaxInFlight: 6, EnableIdempotence: boolp(true)}, false, true}, // spec: P-13
		{"explicit + inflight 5", ProducerConfig{MaxInFlight: 5, EnableIdempotence: boolp(true)}, true, false}, // spec: P-13
		{"explicit off", ProducerConfig{EnableIdempotence: boolp(false)}, false, false},
	}
	for _, tc := range cases {
		c, err := tc.cfg.validate()
		if tc.wantErr {
			if !IsConfigError(err) { // spec: E-09
				t.Errorf("%s: err = %v, want a config error", tc.name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if c.idempotent != tc.want {
			t.Errorf("%s: idempotent = %v, want %v", tc.name, c.idempotent, tc.want)
		}
	}
}

func TestProducerConfigValidation(t *testing.T) {
	t.Parallel()
	bad := []ProducerConfig{
		{Acks: 2},
		{Acks: 0 - 3},
		{BatchSize: -1},
		{MaxRequestSize: -1},
		{BufferMemory: -1},
		{RetryBackoffMs: -1},
		{DeliveryTimeoutMs: -1},
		{MaxInFlight: -1},
		{Compression: wire.Codec(1)},
	}
	for _, cfg := range bad {
		_, err := cfg.validate()
		if !IsConfigError(err) {
			t.Errorf("%+v: err = %v, want a config error", cfg, err)
		}
	}
	// Refused at creation, before anything is sent (nothing listens here).
	_, err := NewProducer(context.Background(), "127.0.0.1:1", ProducerConfig{Acks: AcksNone, EnableIdempotence: boolp(true)})
	if !IsConfigError(err) { // spec: E-09, P-13
		t.Fatalf("NewProducer: err = %v, want a config error", err)
	}
}

func TestStickyPartitionAtomic(t *testing.T) {
	t.Parallel()
	p := &Producer{cfg: producerConfig{batchSize: 1000, maxRequestSize: DefaultMaxRequestSize}}
	p.ident.Store(&producerIdent{id: -1, epoch: -1})
	tp := p.newTopic("T", 4, 0)
	first := tp.stickyPartition(100, 4)
	parts := []int{first}
	for range 29 {
		parts = append(parts, tp.stickyPartition(100, 4))
	}
	// 1000 bytes per partition: 10 records of 100 bytes each, then the next.
	for i, got := range parts {
		want := (first + i/10) % 4
		if got != want {
			t.Fatalf("record %d went to %d, want %d (sequence %v)", i, got, want, parts)
		}
	}
}

func TestLoneEnvelopeMatchesEncoding(t *testing.T) {
	t.Parallel()
	// The overhead constants bound the real encoding.
	batch := make([]byte, 300)
	m := wire.ProduceRequest{Acks: -1, Topics: []wire.ProduceTopic{{Topic: "ORDER.EVENT", Epoch: 7, Partitions: []wire.ProducePartition{{Partition: 1000, Batches: batch}}}}}
	body := wire.Encode(nil, &m)
	if got, bound := len(body), loneEnvelope("ORDER.EVENT", len(batch)); got > bound {
		t.Fatalf("encoded %d bytes, bound %d", got, bound)
	}
}

func TestProducerErrorsAreTyped(t *testing.T) {
	t.Parallel()
	e := &Error{Name: wire.ErrMsgSizeOver, Kind: KindRejected}
	if !errors.Is(e, &Error{Name: wire.ErrMsgSizeOver}) || !IsRejected(e) {
		t.Fatal("size-over error is not a rejection")
	}
}
