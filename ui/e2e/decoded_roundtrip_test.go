package e2e

import (
	"testing"

	"ilinkdash/ilink/engine/demo"
	"ilinkdash/ilink/schema"
)

// Issue 25's round trip through the real program: JSON typed in the
// publish form for an Avro topic is refused when it does not fit the
// schema (nothing is sent), else encoded with it; the tail then shows the
// records decoded to the same fields, and the search beyond the buffer
// finds them by a decoded field (ilink/search through ui/live).
func TestPublishTailSearchDecodedRoundTrip(t *testing.T) {
	t.Parallel()
	e := engineWithTopic(t, demo.PayPayments, "partitions=2,replicas=1")
	set, err := schema.Compile(demo.DecodeRules())
	if err != nil {
		t.Fatal(err)
	}
	d := startDash(t, e, dashOpts{schemas: set})
	d.publishTo(demo.PayPayments)
	d.keys("tab")
	d.typeText("rt-{{seq}}")
	d.keys("tab")
	d.typeText(`{"id":"pay-{{seq}}","status":"LOST"}`)
	d.keys("enter")
	d.waitText("value does not fit avro", "nothing is sent")
	if n := sent(e, demo.PayPayments); n != 0 {
		t.Fatalf("%d records sent for JSON that does not fit", n)
	}
	// The value field is edited again: ctrl+u clears it.
	d.keys("ctrl+u")
	d.typeText(`{"id":"pay-{{seq}}","order":"order-7","amount":1{{seq}}00,"currency":"KRW","status":"CAPTURED",` +
		`"method":"bank-transfer","decline_reason":null,"tags":["rt"],"at":"2026-12-04T10:00:00Z","settle_on":"2026-12-06"}`)
	d.keys("tab", "tab", "tab", "backspace")
	d.typeText("3")
	d.keys("enter")
	d.waitText("Send 3 records to "+demo.PayPayments+"?", "the JSON, with avro")
	d.keys("enter")
	d.waitText("3/3 acknowledged", "✓ done")
	if n := sent(e, demo.PayPayments); n != 3 {
		t.Fatalf("the engine has %d records, want 3", n)
	}

	d.openTail(demo.PayPayments, "earliest")
	d.waitText("3 total", `{"id":"pay-0","order":"order-7","amount":1000,`, `{"id":"pay-2","order":"order-7","amount":1200,`)
	d.press("enter") // the detail of the last row (the partitions come in any order), decoded
	d.waitText("[decoded]", "avro pay.Payment", `"id": "pay-`, `"order": "order-7"`, `"currency": "KRW"`, `"status": "CAPTURED"`, `"method": "bank-transfer"`, `"tags": [`)
	d.press("esc")

	// S: the decoded field finds the records; a text of the JSON too.
	d.press("S")
	d.waitText("Search beyond the buffer")
	d.keys("enter", "tab", "tab", "tab", "tab", "tab", "tab")
	d.typeText("amount=1100")
	d.keys("enter")
	d.waitText("field:amount=1100", "1 total", `"id":"pay-1"`)
}
