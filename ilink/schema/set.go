package schema

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// The kinds of a Spec: how one side (key or value) of a record is shown.
// The first three need no schema: they only choose the display format.
const (
	KindText       = "text"
	KindJSON       = "json"
	KindHex        = "hex"
	KindProtobuf   = "protobuf"
	KindAvro       = "avro"
	KindJSONSchema = "json-schema"
)

// Spec is one side of a decode rule as the config (or a flag) names it.
type Spec struct {
	// Kind is one of the Kind constants; empty means no rule for this side.
	Kind string
	// Files are the .proto files (or one descriptor set, *.pb / *.binpb)
	// of a protobuf spec; ImportPaths its -I; Message the full name.
	Files       []string
	ImportPaths []string
	Message     string
	// Schema is the .avsc of an avro spec or the schema of a json-schema.
	Schema string
	// FS, when set, holds the files (built-in schemas); else the disk.
	FS fs.FS
}

// Rule matches topics or queues by a glob (path.Match: * any run of
// characters, ? one, [..] a class) and says how their keys and values are
// decoded. Where names the rule in errors ("config.yaml:12").
type Rule struct {
	Topics, Queues string
	Key, Value     Spec
	Where          string
	// Partial leaves a side the rule does not name (Kind "") to the next
	// rule that matches, instead of showing it plainly: the flags' rule,
	// so --key-format alone keeps the value's schema from the config.
	Partial bool
}

// Side is a compiled Spec: a Codec when it has a schema, and the display
// format it asks for (a Kind; "" when the rule says nothing of this side).
type Side struct {
	Codec  Codec
	Format string
}

// Pair is how a record's key and value are decoded.
type Pair struct {
	Key, Value Side
	// Rule names the matching rule ("config.yaml:12"), "" for none.
	Rule string
}

// Decodes reports whether the pair decodes anything with a schema.
func (p Pair) Decodes() bool { return p.Key.Codec != nil || p.Value.Codec != nil }

type compiled struct {
	topics, queues string
	pair           Pair
	partial        bool
}

// Set is the compiled decode rules of a context. The zero Set and a nil
// *Set match nothing.
type Set struct {
	rules []compiled
}

// Compile compiles every rule. All problems are reported, each naming its
// rule and the schema file with its line and reason, joined.
func Compile(rules []Rule) (*Set, error) {
	s := &Set{}
	var errs []error
	said := map[string]bool{} // the flags' topics and queues rules fail alike: once
	for _, r := range rules {
		where := r.Where
		if where == "" {
			where = "decode rule"
		}
		bad := func(err error) {
			if e := fmt.Errorf("%s: %w", where, err); !said[e.Error()] {
				said[e.Error()] = true
				errs = append(errs, e)
			}
		}
		if (r.Topics == "") == (r.Queues == "") {
			bad(errors.New("a rule names topics or queues (one of them)"))
			continue
		}
		for _, p := range []string{r.Topics, r.Queues} {
			if _, err := path.Match(p, ""); err != nil {
				bad(fmt.Errorf("pattern %q: %w", p, err))
			}
		}
		if r.Key.Kind == "" && r.Value.Kind == "" {
			bad(errors.New("a rule says how to decode the key, the value or both"))
			continue
		}
		key, kerr := compileSide(r.Key)
		if kerr != nil {
			bad(fmt.Errorf("key: %w", kerr))
		}
		value, verr := compileSide(r.Value)
		if verr != nil {
			bad(fmt.Errorf("value: %w", verr))
		}
		if kerr == nil && verr == nil {
			s.rules = append(s.rules, compiled{topics: r.Topics, queues: r.Queues,
				pair: Pair{Key: key, Value: value, Rule: r.Where}, partial: r.Partial})
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return s, nil
}

// compileSide builds the codec of a spec.
func compileSide(sp Spec) (Side, error) {
	side := Side{Format: sp.Kind}
	var err error
	switch sp.Kind {
	case "", KindText, KindJSON, KindHex:
		return side, nil
	case KindProtobuf:
		if sp.Message == "" {
			return side, errors.New("protobuf: message is missing (a full name: shop.Order)")
		}
		switch {
		case len(sp.Files) == 1 && isDescriptorSet(sp.Files[0]) && sp.FS == nil:
			side.Codec, err = ProtobufDescriptorSet(sp.Files[0], sp.Message)
		case sp.FS != nil:
			side.Codec, err = ProtobufFS(sp.FS, sp.Files, sp.ImportPaths, sp.Message)
		default:
			side.Codec, err = Protobuf(sp.Files, sp.ImportPaths, sp.Message)
		}
	case KindAvro:
		if sp.Schema == "" {
			return side, errors.New("avro: schema is missing (an .avsc file)")
		}
		if sp.FS != nil {
			var text []byte
			if text, err = fs.ReadFile(sp.FS, sp.Schema); err == nil {
				side.Codec, err = AvroText(sp.Schema, text)
			} else {
				err = fmt.Errorf("avro: %w", err)
			}
		} else {
			side.Codec, err = Avro(sp.Schema)
		}
	case KindJSONSchema:
		if sp.Schema == "" {
			return side, errors.New("json-schema: schema is missing (a .json file)")
		}
		if sp.FS != nil {
			side.Codec, err = JSONSchemaFS(sp.FS, sp.Schema)
		} else {
			side.Codec, err = JSONSchema(sp.Schema)
		}
	default:
		return side, fmt.Errorf("unknown kind %q (want %s)", sp.Kind, strings.Join(Kinds, ", "))
	}
	return side, err
}

// Kinds are the kinds a Spec may name, as the config spells them.
var Kinds = []string{KindText, KindJSON, KindHex, KindProtobuf, KindAvro, KindJSONSchema}

// isDescriptorSet says whether file is a compiled descriptor set rather
// than .proto source, by its name (protoc and buf write *.pb, *.binpb).
func isDescriptorSet(file string) bool {
	return strings.HasSuffix(file, ".pb") || strings.HasSuffix(file, ".binpb") || strings.HasSuffix(file, ".desc")
}

// Topic is how records of topic are decoded: the first rule matching it.
func (s *Set) Topic(topic string) Pair {
	return s.first(topic, func(r compiled) string { return r.topics })
}

// Queue is how messages of queue are decoded (their bodies are values).
func (s *Set) Queue(queue string) Pair {
	return s.first(queue, func(r compiled) string { return r.queues })
}

// first is the pair of the first rule whose glob, as glob picks it (the
// topics' or the queues'), matches name; a rule without that glob is
// passed over. A partial rule gives the sides it names and leaves the
// others to the rules after it; Rule then names the rule of the value
// (of the key when the value has none).
func (s *Set) first(name string, glob func(compiled) string) Pair {
	var out Pair
	if s == nil {
		return out
	}
	for _, r := range s.rules {
		g := glob(r)
		if g == "" {
			continue
		}
		if ok, _ := path.Match(g, name); !ok {
			continue
		}
		if out.Key.Format == "" && r.pair.Key.Format != "" {
			out.Key = r.pair.Key
			if out.Value.Format == "" {
				out.Rule = r.pair.Rule
			}
		}
		if out.Value.Format == "" && r.pair.Value.Format != "" {
			out.Value, out.Rule = r.pair.Value, r.pair.Rule
		}
		if !r.partial || (out.Key.Format != "" && out.Value.Format != "") {
			if out.Rule == "" {
				out.Rule = r.pair.Rule
			}
			return out
		}
	}
	return out
}

// Len is the number of rules.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.rules)
}

// Prepend returns a set whose rules are first the ones of top, then s's:
// a flag given for one run wins over the config.
func (s *Set) Prepend(top *Set) *Set {
	out := &Set{}
	if top != nil {
		out.rules = append(out.rules, top.rules...)
	}
	if s != nil {
		out.rules = append(out.rules, s.rules...)
	}
	return out
}
