package tail

import (
	"fmt"
	"testing"
	"time"

	"ilinkdash/ilink/engine/demo"
	"ilinkdash/ilink/loadgen"
	"ilinkdash/ilink/schema"
)

// The decoding goal (issue 25): at 2,000 rec/s, decoding in the tail
// costs at most 5 % of one core.
//
//	go test -run '^$' -bench 'TailDecode' -benchtime 100000x ./ui/views/tail/
//
// decodes demo shop.Order values (Protobuf: a nested customer, lines, a
// map, an enum, a oneof, a Timestamp; about 140 bytes each) the way the
// relay does, and reports the records/s of one core and the share of a
// core 2,000 rec/s take: the process's CPU time over the loop (the
// garbage collector's included) where /proc has it, so a busy shared
// machine's waits do not count, else the wall time.
func BenchmarkTailDecodeShopOrder(b *testing.B) {
	benchDecode(b, demo.ShopOrders, func(i int) string {
		return fmt.Sprintf(`{"id":"order-%06d","customer":{"id":"cust-%04d","name":"Kim Minji","address":{"city":"Seoul","postcode":"%05d"}},`+
			`"lines":[{"sku":"sku-%05d","qty":2,"price_krw":12000},{"sku":"sku-00042","qty":1,"price_krw":3000}],"labels":{"channel":"web","region":"kr-1"},`+
			`"status":"PAID","card":{"brand":"VISA","last4":"4242"},"created_at":"2026-12-04T10:00:00.123Z","total_krw":27000}`, i*7919%200000, i, 10000+i, i)
	})
}

// BenchmarkTailDecodePayPayment is the same for the demo's Avro values
// (pay.Payment: enums, a union, an array, logical timestamp and date).
func BenchmarkTailDecodePayPayment(b *testing.B) {
	benchDecode(b, demo.PayPayments, func(i int) string {
		return fmt.Sprintf(`{"id":"pay-%08d","order":"order-%06d","amount":%d,"currency":"KRW","status":"CAPTURED","method":{"brand":"VISA","last4":"4242"},`+
			`"decline_reason":null,"tags":["retry","3ds"],"at":"2026-12-04T10:00:00.123Z","settle_on":"2026-12-06"}`, i, i*7919%200000, 1000+i)
	})
}

// benchDecode decodes values of topic (made by doc from their JSON) as
// the relay does.
func benchDecode(b *testing.B, topic string, doc func(i int) string) {
	set, err := schema.Compile(demo.DecodeRules())
	if err != nil {
		b.Fatal(err)
	}
	codec := set.Topic(topic).Value.Codec
	const n = 256
	values := make([][]byte, n)
	for i := range values {
		if values[i], err = codec.Encode([]byte(doc(i))); err != nil {
			b.Fatal(err)
		}
	}
	dec := newRecordDecoder(set)
	recs := make([]Record, n)
	b.ReportAllocs()
	b.ResetTimer()
	t0, cpu0 := time.Now(), loadgen.ProcessCPU(0)
	for i := 0; i < b.N; i++ {
		r := &recs[i%n]
		*r = Record{Topic: topic, Key: []byte("order-1"), Value: values[i%n]}
		dec.decode(r)
		if r.ValueDecoded == nil {
			b.Fatal(r.ValueError)
		}
	}
	per := time.Since(t0).Seconds() / float64(b.N)
	if cpu := loadgen.ProcessCPU(0) - cpu0; cpu > 0 {
		per = cpu.Seconds() / float64(b.N)
	}
	b.ReportMetric(1/per, "records/s")
	b.ReportMetric(2000*per*100, "%core@2000rec/s")
}
