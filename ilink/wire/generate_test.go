package wire

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"ilinkdash/ilink/wire/internal/wiregen/gen"
)

// TestGeneratedFresh runs the generator in memory on messages.def and
// requires messages_gen.go to be its output, so CI (go test ./...)
// catches a definitions file edited without go generate, or a generated
// file edited by hand.
func TestGeneratedFresh(t *testing.T) {
	def, err := os.ReadFile("messages.def")
	if err != nil {
		t.Fatal(err)
	}
	want, err := gen.Generate(def)
	if err != nil {
		t.Fatalf("messages.def: %v", err)
	}
	have, err := os.ReadFile("messages_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, want) {
		t.Errorf("messages_gen.go is stale (%s): run go generate ./ilink/wire", firstDiff(have, want))
	}
}

// firstDiff names the first line where two texts part.
func firstDiff(have, want []byte) string {
	h, w := strings.Split(string(have), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(h) && i < len(w); i++ {
		if h[i] != w[i] {
			return fmt.Sprintf("line %d is %q, the generator writes %q", i+1, h[i], w[i])
		}
	}
	return fmt.Sprintf("it has %d lines, the generator writes %d", len(h), len(w))
}
