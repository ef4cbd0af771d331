package search

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"ilinkdash/ilink"
	"ilinkdash/ilink/consumer"
	"ilinkdash/ilink/engine/demo"
	"ilinkdash/ilink/schema"
)

// The decoded search goal (issue 25): searching Protobuf records is at
// least 50 % of plain search throughput.
//
//	go test -run '^$' -bench 'ScanSearch' -benchtime 3x ./ilink/search/
//
// compares records/s of BenchmarkScanSearch (plain values, a key) and
// BenchmarkScanSearchProtobufBytes (benchRecords shop.Order values, a text
// in their bytes, no schema) with BenchmarkScanSearchProtobufText (a text
// matched in their decoded JSON: every record decoded) and
// BenchmarkScanSearchProtobufField (a field term through schema.NewMatcher).

var (
	benchProtoOnce sync.Once
	benchSet       *schema.Set
)

// benchProtoEngine is the bench engine with SHOP.ORDERS (the demo rule's topic) holding benchRecords
// shop.Order values (one status in ten PAID).
func benchProtoEngine(b *testing.B) string {
	addrs := benchEngine(b)
	benchProtoOnce.Do(func() {
		set, err := schema.Compile(demo.DecodeRules())
		if err != nil {
			b.Fatal(err)
		}
		benchSet = set
		if err := benchEng.CreateTopic(demo.ShopOrders, "partitions=4,replicas=1"); err != nil {
			b.Fatal(err)
		}
		codec := set.Topic(demo.ShopOrders).Value.Codec
		ctx := context.Background()
		p, err := ilink.NewProducer(ctx, addrs, ilink.ProducerConfig{LingerMs: 5, BatchSize: 1 << 20})
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		for i := 0; i < benchRecords; i++ {
			status := "CREATED"
			if i%10 == 0 {
				status = "PAID"
			}
			v, err := codec.Encode(fmt.Appendf(nil, `{"id":"order-%06d","customer":{"id":"cust-%04d","name":"Kim Minji","address":{"city":"Seoul","postcode":"04524"}},`+
				`"lines":[{"sku":"sku-%05d","qty":2,"price_krw":12000}],"labels":{"channel":"web"},"status":%q,"card":{"brand":"VISA","last4":"4242"},`+
				`"created_at":"2026-12-04T10:00:00.123Z","total_krw":24000}`, i, i%10000, i%5000, status))
			if err != nil {
				b.Fatal(err)
			}
			p.Send(&ilink.ProducerRecord{Topic: demo.ShopOrders, Key: fmt.Appendf(nil, "key-%d", i), Value: v}, nil)
		}
		if err := p.Flush(ctx); err != nil {
			b.Fatal(err)
		}
	})
	return addrs
}

// benchProtoSearch scans the shop.Order records for spec (with the demo's
// decode rules when decoded), which matches one of them.
func benchProtoSearch(b *testing.B, spec Spec, decoded bool) {
	addrs := benchProtoEngine(b)
	spec.Target = demo.ShopOrders
	if decoded {
		spec.Schemas = benchSet
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		found := 0
		p, err := Run(context.Background(), addrs, spec, Options{}, func(*consumer.Record) error { found++; return nil })
		if err != nil || found != 1 || p.Scanned != benchRecords {
			b.Fatalf("found %d, scanned %d: %v", found, p.Scanned, err)
		}
	}
	b.ReportMetric(float64(benchRecords)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkScanSearchProtobufBytes is the plain search of the same
// records: their bytes, no schema (the id is a string field, so its text
// is in the binary).
func BenchmarkScanSearchProtobufBytes(b *testing.B) {
	benchProtoSearch(b, Spec{ValueContains: []byte(`order-150000`)}, false)
}

func BenchmarkScanSearchProtobufText(b *testing.B) {
	benchProtoSearch(b, Spec{ValueContains: []byte(`"id":"order-150000"`)}, true)
}

func BenchmarkScanSearchProtobufField(b *testing.B) {
	f, err := schema.ParseFieldTerm("id=order-150000")
	if err != nil {
		b.Fatal(err)
	}
	benchProtoSearch(b, Spec{Fields: []schema.FieldTerm{f}}, true)
}
