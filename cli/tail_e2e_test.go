// End-to-end tail runs against the embedded engine (group coordinator included).

package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestTailEmbeddedJSON(t *testing.T) {
	out, stderr, err := runCLI(t, "", "tail", "ORDER.EVENT", "--embedded", "--count", "5", "--format", "json")
	if err != nil {
		t.Fatalf("tail: %v\nstderr: %s", err, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines, want 5:\n%s", len(lines), out)
	}
	for i, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %d is not JSON: %v\n%s", i, err, l)
		}
		if m["topic"] != "ORDER.EVENT" {
			t.Fatalf("line %d: topic %v", i, m["topic"])
		}
		for _, k := range []string{"partition", "offset", "timestamp", "key", "value", "headers"} {
			if _, ok := m[k]; !ok {
				t.Fatalf("line %d: no %q in %s", i, k, l)
			}
		}
	}
}

func TestTailEmbeddedPatternText(t *testing.T) {
	out, stderr, err := runCLI(t, "", "tail", "ORDER.*", "--embedded", "--count", "30", "--format", "text", "--commit", "manual")
	if err != nil {
		t.Fatalf("tail: %v\nstderr: %s", err, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	topics := map[string]bool{}
	for _, l := range lines {
		if strings.ContainsRune(l, 0x1b) {
			t.Fatalf("escape byte in %q", l)
		}
		f := strings.Fields(l)
		topics[strings.Split(f[1], "/")[0]] = true
	}
	if len(lines) != 30 || !topics["ORDER.EVENT"] || !topics["ORDER.KR.EVENT"] || topics["PAYMENT.RESULT"] {
		t.Fatalf("%d lines from %v", len(lines), topics)
	}
}
