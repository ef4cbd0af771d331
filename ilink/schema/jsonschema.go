package schema

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
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
		if e := metaschemaError(file, text, err); e != nil {
			return nil, e
		}
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

// maxSchemaProblems is how many places of a schema that breaks its
// metaschema an error names.
const maxSchemaProblems = 3

// metaschemaError is a schema that parses but breaks its draft's rules
// ("type": "strnig") said as file:line:col, the place in the schema and
// the reason, for each place (the library says it as one long chain of
// causes); nil for another error.
func metaschemaError(file string, text []byte, err error) error {
	var se *jsonschema.SchemaValidationError
	var ve *jsonschema.ValidationError
	if !errors.As(err, &se) || !errors.As(se.Err, &ve) {
		return nil
	}
	type problem struct {
		off  int64
		text string
	}
	var problems []problem
	seen := map[string]bool{}
	var leaves func(e *jsonschema.ValidationError)
	leaves = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				leaves(c)
			}
			return
		}
		at := pointer(e.InstanceLocation)
		if seen[at] {
			return
		}
		seen[at] = true
		off := pointerOffset(text, e.InstanceLocation)
		line, col := avroLineCol(text, off)
		problems = append(problems, problem{off, fmt.Sprintf("%s:%d:%d: at %s: %s", file, line, col, at, e.ErrorKind.LocalizedString(jsonSchemaPrinter))})
	}
	leaves(ve)
	// In the file's order: the library's causes come in no fixed order.
	slices.SortStableFunc(problems, func(a, b problem) int { return cmp.Compare(a.off, b.off) })
	var texts []string
	for _, p := range problems[:min(len(problems), maxSchemaProblems)] {
		texts = append(texts, p.text)
	}
	more := ""
	if n := len(problems) - maxSchemaProblems; n > 0 {
		more = fmt.Sprintf(" (and %d more)", n)
	}
	return fmt.Errorf("json-schema: %s%s (not a valid schema of its draft)", strings.Join(texts, "; "), more)
}

// pointerOffset is where the value at loc starts in the JSON text (its
// key's end for a member), 0 when it cannot be found.
func pointerOffset(text []byte, loc []string) int64 {
	d := json.NewDecoder(bytes.NewReader(text))
	off, ok := findPointer(d, loc)
	if !ok {
		return 0
	}
	// Past the separators to the value itself.
	for off < int64(len(text)) && strings.IndexByte(" \t\r\n:,", text[off]) >= 0 {
		off++
	}
	return off
}

// findPointer reads d's next value down loc.
func findPointer(d *json.Decoder, loc []string) (int64, bool) {
	if len(loc) == 0 {
		return d.InputOffset(), true
	}
	tok, err := d.Token()
	if err != nil {
		return 0, false
	}
	delim, ok := tok.(json.Delim)
	if !ok || (delim != '{' && delim != '[') {
		return 0, false
	}
	for i := 0; d.More(); i++ {
		name := strconv.Itoa(i)
		if delim == '{' {
			k, err := d.Token()
			if err != nil {
				return 0, false
			}
			name, _ = k.(string)
		}
		if name == loc[0] {
			return findPointer(d, loc[1:])
		}
		var skip json.RawMessage
		if err := d.Decode(&skip); err != nil {
			return 0, false
		}
	}
	return 0, false
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
