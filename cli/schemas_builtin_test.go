package cli

import (
	"os"
	"path/filepath"
	"strings"
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

// --value-proto FILE:MESSAGE splits at the last colon: a path may hold
// one, a message name cannot.
func TestValueProtoPathWithAColon(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a:b")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "m.proto")
	if err := os.WriteFile(file, []byte("syntax = \"proto3\";\npackage t;\nmessage M { string s = 1; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := schemas(config.Resolved{}, &decodeFlags{valueProto: file + ":t.M"})
	if err != nil {
		t.Fatal(err)
	}
	if p := set.Topic("T"); p.Value.Codec == nil {
		t.Fatalf("--value-proto %s:t.M: no codec", file)
	}
	for _, bad := range []string{"x.proto", "x.proto:", ":t.M"} {
		if _, err := (&decodeFlags{valueProto: bad}).rules(); err == nil || !strings.Contains(err.Error(), "want FILE:MESSAGE") {
			t.Errorf("--value-proto %q: %v, want a usage error", bad, err)
		}
	}
}
