package cli

import (
	"testing"

	"ilinkdash/config"
	"ilinkdash/ilink/engine/demo"
)

// On the embedded demo its schema topics decode out of the box (issue 25
// item 5); on a real cluster the demo's rules do not apply.
func TestEmbeddedDemoDecodesItsSchemaTopics(t *testing.T) {
	set, err := schemas(config.Resolved{Embedded: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, topic := range []string{demo.ShopOrders, demo.PayPayments} {
		if p := set.Topic(topic); p.Value.Codec == nil {
			t.Errorf("embedded: %s has no value codec (%+v)", topic, p)
		}
	}
	if p := set.Topic("ORDER.EVENT"); p.Decodes() {
		t.Errorf("embedded: ORDER.EVENT (JSON) decodes with %s", p.Rule)
	}
	set, err = schemas(config.Resolved{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := set.Topic(demo.ShopOrders); p.Decodes() {
		t.Errorf("a real cluster's %s decodes with the demo's rule %s", demo.ShopOrders, p.Rule)
	}
}

// --key-format alone changes how keys show, not whether values decode:
// the demo's value schemas still apply (it used to make SHOP.ORDERS's
// Protobuf values print as escaped text).
func TestKeyFormatFlagKeepsTheValueSchema(t *testing.T) {
	set, err := schemas(config.Resolved{Embedded: true}, &decodeFlags{keyFormat: "hex"})
	if err != nil {
		t.Fatal(err)
	}
	for _, topic := range []string{demo.ShopOrders, demo.PayPayments} {
		p := set.Topic(topic)
		if p.Key.Format != "hex" || p.Value.Codec == nil {
			t.Errorf("--key-format hex: %s key %q, value codec %v; want hex and the demo's schema", topic, p.Key.Format, p.Value.Codec)
		}
	}
}
