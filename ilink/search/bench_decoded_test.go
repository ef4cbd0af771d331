package search

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"ilinkdash/ilink"
	"ilinkdash/ilink/engine/demo"
	"ilinkdash/ilink/schema"
)

// The decoded search goal (issue 25): searching Protobuf records is at
// least 50 % of plain search throughput.
//
//	go test -run '^$' -bench 'ScanSearch' -benchtime 3x ./ilink/search/
//
// compares records/s of BenchmarkScanSearch (plain values, a key) and
// BenchmarkScanSearch{Protobuf,Avro}Bytes (benchRecords shop.Order or
// pay.Payment values, a text in their bytes, no schema) with
// BenchmarkScanSearch{Protobuf,Avro}Text (a text matched in their decoded
// JSON: every record decoded) and …Field (a field term through
// schema.NewMatcher).

var (
	benchSchemaOnce sync.Once
	benchSet        *schema.Set
)

// benchSchemaEngine is the bench engine with SHOP.ORDERS and PAY.PAYMENTS
// (the demo rules' topics) holding benchRecords shop.Order (Protobuf)
// and pay.Payment (Avro) values each.
func benchSchemaEngine(b *testing.B) string {
	addrs := benchEngine(b)
	benchSchemaOnce.Do(func() {
		set, err := schema.Compile(demo.DecodeRules())
		if err != nil {
			b.Fatal(err)
		}
		benchSet = set
		produceEncoded(b, addrs, demo.ShopOrders, func(i int) []byte {
			return fmt.Appendf(nil, `{"id":"order-%06d","customer":{"id":"cust-%04d","name":"Kim Minji","address":{"city":"Seoul","postcode":"04524"}},`+
				`"lines":[{"sku":"sku-%05d","qty":2,"price_krw":12000}],"labels":{"channel":"web"},"status":"PAID","card":{"brand":"VISA","last4":"4242"},`+
				`"created_at":"2026-12-04T10:00:00.123Z","total_krw":24000}`, i, i%10000, i%5000)
		})
		produceEncoded(b, addrs, demo.PayPayments, func(i int) []byte {
			return fmt.Appendf(nil, `{"id":"order-%06d","order":"order-%06d","amount":%d,"currency":"KRW","status":"CAPTURED","method":{"brand":"VISA","last4":"4242"},`+
				`"decline_reason":null,"tags":["retry"],"at":"2026-12-04T10:00:00.123Z","settle_on":"2026-12-06"}`, i, i, 1000+i)
		})
	})
	return addrs
}

// produceEncoded writes benchRecords values to topic (created here),
// doc(i) encoded with the topic's codec.
func produceEncoded(b *testing.B, addrs, topic string, doc func(i int) []byte) {
	if err := benchEng.CreateTopic(topic, "partitions=4,replicas=1"); err != nil {
		b.Fatal(err)
	}
	codec := benchSet.Topic(topic).Value.Codec
	ctx := context.Background()
	p, err := ilink.NewProducer(ctx, addrs, ilink.ProducerConfig{LingerMs: 5, BatchSize: 1 << 20})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	for i := 0; i < benchRecords; i++ {
		v, err := codec.Encode(doc(i))
		if err != nil {
			b.Fatal(err)
		}
		p.Send(&ilink.ProducerRecord{Topic: topic, Key: fmt.Appendf(nil, "key-%d", i), Value: v}, nil)
	}
	if err := p.Flush(ctx); err != nil {
		b.Fatal(err)
	}
}

// benchSchemaSearch scans the records of topic for spec (with the demo's
// decode rules when decoded), which matches one of them.
func benchSchemaSearch(b *testing.B, topic string, spec Spec, decoded bool) {
	addrs := benchSchemaEngine(b)
	spec.Target = topic
	if decoded {
		spec.Schemas = benchSet
	}
	benchSearch(b, addrs, spec)
}

// BenchmarkScanSearchProtobufBytes is the plain search of the shop.Order
// records: their bytes, no schema (the id is a string field, so its text
// is in the binary).
func BenchmarkScanSearchProtobufBytes(b *testing.B) {
	benchSchemaSearch(b, demo.ShopOrders, Spec{ValueContains: []byte(`order-150000`)}, false)
}

func BenchmarkScanSearchProtobufText(b *testing.B) {
	benchSchemaSearch(b, demo.ShopOrders, Spec{ValueContains: []byte(`"id":"order-150000"`)}, true)
}

func BenchmarkScanSearchProtobufField(b *testing.B) {
	benchSchemaSearch(b, demo.ShopOrders, Spec{Fields: []schema.FieldTerm{benchField(b)}}, true)
}

func BenchmarkScanSearchAvroBytes(b *testing.B) {
	benchSchemaSearch(b, demo.PayPayments, Spec{ValueContains: []byte(`order-150000`)}, false)
}

func BenchmarkScanSearchAvroText(b *testing.B) {
	benchSchemaSearch(b, demo.PayPayments, Spec{ValueContains: []byte(`"id":"order-150000"`)}, true)
}

func BenchmarkScanSearchAvroField(b *testing.B) {
	benchSchemaSearch(b, demo.PayPayments, Spec{Fields: []schema.FieldTerm{benchField(b)}}, true)
}

func benchField(b *testing.B) schema.FieldTerm {
	f, err := schema.ParseFieldTerm("id=order-150000")
	if err != nil {
		b.Fatal(err)
	}
	return f
}
