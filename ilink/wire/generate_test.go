package wire

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"ilinkdash/ilink/wire/internal/wiregen/gen"
)

const protocolDoc = "../../docs/PROTOCOL.md"

// readFiles reads files of the package (or the protocol document).
func readFiles(t *testing.T, names ...string) [][]byte {
	t.Helper()
	out := make([][]byte, len(names))
	for i, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = b
	}
	return out
}

// TestGeneratedFresh runs the generator in memory on messages.def and
// requires messages_gen.go, the layout table of docs/PROTOCOL.md §12 and
// its request-code tables to be its output, so CI (go test ./...)
// catches a definitions file edited without go generate, or a generated
// file edited by hand.
func TestGeneratedFresh(t *testing.T) {
	fs := readFiles(t, "messages.def", "messages_gen.go", protocolDoc)
	def, have, doc := fs[0], fs[1], fs[2]
	want, err := gen.Generate(def)
	if err != nil {
		t.Fatalf("messages.def: %v", err)
	}
	if !bytes.Equal(have, want) {
		t.Errorf("messages_gen.go is stale (%s): run go generate ./ilink/wire", firstDiff(have, want))
	}
	wantDoc, err := gen.UpdateDoc(def, doc)
	if err != nil {
		t.Fatalf("%s: %v", protocolDoc, err)
	}
	if !bytes.Equal(doc, wantDoc) {
		t.Errorf("the generated tables of %s (§12's layouts, the request codes) are stale (%s): run go generate ./ilink/wire", protocolDoc, firstDiff(doc, wantDoc))
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

// The array bounds are the smallest encoding of an element, which the
// generator sums from the field types: three BROWSE QUEUE messages of
// nothing (7 bytes each; the hand-written bound said 8 and refused them)
// decode, and a count that cannot fit is refused at the count (a PRODUCE
// topic takes at least 6 bytes; the hand-written bound said 2).
func TestGeneratedArrayBounds(t *testing.T) {
	var back QueueBrowseReply
	if err := Decode(Encode(nil, &QueueBrowseReply{Messages: make([]BrowsedMessage, 3)}), &back); err != nil || len(back.Messages) != 3 {
		t.Fatalf("three empty browsed messages: %v, %d decoded", err, len(back.Messages))
	}
	body := append([]byte{0, 3}, make([]byte, 17)...) // acks, 3 topics, 17 bytes
	err := Decode(body, &ProduceRequest{})
	if err == nil || !strings.Contains(err.Error(), "array of 3 elements cannot fit in 17 bytes") {
		t.Fatalf("3 produce topics in 17 bytes: %v", err)
	}
}

// Every body of messages.def is named in the prose of docs/PROTOCOL.md
// (§1–§11, before the generated table), and every body the prose names in
// bold (**XRequest**, **XReply**) is one of messages.def: a body added,
// renamed or removed in one place and not the other fails here.
func TestProtocolNamesEveryBody(t *testing.T) {
	fs := readFiles(t, "messages.def", protocolDoc)
	def, doc := fs[0], fs[1]
	decls, err := gen.Parse(def)
	if err != nil {
		t.Fatal(err)
	}
	prose, _, ok := strings.Cut(string(doc), "\n## 12. ")
	if !ok {
		t.Fatalf("%s has no §12", protocolDoc)
	}
	declared := map[string]bool{}
	messages := 0
	for _, d := range decls {
		declared[d.Name] = true
		if d.Kind != "message" {
			continue
		}
		messages++
		if !regexp.MustCompile(`\b` + d.Name + `\b`).MatchString(prose) {
			t.Errorf("%s (messages.def) is not named in %s §1–§11", d.Name, protocolDoc)
		}
	}
	if messages < 70 {
		t.Fatalf("only %d messages in messages.def: the parse is broken", messages)
	}
	for _, m := range regexp.MustCompile(`\*\*([A-Z][A-Za-z]*(?:Request|Reply))\*\*`).FindAllStringSubmatch(prose, -1) {
		if !declared[m[1]] {
			t.Errorf("%s names the body %s, which messages.def does not declare", protocolDoc, m[1])
		}
	}
}

// codeRow is a row of a request-code table of docs/PROTOCOL.md: `| 1200 |
// `METADATA` | MetadataRequest | MetadataReply |`, or a range with its
// names (`| 2070–2072 | `A`, `B`, `C` | … |`).
var codeRow = regexp.MustCompile("^\\| (\\d{4})(?:–(\\d{4}))? \\| (`[^|]*) \\|([^|]*)\\|([^|]*)\\|")

// The request-code tables of docs/PROTOCOL.md (§5, §8, §10, §11.2) agree
// with the codes of messages.def: each row's name is its code's
// (Code.String, in backquotes), every code is in a table, and a body a
// row names first in its request or reply cell is one messages.def
// declares ("empty" for none). The (iLink) mark after a name is the
// document's.
func TestProtocolCodeTables(t *testing.T) {
	fs := readFiles(t, "messages.def", protocolDoc)
	decls, err := gen.Parse(fs[0])
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]bool{"empty": true}
	for _, d := range decls {
		declared[d.Name] = true
	}
	prose, _, _ := strings.Cut(string(fs[1]), "\n## 12. ")
	listed := map[Code]bool{}
	rows := 0
	for _, l := range strings.Split(prose, "\n") {
		m := codeRow.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		rows++
		first, _ := strconv.Atoi(m[1])
		last := first
		if m[2] != "" {
			last, _ = strconv.Atoi(m[2])
		}
		var names []string
		for _, n := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(strings.TrimSuffix(strings.TrimSpace(m[3]), " (iLink)"), -1) {
			names = append(names, n[1])
		}
		if len(names) != last-first+1 {
			t.Errorf("%s: %d names for codes %d–%d", l, len(names), first, last)
			continue
		}
		for i, n := range names {
			c := Code(first + i)
			if codeNames[c] != n {
				t.Errorf("PROTOCOL.md names %d %q; messages.def names it %q", c, n, codeNames[c])
			}
			listed[c] = true
		}
		if m[2] != "" {
			continue // a range's bodies are described in its section
		}
		for _, cell := range []string{m[4], m[5]} {
			body, _, _ := strings.Cut(strings.TrimSpace(cell), " ")
			if body != "" && !declared[body] {
				t.Errorf("%s: body %q is not declared in messages.def", l, body)
			}
		}
	}
	if rows < 60 {
		t.Fatalf("only %d code rows in %s: the table format changed", rows, protocolDoc)
	}
	for c, n := range codeNames {
		if !listed[c] {
			t.Errorf("%d %s (messages.def) is in no request-code table of %s", c, n, protocolDoc)
		}
	}
}
