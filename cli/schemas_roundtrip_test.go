// Round trips of issue 25: JSON published through a schema is the bytes
// the schema's own library marshals, and tail and search decode it back
// to the same JSON; JSON put on a queue through the same schema is the
// same bytes, and queue browse decodes it back.

package cli

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bufbuild/protocompile"
	"github.com/hamba/avro/v2"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// The demo's own schema of SHOP.ORDERS, used here as a team's .proto.
const demoProtoDir = "../ilink/engine/demo/schemas"

// orderJSON is a shop.Order with every kind the issue names: nested
// messages, a repeated field, a map, an enum, a oneof member and a
// google.protobuf.Timestamp (64-bit integers as JSON strings, as protojson
// writes them).
const orderJSON = `{"id":"o-1","customer":{"id":"c-1","name":"Kim Minji","address":{"city":"Seoul","postcode":"04524"}},` +
	`"lines":[{"sku":"s-1","qty":2,"price_krw":"1500"},{"sku":"s-2","qty":1,"price_krw":"700"}],` +
	`"labels":{"channel":"web"},"status":"PAID","card":{"brand":"VISA","last4":"4242"},` +
	`"created_at":"2026-12-04T10:00:00.250Z","total_krw":"3700"}`

// tailValues tails topic from its start for n records as JSON lines and
// returns each line's raw value bytes and decoded document.
func tailValues(t *testing.T, tgt []string, topic string, n int, flags ...string) (raw [][]byte, decoded []map[string]any, lines []string) {
	t.Helper()
	args := with(tgt, append([]string{"tail", topic, "--from", "earliest", "--count", itoa(n), "--format", "json"}, flags...)...)
	out, stderr, err := runCLI(t, "", args...)
	if err != nil {
		t.Fatalf("tail: %v\n%s", err, stderr)
	}
	return jsonLineValues(t, out, n)
}

// searchDecodesAs checks that search -o json with the schema flags finds
// topic's one record and decodes it back to doc.
func searchDecodesAs(t *testing.T, tgt []string, topic, doc string, flags []string) {
	t.Helper()
	out, stderr, err := runCLI(t, "", with(tgt, append([]string{"search", topic, "-o", "json"}, flags...)...)...)
	if err != nil {
		t.Fatalf("search: %v\n%s", err, stderr)
	}
	if _, sd, _ := jsonLineValues(t, out, 1); !reflect.DeepEqual(sd[0], jsonDoc(t, doc)) {
		t.Fatalf("search decodes %v, published %s", sd[0], doc)
	}
}

func jsonLineValues(t *testing.T, out string, n int) (raw [][]byte, decoded []map[string]any, lines []string) {
	t.Helper()
	lines = strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != n {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), n, out)
	}
	for _, l := range lines {
		var m struct {
			Value         string         `json:"value"`
			ValueEncoding string         `json:"value_encoding"`
			ValueDecoded  map[string]any `json:"value_decoded"`
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		v := []byte(m.Value)
		if m.ValueEncoding == "base64" {
			var err error
			if v, err = base64.StdEncoding.DecodeString(m.Value); err != nil {
				t.Fatal(err)
			}
		}
		raw = append(raw, v)
		decoded = append(decoded, m.ValueDecoded)
	}
	return raw, decoded, lines
}

// browseRoundTrip puts doc on a new queue through the schema of flags
// (queue put encodes it), checks the body is want (the library's own
// marshalling) and that queue browse with the same flags decodes it back
// to doc.
func browseRoundTrip(t *testing.T, tgt []string, queue, doc string, want []byte, flags []string) {
	t.Helper()
	if _, stderr, err := runAdminCLI(t, with(tgt, "queue", "create", queue)...); err != nil {
		t.Fatalf("queue create: %v\n%s", err, stderr)
	}
	if _, stderr, err := runAdminCLI(t, with(tgt, append([]string{"queue", "put", queue, "--value", doc}, flags...)...)...); err != nil {
		t.Fatalf("queue put: %v\n%s", err, stderr)
	}
	b := jsonOf[browseJSON](t, with(tgt, append([]string{"queue", "browse", queue}, flags...)...)...)
	if len(b.Messages) != 1 || b.Messages[0].Payload == nil {
		t.Fatalf("browse: %+v, want one message", b)
	}
	m := b.Messages[0]
	body := []byte(*m.Payload)
	if m.PayloadEncoding == "base64" {
		var err error
		if body, err = base64.StdEncoding.DecodeString(*m.Payload); err != nil {
			t.Fatal(err)
		}
	}
	if string(body) != string(want) {
		t.Fatalf("queue put %x, the library marshals %x", body, want)
	}
	var got map[string]any
	if err := json.Unmarshal(m.PayloadDecoded, &got); err != nil || !reflect.DeepEqual(got, jsonDoc(t, doc)) {
		t.Fatalf("browse decodes %s (%v, %q), put %s", m.PayloadDecoded, err, m.PayloadDecodeError, doc)
	}
	// --raw puts the JSON as typed: the same schema does not decode it.
	if _, stderr, err := runAdminCLI(t, with(tgt, append([]string{"queue", "put", queue, "--raw", "--value", doc}, flags...)...)...); err != nil {
		t.Fatalf("queue put --raw: %v\n%s", err, stderr)
	}
	b = jsonOf[browseJSON](t, with(tgt, append([]string{"queue", "browse", queue, "--from", "1"}, flags...)...)...)
	if len(b.Messages) != 1 || *b.Messages[0].Payload != doc || b.Messages[0].PayloadDecodeError == "" {
		t.Fatalf("--raw: %+v, want the JSON as typed with a decode error", b.Messages)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func jsonDoc(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// protoLibraryBytes marshals doc as shop.Order with the protobuf library
// alone: protocompile, dynamicpb, protojson, deterministic proto.Marshal.
func protoLibraryBytes(t *testing.T, doc string) []byte {
	t.Helper()
	comp := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{ImportPaths: []string{demoProtoDir}})}
	files, err := comp.Compile(context.Background(), "shop/order.proto")
	if err != nil {
		t.Fatal(err)
	}
	md := files[0].Messages().ByName(protoreflect.Name("Order"))
	m := dynamicpb.NewMessage(md)
	if err := protojson.Unmarshal([]byte(doc), m); err != nil {
		t.Fatal(err)
	}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSchemaRoundTripProtobuf(t *testing.T) {
	_, tgt := topicEngine(t, "SHOP.ORDERS", "partitions=1")
	flags := []string{"--value-proto", filepath.Join(demoProtoDir, "shop/order.proto") + ":shop.Order", "--proto-path", demoProtoDir}
	if _, stderr, err := runCLI(t, "", with(tgt, append([]string{"publish", "SHOP.ORDERS", "--key", "o-1", "--value", orderJSON}, flags...)...)...); err != nil {
		t.Fatalf("publish: %v\n%s", err, stderr)
	}
	raw, decoded, _ := tailValues(t, tgt, "SHOP.ORDERS", 1, flags...)
	if want := protoLibraryBytes(t, orderJSON); string(raw[0]) != string(want) {
		t.Fatalf("published bytes %x, the protobuf library marshals %x", raw[0], want)
	}
	if !reflect.DeepEqual(decoded[0], jsonDoc(t, orderJSON)) {
		t.Fatalf("tail decodes %v, published %s", decoded[0], orderJSON)
	}
	searchDecodesAs(t, tgt, "SHOP.ORDERS", orderJSON, flags)
	text, stderr, err := runCLI(t, "", with(tgt, append([]string{"tail", "SHOP.ORDERS", "--from", "earliest", "--count", "1"}, flags...)...)...)
	if err != nil || !strings.Contains(text, ` key=o-1 {"id":"o-1","customer":{"id":"c-1"`) {
		t.Fatalf("text tail %q (%v, %s): want the decoded JSON on the line", text, err, stderr)
	}
	browseRoundTrip(t, tgt, "SHOP.Q", orderJSON, raw[0], flags)
}

// paymentAvsc has every Avro kind the issue names: a record, an enum, a
// union, an array, a map and the logical date and timestamp-millis.
const paymentAvsc = `{"type": "record", "name": "Payment", "namespace": "t", "fields": [
  {"name": "id", "type": "string"},
  {"name": "status", "type": {"type": "enum", "name": "Status", "symbols": ["OK", "FAIL"]}},
  {"name": "method", "type": ["null", "string"]},
  {"name": "tags", "type": {"type": "array", "items": "string"}},
  {"name": "attrs", "type": {"type": "map", "values": "long"}},
  {"name": "settle_on", "type": {"type": "int", "logicalType": "date"}},
  {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}}
]}`

const paymentJSON = `{"id":"p-1","status":"OK","method":"card","tags":["a","b"],"attrs":{"n":5},"settle_on":"2026-12-06","at":"2026-12-04T10:00:00.123Z"}`

func TestSchemaRoundTripAvro(t *testing.T) {
	_, tgt := topicEngine(t, "PAY.T", "partitions=1")
	file := filepath.Join(t.TempDir(), "payment.avsc")
	if err := os.WriteFile(file, []byte(paymentAvsc), 0o644); err != nil {
		t.Fatal(err)
	}
	flags := []string{"--value-avro", file}
	if _, stderr, err := runCLI(t, "", with(tgt, append([]string{"publish", "PAY.T", "--value", paymentJSON}, flags...)...)...); err != nil {
		t.Fatalf("publish: %v\n%s", err, stderr)
	}
	raw, decoded, _ := tailValues(t, tgt, "PAY.T", 1, flags...)
	s := avro.MustParse(paymentAvsc)
	want, err := avro.Marshal(s, map[string]any{
		"id": "p-1", "status": "OK", "method": "card", "tags": []string{"a", "b"}, "attrs": map[string]any{"n": int64(5)},
		"settle_on": time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC), "at": time.Date(2026, 12, 4, 10, 0, 0, 123e6, time.UTC),
	})
	if err != nil {
		t.Fatal(err)
	}
	if string(raw[0]) != string(want) {
		t.Fatalf("published bytes %x, hamba/avro marshals %x", raw[0], want)
	}
	if !reflect.DeepEqual(decoded[0], jsonDoc(t, paymentJSON)) {
		t.Fatalf("tail decodes %v, published %s", decoded[0], paymentJSON)
	}
	searchDecodesAs(t, tgt, "PAY.T", paymentJSON, flags)
	browseRoundTrip(t, tgt, "PAY.Q", paymentJSON, want, flags)
}

// The demo's schema topics decode out of the box, on `tail --embedded`
// too (its seeded records are encoded as the live traffic's are).
func TestTailEmbeddedDecodesTheDemoSchemaTopics(t *testing.T) {
	for _, topic := range []string{"SHOP.ORDERS", "PAY.PAYMENTS"} {
		out, stderr, err := runCLI(t, "", "tail", topic, "--embedded", "--count", "12", "--format", "json")
		if err != nil {
			t.Fatalf("tail %s: %v\n%s", topic, err, stderr)
		}
		_, decoded, lines := jsonLineValues(t, out, 12)
		for i, d := range decoded {
			if d["id"] == nil || d["id"] == "" {
				t.Fatalf("%s line %d not decoded: %s", topic, i, lines[i])
			}
		}
	}
}

// search matches decoded records: --field on a decoded field, and the
// value criteria on the decoded JSON text rather than the bytes.
func TestSearchMatchesDecodedFields(t *testing.T) {
	_, tgt := topicEngine(t, "SHOP.ORDERS", "partitions=1")
	flags := []string{"--value-proto", filepath.Join(demoProtoDir, "shop/order.proto") + ":shop.Order", "--proto-path", demoProtoDir}
	for _, city := range []string{"Seoul", "Busan", "Seoul"} {
		v := `{"id":"o-` + city + `","customer":{"address":{"city":"` + city + `"}},"status":"PAID"}`
		if _, stderr, err := runCLI(t, "", with(tgt, append([]string{"publish", "SHOP.ORDERS", "--value", v}, flags...)...)...); err != nil {
			t.Fatalf("publish: %v\n%s", err, stderr)
		}
	}
	search := func(args ...string) (int, string) {
		t.Helper()
		out, stderr, err := runCLI(t, "", with(tgt, append(append([]string{"search", "SHOP.ORDERS", "-o", "json"}, args...), flags...)...)...)
		if err != nil {
			t.Fatalf("search %v: %v\n%s", args, err, stderr)
		}
		return strings.Count(out, "\n"), out
	}
	if n, out := search("--field", "customer.address.city=Busan"); n != 1 || !strings.Contains(out, `"id":"o-Busan"`) {
		t.Fatalf("--field customer.address.city=Busan: %d matches\n%s", n, out)
	}
	if n, _ := search("--field", "customer.address.city=Seoul", "--field", "status=PAID"); n != 2 {
		t.Fatalf("two --field terms: %d matches, want 2", n)
	}
	// The bytes hold no JSON: a match on the JSON text is on the decoded form.
	if n, _ := search("--value-contains", `"city":"Seoul"`); n != 2 {
		t.Fatalf("--value-contains on the decoded JSON: %d matches, want 2", n)
	}
	_, tgt2 := topicEngine(t, "PLAIN", "partitions=1")
	_, _, err := runCLI(t, "", with(tgt2, "search", "PLAIN", "--field", "a=b")...)
	wantExit(t, err, 2, "PLAIN has no value schema")
	_, _, err = runCLI(t, "", with(tgt2, "search", "PLAIN", "--field", "nopath")...)
	wantExit(t, err, 2, "--field")
}

// Templates expand inside the JSON before it is encoded: each record is
// the library's marshalling of its own expansion.
func TestPublishTemplateThroughASchema(t *testing.T) {
	_, tgt := topicEngine(t, "SHOP.ORDERS", "partitions=1")
	flags := []string{"--value-proto", filepath.Join(demoProtoDir, "shop/order.proto") + ":shop.Order", "--proto-path", demoProtoDir}
	tmpl := `{"id":"o-{{seq}}","labels":{"seq":"{{seq}}"},"total_krw":"1{{seq}}00"}`
	if _, stderr, err := runCLI(t, "", with(tgt, append([]string{"publish", "SHOP.ORDERS", "--count", "3", "--value", tmpl}, flags...)...)...); err != nil {
		t.Fatalf("publish: %v\n%s", err, stderr)
	}
	raw, decoded, _ := tailValues(t, tgt, "SHOP.ORDERS", 3, flags...)
	for i := range 3 {
		doc := strings.ReplaceAll(tmpl, "{{seq}}", itoa(i))
		if want := protoLibraryBytes(t, doc); string(raw[i]) != string(want) {
			t.Fatalf("record %d: %x, the protobuf library marshals %s as %x", i, raw[i], doc, want)
		}
		if !reflect.DeepEqual(decoded[i], jsonDoc(t, doc)) {
			t.Fatalf("record %d decodes %v, want %s", i, decoded[i], doc)
		}
	}
}
