package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// jsonSchemaCodec validates JSON values against a JSON Schema (any draft
// the library knows; 2020-12 when the schema names none). The bytes are
// JSON either way: Decode checks and compacts them, Encode checks what the
// operator typed and sends it compacted.
type jsonSchemaCodec struct {
	name   string
	schema *jsonschema.Schema
}

// jsonSchemaPrinter renders the library's error kinds in English.
var jsonSchemaPrinter = message.NewPrinter(language.English)

// JSONSchema compiles the JSON Schema in file. $refs resolve against
// local files only (relative to file): nothing is fetched from a network.
func JSONSchema(file string) (Codec, error) {
	text, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("json-schema: %w", err)
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, fmt.Errorf("json-schema: %s: %w", file, err)
	}
	return jsonSchemaFrom(file, "file://"+filepath.ToSlash(abs), text, jsonschema.SchemeURLLoader{"file": jsonschema.FileLoader{}})
}

// JSONSchemaFS is JSONSchema for a file of fsys, with $refs to its
// siblings in fsys.
func JSONSchemaFS(fsys fs.FS, file string) (Codec, error) {
	text, err := fs.ReadFile(fsys, file)
	if err != nil {
		return nil, fmt.Errorf("json-schema: %w", err)
	}
	return jsonSchemaFrom(file, "file:///"+file, text, fsLoader{fsys})
}

func jsonSchemaFrom(file, url string, text []byte, loader jsonschema.URLLoader) (Codec, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
	if err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			line, col := avroLineCol(text, syntax.Offset-1)
			return nil, fmt.Errorf("json-schema: %s:%d:%d: %s", file, line, col, syntax)
		}
		return nil, fmt.Errorf("json-schema: %s: not JSON: %s", file, err)
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(loader)
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("json-schema: %s: %s", file, oneLine(err.Error()))
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("json-schema: %s: %s", file, oneLine(strings.ReplaceAll(err.Error(), url, file)))
	}
	return &jsonSchemaCodec{name: "json-schema " + file, schema: s}, nil
}

func (c *jsonSchemaCodec) Name() string { return c.name }

// Decode checks that b is JSON valid against the schema and returns it
// compacted.
func (c *jsonSchemaCodec) Decode(b []byte) ([]byte, error) {
	return c.check(b, "not valid")
}

// Encode checks doc as Decode does; what is sent is the compact JSON.
func (c *jsonSchemaCodec) Encode(doc []byte) ([]byte, error) {
	return c.check(doc, "JSON does not fit the schema")
}

func (c *jsonSchemaCodec) check(b []byte, what string) ([]byte, error) {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("not JSON: %s", err)
	}
	if err := c.schema.Validate(inst); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			leaf := deepest(ve)
			return nil, fmt.Errorf("%s at %s: %s", what, pointer(leaf.InstanceLocation), leaf.ErrorKind.LocalizedString(jsonSchemaPrinter))
		}
		return nil, fmt.Errorf("%s: %s", what, oneLine(err.Error()))
	}
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	return out.Bytes(), nil
}

// deepest follows the first cause down: the most specific reason, at the
// field where it applies.
func deepest(e *jsonschema.ValidationError) *jsonschema.ValidationError {
	for len(e.Causes) > 0 {
		e = e.Causes[0]
	}
	return e
}

// pointer writes an instance location as a JSON pointer ("/" for the
// document itself).
func pointer(loc []string) string {
	if len(loc) == 0 {
		return "/"
	}
	return "/" + strings.Join(loc, "/")
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// fsLoader loads file:// URLs from an fs.FS: the built-in schemas' $refs.
type fsLoader struct{ fsys fs.FS }

func (l fsLoader) Load(url string) (any, error) {
	name := strings.TrimPrefix(strings.TrimPrefix(url, "file://"), "/")
	b, err := fs.ReadFile(l.fsys, name)
	if err != nil {
		return nil, err
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(b))
}
