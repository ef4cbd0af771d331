package e2e

import (
	"context"
	"testing"

	"ilinkdash/ilink/engine/demo"
	"ilinkdash/ilink/schema"
)

// Issue 25: the tail of the embedded demo's Protobuf topic shows its
// records decoded with the built-in schema (shop.Order), in the list and
// in the detail pane, the real program over a real engine; a record that
// does not decode shows the codec's error and its bytes in hex.
func TestTailDecodesTheDemosProtobufTopic(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engineOpts{})
	dm, err := demo.Start(e, demo.Options{LeaderMoveEvery: -1, RebalanceEvery: -1, RewindEvery: -1})
	if err != nil {
		t.Fatalf("demo: %v", err)
	}
	t.Cleanup(dm.Close)
	set, err := schema.Compile(demo.DecodeRules())
	if err != nil {
		t.Fatal(err)
	}
	d := startDash(t, e, dashOpts{demo: true, schemas: set})
	// The rows: the decoded documents (the binary holds no `{"id":`).
	d.tailLive(demo.ShopOrders, `{"id":"order-`, `"customer":{"id":"cust-`)
	d.press("enter")
	d.waitText("[decoded]", "protobuf shop.Order", `"id": "order-`, `"customer": {`, `"address": {`, `"city": "`, `"postcode": "`)

	// A record that does not decode: its row and its detail say why.
	d.press("esc")
	d.filter("k:e2e-garbage")
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	if _, err := adminQmgr(t, e).Publish(ctx, demo.ShopOrders, []byte("e2e-garbage"), []byte{0xff, 0xff, 0x01}); err != nil {
		t.Fatalf("publish: %v", err)
	}
	d.waitText("e2e-garbage", "⚠ not a shop.Order")
	d.press("enter")
	d.waitText("[decoded]", "does not decode with protobuf shop.Order", "00000000  ff ff 01")
}
