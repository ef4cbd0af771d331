package schema

import (
	"bytes"
	"slices"
	"strings"
	"sync"

	"github.com/hamba/avro/v2"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Literal returns bytes that the encoded form of every value whose
// decoded JSON contains needle holds verbatim, or nil when the codec
// cannot vouch for any: a search then skips decoding the values whose
// bytes lack them, and never drops a match. Protobuf and Avro answer.
//
// Why it is sound: a run of the needle without `"` or `\` lies, in the
// decoded JSON, inside one quoted token or one stretch between tokens.
// Unless the run could be text the JSON mapping makes up (a field or enum
// name, a number, a timestamp, a date, a decimal, base64, true, false,
// null, punctuation), it is inside a string, and a string's characters
// are its wire bytes (Protobuf and Avro both carry a string as its UTF-8
// bytes), but for escapes: the run's first characters may be an escape's
// tail (n of \n, 001f of \u001f), so they are left out.
func Literal(c Codec, needle []byte) []byte {
	vc, ok := c.(interface{ vocabulary() *vocab })
	if !ok {
		return nil
	}
	v := vc.vocabulary()
	if v.none {
		return nil
	}
	var best []byte
	for _, run := range bytes.FieldsFunc(needle, func(r rune) bool { return r == '"' || r == '\\' }) {
		if v.synthetic(run) {
			continue
		}
		if lit := run[escapeTail(run):]; len(lit) > len(best) {
			best = lit
		}
	}
	if len(best) == 0 {
		return nil
	}
	return best
}

// JSONStringContent is s as it stands between the quotes of a JSON
// string the protobuf mapping writes (a field term's value in the decoded
// document), for Literal.
func JSONStringContent(s string) []byte {
	var b []byte
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20 || c == 0x7f:
			b = append(b, '\\') // the escape's letters do not matter: Literal stops at \
		case c == 0xef && strings.HasPrefix(s[i:], "\uFFFD"):
			// U+FFFD: the decode writes one for each byte of invalid
			// UTF-8 on the wire, so it stands for bytes it is not.
			b = append(b, '\\')
			i += 2
		default:
			b = append(b, c)
		}
	}
	return b
}

// escapeTail is how many leading bytes of run may be the tail of an
// escape the JSON mapping writes (\n, \t, \u001f: a letter, or u and up
// to four hex digits, or hex digits alone).
func escapeTail(run []byte) int {
	n := 0
	if strings.IndexByte("bfnrt/", run[0]) >= 0 {
		n = 1
	}
	i := 0
	if run[0] == 'u' {
		i = 1
	}
	for j := i; j < len(run) && j < i+4 && isHex(run[j]); j++ {
		n = max(n, j+1)
	}
	return max(n, i)
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// vocab is the text the JSON mapping of a message can make up, as
// opposed to the strings it copies from the wire, and whether it has
// required fields: what a walk of the message and those it reaches finds.
type vocab struct {
	// none: Any or FieldMask is reachable (their JSON is not from known
	// names), or an extension: no literal is vouched for.
	none bool
	// names are the field names, enum value names and the mapping's
	// words; a run inside one of them may be made up.
	names []string
	// bytes: a bytes field is reachable, so base64 text may be made up.
	bytes bool
	// required: a proto2 required field is reachable (Decode then has
	// protojson check that they are set).
	required bool
}

const (
	// betweenTokens: punctuation, numbers, true, false, null.
	betweenTokens = "{}[]:,0123456789-+.eEtruefalsn"
	// quotedNumbers: 64-bit integers, map keys, timestamps, durations.
	quotedNumbers = "0123456789-+.eE:TZs"
	base64Chars   = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="
)

func (v *vocab) synthetic(run []byte) bool {
	s := string(run)
	only := func(set string) bool {
		return strings.Trim(s, set) == ""
	}
	if only(betweenTokens) || only(quotedNumbers) || v.bytes && only(base64Chars) {
		return true
	}
	for _, n := range v.names {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// jsonWords are the words any decoded value's JSON may hold besides its
// schema's names: the literals, and the floats JSON cannot write.
var jsonWords = []string{"true", "false", "null", "NaN", "Infinity", "-Infinity"}

type vocabOnce struct {
	once sync.Once
	v    vocab
}

func (c *protobufCodec) vocabulary() *vocab {
	c.vocab.once.Do(func() {
		v := &c.vocab.v
		v.names = slices.Clone(jsonWords)
		seen := map[protoreflect.FullName]bool{}
		var walk func(protoreflect.MessageDescriptor)
		walk = func(md protoreflect.MessageDescriptor) {
			if seen[md.FullName()] {
				return
			}
			seen[md.FullName()] = true
			switch md.FullName() {
			case "google.protobuf.Any", "google.protobuf.FieldMask":
				v.none = true
			}
			if md.ExtensionRanges().Len() > 0 {
				v.none = true
			}
			fs := md.Fields()
			for i := range fs.Len() {
				f := fs.Get(i)
				v.names = append(v.names, string(f.Name()), f.JSONName())
				if f.Cardinality() == protoreflect.Required {
					v.required = true
				}
				switch f.Kind() {
				case protoreflect.BytesKind:
					v.bytes = true
				case protoreflect.EnumKind:
					vals := f.Enum().Values()
					for j := range vals.Len() {
						v.names = append(v.names, string(vals.Get(j).Name()))
					}
				case protoreflect.MessageKind, protoreflect.GroupKind:
					walk(f.Message())
				}
			}
		}
		walk(c.md)
	})
	return &c.vocab.v
}

// vocabulary is the text an Avro value's JSON can make up: the record
// field names and enum symbols the schema reaches, the duration's words,
// and base64 when bytes or a fixed (other than a decimal or a duration)
// are reachable. Dates, times, timestamps and decimals are digits and
// their punctuation, which Literal never vouches for anyway.
func (c *AvroCodec) vocabulary() *vocab {
	c.vocab.once.Do(func() {
		v := &c.vocab.v
		v.names = slices.Clone(jsonWords)
		seen := map[avro.Schema]bool{}
		var walk func(avro.Schema)
		walk = func(s avro.Schema) {
			if seen[s] {
				return
			}
			seen[s] = true
			switch s := s.(type) {
			case *avro.RefSchema:
				walk(s.Schema())
			case *avro.RecordSchema:
				for _, f := range s.Fields() {
					v.names = append(v.names, f.Name())
					walk(f.Type())
				}
			case *avro.EnumSchema:
				v.names = append(v.names, s.Symbols()...)
			case *avro.ArraySchema:
				walk(s.Items())
			case *avro.MapSchema:
				walk(s.Values())
			case *avro.UnionSchema:
				for _, t := range s.Types() {
					walk(t)
				}
			case *avro.FixedSchema:
				switch {
				case avroLogical(s) == avro.Decimal:
				case avroLogical(s) == avro.Duration && s.Size() == 12: // else the decode shows base64
					v.names = append(v.names, "months", "days", "milliseconds")
				default:
					v.bytes = true
				}
			case *avro.PrimitiveSchema:
				if s.Type() == avro.Bytes && avroLogical(s) != avro.Decimal {
					v.bytes = true
				}
			}
		}
		walk(c.schema)
	})
	return &c.vocab.v
}
