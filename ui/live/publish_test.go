package live

import (
	"fmt"
	"strings"
	"testing"

	"ilinkdash/ilink"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/wire"
	"ilinkdash/ui/views/publish"
)

// A run through the real producer: every record acknowledged and stored
// with its key, value and headers, where the progress says they went.
func TestStartPublishRunsThroughTheProducer(t *testing.T) {
	t.Parallel()
	e := engineWithTopic(t, "LIVE.PUB", "partitions=2")
	src := sources(t, e, false)
	const n = 50
	run, err := src.StartPublish(callCtx(t), publish.Spec{Topic: "LIVE.PUB", Count: n, Compression: "lz4", Acks: "all",
		Record: func(seq int64, r *publish.Record) {
			r.Key = fmt.Appendf(r.Key[:0], "k%d", seq%5)
			r.Value = fmt.Appendf(r.Value[:0], "v%d", seq)
			r.Headers = append(r.Headers[:0], publish.Header{Key: "seq", Value: fmt.Appendf(nil, "%d", seq)})
		}})
	if err != nil {
		t.Fatal(err)
	}
	ilinktest.WaitFor(t, deadline, "the run to end", func() bool { return run.Progress().Done })
	p := run.Progress()
	if p.Sent != n || p.Acked != n || p.Failed != 0 || p.Stopped || len(p.Last) == 0 {
		t.Fatalf("progress %+v: want %d sent and acknowledged", p, n)
	}
	values := map[string]string{}
	for part := range 2 {
		rs, err := e.ReadPartition("LIVE.PUB", part, 0, n)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			if len(r.Headers) != 1 || r.Headers[0].Key != "seq" || "v"+string(r.Headers[0].Value) != string(r.Value) {
				t.Fatalf("record %q: headers %+v", r.Value, r.Headers)
			}
			values[string(r.Value)] = string(r.Key)
		}
	}
	if len(values) != n || values["v7"] != "k2" {
		t.Fatalf("stored %d distinct records (v7 has key %q), want %d", len(values), values["v7"], n)
	}
	if got := p.Last[0]; got.Offset < 0 || got.Partition < 0 || got.Partition > 1 {
		t.Fatalf("last record at %+v", got)
	}
}

// The form's compression and acks map onto the producer's, with the
// tools' defaults; anything else is refused before a producer opens, and
// read-only or address-less contexts refuse to publish at all.
func TestStartPublishSettingsAndRefusals(t *testing.T) {
	t.Parallel()
	cfg, err := producerConfig(publish.Spec{}, "c")
	if err != nil || cfg.Compression != wire.CodecNone || cfg.ClientName != "c" {
		t.Fatalf("defaults: %+v, %v", cfg, err)
	}
	def, _ := ilink.ParseAcks(ilink.DefaultToolAcks)
	if cfg.Acks != def {
		t.Fatalf("default acks %v, want the tools' default %v", cfg.Acks, def)
	}
	if cfg, err := producerConfig(publish.Spec{Compression: "zstd", Acks: "1"}, "c"); err != nil || cfg.Compression != wire.CodecZstd || cfg.Acks != ilink.AcksLeader {
		t.Fatalf("zstd, acks 1: %+v, %v", cfg, err)
	}
	for _, bad := range []publish.Spec{{Compression: "gzip"}, {Acks: "2"}} {
		if _, err := producerConfig(bad, "c"); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}

	e := startEngine(t)
	ro := sources(t, e, true)
	if _, err := ro.StartPublish(callCtx(t), publish.Spec{Topic: "T", Count: 1}); !ilink.HasName(err, wire.ErrReadOnly) {
		t.Fatalf("read-only publish: %v, want MIMQE_READ_ONLY", err)
	}
	noData, err := New(Config{AdminAddrs: e.AdminAddrs(), ClientName: "live-test"})
	if err != nil {
		t.Fatal(err)
	}
	defer noData.Close()
	if _, err := noData.StartPublish(callCtx(t), publish.Spec{Topic: "T", Count: 1}); err == nil || !strings.Contains(err.Error(), "data address") {
		t.Fatalf("publish without a data address: %v", err)
	}
}
