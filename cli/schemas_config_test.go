// The decode: rules of a config file, end to end (issue 25): schema paths
// relative to the file, a rule that does not compile named by its place.

package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// schemaConfig writes a config file in a new directory beside a copy of
// the demo's order.proto (schemas/shop/order.proto) and proto, if any, as
// schemas/bad.proto; contexts is the YAML under contexts:.
func schemaConfig(t *testing.T, contexts, proto string) string {
	t.Helper()
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join(demoProtoDir, "shop/order.proto"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "schemas/shop"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"schemas/shop/order.proto": string(src), "config.yaml": "contexts:\n" + contexts}
	if proto != "" {
		files["schemas/bad.proto"] = proto
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "config.yaml")
}

// A context's decode: rule names its .proto relative to the config file
// (the tests run elsewhere): publish encodes with it and tail decodes.
func TestConfigDecodeRuleEndToEnd(t *testing.T) {
	e, _ := topicEngine(t, "ORDERS.EU", "partitions=1")
	cfg := schemaConfig(t, fmt.Sprintf(`  shop:
    admin: '%s'
    addresses: ['%s']
    decode:
      - topics: "ORDERS.*"
        value: {protobuf: {files: [schemas/shop/order.proto], import-paths: [schemas], message: shop.Order}}
        key: text
`, e.AdminAddrs()[0], strings.Join(e.DataAddrs(), "', '")), "")
	if r := runWithConfig(t, cfg, "publish", "ORDERS.EU", "--context", "shop", "--key", "o-1", "--value", orderJSON); r.err != nil {
		t.Fatalf("publish: %v\n%s", r.err, r.stderr)
	}
	r := runWithConfig(t, cfg, "tail", "ORDERS.EU", "--context", "shop", "--from", "earliest", "--count", "1", "--format", "json")
	if r.err != nil {
		t.Fatalf("tail: %v\n%s", r.err, r.stderr)
	}
	raw, decoded, lines := jsonLineValues(t, r.stdout, 1)
	if want := protoLibraryBytes(t, orderJSON); string(raw[0]) != string(want) {
		t.Fatalf("published through the config's rule %x, the protobuf library marshals %x", raw[0], want)
	}
	if !reflect.DeepEqual(decoded[0], jsonDoc(t, orderJSON)) {
		t.Fatalf("tail decodes %s, published %s", lines[0], orderJSON)
	}
}

// A config rule whose schema does not compile stops every command at
// start, the dashboard before it asks for a terminal, naming the rule's
// place in the config file and the schema's file, line and reason.
func TestConfigDecodeRuleThatDoesNotCompile(t *testing.T) {
	rule := `    decode:
      - topics: "ORDERS.*"
        value: {protobuf: {files: [schemas/bad.proto], message: shop.Order}}
`
	cfg := schemaConfig(t, "  shop:\n    admin: '127.0.0.1:1'\n"+rule+"  other:\n    admin: '127.0.0.1:1'\n",
		"syntax = \"proto3\";\npackage shop;\nmessage Order {\n  string id = 1\n}\n")
	bad := filepath.Join(filepath.Dir(cfg), "schemas", "bad.proto")
	for _, args := range [][]string{
		{"tail", "ORDERS.EU", "--context", "shop"},
		{"publish", "ORDERS.EU", "--context", "shop", "--value", "{}"},
		{"queue", "browse", "INVOICE.Q", "--context", "shop"},
		{"--context", "shop"}, // the dashboard
		{"--all-contexts"},    // the fleet
	} {
		r := runWithConfig(t, cfg, args...)
		wantExit(t, r.err, 2, cfg+":5: ") // the rule's "- topics:" line
		for _, want := range []string{bad + ":5:1", "syntax error"} {
			if !strings.Contains(r.err.Error(), want) {
				t.Errorf("%v: error %q does not name %q", args, r.err, want)
			}
		}
	}
}

// Two rules that do not compile: one line each on stderr, each with its
// rule's place, not one line joined by a ␊.
func TestConfigDecodeRulesThatDoNotCompileOneLineEach(t *testing.T) {
	cfg := schemaConfig(t, `  shop:
    admin: '127.0.0.1:1'
    decode:
      - topics: "ORDERS.*"
        value: {protobuf: {files: [schemas/missing.proto], message: shop.Order}}
      - topics: "PAY.*"
        value: {avro: schemas/missing.avsc}
`, "")
	r := runWithConfig(t, cfg, "tail", "ORDERS.EU", "--context", "shop")
	wantExit(t, r.err, 2, "")
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if len(lines) != 2 || strings.Contains(r.stderr, "␊") {
		t.Fatalf("stderr %q: want two lines, one per rule", r.stderr)
	}
	for i, want := range []string{"ilinkdash: decode rules: " + cfg + ":5: ", "ilinkdash: decode rules: " + cfg + ":7: "} {
		if !strings.HasPrefix(lines[i], want) {
			t.Errorf("line %d %q, want it to start %q", i+1, lines[i], want)
		}
	}
}
