package health

import (
	"os"
	"strings"
	"testing"
)

// docs/HEALTH.md states every rule: each word has its row in the words
// table and each alert kind its row in the alerts table, so a word or an
// alert added to the code without its rule written down fails here.
func TestHealthDocStatesEveryRule(t *testing.T) {
	b, err := os.ReadFile("../../../docs/HEALTH.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, w := range Words {
		if !strings.Contains(doc, "\n| `"+w.String()+"` |") {
			t.Errorf("docs/HEALTH.md has no row for the word %s", w)
		}
	}
	for _, k := range kinds {
		if !strings.Contains(doc, " | `"+string(k.kind)+"` | ") {
			t.Errorf("docs/HEALTH.md has no alert row of kind %s", k.kind)
		}
	}
	// Every kind has its phrase in check's summary line (an unknown one
	// would print its raw name).
	for _, k := range kinds {
		if kindPhrase(k.kind, 2) == string(k.kind) {
			t.Errorf("kind %s has no summary phrase", k.kind)
		}
	}
}
