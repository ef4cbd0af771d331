package config

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestDecodeRulesRead(t *testing.T) {
	f, err := Parse("/etc/ild/config.yaml", []byte(`contexts:
  prod:
    addresses: [ilink-1.example:5000]
    decode:
      - topics: "ORDER.*"
        value: {protobuf: {files: [schemas/orders.proto], import-paths: [schemas], message: shop.Order}}
        key: text
      - topics: "PAYMENT.*"
        value: {avro: {schema: schemas/payment.avsc}}
      - queues: "INVOICE.Q"
        value: {json-schema: /abs/invoice.json}
`))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := f.Lookup("prod")
	if len(c.Decode) != 3 {
		t.Fatalf("rules: %+v", c.Decode)
	}
	r := c.Decode[0]
	if r.Topics != "ORDER.*" || r.Key.Kind != "text" || r.Value.Kind != "protobuf" || r.Value.Message != "shop.Order" {
		t.Errorf("rule 0: %+v", r)
	}
	// Paths are relative to the config file.
	if want := filepath.FromSlash("/etc/ild/schemas/orders.proto"); len(r.Value.Files) != 1 || r.Value.Files[0] != want {
		t.Errorf("files %v, want [%s]", r.Value.Files, want)
	}
	if r.Value.ImportPaths[0] != filepath.FromSlash("/etc/ild/schemas") {
		t.Errorf("import paths %v", r.Value.ImportPaths)
	}
	if r.Where != "/etc/ild/config.yaml:5" {
		t.Errorf("where %q", r.Where)
	}
	if c.Decode[1].Value.Schema != "/etc/ild/schemas/payment.avsc" || c.Decode[2].Queues != "INVOICE.Q" || c.Decode[2].Value.Schema != "/abs/invoice.json" {
		t.Errorf("rules 1, 2: %+v", c.Decode[1:])
	}
}

func TestDecodeRulesBadShape(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"- topics: A\n  queues: B\n  value: text", "not both"},
		{"- value: text", "names the topics or the queues"},
		{"- topics: A", "says how to show"},
		{"- topics: A\n  value: yaml", `unknown format "yaml"`},
		{"- topics: A\n  value: {thrift: x}", `unknown schema kind "thrift"`},
		{"- topics: A\n  value: {protobuf: {files: [a.proto]}}", "message: name the message"},
		{"- topics: A\n  value: {protobuf: {message: a.B}}", "files: name the .proto files"},
		{"- topics: A\n  value: {avro: {}}", "schema: name the schema file"},
		{"- topics: \"[\"\n  value: text", "bad pattern"},
		{"- topics: A\n  value: text\n  colour: red", "unknown field"},
		{"topics: A", "expected a list of rules"},
		{"- topics: A\n  value: {avro: ~bob/pay.avsc}", `only "~" and "~/" are expanded`},
		{"- topics: A\n  value: {json-schema: {schema: ~bob/i.json}}", `only "~" and "~/" are expanded`},
		{"- topics: A\n  value: {protobuf: {files: [~bob/a.proto], message: a.B}}", `only "~" and "~/" are expanded`},
		{"- topics: A\n  value: {protobuf: {files: a.proto, import-paths: ~bob, message: a.B}}", `only "~" and "~/" are expanded`},
	} {
		doc := "contexts:\n  c:\n    decode:\n" + indent(tc.yaml, "      ")
		_, err := Parse("c.yaml", []byte(doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want an error with %q", tc.yaml, err, tc.want)
		}
	}
}

func indent(s, by string) string {
	lines := strings.Split(s, "\n")
	for i := range lines {
		lines[i] = by + lines[i]
	}
	return strings.Join(lines, "\n") + "\n"
}
