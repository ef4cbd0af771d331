package demo

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/schema"
	"ilinkdash/ilink/wire"
)

// The demo's built-in schemas compile, and every record the demo makes of
// a schema topic encodes and decodes back with each kind of field the
// issue names: Protobuf nested, repeated, map, enum, oneof and a
// Timestamp; Avro record, enum, union, array and logical timestamp/date.
func TestDemoSchemaTopicsRoundTrip(t *testing.T) {
	t.Parallel()
	codecs, err := encoders()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	at := time.Date(2026, 12, 4, 9, 30, 0, 123000000, time.UTC)
	for i := range 200 {
		order := shopOrder(rng, "order-000042", at)
		doc := roundTrip(t, codecs[ShopOrders], order)
		cust := doc["customer"].(map[string]any)
		if cust["address"].(map[string]any)["city"] == "" || len(doc["lines"].([]any)) == 0 ||
			doc["labels"].(map[string]any)["channel"] == nil || doc["created_at"] != "2026-12-04T09:30:00.123Z" {
			t.Fatalf("shop.Order %d decoded to %v", i, doc)
		}
		if _, ok := doc["status"].(string); !ok {
			t.Fatalf("shop.Order status is not an enum name: %v", doc["status"])
		}
		_, card := doc["card"]
		_, voucher := doc["voucher"]
		if card == voucher {
			t.Fatalf("shop.Order %d: one of card and voucher (the oneof), got %v", i, doc)
		}

		pay := roundTrip(t, codecs[PayPayments], payPayment(rng, "order-000042", i, at))
		if pay["at"] != "2026-12-04T09:30:00.123Z" || pay["settle_on"] != "2026-12-06" || pay["currency"] == "" {
			t.Fatalf("pay.Payment %d decoded to %v", i, pay)
		}
		if _, ok := pay["tags"].([]any); !ok {
			t.Fatalf("pay.Payment tags is not an array: %v", pay)
		}
	}
}

// roundTrip encodes doc with c, decodes the bytes and returns the decoded
// document.
func roundTrip(t *testing.T, c schema.Codec, doc []byte) map[string]any {
	t.Helper()
	b, err := c.Encode(doc)
	if err != nil {
		t.Fatalf("%s: encode %s: %v", c.Name(), doc, err)
	}
	out, err := c.Decode(b)
	if err != nil {
		t.Fatalf("%s: decode: %v", c.Name(), err)
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("%s: decoded %s: %v", c.Name(), out, err)
	}
	return m
}

// The live demo writes its schema topics in their encodings: what it
// wrote decodes with DecodeRules, and is not JSON.
func TestDemoWritesItsSchemaTopicsEncoded(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engine.Config{})
	d, err := Start(e, Options{Rate: 1000, LeaderMoveEvery: -1, RebalanceEvery: -1, RewindEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	set, err := schema.Compile(DecodeRules())
	if err != nil {
		t.Fatal(err)
	}
	for _, topic := range []string{ShopOrders, PayPayments} {
		ilinktest.WaitFor(t, 20*time.Second, topic+" to have records", func() bool { return sum(e, topic) > 5 })
		pair := set.Topic(topic)
		if pair.Value.Codec == nil || pair.Key.Format != schema.KindText {
			t.Fatalf("%s: the rules give %+v", topic, pair)
		}
		// The producer sticks to a partition for a batch: read the one
		// that has records (partition 0 may have none yet), once they are
		// below its high watermark (a log end can be ahead of it while a
		// follower replicates).
		var recs []wire.Record
		var err error
		ilinktest.WaitFor(t, 20*time.Second, topic+" records below a high watermark", func() bool {
			_, end := e.TopicOffsets(topic)
			p := slices.IndexFunc(end, func(o int64) bool { return o > 0 })
			if p < 0 {
				return false
			}
			recs, err = e.ReadPartition(topic, p, 0, 5)
			return err == nil && len(recs) > 0
		})
		for _, r := range recs {
			if json.Valid(r.Value) {
				t.Errorf("%s: the value is JSON, not encoded: %s", topic, r.Value)
			}
			doc, err := pair.Value.Codec.Decode(r.Value)
			if err != nil {
				t.Fatalf("%s @%d: %v", topic, r.Offset, err)
			}
			if !strings.Contains(string(doc), `"order-`) {
				t.Errorf("%s: decoded %s names no order", topic, doc)
			}
		}
	}
}
