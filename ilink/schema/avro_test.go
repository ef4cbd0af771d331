package schema

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hamba/avro/v2"
)

const paymentAvsc = `{
  "type": "record", "name": "Payment", "namespace": "com.shop",
  "fields": [
    {"name": "id", "type": "string"},
    {"name": "amount", "type": "long"},
    {"name": "rate", "type": "double"},
    {"name": "paid", "type": "boolean"},
    {"name": "payer", "type": {"type": "record", "name": "Party", "fields": [
      {"name": "name", "type": "string"},
      {"name": "iban", "type": ["null", "string"], "default": null}
    ]}},
    {"name": "tags", "type": {"type": "array", "items": "string"}},
    {"name": "attrs", "type": {"type": "map", "values": "long"}},
    {"name": "status", "type": {"type": "enum", "name": "Status", "symbols": ["NEW", "PAID", "REFUNDED"]}},
    {"name": "note", "type": ["null", "string"], "default": null},
    {"name": "payee", "type": ["null", "Party"], "default": null},
    {"name": "receipt", "type": "bytes"},
    {"name": "day", "type": {"type": "int", "logicalType": "date"}},
    {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}}
  ]
}`

// paymentFields is the schema's field order, which Decode must keep.
var paymentFields = []string{"id", "amount", "rate", "paid", "payer", "tags", "attrs", "status", "note", "payee", "receipt", "day", "at"}

const paymentJSON = `{"at": "2026-12-04T04:19:29.123Z", "id": "p-1", "amount": -1250, "rate": 0.25, "paid": true,
  "payer": {"iban": "DE89", "name": "Ann"}, "tags": ["a", "b"], "attrs": {"n": 3}, "status": "PAID",
  "note": null, "payee": {"name": "Bob", "iban": null}, "receipt": "AAEC/w==", "day": "2026-12-04"}`

// The same payment as Go values the library marshals by its struct tags,
// its own mapping, independent of the codec's.
type avroParty struct {
	Name string  `avro:"name"`
	IBAN *string `avro:"iban"`
}

type avroPayment struct {
	ID      string           `avro:"id"`
	Amount  int64            `avro:"amount"`
	Rate    float64          `avro:"rate"`
	Paid    bool             `avro:"paid"`
	Payer   avroParty        `avro:"payer"`
	Tags    []string         `avro:"tags"`
	Attrs   map[string]int64 `avro:"attrs"`
	Status  string           `avro:"status"`
	Note    *string          `avro:"note"`
	Payee   *avroParty       `avro:"payee"`
	Receipt []byte           `avro:"receipt"`
	Day     time.Time        `avro:"day"`
	At      time.Time        `avro:"at"`
}

func avroPaymentValue() avroPayment {
	iban := "DE89"
	return avroPayment{
		ID: "p-1", Amount: -1250, Rate: 0.25, Paid: true,
		Payer:  avroParty{Name: "Ann", IBAN: &iban},
		Tags:   []string{"a", "b"},
		Attrs:  map[string]int64{"n": 3},
		Status: "PAID",
		Payee:  &avroParty{Name: "Bob"},
		// base64 AAEC/w==
		Receipt: []byte{0, 1, 2, 0xff},
		Day:     time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC),
		At:      time.Date(2026, 12, 4, 4, 19, 29, 123e6, time.UTC),
	}
}

func avroWrite(t testing.TB, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func avroPaymentCodec(t testing.TB) (*AvroCodec, string) {
	t.Helper()
	file := avroWrite(t, "payment.avsc", paymentAvsc)
	c, err := Avro(file)
	if err != nil {
		t.Fatal(err)
	}
	return c.(*AvroCodec), file
}

// avroKeys is the order of the keys of the object doc is (or path in it
// names, one key a step).
func avroKeys(t *testing.T, doc []byte, path ...string) []string {
	t.Helper()
	var top map[string]json.RawMessage
	if err := json.Unmarshal(doc, &top); err != nil {
		t.Fatal(err)
	}
	for _, p := range path {
		doc = top[p]
		top = nil
		if err := json.Unmarshal(doc, &top); err != nil {
			t.Fatal(err)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	var keys []string
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		default:
			if s, ok := tok.(string); ok && depth == 1 {
				keys = append(keys, s)
				// Skip the value.
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return keys
}

func TestAvroRoundTrip(t *testing.T) {
	c, file := avroPaymentCodec(t)
	if want := "avro com.shop.Payment (" + file + ")"; c.Name() != want {
		t.Errorf("Name() = %q, want %q", c.Name(), want)
	}
	wire, err := c.Encode([]byte(paymentJSON))
	if err != nil {
		t.Fatal(err)
	}
	lib, err := avro.Marshal(c.schema, avroPaymentValue())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(wire, lib) {
		t.Fatalf("Encode = %x\nlibrary  %x", wire, lib)
	}
	// The library reads the bytes back as the same payment.
	var back avroPayment
	if err := avro.Unmarshal(c.schema, wire, &back); err != nil {
		t.Fatal(err)
	}
	if want := avroPaymentValue(); !reflect.DeepEqual(back, want) {
		t.Errorf("library decoded %+v\nwant %+v", back, want)
	}

	got := decodesTo(t, c, wire, paymentJSON)
	if keys := avroKeys(t, got); !reflect.DeepEqual(keys, paymentFields) {
		t.Errorf("fields in order %v, want the schema's %v", keys, paymentFields)
	}
	if keys := avroKeys(t, got, "payer"); !reflect.DeepEqual(keys, []string{"name", "iban"}) {
		t.Errorf("payer fields in order %v, want name, iban", keys)
	}
	// Decoding twice gives the same bytes.
	again, err := c.Decode(wire)
	if err != nil || !bytes.Equal(again, got) {
		t.Errorf("second Decode = %s, %v; want %s", again, err, got)
	}
}

// Encode takes a union in the Avro JSON encoding's wrapped form too, and
// fills a field left out with its default.
func TestAvroEncodeForms(t *testing.T) {
	c, _ := avroPaymentCodec(t)
	plain, err := c.Encode([]byte(paymentJSON))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(paymentJSON), &doc); err != nil {
		t.Fatal(err)
	}
	doc["payer"] = map[string]any{"name": "Ann", "iban": map[string]any{"string": "DE89"}}
	doc["payee"] = map[string]any{"com.shop.Party": map[string]any{"name": "Bob"}}
	delete(doc, "note")
	wrapped, _ := json.Marshal(doc)
	got, err := c.Encode(wrapped)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, plain) {
		t.Errorf("wrapped unions and defaults encode to %x, want %x", got, plain)
	}

	// Map keys come out sorted whatever their order on the wire.
	doc["attrs"] = map[string]any{"zeta": 1, "alpha": 2, "mid": 3}
	b, _ := json.Marshal(doc)
	wire, err := c.Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.Decode(wire)
	if err != nil {
		t.Fatal(err)
	}
	if keys := avroKeys(t, out, "attrs"); !reflect.DeepEqual(keys, []string{"alpha", "mid", "zeta"}) {
		t.Errorf("map keys %v, want sorted", keys)
	}
}

func TestAvroSingleObject(t *testing.T) {
	c, _ := avroPaymentCodec(t)
	so, err := c.SingleObject([]byte(paymentJSON))
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := c.Encode([]byte(paymentJSON))
	fp, err := c.schema.FingerprintUsing(avro.CRC64AvroLE)
	if err != nil {
		t.Fatal(err)
	}
	want := append(append([]byte{0xc3, 0x01}, fp...), plain...)
	if !bytes.Equal(so, want) {
		t.Fatalf("SingleObject = %x\nwant          %x", so, want)
	}
	decodesTo(t, c, so, paymentJSON)

	// Another schema's fingerprint is refused, naming both.
	other := bytes.Clone(so)
	other[2] ^= 0xff
	_, err = c.Decode(other)
	theirs := binary.LittleEndian.Uint64(other[2:10])
	for _, w := range []string{"not a com.shop.Payment", hex64(theirs), hex64(c.Fingerprint())} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("Decode with another fingerprint: error %v, want it to say %s", err, w)
		}
	}
	if _, err := c.Decode(so[:6]); err == nil || !strings.Contains(err.Error(), "header cut short") {
		t.Errorf("Decode of a cut header: error %v", err)
	}
}

func hex64(v uint64) string { return fmt.Sprintf("0x%016x", v) }

// The fingerprint is CRC-64-AVRO as the specification computes it: its
// test vector for "null" is 0x63dd24e7cc258f8a (Java's
// SchemaNormalization.parsingFingerprint64), little-endian in the header.
func TestAvroFingerprintIsTheSpecs(t *testing.T) {
	file := avroWrite(t, "null.avsc", `"null"`)
	c, err := Avro(file)
	if err != nil {
		t.Fatal(err)
	}
	if fp := c.(*AvroCodec).Fingerprint(); fp != 0x63dd24e7cc258f8a {
		t.Errorf("fingerprint of null %#x, want 0x63dd24e7cc258f8a", fp)
	}
	got, err := c.Decode([]byte{0xc3, 0x01, 0x8a, 0x8f, 0x25, 0xcc, 0xe7, 0x24, 0xdd, 0x63})
	if err != nil || string(got) != "null" {
		t.Errorf("Decode of a single-object null = %s, %v", got, err)
	}
	if c.Name() != "avro null ("+file+")" {
		t.Errorf("Name() = %q", c.Name())
	}
}

func TestAvroBadSchema(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"syntax.avsc", "{\"type\": \"record\",\n \"name\": \"P\"\n \"fields\": []}", []string{":3:2:", "invalid character"}},
		{"typo.avsc", "{\"type\": \"record\", \"name\": \"P\", \"fields\": [\n  {\"name\": \"a\", \"type\": \"lnog\"}\n]}", []string{":2:", "unknown type", "lnog"}},
		{"nofields.avsc", `{"type": "record", "name": "P"}`, []string{"fields"}},
		{"cut.avsc", `{"type": "record", `, []string{"unexpected end"}},
	} {
		file := avroWrite(t, tc.name, tc.text)
		_, err := Avro(file)
		if err == nil {
			t.Errorf("Avro(%s): no error", tc.name)
			continue
		}
		for _, w := range append([]string{file}, tc.want...) {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("Avro(%s) error %q does not say %q", tc.name, err, w)
			}
		}
	}
	absent := filepath.Join(t.TempDir(), "absent.avsc")
	if _, err := Avro(absent); err == nil || !strings.Contains(err.Error(), absent) {
		t.Errorf("Avro of a missing file: error %v, want it to name the file", err)
	}
}

func TestAvroEncodeErrors(t *testing.T) {
	c, _ := avroPaymentCodec(t)
	for _, tc := range []struct {
		change map[string]any
		drop   string
		want   string
	}{
		{change: map[string]any{"amount": "abc"}, want: `at amount: want a long, got "abc"`},
		{change: map[string]any{"amount": 1.5}, want: `at amount: want a long, got 1.5`},
		{drop: "id", want: "at id: missing"},
		{change: map[string]any{"payer": map[string]any{"name": 7}}, want: "at payer.name: want a string, got 7"},
		{change: map[string]any{"payer": map[string]any{"iban": "X"}}, want: "at payer.name: missing"},
		{change: map[string]any{"tags": []any{"a", false}}, want: "at tags[1]: want a string, got false"},
		{change: map[string]any{"attrs": map[string]any{"k": "v"}}, want: `at attrs["k"]: want a long, got "v"`},
		{change: map[string]any{"status": "LOST"}, want: `at status: want a com.shop.Status symbol (NEW, PAID, REFUNDED), got "LOST"`},
		{change: map[string]any{"note": 5}, want: "at note: want a string, got 5"},
		{change: map[string]any{"receipt": "not base64!"}, want: "at receipt: want bytes (base64)"},
		{change: map[string]any{"day": "yesterday"}, want: "at day: want a date"},
		{change: map[string]any{"paid": "yes"}, want: `at paid: want a boolean, got "yes"`},
		{change: map[string]any{"colour": "red"}, want: "at colour: not a field of com.shop.Payment"},
	} {
		var doc map[string]any
		if err := json.Unmarshal([]byte(paymentJSON), &doc); err != nil {
			t.Fatal(err)
		}
		for k, v := range tc.change {
			doc[k] = v
		}
		delete(doc, tc.drop)
		b, _ := json.Marshal(doc)
		out, err := c.Encode(b)
		if err == nil {
			t.Errorf("Encode(%s) = %x, no error", b, out)
			continue
		}
		if !strings.HasPrefix(err.Error(), "JSON does not fit com.shop.Payment ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Encode with %v: error %q, want %q", tc.change, err, tc.want)
		}
	}
	for _, doc := range []string{`{"id": `, `[1, 2]`, `{} {}`, `"p-1"`} {
		if _, err := c.Encode([]byte(doc)); err == nil {
			t.Errorf("Encode(%s): no error", doc)
		}
	}
}

// Bytes that are not a payment are an error, never a panic: every cut of
// a good record, bytes left over, and noise.
func TestAvroDecodeErrors(t *testing.T) {
	c, _ := avroPaymentCodec(t)
	good, err := c.Encode([]byte(paymentJSON))
	if err != nil {
		t.Fatal(err)
	}
	for n := range len(good) {
		if out, err := c.Decode(good[:n]); err == nil || !strings.HasPrefix(err.Error(), "not a com.shop.Payment: ") {
			t.Errorf("Decode of the first %d of %d bytes = %s, %v; want an error", n, len(good), out, err)
		}
	}
	if _, err := c.Decode(append(bytes.Clone(good), 0)); err == nil || !strings.Contains(err.Error(), "1 bytes left over") {
		t.Errorf("Decode with a byte left over: error %v", err)
	}
	// A huge array count must be refused before anything is made of it.
	huge := []byte{0x02, 'x', 0x02}                                           // id "x", amount 1
	huge = append(huge, make([]byte, 8)...)                                   // rate 0
	huge = append(huge, 0x00, 0x02, 'A', 0x00)                                // paid false, payer {"A", null}
	huge = append(huge, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f) // tags: 2^62-1 of them
	if _, err := c.Decode(huge); err == nil || !strings.Contains(err.Error(), "tags") {
		t.Errorf("Decode of a huge array count: error %v, want it to name tags", err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		noise := make([]byte, rng.IntN(64))
		for i := range noise {
			noise[i] = byte(rng.UintN(256))
		}
		if _, err := c.Decode(noise); err == nil {
			continue // noise can be a payment, rarely
		} else if strings.Contains(err.Error(), "runtime error") {
			t.Fatalf("Decode(%x) panicked: %v", noise, err)
		}
	}
}

// BenchmarkAvroDecode decodes a payment of about 100 bytes, as the tail
// does for every record of a decoded topic.
func BenchmarkAvroDecode(b *testing.B) {
	c, _ := avroPaymentCodec(b)
	wire, err := c.Encode([]byte(`{"id": "pay-2026-12-04-000123", "amount": 1250, "rate": 0.25, "paid": true,
	  "payer": {"name": "Ann Example", "iban": "DE89 3704"}, "tags": ["card", "web", "eu"],
	  "attrs": {"retries": 1}, "status": "PAID", "note": "first", "payee": null,
	  "receipt": "AAEC/w==", "day": "2026-12-04", "at": "2026-12-04T04:19:29.123Z"}`))
	if err != nil {
		b.Fatal(err)
	}
	benchDecode(b, c, wire, "payment")
}

const logicalAvsc = `{"type": "record", "name": "Reading", "fields": [
  {"name": "price", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}},
  {"name": "code", "type": {"type": "fixed", "name": "Code", "size": 4}},
  {"name": "ratio", "type": "float"},
  {"name": "t", "type": {"type": "int", "logicalType": "time-millis"}},
  {"name": "us", "type": {"type": "long", "logicalType": "time-micros"}},
  {"name": "u", "type": {"type": "string", "logicalType": "uuid"}},
  {"name": "local", "type": {"type": "long", "logicalType": "local-timestamp-micros"}},
  {"name": "dur", "type": {"type": "fixed", "name": "Dur", "size": 12, "logicalType": "duration"}},
  {"name": "nan", "type": "double"}
]}`

type avroReading struct {
	Price *big.Rat      `avro:"price"`
	Code  [4]byte       `avro:"code"`
	Ratio float32       `avro:"ratio"`
	T     time.Duration `avro:"t"`
	US    time.Duration `avro:"us"`
	U     string        `avro:"u"`
	Local int64         `avro:"local"`
	Dur   [12]byte      `avro:"dur"`
	NaN   float64       `avro:"nan"`
}

// The other logical types, fixed and float read back as they were
// written, in bytes the library writes for the same values.
func TestAvroLogicalTypes(t *testing.T) {
	c, err := Avro(avroWrite(t, "reading.avsc", logicalAvsc))
	if err != nil {
		t.Fatal(err)
	}
	doc := `{"price": "-12.50", "code": "AQIDBA==", "ratio": 0.1, "t": "04:19:29.123", "us": "23:59:59.000001",
	  "u": "2f1b0c64-5f8e-4a51-9a52-0c3c1b6f4f10", "local": "2026-12-04T04:19:29.5", 
	  "dur": {"months": 1, "days": 2, "milliseconds": 3}, "nan": "NaN"}`
	wire, err := c.Encode([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	lib, err := avro.Marshal(c.(*AvroCodec).schema, avroReading{
		Price: big.NewRat(-1250, 100),
		Code:  [4]byte{1, 2, 3, 4},
		Ratio: 0.1,
		T:     4*time.Hour + 19*time.Minute + 29*time.Second + 123*time.Millisecond,
		US:    24*time.Hour - time.Second + time.Microsecond,
		U:     "2f1b0c64-5f8e-4a51-9a52-0c3c1b6f4f10",
		Local: time.Date(2026, 12, 4, 4, 19, 29, 5e8, time.UTC).UnixMicro(),
		Dur:   [12]byte{1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0},
		NaN:   math.NaN(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(wire, lib) {
		t.Fatalf("Encode = %x\nlibrary  %x", wire, lib)
	}
	decodesTo(t, c, wire, doc)
	// The plain numbers the Avro JSON encoding uses are taken too.
	num, err := c.Encode([]byte(strings.NewReplacer(`"-12.50"`, `-12.5`, `"04:19:29.123"`, `15569123`,
		`"2026-12-04T04:19:29.5"`, strconv.FormatInt(time.Date(2026, 12, 4, 4, 19, 29, 5e8, time.UTC).UnixMicro(), 10)).Replace(doc)))
	if err != nil || !bytes.Equal(num, wire) {
		t.Errorf("Encode of the numeric forms = %x, %v; want %x", num, err, wire)
	}
	if _, err := c.Encode([]byte(strings.Replace(doc, `"-12.50"`, `"1.005"`, 1))); err == nil || !strings.Contains(err.Error(), "at price: want a decimal of at most 2 places") {
		t.Errorf("Encode of a decimal with 3 places: error %v", err)
	}
}

// A recursive schema decodes as deep as its bytes go, up to a bound that
// keeps hostile bytes from growing the stack without end.
func TestAvroRecursive(t *testing.T) {
	c, err := Avro(avroWrite(t, "node.avsc", `{"type": "record", "name": "Node", "fields": [
	  {"name": "next", "type": ["null", "Node"]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	decodesTo(t, c, []byte{0x02, 0x02, 0x00}, `{"next": {"next": {"next": null}}}`)
	deep := append(bytes.Repeat([]byte{0x02}, 10000), 0x00)
	if _, err := c.Decode(deep); err == nil || !strings.Contains(err.Error(), "nested deeper than") {
		t.Errorf("Decode of 10000 levels: error %v, want the nesting bound", err)
	}
}
