package schema

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// randomDoc writes a random JSON value over a small vocabulary of keys
// and scalars, so paths and values meet often: nested objects and
// arrays, repeated keys, numbers in several spellings, escapes and
// non-ASCII (valid and not) now and then.
func randomDoc(r *rand.Rand, depth int) string {
	keys := []string{"a", "b", "id", "x y"}
	scalars := []string{`1`, `-0`, `1.50`, `2e3`, `"1"`, `"a"`, `"order-1"`, `true`, `false`, `null`, `""`, `"é"`, `"a\"b"`, `"\u0041"`, `"김민지"`, "\"caf\xff\""}
	switch k := r.IntN(10); {
	case depth > 3 || k < 4:
		return scalars[r.IntN(len(scalars))]
	case k < 7:
		var b strings.Builder
		b.WriteByte('{')
		for i := range r.IntN(4) {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%q: %s", keys[r.IntN(len(keys))], randomDoc(r, depth+1))
		}
		b.WriteByte('}')
		return b.String()
	default:
		items := make([]string, r.IntN(4))
		for i := range items {
			items[i] = randomDoc(r, depth+1)
		}
		return "[ " + strings.Join(items, " , ") + " ]"
	}
}

// corrupt breaks doc now and then: a byte cut, doubled or replaced, or
// something after the value.
func corrupt(r *rand.Rand, doc string) string {
	if len(doc) == 0 || r.IntN(3) > 0 {
		return doc
	}
	i := r.IntN(len(doc))
	switch r.IntN(4) {
	case 0:
		return doc[:i]
	case 1:
		return doc[:i] + doc[i:i+1] + doc[i:]
	case 2:
		return doc[:i] + string("x,]}:\"0"[r.IntN(7)]) + doc[i+1:]
	}
	return doc + []string{" ", "x", " {}", "1"}[r.IntN(4)]
}

// The scan judges every document it does not leave to the decode exactly
// as the decode does: 200,000 random documents (a third of them broken)
// and terms, the scan's answer against MatchJSON's decoded one. And it
// leaves little to the decode of what the codecs write (plain ASCII).
func TestFieldScanAgreesWithTheDecode(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	paths := [][]string{{"a"}, {"b"}, {"id"}, {"a", "b"}, {"a", "id"}, {"x y"}, {"b", "a", "id"}}
	values := []string{"1", "-0", "1.50", "2e3", "a", "order-1", "true", "false", "null", "", "é", `a"b`, "A", "\x00", "김민지", "caf\uFFFD"}
	scanned, plain, plainScanned := 0, 0, 0
	for n := range 200000 {
		doc := corrupt(r, randomDoc(r, 0))
		term := FieldTerm{Path: paths[r.IntN(len(paths))], Value: values[r.IntN(len(values))]}
		got, err := scanMatch([]byte(doc), term.Path, term.Value)
		isPlain := !strings.Contains(doc, `\`) && utf8.ValidString(doc)
		if isPlain {
			plain++
		}
		if err != nil {
			continue // the decode judges it
		}
		scanned++
		if isPlain {
			plainScanned++
		}
		want, werr := term.matchDecoded([]byte(doc))
		if werr != nil || got != want {
			t.Fatalf("doc %d %s, term %s: the scan says %v, the decode %v (%v)", n, doc, term, got, want, werr)
		}
		if all, _ := term.MatchJSON([]byte(doc)); all != want {
			t.Fatalf("doc %d %s, term %s: MatchJSON says %v, the decode %v", n, doc, term, all, want)
		}
	}
	if scanned < 100000 {
		t.Fatalf("the scan judged only %d of 200,000 documents", scanned)
	}
	t.Logf("the scan judged %d documents of 200,000 (%d of the %d plain ones)", scanned, plainScanned, plain)
}

// What the scan leaves to the decode (an escape, invalid UTF-8, something
// after the value, a syntax error) gets the decode's answer and error
// through MatchJSON; valid UTF-8 the scan judges itself.
func TestMatchJSONFallsBackToTheDecode(t *testing.T) {
	id := FieldTerm{Path: []string{"id"}, Value: "café"}
	if ok, err := scanMatch([]byte(`{"id":"café","name":"김민지"}`), id.Path, id.Value); err != nil || !ok {
		t.Fatalf("valid UTF-8: the scan says %v, %v; want a match it judged itself", ok, err)
	}
	for _, c := range []struct {
		doc  string
		want bool
	}{
		{`{"id":"caf\u00e9"}`, true},
		{"{\"id\":\"caf\xc3\xa9\xff\"}", false}, // the decode reads café\uFFFD
		{`{"id":"café"}x`, true},
		{`{"id":01}`, false},
		{`{"id":`, false},
	} {
		if _, err := scanMatch([]byte(c.doc), id.Path, id.Value); err != errScanFallback {
			t.Errorf("%s: the scan judged it (%v)", c.doc, err)
		}
		got, err := id.MatchJSON([]byte(c.doc))
		want, werr := id.matchDecoded([]byte(c.doc))
		if got != c.want || got != want || (err == nil) != (werr == nil) {
			t.Errorf("%s: MatchJSON %v, %v; the decode %v, %v; want %v", c.doc, got, err, want, werr, c.want)
		}
	}
}

// BenchmarkMatchJSON: a term on a decoded payment (the Avro demo record's
// JSON), scanned, against the decode MatchJSON did before the scan.
func BenchmarkMatchJSON(b *testing.B) {
	doc := []byte(`{"id":"pay-2026-12-04-000123","amount":1250,"rate":0.25,"paid":true,"payer":{"name":"Ann Example","iban":"DE89 3704"},` +
		`"tags":["card","web","eu"],"attrs":{"retries":1},"status":"PAID","note":"first","payee":null,"receipt":"AAEC/w==","day":"2026-12-04","at":"2026-12-04T04:19:29.123Z"}`)
	term := FieldTerm{Path: []string{"payer", "iban"}, Value: "DE89 3704"}
	for _, c := range []struct {
		name  string
		match func([]byte) (bool, error)
	}{{"scan", term.MatchJSON}, {"decode", term.matchDecoded}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if ok, err := c.match(doc); !ok || err != nil {
					b.Fatal(ok, err)
				}
			}
		})
	}
}
