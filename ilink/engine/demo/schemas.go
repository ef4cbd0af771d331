package demo

import (
	"embed"
	"fmt"
	"math/rand/v2"
	"time"

	"ilinkdash/ilink/schema"
)

// The demo's topics whose values are not JSON: their schemas are built in
// (schemas/), so the embedded demo decodes them out of the box.
const (
	// ShopOrders carries shop.Order (schemas/shop/order.proto) in the
	// Protobuf binary encoding: a nested customer, repeated lines, a map
	// of labels, an enum status, a oneof payment and a
	// google.protobuf.Timestamp.
	ShopOrders = "SHOP.ORDERS"
	// PayPayments carries pay.Payment (schemas/pay/payment.avsc) in plain
	// Avro binary: a record with enums, unions (a nested record or a
	// string; null or a string), an array and logical timestamp-millis
	// and date.
	PayPayments = "PAY.PAYMENTS"
)

//go:embed schemas
var schemaFS embed.FS

// DecodeRules are the decode rules of the demo's schema topics, over the
// built-in schema files: the dashboard appends them on the embedded demo
// (after any of the context's own, which win).
func DecodeRules() []schema.Rule {
	return []schema.Rule{
		{
			Topics: ShopOrders,
			Key:    schema.Spec{Kind: schema.KindText},
			Value: schema.Spec{Kind: schema.KindProtobuf, Files: []string{"schemas/shop/order.proto"},
				ImportPaths: []string{"schemas"}, Message: "shop.Order", FS: schemaFS},
			Where: "the demo's built-in schema of " + ShopOrders,
		},
		{
			Topics: PayPayments,
			Key:    schema.Spec{Kind: schema.KindText},
			Value:  schema.Spec{Kind: schema.KindAvro, Schema: "schemas/pay/payment.avsc", FS: schemaFS},
			Where:  "the demo's built-in schema of " + PayPayments,
		},
	}
}

// encoders compiles the built-in schemas the demo encodes its schema
// topics' records with, by topic.
func encoders() (map[string]schema.Codec, error) {
	set, err := schema.Compile(DecodeRules())
	if err != nil {
		return nil, fmt.Errorf("demo: built-in schemas: %w", err)
	}
	return map[string]schema.Codec{
		ShopOrders:  set.Topic(ShopOrders).Value.Codec,
		PayPayments: set.Topic(PayPayments).Value.Codec,
	}, nil
}

var (
	names    = []string{"Kim Minji", "Lee Junho", "Park Seoyeon", "Choi Hyun", "Jung Yuna", "Kang Doyun"}
	brands   = []string{"VISA", "MASTERCARD", "AMEX", "JCB"}
	channels = []string{"web", "app", "store"}
	// orderStatuses are shop.Order.Status's names, weighted towards the
	// happy path.
	orderStatuses = []string{"CREATED", "PAID", "PAID", "PACKED", "SHIPPED", "DELIVERED", "CANCELLED"}
	payStatuses   = []string{"AUTHORIZED", "CAPTURED", "CAPTURED", "CAPTURED", "DECLINED", "REFUNDED"}
	currencies    = []string{"KRW", "KRW", "KRW", "USD", "EUR", "JPY"}
)

// shopOrder is a shop.Order as the JSON the Protobuf codec encodes (the
// .proto's field names).
func shopOrder(rng *rand.Rand, order string, now time.Time) []byte {
	lines := ""
	var total int64
	for i := range 1 + rng.IntN(3) {
		qty, price := 1+rng.IntN(4), int64(1000*(1+rng.IntN(90)))
		total += int64(qty) * price
		if i > 0 {
			lines += ","
		}
		lines += fmt.Sprintf(`{"sku":"sku-%05d","qty":%d,"price_krw":%d}`, rng.IntN(5000), qty, price)
	}
	payment := fmt.Sprintf(`"card":{"brand":%q,"last4":"%04d"}`, brands[rng.IntN(len(brands))], rng.IntN(10000))
	if rng.IntN(4) == 0 {
		payment = fmt.Sprintf(`"voucher":"GIFT-%04X"`, rng.IntN(1<<16))
	}
	city := rng.IntN(len(cities))
	return fmt.Appendf(nil, `{"id":%q,"customer":{"id":"cust-%04d","name":%q,"address":{"city":%q,"postcode":"%05d"}},`+
		`"lines":[%s],"labels":{"channel":%q,"region":"kr-%d"},"status":%q,%s,"created_at":%q,"total_krw":%d}`,
		order, rng.IntN(10000), names[rng.IntN(len(names))], cities[city], 10000+rng.IntN(89999),
		lines, channels[rng.IntN(len(channels))], city, orderStatuses[rng.IntN(len(orderStatuses))], payment,
		now.UTC().Format(time.RFC3339Nano), total)
}

// payPayment is a pay.Payment as the JSON the Avro codec encodes (a
// union as its plain value).
func payPayment(rng *rand.Rand, order string, seq int, now time.Time) []byte {
	status := payStatuses[rng.IntN(len(payStatuses))]
	method := fmt.Sprintf(`{"brand":%q,"last4":"%04d"}`, brands[rng.IntN(len(brands))], rng.IntN(10000))
	switch rng.IntN(6) {
	case 0:
		method = `"bank-transfer"`
	case 1:
		method = "null"
	}
	reason := "null"
	if status == "DECLINED" {
		reason = `"insufficient funds"`
	}
	tags := `[]`
	if rng.IntN(3) == 0 {
		tags = `["retry","3ds"]`
	}
	return fmt.Appendf(nil, `{"id":"pay-%08d","order":%q,"amount":%d,"currency":%q,"status":%q,"method":%s,"decline_reason":%s,"tags":%s,"at":%q,"settle_on":%q}`,
		seq, order, 1000+rng.IntN(500000), currencies[rng.IntN(len(currencies))], status, method, reason, tags,
		now.UTC().Format(time.RFC3339Nano), now.UTC().AddDate(0, 0, 2).Format("2006-01-02"))
}
