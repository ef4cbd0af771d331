package schema

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hamba/avro/v2"
)

// avroMagic starts the single-object encoding: C3 01, then the schema's
// CRC-64-AVRO fingerprint (8 bytes, little-endian), then the binary.
var avroMagic = [2]byte{0xc3, 0x01}

// avroMaxDepth bounds the nesting Decode follows, so a recursive schema
// fed hostile bytes cannot grow the stack without end.
const avroMaxDepth = 500

// avroMaxEmptyItems bounds the items of an array (or a map's values)
// whose type takes no bytes (null, an empty record): the count alone says
// how many, and a corrupt one must not spin for 2^62 of them.
const avroMaxEmptyItems = 1 << 20

// AvroCodec decodes and encodes the values of one Avro schema (.avsc).
// Avro returns one as a Codec; SingleObject is its extra.
//
// Decode reads the binary itself, walking the schema, rather than through
// the library's generic decoding: a record comes out with its fields in
// the schema's order, and a corrupt array count cannot make it allocate
// (the library sizes the slice by the count before reading an item).
// Encode builds the Go values the library marshals, so the bytes are the
// library's.
//
// The JSON is compact. Choices for display, each also accepted by Encode:
//   - a union is its plain value ("x", 5, {...}, null), not the Avro JSON
//     encoding's {"string": "x"}; Encode takes both, the wrapped form
//     choosing the branch when the plain value would fit several;
//   - bytes and fixed are base64 (as protojson writes bytes), not the
//     Avro JSON encoding's one code point per byte;
//   - decimal is a string ("12.50"), exact at the schema's scale; date
//     "2006-01-02"; timestamp-millis/-micros RFC 3339 in UTC; the
//     local-timestamps the same without a zone; time-millis/-micros
//     "15:04:05.123" (fractions without trailing zeros); duration {"months","days","milliseconds"}. Encode
//     takes the plain numbers (days, milliseconds...) too. A value no such
//     form can show (a year past 9999) stays a number;
//   - map keys are sorted, so equal maps read the same whatever the order
//     on the wire;
//   - float NaN and infinities are the strings "NaN", "Infinity",
//     "-Infinity", JSON having no such numbers.
type AvroCodec struct {
	name   string
	what   string // the schema's full name (or type), for errors
	schema avro.Schema
	// fingerprint is the CRC-64-AVRO of the schema's canonical form, the
	// one the single-object encoding carries.
	fingerprint uint64
	// vocab is the text its JSON can make up (Literal), built on first use.
	vocab vocabOnce
}

// Avro reads and parses the Avro schema in schemaFile. A file that is not
// JSON is an error naming file:line:col; a schema the library refuses
// names the file and its reason (and the line of an unknown type name).
// Named types are resolved within the file only: two files may each
// define com.shop.Address.
func Avro(schemaFile string) (Codec, error) {
	text, err := os.ReadFile(schemaFile)
	if err != nil {
		return nil, fmt.Errorf("avro: %w", err)
	}
	return AvroText(schemaFile, text)
}

// AvroText is Avro for a schema already read (a built-in one, say); name
// stands for the file in Name and errors.
func AvroText(schemaFile string, text []byte) (Codec, error) {
	// The library, given text that is not JSON, parses it as one type
	// name and says only "unknown type: <the whole file>": check first.
	var probe any
	if err := json.Unmarshal(text, &probe); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			line, col := avroLineCol(text, syntax.Offset-1)
			return nil, fmt.Errorf("avro: %s:%d:%d: %s", schemaFile, line, col, syntax)
		}
		return nil, fmt.Errorf("avro: %s: %s", schemaFile, err)
	}
	s, err := avro.ParseBytesWithCache(text, "", &avro.SchemaCache{})
	if err != nil {
		reason := strings.TrimPrefix(err.Error(), "avro: ")
		if line := avroUnknownTypeLine(text, reason); line > 0 {
			return nil, fmt.Errorf("avro: %s:%d: %s", schemaFile, line, reason)
		}
		return nil, fmt.Errorf("avro: %s: %s", schemaFile, reason)
	}
	fp, err := s.FingerprintUsing(avro.CRC64Avro)
	if err != nil {
		return nil, fmt.Errorf("avro: %s: %w", schemaFile, err)
	}
	what := avroTypeName(s)
	return &AvroCodec{
		name:        fmt.Sprintf("avro %s (%s)", what, schemaFile),
		what:        what,
		schema:      s,
		fingerprint: binary.BigEndian.Uint64(fp),
	}, nil
}

// avroUnknownType is the library's error for a type name it cannot
// resolve, the commonest mistake in a hand-written schema (a typo).
var avroUnknownType = regexp.MustCompile(`^unknown type: ([A-Za-z_][A-Za-z0-9_.]*)$`)

// avroUnknownTypeLine is the line where the unknown type of reason is
// first named in text, or 0.
func avroUnknownTypeLine(text []byte, reason string) int {
	m := avroUnknownType.FindStringSubmatch(reason)
	if m == nil {
		return 0
	}
	i := bytes.Index(text, []byte(`"`+m[1]+`"`))
	if i < 0 {
		return 0
	}
	line, _ := avroLineCol(text, int64(i))
	return line
}

// avroLineCol is the 1-based line and column (in bytes) of offset in text.
func avroLineCol(text []byte, offset int64) (line, col int) {
	offset = max(0, min(offset, int64(len(text))))
	before := text[:offset]
	line = 1 + bytes.Count(before, []byte{'\n'})
	col = int(offset) - bytes.LastIndexByte(before, '\n')
	return line, col
}

func (c *AvroCodec) Name() string { return c.name }

// Fingerprint is the schema's CRC-64-AVRO (Rabin) fingerprint.
func (c *AvroCodec) Fingerprint() uint64 { return c.fingerprint }

// Decode turns plain Avro binary, or the single-object encoding (C3 01,
// fingerprint, binary), into JSON. Single-object bytes with another
// schema's fingerprint are refused naming both. Bytes left over after the
// value are an error too: they were almost surely written with another
// schema. (A plain value whose first bytes happen to be C3 01, a long of
// -98 first, is read as single-object and refused: the header is what
// the encoding is recognised by.)
func (c *AvroCodec) Decode(b []byte) (out []byte, err error) {
	if len(b) >= 2 && b[0] == avroMagic[0] && b[1] == avroMagic[1] {
		if len(b) < 10 {
			return nil, fmt.Errorf("not a %s: single-object header cut short (%d bytes, want 10)", c.what, len(b))
		}
		if fp := binary.LittleEndian.Uint64(b[2:10]); fp != c.fingerprint {
			return nil, fmt.Errorf("not a %s: single-object fingerprint 0x%016x is another schema's (%s is 0x%016x)",
				c.what, fp, c.what, c.fingerprint)
		}
		b = b[10:]
	}
	defer func() {
		// The walker checks every length; this is only a last guard, so a
		// bug shows as a record's error rather than the dashboard's crash.
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("not a %s: %v", c.what, p)
		}
	}()
	d := avroDecoder{b: b}
	out, err = d.value(make([]byte, 0, 2*len(b)+16), c.schema)
	if err != nil {
		var de *avroDecodeError
		if errors.As(err, &de) {
			if de.path != "" {
				return nil, fmt.Errorf("not a %s: at byte %d (%s): %s", c.what, de.off, de.path, de.msg)
			}
			return nil, fmt.Errorf("not a %s: at byte %d: %s", c.what, de.off, de.msg)
		}
		return nil, fmt.Errorf("not a %s: %w", c.what, err)
	}
	if left := len(b) - d.off; left > 0 {
		return nil, fmt.Errorf("not a %s: %d bytes left over after its %d", c.what, left, d.off)
	}
	return out, nil
}

// Encode turns a JSON document into the schema's plain Avro binary. JSON
// that does not fit is an error naming the field's path
// (lines[0].qty, attrs["k"]) and what it wanted.
func (c *AvroCodec) Encode(doc []byte) ([]byte, error) {
	v, err := avroParseJSON(doc)
	if err != nil {
		return nil, fmt.Errorf("JSON does not fit %s: %w", c.what, err)
	}
	gv, err := avroFromJSON(c.schema, v, "")
	if err != nil {
		return nil, fmt.Errorf("JSON does not fit %s%w", c.what, err)
	}
	b, err := avroMarshal(c.schema, gv)
	if err != nil {
		return nil, fmt.Errorf("JSON does not fit %s: %s", c.what, strings.TrimPrefix(err.Error(), "avro: "))
	}
	return b, nil
}

// avroMarshal is the library's Marshal, with a panic (a schema corner it
// does not handle) an error rather than the dashboard's crash.
func avroMarshal(s avro.Schema, v any) (b []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			b, err = nil, fmt.Errorf("%v", p)
		}
	}()
	return avro.Marshal(s, v)
}

// SingleObject is Encode in the single-object encoding: C3 01, the
// schema's fingerprint, then the binary.
func (c *AvroCodec) SingleObject(doc []byte) ([]byte, error) {
	b, err := c.Encode(doc)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, 10+len(b))
	out = append(out, avroMagic[:]...)
	out = binary.LittleEndian.AppendUint64(out, c.fingerprint)
	return append(out, b...), nil
}

// avroTypeName is a schema's name as the union branches and errors call
// it: the full name of a named type, else the type (with its logical
// type: long.timestamp-millis), as the library's union lookup spells it.
func avroTypeName(s avro.Schema) string {
	if r, ok := s.(*avro.RefSchema); ok {
		s = r.Schema()
	}
	if n, ok := s.(avro.NamedSchema); ok {
		return n.FullName()
	}
	name := string(s.Type())
	if lt := avroLogical(s); lt != "" {
		name += "." + string(lt)
	}
	return name
}

// avroLogical is a schema's logical type, or "".
func avroLogical(s avro.Schema) avro.LogicalType {
	if l, ok := s.(avro.LogicalTypeSchema); ok && l.Logical() != nil {
		return l.Logical().Type()
	}
	return ""
}

// avroDecimalScale is the scale of a decimal schema.
func avroDecimalScale(s avro.Schema) int {
	if d, ok := s.(avro.LogicalTypeSchema).Logical().(*avro.DecimalLogicalSchema); ok {
		return d.Scale()
	}
	return 0
}

// Display forms of the logical types (see AvroCodec).
const (
	avroDateLayout      = "2006-01-02"
	avroTimestampLayout = "2006-01-02T15:04:05.999999Z07:00"
	avroLocalLayout     = "2006-01-02T15:04:05.999999"
	avroTimeLayout      = "15:04:05.999999"
	avroDay             = 24 * time.Hour
)

// avroDecodeError is where and why the binary does not fit; path is
// built as the error returns up the schema, so a good record pays nothing
// for it.
type avroDecodeError struct {
	off  int
	path string
	msg  string
}

func (e *avroDecodeError) Error() string { return e.msg }

// avroInPath prefixes err's path with one step (a field or [index]).
func avroInPath(err error, step string) error {
	var de *avroDecodeError
	if errors.As(err, &de) {
		switch {
		case de.path == "":
			de.path = step
		case strings.HasPrefix(de.path, "["):
			de.path = step + de.path
		default:
			de.path = step + "." + de.path
		}
	}
	return err
}

// avroDecoder reads Avro binary, writing JSON as it goes.
type avroDecoder struct {
	b     []byte
	off   int
	depth int
}

func (d *avroDecoder) fail(format string, args ...any) error {
	return &avroDecodeError{off: d.off, msg: fmt.Sprintf(format, args...)}
}

// varint reads a zig-zag varint of at most 64 bits.
func (d *avroDecoder) varint() (int64, error) {
	var u uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if d.off >= len(d.b) {
			return 0, d.fail("cut short in a number")
		}
		c := d.b[d.off]
		d.off++
		u |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return int64(u>>1) ^ -int64(u&1), nil
		}
	}
	return 0, d.fail("a number longer than 10 bytes")
}

func (d *avroDecoder) int32() (int32, error) {
	v, err := d.varint()
	if err != nil {
		return 0, err
	}
	if v < math.MinInt32 || v > math.MaxInt32 {
		return 0, d.fail("int %d out of range", v)
	}
	return int32(v), nil
}

// take reads n bytes (n from the data, so checked against what is left).
func (d *avroDecoder) take(n int64, what string) ([]byte, error) {
	if n < 0 {
		return nil, d.fail("negative %s length %d", what, n)
	}
	if n > int64(len(d.b)-d.off) {
		return nil, d.fail("cut short: a %s of %d bytes, %d left", what, n, len(d.b)-d.off)
	}
	b := d.b[d.off : d.off+int(n)]
	d.off += int(n)
	return b, nil
}

func (d *avroDecoder) sized(what string) ([]byte, error) {
	n, err := d.varint()
	if err != nil {
		return nil, err
	}
	return d.take(n, what)
}

// block reads an array or map block's count (0 ends), skipping the byte
// size a negative count carries, and refuses a count the bytes left
// cannot hold.
func (d *avroDecoder) block(items avro.Schema) (int64, error) {
	n, err := d.varint()
	if err != nil || n == 0 {
		return 0, err
	}
	if n < 0 {
		if n == math.MinInt64 {
			return 0, d.fail("block count out of range")
		}
		n = -n
		if _, err := d.varint(); err != nil {
			return 0, err
		}
	}
	if n > int64(len(d.b)-d.off) && !(avroEmpty(items, 0) && n <= avroMaxEmptyItems) {
		return 0, d.fail("a block of %d items, %d bytes left", n, len(d.b)-d.off)
	}
	return n, nil
}

// avroEmpty says whether s's values take no bytes (null, a record of
// such), so any number of them fits in none.
func avroEmpty(s avro.Schema, depth int) bool {
	if depth > 32 {
		return false
	}
	switch s := s.(type) {
	case *avro.RefSchema:
		return avroEmpty(s.Schema(), depth+1)
	case *avro.NullSchema:
		return true
	case *avro.FixedSchema:
		return s.Size() == 0
	case *avro.RecordSchema:
		for _, f := range s.Fields() {
			if !avroEmpty(f.Type(), depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

func (d *avroDecoder) value(out []byte, s avro.Schema) ([]byte, error) {
	switch s := s.(type) {
	case *avro.RefSchema:
		return d.value(out, s.Schema())
	case *avro.NullSchema:
		return append(out, "null"...), nil
	case *avro.PrimitiveSchema:
		return d.primitive(out, s)
	case *avro.RecordSchema:
		// No defer for the depth here: value has too many returns for the
		// compiler to open-code one, and a defer run through the runtime
		// was a tenth of a record's decode.
		if d.depth++; d.depth > avroMaxDepth {
			return nil, d.fail("nested deeper than %d", avroMaxDepth)
		}
		out, err := d.record(out, s)
		d.depth--
		return out, err
	case *avro.EnumSchema:
		i, err := d.int32()
		if err != nil {
			return nil, err
		}
		sym, ok := s.Symbol(int(i))
		if !ok {
			return nil, d.fail("enum index %d, %s has %d symbols", i, s.FullName(), len(s.Symbols()))
		}
		return avroAppendString(out, sym), nil
	case *avro.ArraySchema:
		return d.array(out, s)
	case *avro.MapSchema:
		return d.mapValue(out, s)
	case *avro.UnionSchema:
		i, err := d.varint()
		if err != nil {
			return nil, err
		}
		types := s.Types()
		if i < 0 || i >= int64(len(types)) {
			return nil, d.fail("union branch %d, the union has %d", i, len(types))
		}
		if d.depth++; d.depth > avroMaxDepth {
			return nil, d.fail("nested deeper than %d", avroMaxDepth)
		}
		out, err = d.value(out, types[i])
		d.depth--
		return out, err
	case *avro.FixedSchema:
		b, err := d.take(int64(s.Size()), "fixed")
		if err != nil {
			return nil, err
		}
		switch avroLogical(s) {
		case avro.Decimal:
			return avroAppendString(out, avroDecimalString(b, avroDecimalScale(s))), nil
		case avro.Duration:
			if len(b) == 12 {
				return fmt.Appendf(out, `{"months":%d,"days":%d,"milliseconds":%d}`,
					binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:]), binary.LittleEndian.Uint32(b[8:])), nil
			}
		}
		return avroAppendBase64(out, b), nil
	}
	return nil, d.fail("schema type %s not supported", s.Type())
}

// record writes a record's fields as an object, in the schema's order.
func (d *avroDecoder) record(out []byte, s *avro.RecordSchema) ([]byte, error) {
	out = append(out, '{')
	var err error
	for i, f := range s.Fields() {
		if i > 0 {
			out = append(out, ',')
		}
		out = avroAppendString(out, f.Name())
		out = append(out, ':')
		if out, err = d.value(out, f.Type()); err != nil {
			return nil, avroInPath(err, f.Name())
		}
	}
	return append(out, '}'), nil
}

func (d *avroDecoder) primitive(out []byte, s *avro.PrimitiveSchema) ([]byte, error) {
	lt := avroLogical(s)
	switch s.Type() {
	case avro.Boolean:
		b, err := d.take(1, "boolean")
		if err != nil {
			return nil, err
		}
		switch b[0] {
		case 0:
			return append(out, "false"...), nil
		case 1:
			return append(out, "true"...), nil
		}
		d.off--
		return nil, d.fail("boolean byte %#x", b[0])
	case avro.Int:
		v, err := d.int32()
		if err != nil {
			return nil, err
		}
		switch lt {
		case avro.Date:
			return avroAppendTime(out, time.Unix(int64(v)*86400, 0), avroDateLayout, int64(v)), nil
		case avro.TimeMillis:
			if v >= 0 && time.Duration(v)*time.Millisecond < avroDay {
				return avroAppendTime(out, time.UnixMilli(int64(v)), avroTimeLayout, int64(v)), nil
			}
		}
		return strconv.AppendInt(out, int64(v), 10), nil
	case avro.Long:
		v, err := d.varint()
		if err != nil {
			return nil, err
		}
		switch lt {
		case avro.TimestampMillis:
			return avroAppendTime(out, time.UnixMilli(v), avroTimestampLayout, v), nil
		case avro.TimestampMicros:
			return avroAppendTime(out, time.UnixMicro(v), avroTimestampLayout, v), nil
		case avro.LocalTimestampMillis:
			return avroAppendTime(out, time.UnixMilli(v), avroLocalLayout, v), nil
		case avro.LocalTimestampMicros:
			return avroAppendTime(out, time.UnixMicro(v), avroLocalLayout, v), nil
		case avro.TimeMicros:
			if v >= 0 && v < int64(avroDay/time.Microsecond) {
				return avroAppendTime(out, time.UnixMicro(v), avroTimeLayout, v), nil
			}
		}
		return strconv.AppendInt(out, v, 10), nil
	case avro.Float:
		b, err := d.take(4, "float")
		if err != nil {
			return nil, err
		}
		return avroAppendFloat(out, float64(math.Float32frombits(binary.LittleEndian.Uint32(b))), 32), nil
	case avro.Double:
		b, err := d.take(8, "double")
		if err != nil {
			return nil, err
		}
		return avroAppendFloat(out, math.Float64frombits(binary.LittleEndian.Uint64(b)), 64), nil
	case avro.String:
		b, err := d.sized("string")
		if err != nil {
			return nil, err
		}
		return avroAppendString(out, b), nil
	case avro.Bytes:
		b, err := d.sized("bytes")
		if err != nil {
			return nil, err
		}
		if lt == avro.Decimal {
			return avroAppendString(out, avroDecimalString(b, avroDecimalScale(s))), nil
		}
		return avroAppendBase64(out, b), nil
	}
	return nil, d.fail("schema type %s not supported", s.Type())
}

func (d *avroDecoder) array(out []byte, s *avro.ArraySchema) ([]byte, error) {
	if d.depth++; d.depth > avroMaxDepth {
		return nil, d.fail("nested deeper than %d", avroMaxDepth)
	}
	defer func() { d.depth-- }()
	out = append(out, '[')
	i, total := 0, int64(0)
	for {
		n, err := d.block(s.Items())
		if err != nil {
			return nil, avroInPath(err, "["+strconv.Itoa(i)+"]")
		}
		if n == 0 {
			return append(out, ']'), nil
		}
		if total += n; total > avroMaxEmptyItems && avroEmpty(s.Items(), 0) {
			return nil, d.fail("more than %d empty items", avroMaxEmptyItems)
		}
		for ; n > 0; n-- {
			if i > 0 {
				out = append(out, ',')
			}
			if out, err = d.value(out, s.Items()); err != nil {
				return nil, avroInPath(err, "["+strconv.Itoa(i)+"]")
			}
			i++
		}
	}
}

// mapValue writes a map as an object with its keys sorted (a key the
// wire repeats keeps its last value, as a Go map would).
func (d *avroDecoder) mapValue(out []byte, s *avro.MapSchema) ([]byte, error) {
	if d.depth++; d.depth > avroMaxDepth {
		return nil, d.fail("nested deeper than %d", avroMaxDepth)
	}
	defer func() { d.depth-- }()
	type entry struct {
		key        string
		start, end int // the entry "key":value in out
	}
	var entries []entry
	out = append(out, '{')
	start := len(out)
	for {
		n, err := d.block(s.Values())
		if err != nil {
			return nil, err
		}
		if n == 0 {
			break
		}
		for ; n > 0; n-- {
			k, err := d.sized("map key")
			if err != nil {
				return nil, err
			}
			if len(entries) > 0 {
				out = append(out, ',')
			}
			e := entry{key: string(k), start: len(out)}
			out = avroAppendString(out, k)
			out = append(out, ':')
			if out, err = d.value(out, s.Values()); err != nil {
				return nil, avroInPath(err, "["+strconv.Quote(e.key)+"]")
			}
			e.end = len(out)
			entries = append(entries, e)
		}
	}
	byKey := func(a, b entry) int { return strings.Compare(a.key, b.key) }
	if !slices.IsSortedFunc(entries, byKey) || avroHasDuplicate(entries, func(e entry) string { return e.key }) {
		body := slices.Clone(out[start:])
		for i := range entries {
			entries[i].start -= start
			entries[i].end -= start
		}
		slices.SortStableFunc(entries, byKey)
		out = out[:start]
		for i, e := range entries {
			if i+1 < len(entries) && entries[i+1].key == e.key {
				continue // a later one wins
			}
			if len(out) > start {
				out = append(out, ',')
			}
			out = append(out, body[e.start:e.end]...)
		}
	}
	return append(out, '}'), nil
}

// avroHasDuplicate says whether two of the items (sorted or not) share a key.
func avroHasDuplicate[T any](items []T, key func(T) string) bool {
	if len(items) < 2 {
		return false
	}
	seen := make(map[string]bool, len(items))
	for _, it := range items {
		if seen[key(it)] {
			return true
		}
		seen[key(it)] = true
	}
	return false
}

// avroAppendTime writes t (in UTC) in layout, or raw when the year is one
// the layout cannot read back.
func avroAppendTime(out []byte, t time.Time, layout string, raw int64) []byte {
	t = t.UTC()
	if t.Year() < 0 || t.Year() > 9999 {
		return strconv.AppendInt(out, raw, 10)
	}
	out = append(out, '"')
	out = avroFormat(out, t, layout)
	return append(out, '"')
}

// avroFormat is t.AppendFormat(out, layout) for t in UTC and the four
// layouts above, written directly: AppendFormat reads its layout every
// time, and a timestamp was a quarter of an Avro record's decode.
// TestAvroFormatIsAppendFormat holds it to AppendFormat.
func avroFormat(out []byte, t time.Time, layout string) []byte {
	date, clock, zone := true, true, false
	switch layout {
	case avroDateLayout:
		clock = false
	case avroTimeLayout:
		date = false
	case avroTimestampLayout:
		zone = true
	case avroLocalLayout:
	default:
		return t.AppendFormat(out, layout)
	}
	if date {
		y, m, d := t.Date()
		out = avroDigits(out, y, 4)
		out = append(out, '-')
		out = avroDigits(out, int(m), 2)
		out = append(out, '-')
		out = avroDigits(out, d, 2)
		if clock {
			out = append(out, 'T')
		}
	}
	if clock {
		h, m, s := t.Clock()
		out = avroDigits(out, h, 2)
		out = append(out, ':')
		out = avroDigits(out, m, 2)
		out = append(out, ':')
		out = avroDigits(out, s, 2)
		if us := t.Nanosecond() / 1000; us > 0 { // .999999: microseconds, no trailing zeros
			digits := 6
			for us%10 == 0 {
				us, digits = us/10, digits-1
			}
			out = append(out, '.')
			out = avroDigits(out, us, digits)
		}
	}
	if zone {
		out = append(out, 'Z')
	}
	return out
}

// avroDigits appends v (0 ≤ v) in at least width digits, zero-padded.
func avroDigits(out []byte, v, width int) []byte {
	var buf [20]byte
	i := len(buf)
	for v >= 10 || width > 1 {
		i--
		buf[i] = byte('0' + v%10)
		v /= 10
		width--
	}
	i--
	buf[i] = byte('0' + v)
	return append(out, buf[i:]...)
}

// avroDecimalString is the decimal of a two's-complement big-endian
// unscaled value at scale: exact, with scale digits after the point.
func avroDecimalString(b []byte, scale int) string {
	n := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(len(b))*8))
	}
	digits := n.String()
	sign := ""
	if digits[0] == '-' {
		sign, digits = "-", digits[1:]
	}
	if scale <= 0 {
		return sign + digits
	}
	if len(digits) <= scale {
		digits = strings.Repeat("0", scale-len(digits)+1) + digits
	}
	return sign + digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
}

func avroAppendBase64(out, b []byte) []byte {
	out = append(out, '"')
	out = base64.StdEncoding.AppendEncode(out, b)
	return append(out, '"')
}

// avroAppendFloat writes f as encoding/json would (NaN and the infinities
// as strings, which JSON has no numbers for).
func avroAppendFloat(out []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(out, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(out, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(out, `"-Infinity"`...)
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	out = strconv.AppendFloat(out, f, format, -1, bits)
	if format == 'e' {
		// 1e-07 reads better as 1e-7.
		if n := len(out); n >= 4 && out[n-4] == 'e' && out[n-3] == '-' && out[n-2] == '0' {
			out[n-2] = out[n-1]
			out = out[:n-1]
		}
	}
	return out
}

// avroPlainByte: the printable ASCII a JSON string holds as it is (not
// '"' or '\\').
var avroPlainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// avroAppendString writes s as a JSON string: invalid UTF-8 as U+FFFD,
// control characters escaped, HTML characters left as they are.
func avroAppendString[S string | []byte](out []byte, s S) []byte {
	const hex = "0123456789abcdef"
	out = append(out, '"')
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && avroPlainByte[s[j]] {
			j++
		}
		out = append(out, s[i:j]...) // a run that needs no escape, at once
		if i = j; i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				out = append(out, '\\', c)
			case c == '\n':
				out = append(out, '\\', 'n')
			case c == '\r':
				out = append(out, '\\', 'r')
			case c == '\t':
				out = append(out, '\\', 't')
			case c < 0x20 || c == 0x7f:
				out = append(out, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				out = append(out, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
		switch {
		case r == utf8.RuneError && size == 1:
			out = append(out, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			out = append(out, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			out = append(out, s[i:i+size]...)
		}
		i += size
	}
	return append(out, '"')
}

// avroParseJSON parses doc (numbers kept as written) and refuses anything
// after the value.
func avroParseJSON(doc []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			line, col := avroLineCol(doc, syntax.Offset-1)
			return nil, fmt.Errorf("not JSON at line %d:%d: %s", line, col, syntax)
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, errors.New("not JSON: cut short")
		}
		return nil, fmt.Errorf("not JSON: %s", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("not JSON: more after the value")
	}
	return v, nil
}

// avroFitError is JSON that does not fit, at a path; its text starts
// " at PATH: " (or ": " at the top) to follow "JSON does not fit X".
type avroFitError struct {
	path string
	msg  string
}

func (e *avroFitError) Error() string {
	if e.path == "" {
		return ": " + e.msg
	}
	return " at " + e.path + ": " + e.msg
}

func avroNotFit(path, want string, got any) error {
	return &avroFitError{path: path, msg: "want " + want + ", got " + avroDescribe(got)}
}

// avroDescribe shows a JSON value in an error: scalars as written
// (strings quoted, cut at 40), objects and arrays by kind.
func avroDescribe(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(v)
	case json.Number:
		return v.String()
	case string:
		if r := []rune(v); len(r) > 40 {
			v = string(r[:40]) + "…"
		}
		return strconv.Quote(v)
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("%T", v)
}

func avroJoin(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

// avroFromJSON converts a parsed JSON value to what the library marshals
// for s: int32, int64, float32, float64, string, []byte, [N]byte,
// *big.Rat, []any, map[string]any (records and maps), and a union as
// map[string]any{branch: value}.
func avroFromJSON(s avro.Schema, v any, path string) (any, error) {
	switch s := s.(type) {
	case *avro.RefSchema:
		return avroFromJSON(s.Schema(), v, path)
	case *avro.NullSchema:
		if v != nil {
			return nil, avroNotFit(path, "null", v)
		}
		return nil, nil
	case *avro.PrimitiveSchema:
		return avroPrimitiveFromJSON(s, v, path)
	case *avro.RecordSchema:
		return avroRecordFromJSON(s, v, path)
	case *avro.EnumSchema:
		sym, ok := v.(string)
		if !ok || !slices.Contains(s.Symbols(), sym) {
			return nil, avroNotFit(path, "a "+s.FullName()+" symbol ("+strings.Join(s.Symbols(), ", ")+")", v)
		}
		return sym, nil
	case *avro.ArraySchema:
		arr, ok := v.([]any)
		if !ok {
			return nil, avroNotFit(path, "an array", v)
		}
		out := make([]any, len(arr))
		for i, item := range arr {
			gv, err := avroFromJSON(s.Items(), item, path+"["+strconv.Itoa(i)+"]")
			if err != nil {
				return nil, err
			}
			out[i] = gv
		}
		return out, nil
	case *avro.MapSchema:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, avroNotFit(path, "a map (an object)", v)
		}
		out := make(map[string]any, len(obj))
		for k, item := range obj {
			gv, err := avroFromJSON(s.Values(), item, path+"["+strconv.Quote(k)+"]")
			if err != nil {
				return nil, err
			}
			out[k] = gv
		}
		return out, nil
	case *avro.UnionSchema:
		return avroUnionFromJSON(s, v, path)
	case *avro.FixedSchema:
		return avroFixedFromJSON(s, v, path)
	}
	return nil, &avroFitError{path: path, msg: "schema type " + string(s.Type()) + " not supported"}
}

// avroRecordFromJSON converts a JSON object to a record of s: every field
// without a default must be there, and nothing else may.
func avroRecordFromJSON(s *avro.RecordSchema, v any, path string) (any, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, avroNotFit(path, "a "+s.FullName()+" record (an object)", v)
	}
	rec := make(map[string]any, len(s.Fields()))
	names := make([]string, 0, len(s.Fields()))
	for _, f := range s.Fields() {
		names = append(names, f.Name())
		fv, ok := obj[f.Name()]
		if !ok {
			if !f.HasDefault() {
				return nil, &avroFitError{path: avroJoin(path, f.Name()), msg: "missing, and " + s.FullName() + " gives it no default"}
			}
			continue // the library writes the schema's default
		}
		gv, err := avroFromJSON(f.Type(), fv, avroJoin(path, f.Name()))
		if err != nil {
			return nil, err
		}
		rec[f.Name()] = gv
	}
	if len(rec) < len(obj) {
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if !slices.Contains(names, k) {
				return nil, &avroFitError{path: avroJoin(path, k),
					msg: "not a field of " + s.FullName() + " (" + strings.Join(names, ", ") + ")"}
			}
		}
	}
	return rec, nil
}

// avroFixedFromJSON converts a JSON value to a fixed of s: a decimal or a
// duration by its logical type, else base64 of exactly s.Size() bytes.
func avroFixedFromJSON(s *avro.FixedSchema, v any, path string) (any, error) {
	switch avroLogical(s) {
	case avro.Decimal:
		return avroDecimalFromJSON(avroDecimalScale(s), v, path)
	case avro.Duration:
		return avroDurationFromJSON(s, v, path)
	}
	b, err := avroBytesFromJSON(v, path)
	if err != nil {
		return nil, err
	}
	if len(b) != s.Size() {
		return nil, &avroFitError{path: path, msg: fmt.Sprintf("want %d bytes (base64) for %s, got %d", s.Size(), s.FullName(), len(b))}
	}
	arr := reflect.New(reflect.ArrayOf(len(b), reflect.TypeFor[byte]())).Elem()
	reflect.Copy(arr, reflect.ValueOf(b))
	return arr.Interface(), nil
}

// avroUnionFromJSON picks the branch: null for null; a one-key object
// naming a branch ({"string": "x"}, the Avro JSON encoding) that branch;
// else the first branch the value fits, in the schema's order.
func avroUnionFromJSON(s *avro.UnionSchema, v any, path string) (any, error) {
	types := s.Types()
	if v == nil {
		if s.Contains(avro.Null) {
			return map[string]any{"null": nil}, nil
		}
		return nil, avroNotFit(path, "one of "+avroBranches(s), v)
	}
	if obj, ok := v.(map[string]any); ok && len(obj) == 1 {
		for k, inner := range obj {
			for _, t := range types {
				if k != avroTypeName(t) && k != string(t.Type()) && !avroShortName(t, k) {
					continue
				}
				gv, err := avroFromJSON(t, inner, path)
				if err != nil {
					return nil, err
				}
				return map[string]any{avroTypeName(t): gv}, nil
			}
		}
	}
	var only error
	fits := 0
	for _, t := range types {
		if t.Type() == avro.Null {
			continue
		}
		fits++
		gv, err := avroFromJSON(t, v, path)
		if err == nil {
			return map[string]any{avroTypeName(t): gv}, nil
		}
		only = err
	}
	if fits == 1 {
		return nil, only // a nullable X: X's own error says most
	}
	return nil, avroNotFit(path, "one of "+avroBranches(s), v)
}

// avroShortName says whether name is t's name without its namespace.
func avroShortName(t avro.Schema, name string) bool {
	if r, ok := t.(*avro.RefSchema); ok {
		t = r.Schema()
	}
	n, ok := t.(avro.NamedSchema)
	return ok && n.Name() == name
}

func avroBranches(s *avro.UnionSchema) string {
	names := make([]string, len(s.Types()))
	for i, t := range s.Types() {
		names[i] = avroTypeName(t)
	}
	return strings.Join(names, ", ")
}

func avroPrimitiveFromJSON(s *avro.PrimitiveSchema, v any, path string) (any, error) {
	lt := avroLogical(s)
	switch s.Type() {
	case avro.Boolean:
		b, ok := v.(bool)
		if !ok {
			return nil, avroNotFit(path, "a boolean", v)
		}
		return b, nil
	case avro.Int:
		switch lt {
		case avro.Date:
			if str, ok := v.(string); ok {
				t, err := time.Parse(avroDateLayout, str)
				if err != nil {
					return nil, avroNotFit(path, "a date (2006-01-02)", v)
				}
				return int32(t.Unix() / 86400), nil
			}
		case avro.TimeMillis:
			if str, ok := v.(string); ok {
				t, err := time.Parse(avroTimeLayout, str)
				if err != nil {
					return nil, avroNotFit(path, "a time of day (15:04:05.000)", v)
				}
				return int32(avroTimeOfDay(t) / time.Millisecond), nil
			}
		}
		n, err := avroInt(v, 32)
		if err != nil {
			return nil, avroNotFit(path, "an int", v)
		}
		return int32(n), nil
	case avro.Long:
		if str, ok := v.(string); ok {
			switch lt {
			case avro.TimestampMillis, avro.TimestampMicros, avro.LocalTimestampMillis, avro.LocalTimestampMicros:
				layout, want := time.RFC3339Nano, "a timestamp (RFC 3339)"
				if lt == avro.LocalTimestampMillis || lt == avro.LocalTimestampMicros {
					layout, want = avroLocalLayout, "a local timestamp (2006-01-02T15:04:05.000)"
				}
				t, err := time.Parse(layout, str)
				if err != nil {
					return nil, avroNotFit(path, want, v)
				}
				if lt == avro.TimestampMillis || lt == avro.LocalTimestampMillis {
					return t.UnixMilli(), nil
				}
				return t.UnixMicro(), nil
			case avro.TimeMicros:
				t, err := time.Parse(avroTimeLayout, str)
				if err != nil {
					return nil, avroNotFit(path, "a time of day (15:04:05.000000)", v)
				}
				return avroTimeOfDay(t).Truncate(time.Microsecond), nil
			}
		}
		n, err := avroInt(v, 64)
		if err != nil {
			return nil, avroNotFit(path, "a long", v)
		}
		if lt == avro.TimeMicros {
			// The library reads an int64 for time-micros as a Duration.
			if n > math.MaxInt64/1000 || n < math.MinInt64/1000 {
				return nil, avroNotFit(path, "a time of day in microseconds", v)
			}
			return time.Duration(n) * time.Microsecond, nil
		}
		return n, nil
	case avro.Float:
		f, err := avroFloat(v, 32)
		if err != nil {
			return nil, avroNotFit(path, "a float", v)
		}
		return float32(f), nil
	case avro.Double:
		f, err := avroFloat(v, 64)
		if err != nil {
			return nil, avroNotFit(path, "a double", v)
		}
		return f, nil
	case avro.String:
		str, ok := v.(string)
		if !ok {
			return nil, avroNotFit(path, "a string", v)
		}
		return str, nil
	case avro.Bytes:
		if lt == avro.Decimal {
			return avroDecimalFromJSON(avroDecimalScale(s), v, path)
		}
		return avroBytesFromJSON(v, path)
	}
	return nil, &avroFitError{path: path, msg: "schema type " + string(s.Type()) + " not supported"}
}

// avroTimeOfDay is how long after midnight t is.
func avroTimeOfDay(t time.Time) time.Duration {
	return time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute +
		time.Duration(t.Second())*time.Second + time.Duration(t.Nanosecond())
}

// avroInt is a JSON number as an integer of bits: 3, 3.0 and 3e2 are,
// 3.5 and 1e40 are not.
func avroInt(v any, bits int) (int64, error) {
	num, ok := v.(json.Number)
	if !ok {
		return 0, errors.New("not a number")
	}
	if n, err := strconv.ParseInt(num.String(), 10, bits); err == nil {
		return n, nil
	}
	f, err := strconv.ParseFloat(num.String(), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) >= math.Ldexp(1, bits-1) {
		return 0, errors.New("not an integer in range")
	}
	return int64(f), nil
}

// avroFloat is a JSON number (or "NaN", "Infinity", "-Infinity") within
// the range of bits.
func avroFloat(v any, bits int) (float64, error) {
	switch v := v.(type) {
	case json.Number:
		return strconv.ParseFloat(v.String(), bits)
	case string:
		switch v {
		case "NaN":
			return math.NaN(), nil
		case "Infinity":
			return math.Inf(1), nil
		case "-Infinity":
			return math.Inf(-1), nil
		}
	}
	return 0, errors.New("not a number")
}

func avroBytesFromJSON(v any, path string) ([]byte, error) {
	str, ok := v.(string)
	if !ok {
		return nil, avroNotFit(path, "bytes (base64)", v)
	}
	b, err := base64.StdEncoding.DecodeString(str)
	if err != nil {
		if b, err = base64.RawStdEncoding.DecodeString(str); err != nil {
			return nil, avroNotFit(path, "bytes (base64)", v)
		}
	}
	return b, nil
}

// avroDecimal is a decimal as written: an optional sign, digits, an
// optional fraction.
var avroDecimal = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)

// avroDecimalFromJSON reads a decimal (a string, or a number as written)
// with at most scale digits after the point, exactly.
func avroDecimalFromJSON(scale int, v any, path string) (any, error) {
	var str string
	switch v := v.(type) {
	case string:
		str = v
	case json.Number:
		str = v.String()
	}
	want := fmt.Sprintf("a decimal of at most %d places (\"12.34\")", scale)
	if !avroDecimal.MatchString(str) {
		return nil, avroNotFit(path, want, v)
	}
	if _, frac, ok := strings.Cut(str, "."); ok && len(frac) > scale {
		return nil, avroNotFit(path, want, v)
	}
	r, ok := new(big.Rat).SetString(str)
	if !ok {
		return nil, avroNotFit(path, want, v)
	}
	return r, nil
}

// avroDurationFromJSON reads {"months","days","milliseconds"} (each a
// 32-bit unsigned count, absent as 0) as the duration's 12 bytes.
func avroDurationFromJSON(s *avro.FixedSchema, v any, path string) (any, error) {
	obj, ok := v.(map[string]any)
	if !ok || s.Size() != 12 {
		return nil, avroNotFit(path, `a duration {"months", "days", "milliseconds"}`, v)
	}
	var b [12]byte
	for i, k := range []string{"months", "days", "milliseconds"} {
		fv, ok := obj[k]
		if !ok {
			continue
		}
		n, err := avroInt(fv, 64)
		if err != nil || n < 0 || n > math.MaxUint32 {
			return nil, avroNotFit(avroJoin(path, k), "a count from 0 to 4294967295", fv)
		}
		binary.LittleEndian.PutUint32(b[4*i:], uint32(n))
	}
	for k := range obj {
		if k != "months" && k != "days" && k != "milliseconds" {
			return nil, &avroFitError{path: avroJoin(path, k), msg: "not a part of a duration (months, days, milliseconds)"}
		}
	}
	return b, nil
}

// checkPath walks path through the schema's records (an array is its
// items, a map takes the next step as its key, a union any branch: its
// JSON is the plain value).
func (c *AvroCodec) checkPath(path []string) error { return avroCheckPath(c.schema, c.what, path) }

func avroCheckPath(s avro.Schema, in string, path []string) error {
	if len(path) == 0 {
		return nil
	}
	switch s := s.(type) {
	case *avro.RefSchema:
		return avroCheckPath(s.Schema(), in, path)
	case *avro.ArraySchema:
		return avroCheckPath(s.Items(), in, path)
	case *avro.MapSchema:
		return avroCheckPath(s.Values(), in+"."+path[0], path[1:])
	case *avro.UnionSchema:
		var first error
		for _, branch := range s.Types() {
			err := avroCheckPath(branch, in, path)
			if err == nil {
				return nil
			}
			if first == nil && branch.Type() != avro.Null {
				first = err
			}
		}
		return first
	case *avro.RecordSchema:
		names := make([]string, len(s.Fields()))
		for i, f := range s.Fields() {
			if f.Name() == path[0] {
				return avroCheckPath(f.Type(), in+"."+path[0], path[1:])
			}
			names[i] = f.Name()
		}
		return noField(in, path[0], names)
	}
	return noField(in, path[0], nil)
}
