package tail

import (
	"fmt"
	"testing"
	"time"

	"ilinkdash/ilink/engine/demo"
	"ilinkdash/ilink/schema"
)

// The decoding goal (issue 25): at 2,000 rec/s, decoding in the tail
// costs at most 5 % of one core.
//
//	go test -run '^$' -bench 'TailDecode' -benchtime 20000x ./ui/views/tail/
//
// decodes demo shop.Order values (Protobuf: a nested customer, lines, a
// map, an enum, a oneof, a Timestamp; about 140 bytes each) the way the
// relay does, and reports the records/s of one core and the share of a
// core 2,000 rec/s take.
func BenchmarkTailDecodeShopOrder(b *testing.B) {
	set, err := schema.Compile(demo.DecodeRules())
	if err != nil {
		b.Fatal(err)
	}
	codec := set.Topic(demo.ShopOrders).Value.Codec
	const n = 256
	values := make([][]byte, n)
	for i := range values {
		doc := fmt.Sprintf(`{"id":"order-%06d","customer":{"id":"cust-%04d","name":"Kim Minji","address":{"city":"Seoul","postcode":"%05d"}},`+
			`"lines":[{"sku":"sku-%05d","qty":2,"price_krw":12000},{"sku":"sku-00042","qty":1,"price_krw":3000}],"labels":{"channel":"web","region":"kr-1"},`+
			`"status":"PAID","card":{"brand":"VISA","last4":"4242"},"created_at":"2026-12-04T10:00:00.123Z","total_krw":27000}`, i*7919%200000, i, 10000+i, i)
		if values[i], err = codec.Encode([]byte(doc)); err != nil {
			b.Fatal(err)
		}
	}
	dec := newRecordDecoder(set)
	recs := make([]Record, n)
	b.ReportAllocs()
	b.ResetTimer()
	t0 := time.Now()
	for i := 0; i < b.N; i++ {
		r := &recs[i%n]
		*r = Record{Topic: demo.ShopOrders, Key: []byte("order-1"), Value: values[i%n]}
		dec.decode(r)
		if r.ValueDecoded == nil {
			b.Fatal(r.ValueError)
		}
	}
	per := time.Since(t0).Seconds() / float64(b.N)
	b.ReportMetric(1/per, "records/s")
	b.ReportMetric(2000*per*100, "%core@2000rec/s")
}
