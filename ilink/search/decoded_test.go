package search

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/consumer"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/engine/demo"
	"ilinkdash/ilink/schema"
)

// produceOrders writes n shop.Order values to topic (status PAID for
// every tenth, id ord-<i>, city Seoul or Busan), then one value that does
// not decode.
func produceOrders(t testing.TB, e *engine.Engine, set *schema.Set, topic string, n int) {
	t.Helper()
	codec := set.Topic(demo.ShopOrders).Value.Codec
	ctx := testCtx(t, 5*time.Minute)
	p, err := ilink.NewProducer(ctx, strings.Join(e.DataAddrs(), ","), ilink.ProducerConfig{LingerMs: 5, BatchSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for i := 0; i < n; i++ {
		status, city := "CREATED", "Seoul"
		if i%10 == 0 {
			status = "PAID"
		}
		if i%2 == 1 {
			city = "Busan"
		}
		v, err := codec.Encode([]byte(fmt.Sprintf(`{"id":"ord-%d","status":%q,"customer":{"name":"n","address":{"city":%q}},"lines":[{"sku":"SKU-%d","qty":1}]}`, i, status, city, i%7)))
		if err != nil {
			t.Fatal(err)
		}
		p.Send(&ilink.ProducerRecord{Topic: topic, Key: []byte(fmt.Sprintf("ord-%d", i)), Value: v}, nil)
	}
	p.Send(&ilink.ProducerRecord{Topic: topic, Key: []byte("bad"), Value: []byte("\xff\xff PAID")}, nil)
	if err := p.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

// The value criteria match the decoded JSON text of a Protobuf value (the
// binary holds no "status":"PAID"); field terms match its fields; a value
// that does not decode is matched as bytes and has no fields.
func TestSearchDecodedValuesAndFields(t *testing.T) {
	e, set := decodedTopic(t, demo.ShopOrders) // SHOP.ORDERS: protobuf shop.Order
	produceOrders(t, e, set, demo.ShopOrders, 200)
	addrs := strings.Join(e.DataAddrs(), ",")
	for _, c := range []struct {
		name string
		spec Spec
		want int
	}{
		{"raw bytes, no schema", Spec{ValueContains: []byte(`"status":"PAID"`)}, 0},
		{"decoded text", Spec{Schemas: set, ValueContains: []byte(`"status":"PAID"`)}, 20},
		{"decoded regex", Spec{Schemas: set, ValueRegex: regexp.MustCompile(`"id":"ord-1[0-9]"`)}, 10},
		{"undecodable value as bytes", Spec{Schemas: set, ValueContains: []byte("\xff PAID")}, 1},
		{"field", Spec{Schemas: set, Fields: []schema.FieldTerm{mustField(t, "status=PAID")}}, 20},
		{"nested field and repeated", Spec{Schemas: set, Fields: []schema.FieldTerm{mustField(t, "customer.address.city=Busan"), mustField(t, "lines.sku=SKU-3")}}, 15},
		{"field and text", Spec{Schemas: set, ValueContains: []byte("Seoul"), Fields: []schema.FieldTerm{mustField(t, "status=PAID")}}, 20},
		{"field without a schema", Spec{Fields: []schema.FieldTerm{mustField(t, "status=PAID")}}, 0},
	} {
		c.spec.Target = demo.ShopOrders
		if found := countMatches(t, addrs, c.spec, 201); found != c.want {
			t.Errorf("%s: %d matches, want %d", c.name, found, c.want)
		}
	}
}

// The same on Avro values (pay.Payment), whose text and field searches
// skip the values whose bytes lack the needle's literal (schema.Literal):
// what that skips never holds a match. A decline reason with a tab (\t in
// the JSON, the tab itself on the wire) and an enum (its index on the
// wire) are found as the decode shows them.
func TestSearchDecodedAvro(t *testing.T) {
	e, set := decodedTopic(t, demo.PayPayments) // PAY.PAYMENTS: avro pay.Payment
	codec := set.Topic(demo.PayPayments).Value.Codec
	ctx := testCtx(t, time.Minute)
	p, err := ilink.NewProducer(ctx, strings.Join(e.DataAddrs(), ","), ilink.ProducerConfig{LingerMs: 5})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		status, reason := "CAPTURED", "null"
		if i%10 == 0 {
			status, reason = "DECLINED", `"card\texpired"`
		}
		v, err := codec.Encode(fmt.Appendf(nil, `{"id":"pay-%d","order":"ord-%d","amount":%d,"currency":"KRW","status":%q,"method":null,`+
			`"decline_reason":%s,"tags":[],"at":"2026-12-04T10:00:00Z","settle_on":"2026-12-06"}`, i, i, 1000+i, status, reason))
		if err != nil {
			t.Fatal(err)
		}
		p.Send(&ilink.ProducerRecord{Topic: demo.PayPayments, Value: v}, nil)
	}
	p.Send(&ilink.ProducerRecord{Topic: demo.PayPayments, Value: []byte("\xff\xff PAY")}, nil)
	if err := p.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	p.Close()
	for _, c := range []struct {
		name string
		spec Spec
		want int
	}{
		{"an enum as the decode shows it", Spec{ValueContains: []byte(`"status":"DECLINED"`)}, 20},
		{"an escaped tab", Spec{ValueContains: []byte(`"decline_reason":"card\texpired"`)}, 20},
		{"text in a string", Spec{ValueContains: []byte(`"id":"pay-1`)}, 111},
		{"a field with a tab", Spec{Fields: []schema.FieldTerm{mustField(t, "decline_reason=card\texpired")}}, 20},
		{"a field", Spec{Fields: []schema.FieldTerm{mustField(t, "id=pay-15")}}, 1},
		{"a field and text", Spec{ValueContains: []byte("ord-1"), Fields: []schema.FieldTerm{mustField(t, "status=DECLINED")}}, 11},
		{"undecodable value as bytes", Spec{ValueContains: []byte("\xff PAY")}, 1},
	} {
		c.spec.Target, c.spec.Schemas = demo.PayPayments, set
		if found := countMatches(t, strings.Join(e.DataAddrs(), ","), c.spec, 201); found != c.want {
			t.Errorf("%s: %d matches, want %d", c.name, found, c.want)
		}
	}
}

func mustField(t *testing.T, s string) schema.FieldTerm {
	t.Helper()
	f, err := schema.ParseFieldTerm(s)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// countMatches runs spec and counts its matches; it fails unless the
// scan read every one of the scanned records.
func countMatches(t *testing.T, addrs string, spec Spec, scanned int64) int {
	t.Helper()
	found := 0
	p, err := Run(testCtx(t, time.Minute), addrs, spec, Options{}, func(*consumer.Record) error { found++; return nil })
	if err != nil || p.Scanned != scanned {
		t.Fatalf("search of %s: scanned %d, want %d: %v", spec.Target, p.Scanned, scanned, err)
	}
	return found
}

// decodedTopic is an engine holding topic (two partitions, empty) and the
// demo's decode rules, which give topic its schema.
func decodedTopic(t *testing.T, topic string) (*engine.Engine, *schema.Set) {
	t.Helper()
	e := startEngine(t)
	set, err := schema.Compile(demo.DecodeRules())
	if err != nil {
		t.Fatal(err)
	}
	if err := e.CreateTopic(topic, "partitions=2,replicas=1"); err != nil {
		t.Fatal(err)
	}
	return e, set
}
