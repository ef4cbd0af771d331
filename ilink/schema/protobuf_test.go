package schema

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

// The schema of the round trip: proto3 with a nested message, repeated,
// map, enum, oneof, an import from another directory of the import path
// and a well-known type.
const moneyProto = `syntax = "proto3";
package shop.shared;

message Money {
  string currency = 1;
  int64 units = 2;
}
`

const ordersProto = `syntax = "proto3";
package shop;

import "google/protobuf/timestamp.proto";
import "shared/money.proto";

enum Status {
  STATUS_UNSPECIFIED = 0;
  PLACED = 1;
  SHIPPED = 2;
}

message Order {
  message Line {
    string sku = 1;
    int32 qty = 2;
    shop.shared.Money price = 3;
  }
  string id = 1;
  repeated Line lines = 2;
  map<string, string> tags = 3;
  Status status = 4;
  oneof payment {
    string card = 5;
    string voucher = 6;
  }
  google.protobuf.Timestamp placed_at = 7;
  shop.shared.Money total = 8;
}

message Customer {
  string name = 1;
}
`

// orderJSON sets every kind of field, as Decode writes it (proto names,
// int64 as a string, enum by name).
const orderJSON = `{
  "id": "ord-1",
  "lines": [
    {"sku": "A-1", "qty": 2, "price": {"currency": "EUR", "units": "1250"}},
    {"sku": "B-7", "qty": 1}
  ],
  "tags": {"channel": "web", "region": "eu"},
  "status": "SHIPPED",
  "voucher": "XMAS",
  "placed_at": "2026-12-04T04:19:29.123Z",
  "total": {"currency": "EUR", "units": "2500"}
}`

// writeSchemas writes the round trip's files as a repository keeps them:
// schemas/orders.proto importing schemas/shared/money.proto.
func writeSchemas(t testing.TB) (dir, orders string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "schemas")
	writeFile(t, filepath.Join(dir, "shared", "money.proto"), moneyProto)
	orders = filepath.Join(dir, "orders.proto")
	writeFile(t, orders, ordersProto)
	return dir, orders
}

// orderCodec is the shop.Order codec of the files writeSchemas writes,
// and where they are.
func orderCodec(t testing.TB) (c Codec, dir, orders string) {
	t.Helper()
	dir, orders = writeSchemas(t)
	c, err := Protobuf([]string{orders}, []string{dir}, "shop.Order")
	if err != nil {
		t.Fatal(err)
	}
	return c, dir, orders
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// compileDirect compiles the files with protocompile itself, apart from
// the codec, for the expected bytes and the descriptor set.
func compileDirect(t testing.TB, dir string) protoreflect.FileDescriptor {
	t.Helper()
	c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{ImportPaths: []string{dir}})}
	files, err := c.Compile(context.Background(), "orders.proto")
	if err != nil {
		t.Fatal(err)
	}
	return files[0]
}

// libraryBytes is what the protobuf library itself marshals doc to.
func libraryBytes(t testing.TB, md protoreflect.MessageDescriptor, doc string) []byte {
	t.Helper()
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

// decodesTo decodes b with c, fails unless that is want (as JSON values)
// and returns the JSON.
func decodesTo(t *testing.T, c Codec, b []byte, want string) []byte {
	t.Helper()
	got, err := c.Decode(b)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	sameJSON(t, got, want)
	return got
}

// sameJSON fails unless got and want parse to equal values.
func sameJSON(t *testing.T, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("decoded JSON does not parse: %v\n%s", err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("decoded JSON differs:\n got %s\nwant %s", got, want)
	}
}

// roundTrip checks JSON → Encode → the library's bytes → Decode → the same
// JSON, and returns the bytes.
func roundTrip(t *testing.T, c Codec, md protoreflect.MessageDescriptor) []byte {
	t.Helper()
	b, err := c.Encode([]byte(orderJSON))
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	if want := libraryBytes(t, md, orderJSON); !bytes.Equal(b, want) {
		t.Errorf("Encode wrote\n%x\nthe library marshals\n%x", b, want)
	}
	got := decodesTo(t, c, b, orderJSON)
	if again, _ := c.Decode(b); !bytes.Equal(again, got) {
		t.Errorf("two decodes of the same bytes differ:\n%s\n%s", got, again)
	}
	return b
}

func TestProtobufRoundTrip(t *testing.T) {
	c, dir, orders := orderCodec(t)
	if want := "protobuf shop.Order (" + orders + ")"; c.Name() != want {
		t.Errorf("Name() = %q, want %q", c.Name(), want)
	}
	md := compileDirect(t, dir).Messages().ByName("Order")
	roundTrip(t, c, md)

	// Encode takes the lowerCamelCase names too; Decode writes the .proto's.
	b, err := c.Encode([]byte(`{"placedAt": "2026-12-04T04:19:29Z", "card": "4242"}`))
	if err != nil {
		t.Fatal(err)
	}
	decodesTo(t, c, b, `{"placed_at": "2026-12-04T04:19:29Z", "card": "4242"}`)

	// An empty message is valid bytes: no bytes.
	if got, err := c.Decode(nil); err != nil || string(got) != "{}" {
		t.Errorf("Decode(nil) = %s, %v; want {}", got, err)
	}
}

// A file under none of the import paths imports its siblings from its
// own directory, and Name says the file defining the message.
func TestProtobufWithoutImportPaths(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "money.proto"), moneyProto)
	orders := filepath.Join(dir, "orders.proto")
	writeFile(t, orders, strings.Replace(ordersProto, `"shared/money.proto"`, `"money.proto"`, 1))
	c, err := Protobuf([]string{orders}, nil, "shop.shared.Money")
	if err != nil {
		t.Fatal(err)
	}
	if want := "protobuf shop.shared.Money (" + filepath.Join(dir, "money.proto") + ")"; c.Name() != want {
		t.Errorf("Name() = %q, want %q", c.Name(), want)
	}
	b, err := c.Encode([]byte(`{"currency": "EUR", "units": "7"}`))
	if err != nil {
		t.Fatal(err)
	}
	decodesTo(t, c, b, `{"currency": "EUR", "units": "7"}`)
}

// descriptorSet is what protoc --include_imports writes for fd: every file
// it needs, imports first. The files come out in reverse when reversed is
// set, and without the well-known types when noWKT is.
func descriptorSet(t *testing.T, fd protoreflect.FileDescriptor, reversed, noWKT bool) []byte {
	t.Helper()
	var set descriptorpb.FileDescriptorSet
	seen := map[string]bool{}
	var add func(protoreflect.FileDescriptor)
	add = func(f protoreflect.FileDescriptor) {
		if seen[f.Path()] {
			return
		}
		seen[f.Path()] = true
		for i := range f.Imports().Len() {
			add(f.Imports().Get(i).FileDescriptor)
		}
		if noWKT && strings.HasPrefix(f.Path(), "google/protobuf/") {
			return
		}
		set.File = append(set.File, protodesc.ToFileDescriptorProto(f))
	}
	add(fd)
	if reversed {
		slices.Reverse(set.File)
	}
	b, err := proto.Marshal(&set)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestProtobufDescriptorSet(t *testing.T) {
	fromSource, dir, _ := orderCodec(t)
	fd := compileDirect(t, dir)
	md := fd.Messages().ByName("Order")
	wire := roundTrip(t, fromSource, md)

	for _, tc := range []struct {
		name            string
		reversed, noWKT bool
	}{
		{"as protoc writes it", false, false},
		{"imports listed last", true, false},
		{"without the well-known types", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "orders.binpb")
			writeFile(t, file, string(descriptorSet(t, fd, tc.reversed, tc.noWKT)))
			c, err := ProtobufDescriptorSet(file, "shop.Order")
			if err != nil {
				t.Fatal(err)
			}
			if want := "protobuf shop.Order (" + file + ")"; c.Name() != want {
				t.Errorf("Name() = %q, want %q", c.Name(), want)
			}
			if got := roundTrip(t, c, md); !bytes.Equal(got, wire) {
				t.Errorf("the set encodes\n%x\nthe .proto files\n%x", got, wire)
			}
		})
	}
}

func TestProtobufDescriptorSetErrors(t *testing.T) {
	dir, _ := writeSchemas(t)
	fd := compileDirect(t, dir)
	tmp := t.TempDir()

	// Without --include_imports: money.proto is missing, and no built-in.
	var set descriptorpb.FileDescriptorSet
	set.File = append(set.File, protodesc.ToFileDescriptorProto(fd))
	b, _ := proto.Marshal(&set)
	noImports := filepath.Join(tmp, "no-imports.pb")
	writeFile(t, noImports, string(b))

	notASet := filepath.Join(tmp, "orders.proto.pb")
	writeFile(t, notASet, ordersProto)

	full := filepath.Join(tmp, "orders.pb")
	writeFile(t, full, string(descriptorSet(t, fd, false, false)))

	for _, tc := range []struct {
		file, message string
		want          []string
	}{
		{noImports, "shop.Order", []string{noImports, "orders.proto imports shared/money.proto", "--include_imports"}},
		{notASet, "shop.Order", []string{notASet, "not a descriptor set"}},
		{filepath.Join(tmp, "missing.pb"), "shop.Order", []string{"missing.pb"}},
		// The well-known types the set includes are not listed.
		{full, "shop.Ordr", []string{"no message shop.Ordr in " + full, "shop.shared.Money, shop.Order, shop.Order.Line, shop.Customer"}},
	} {
		_, err := ProtobufDescriptorSet(tc.file, tc.message)
		if err == nil {
			t.Errorf("ProtobufDescriptorSet(%s, %s): no error", tc.file, tc.message)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("ProtobufDescriptorSet(%s, %s) error %q does not say %q", tc.file, tc.message, err, w)
			}
		}
		if strings.Contains(err.Error(), "Timestamp") {
			t.Errorf("error lists the well-known types: %q", err)
		}
	}
}

// A schema that does not compile names the file as given, the line and
// column, and the reason.
func TestProtobufCompileErrors(t *testing.T) {
	dir, _ := writeSchemas(t)
	syntaxErr := filepath.Join(dir, "bad.proto")
	writeFile(t, syntaxErr, "syntax = \"proto3\";\npackage shop;\nmessage Bad {\n  string id = 1\n}\n")
	unknownType := filepath.Join(dir, "types.proto")
	writeFile(t, unknownType, "syntax = \"proto3\";\npackage shop;\nmessage T {\n  Nope n = 1;\n}\n")
	missingImport := filepath.Join(dir, "imports.proto")
	writeFile(t, missingImport, "syntax = \"proto3\";\nimport \"nowhere.proto\";\n")
	// The error is in an imported file: named as found on disk.
	importsBad := filepath.Join(dir, "uses-bad.proto")
	writeFile(t, importsBad, "syntax = \"proto3\";\nimport \"bad.proto\";\n")

	for _, tc := range []struct {
		file string
		want []string
	}{
		{syntaxErr, []string{syntaxErr + ":5:1:", "syntax error"}},
		{unknownType, []string{unknownType + ":4:3:", "Nope"}},
		{missingImport, []string{missingImport + ":2:8:", "nowhere.proto"}},
		{importsBad, []string{syntaxErr + ":5:1:", "syntax error"}},
		{filepath.Join(dir, "absent.proto"), []string{"absent.proto", "no such file"}},
	} {
		_, err := Protobuf([]string{tc.file}, []string{dir}, "shop.Order")
		if err == nil {
			t.Errorf("Protobuf(%s): no error", tc.file)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("Protobuf(%s) error %q does not say %q", tc.file, err, w)
			}
		}
	}
}

func TestProtobufUnknownMessage(t *testing.T) {
	dir, orders := writeSchemas(t)
	_, err := Protobuf([]string{orders}, []string{dir}, "shop.Ordr")
	if err == nil {
		t.Fatal("no error for a message the file does not define")
	}
	want := "no message shop.Ordr in " + orders + "; it defines shop.Order, shop.Order.Line, shop.Customer"
	if err.Error() != "protobuf: "+want {
		t.Errorf("error %q, want %q", err, "protobuf: "+want)
	}

	// An enum is not a message; more than ten messages are counted.
	if _, err := Protobuf([]string{orders}, []string{dir}, "shop.Status"); err == nil || !strings.Contains(err.Error(), "shop.Status in "+orders+" is not a message") {
		t.Errorf("an enum as the message: %v", err)
	}
	var many strings.Builder
	many.WriteString("syntax = \"proto3\";\npackage many;\n")
	for _, m := range strings.Fields("A B C D E F G H I J K L") {
		many.WriteString("message " + m + " {}\n")
	}
	manyFile := filepath.Join(dir, "many.proto")
	writeFile(t, manyFile, many.String())
	_, err = Protobuf([]string{manyFile}, []string{dir}, "many.Z")
	if err == nil || !strings.HasSuffix(err.Error(), "it defines many.A, many.B, many.C, many.D, many.E, many.F, many.G, many.H, many.I, many.J and 2 more") {
		t.Errorf("a file of twelve messages: %v", err)
	}
}

// JSON that does not fit the schema is an error naming the field.
func TestProtobufEncodeErrors(t *testing.T) {
	c, _, _ := orderCodec(t)
	for _, tc := range []struct {
		doc, field string // field: where the error says the field is
	}{
		{`{"id": "x", "colour": "red"}`, `at colour: (line 1:13): unknown field "colour"`},
		{`{"lines": [{"sku": "A", "qty": "many"}]}`, "at lines[0].qty: "},
		{"{\n  \"lines\": [\n    {},\n    {\"price\": {\"currency\": \"€\", \"units\": 1.5}}\n  ]\n}", "at lines[1].price.units: (line 4:42): "},
		{`{"status": "LOST"}`, "at status: "},
		{`{"placed_at": "yesterday"}`, "at placed_at: "},
		{`{"tags": {"a": 1}}`, "at tags.a: "},
		{`{"card": "1", "voucher": "2"}`, "at voucher: "},
		{`{"id": 7}`, "at id: "},
	} {
		b, err := c.Encode([]byte(tc.doc))
		if err == nil {
			t.Errorf("Encode(%s) = %x, no error", tc.doc, b)
			continue
		}
		if !strings.HasPrefix(err.Error(), "JSON does not fit shop.Order "+tc.field) {
			t.Errorf("Encode(%s) error %q, want it to start %q", tc.doc, err, "JSON does not fit shop.Order "+tc.field)
		}
		if strings.Contains(err.Error(), "proto:") {
			t.Errorf("Encode(%s) error %q keeps the library's prefix", tc.doc, err)
		}
	}
	if _, err := c.Encode([]byte(`{"id": `)); err == nil {
		t.Error("Encode of truncated JSON: no error")
	}
}

// Bytes that are not the message are an error, never a panic nor an
// empty object.
func TestProtobufDecodeErrors(t *testing.T) {
	c, _, _ := orderCodec(t)
	good, err := c.Encode([]byte(orderJSON))
	if err != nil {
		t.Fatal(err)
	}
	// Field 99 and field 1 as a varint (id is a string): well-formed wire
	// bytes of none of Order's fields.
	otherSchema := protowire.AppendVarint(protowire.AppendTag(nil, 99, protowire.VarintType), 5)
	otherSchema = protowire.AppendVarint(protowire.AppendTag(otherSchema, 1, protowire.VarintType), 1)
	for _, tc := range []struct {
		name string
		b    []byte
		want string
	}{
		{"text", []byte("not protobuf at all"), "not a shop.Order: "},
		{"truncated", good[:len(good)/2], "not a shop.Order: "},
		{"0xff", []byte{0xff, 0xff, 0xff}, "not a shop.Order: "},
		{"another schema's", otherSchema, "not a shop.Order: none of its fields in the 5 bytes (field numbers 99 (wire type 0), 1 (wire type 0))"},
	} {
		got, err := c.Decode(tc.b)
		if err == nil {
			t.Errorf("Decode(%s) = %s, no error", tc.name, got)
			continue
		}
		if !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Decode(%s) error %q, want it to start %q", tc.name, err, tc.want)
		}
	}
}

// BenchmarkProtobufDecode decodes an order of about 100 bytes, as the tail
// does for every record of a decoded topic.
func BenchmarkProtobufDecode(b *testing.B) {
	c, _, _ := orderCodec(b)
	wire, err := c.Encode([]byte(orderJSON))
	if err != nil {
		b.Fatal(err)
	}
	benchDecode(b, c, wire, "order")
}

// benchDecode times c decoding wire, a what of about 100 bytes.
func benchDecode(b *testing.B, c Codec, wire []byte, what string) {
	if len(wire) < 80 || len(wire) > 120 {
		b.Fatalf("the %s is %d bytes, not about 100", what, len(wire))
	}
	b.SetBytes(int64(len(wire)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Decode(wire); err != nil {
			b.Fatal(err)
		}
	}
}

// A file named relative to an import path, as protoc takes it
// (-I schemas shared/money.proto), is found there; one in none of them
// says where it was looked for.
func TestProtobufFileRelativeToAnImportPath(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "shared", "money.proto"), moneyProto)
	c, err := Protobuf([]string{"shared/money.proto"}, []string{dir}, "shop.shared.Money")
	if err != nil {
		t.Fatal(err)
	}
	if want := "protobuf shop.shared.Money (" + filepath.Join(dir, "shared", "money.proto") + ")"; c.Name() != want {
		t.Errorf("Name() = %q, want %q", c.Name(), want)
	}
	_, err = Protobuf([]string{"shared/nope.proto"}, []string{dir}, "shop.shared.Money")
	if err == nil || !strings.Contains(err.Error(), "shared/nope.proto") || !strings.Contains(err.Error(), "nor in the import paths "+dir) {
		t.Errorf("a file in no import path: %v", err)
	}
}
