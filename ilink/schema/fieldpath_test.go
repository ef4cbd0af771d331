package schema

import (
	"strings"
	"testing"
)

// CheckFieldPath names the first step of a path that is no field, with
// the fields there are: a mistyped --field matched nothing, silently.
// Paths through nested messages, repeated fields, map keys and unions are
// accepted, and so is anything under a well-known type.
func TestCheckFieldPath(t *testing.T) {
	orders, _, _ := orderCodec(t)
	payments, _ := avroPaymentCodec(t)
	for _, c := range []struct {
		c    Codec
		path string
		want string // "" accepted, else what the error says
	}{
		{orders, "id", ""},
		{orders, "lines.sku", ""},
		{orders, "lines.price.units", ""},
		{orders, "tags.anything", ""},
		{orders, "placed_at.seconds", ""},
		{orders, "placedAt", ""},
		{orders, "total", ""},
		{orders, "nope.x", `shop.Order has no field "nope" (its fields: id, lines, tags, status, card, voucher, placed_at, total)`},
		{orders, "lines.price.cents", `shop.Order.lines.price has no field "cents" (its fields: currency, units)`},
		{orders, "id.x", `shop.Order.id has no field "x" (it is not a message or record)`},
		{payments, "payer.iban", ""},
		{payments, "payee.name", ""},
		{payments, "attrs.n", ""},
		{payments, "tags", ""},
		{payments, "payee.nam", `com.shop.Payment.payee has no field "nam" (its fields: name, iban)`},
		{payments, "amont", `com.shop.Payment has no field "amont" (its fields: id, amount, rate, paid, payer, tags, attrs, status, note, payee, receipt, day, at)`},
		{payments, "amount.x", `com.shop.Payment.amount has no field "x" (it is not a message or record)`},
	} {
		err := CheckFieldPath(c.c, strings.Split(c.path, "."))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %s: %v, want it accepted", c.c.Name(), c.path, err)
		case c.want != "" && (err == nil || err.Error() != c.want):
			t.Errorf("%s %s: %v, want %q", c.c.Name(), c.path, err, c.want)
		}
	}
}
