package ilink

import (
	"errors"
	"strings"
	"testing"

	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/wire"
)

// MaxValueSize is exactly the producer's own size check: a value of that
// many bytes is sent and acknowledged, one byte more fails locally with
// MIMQE_MSG_SIZE_OVER; it follows the record cap (MaxRequestSize,
// MaxFrameLength), BufferMemory and the key and headers.
func TestProducerMaxValueSize(t *testing.T) {
	t.Parallel()
	const topic = "SIZE.T"
	cases := []struct {
		cfg     ProducerConfig
		key     int
		headers []wire.HeaderLen
		bound   int // the cap the value must fit under, less what else the record holds
	}{
		{ProducerConfig{}, -1, nil, DefaultMaxRequestSize},
		{ProducerConfig{MaxRequestSize: 4 << 20}, 10, []wire.HeaderLen{{Key: 5, Value: 100}}, 4 << 20},
		{ProducerConfig{MaxRequestSize: MaxRequestSizeLimit, MaxFrameLength: wire.MinMaxFrame}, -1, nil, wire.MinMaxFrame - wire.HeaderSize},
		{ProducerConfig{MaxRequestSize: 4 << 20, BufferMemory: 300_000}, -1, nil, 300_000},
	}
	for _, tc := range cases {
		v, err := tc.cfg.MaxValueSize(topic, tc.key, tc.headers)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := tc.cfg.validate()
		fits := func(n int) bool {
			est := wire.RecordSizeEstimateLen(tc.key, n, tc.headers)
			return recordEnvelopeSize(topic, est) <= c.recordCap && int64(est) <= c.bufferMemory
		}
		if !fits(v) || fits(v+1) || v > tc.bound || v < tc.bound-300 {
			t.Errorf("%+v: MaxValueSize %d (bound %d)", tc.cfg, v, tc.bound)
		}
	}
	if v, err := (ProducerConfig{MaxRequestSize: 50}).MaxValueSize(topic, -1, nil); err != nil || v != -1 {
		t.Errorf("a cap below the envelope: %d %v, want -1", v, err)
	}
	if _, err := (ProducerConfig{MaxFrameLength: 5}).MaxValueSize(topic, -1, nil); !IsConfigError(err) {
		t.Errorf("a bad config: %v, want a config error", err)
	}

	// Against the engine: at the bound acknowledged, one byte more refused.
	e := startTopicEngine(t, engine.Config{}, map[string]string{topic: "partitions=1"})
	p := newProducerT(t, e, ProducerConfig{Acks: AcksLeader})
	v, err := ProducerConfig{Acks: AcksLeader}.MaxValueSize(topic, -1, nil)
	if err != nil {
		t.Fatal(err)
	}
	value := []byte(strings.Repeat("v", v+1))
	if _, err := p.SendSync(testCtx(t), &ProducerRecord{Topic: topic, Value: value[:v]}); err != nil {
		t.Fatalf("a value of MaxValueSize (%d) bytes: %v", v, err)
	}
	_, err = p.SendSync(testCtx(t), &ProducerRecord{Topic: topic, Value: value})
	var ie *Error
	if !errors.As(err, &ie) || ie.Name != wire.ErrMsgSizeOver {
		t.Fatalf("a value of MaxValueSize+1 bytes: %v, want %s", err, wire.ErrMsgSizeOver)
	}
}
