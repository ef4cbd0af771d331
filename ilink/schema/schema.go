// Package schema decodes and encodes record values (and keys) with the
// schemas teams keep in their repositories: Protobuf from .proto files
// (compiled in-process) or a descriptor set, and Avro from an .avsc file.
// iLink has no schema registry, so a schema is named by its file.
//
// A Codec turns the bytes of a record into JSON for display, search and
// `tail --format json`, and JSON typed by an operator (the publish form,
// `ild publish`) into the bytes the schema describes. Errors name what was
// wrong: the schema file with its line and reason when it does not
// compile, the field when JSON does not fit.
package schema

// Codec is one schema, ready to decode and encode.
type Codec interface {
	// Name says which schema this is, for headers and errors:
	// "protobuf shop.Order (schemas/orders.proto)".
	Name() string
	// Decode turns encoded bytes into a JSON document.
	Decode(b []byte) ([]byte, error)
	// Encode turns a JSON document into encoded bytes; JSON that does not
	// fit the schema is an error naming the field.
	Encode(json []byte) ([]byte, error)
}
