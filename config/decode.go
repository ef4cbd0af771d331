package config

import (
	"fmt"
	"path"
	"path/filepath"

	"go.yaml.in/yaml/v3"
)

// DecodeRule is one entry of a context's `decode:` list: which topics or
// queues (a glob: * any run of characters, ? one, [..] a class) and how
// their keys and values are shown. The first rule that matches wins. The
// schemas are compiled by ilink/schema when a command needs them; here the
// rule is only read and checked for shape.
type DecodeRule struct {
	Topics, Queues string
	Key, Value     DecodeSpec
	// Where is "FILE:LINE" of the rule, for the errors of its schemas.
	Where string
}

// DecodeSpec is one side of a rule. Kind is "text", "json", "hex",
// "protobuf", "avro" or "json-schema"; paths are absolute (a relative one
// is relative to the config file).
type DecodeSpec struct {
	Kind        string
	Files       []string // protobuf: .proto files, or one descriptor set
	ImportPaths []string // protobuf
	Message     string   // protobuf: the full message name
	Schema      string   // avro .avsc, json-schema .json
}

// decodeKinds are the scalar kinds (no schema) a side may be.
var decodeKinds = []string{"text", "json", "hex"}

func (d *decoder) decodeRules(n *yaml.Node, path string) []DecodeRule {
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, path, "expected a list of rules (- topics: PATTERN …), got %s", describe(n))
		return nil
	}
	var out []DecodeRule
	for i, item := range n.Content {
		item, p := deref(item), fmt.Sprintf("%s[%d]", path, i)
		r := DecodeRule{Where: fmt.Sprintf("%s:%d", d.file, item.Line)}
		before := len(d.errs)
		d.object(item, p, []field{
			{"topics", func(v *yaml.Node, path string) { r.Topics = d.glob(v, path) }},
			{"queues", func(v *yaml.Node, path string) { r.Queues = d.glob(v, path) }},
			{"key", func(v *yaml.Node, path string) { r.Key = d.decodeSpec(v, path) }},
			{"value", func(v *yaml.Node, path string) { r.Value = d.decodeSpec(v, path) }},
		})
		if len(d.errs) > before {
			continue
		}
		switch {
		case item.Kind != yaml.MappingNode:
			continue
		case r.Topics == "" && r.Queues == "":
			d.errorf(item, p, "a rule names the topics or the queues it decodes (topics: PATTERN or queues: PATTERN)")
		case r.Topics != "" && r.Queues != "":
			d.errorf(item, p, "a rule names topics or queues, not both (write two rules)")
		case r.Key.Kind == "" && r.Value.Kind == "":
			d.errorf(item, p, "a rule says how to show the key, the value or both (key: text, value: {protobuf: …})")
		default:
			out = append(out, r)
		}
	}
	return out
}

func (d *decoder) glob(v *yaml.Node, p string) string {
	s, ok := d.str(v, p)
	if !ok {
		return ""
	}
	if s == "" {
		d.errorf(v, p, "must not be empty (* matches every name)")
		return ""
	}
	if _, err := path.Match(s, ""); err != nil {
		d.errorf(v, p, "bad pattern %q: %v", s, err)
		return ""
	}
	return s
}

// decodeSpec reads `text` (json, hex) or a one-key mapping
// {protobuf: {...}}, {avro: {schema: F}} (or avro: F), {json-schema: F}.
func (d *decoder) decodeSpec(v *yaml.Node, p string) DecodeSpec {
	if v.Kind == yaml.ScalarNode {
		s, ok := d.str(v, p)
		if !ok {
			return DecodeSpec{}
		}
		for _, k := range decodeKinds {
			if s == k {
				return DecodeSpec{Kind: k}
			}
		}
		d.errorf(v, p, "unknown format %q (want text, json or hex, or a schema: {protobuf: …}, {avro: …}, {json-schema: …})", s)
		return DecodeSpec{}
	}
	pairs := d.pairs(v, p)
	if v.Kind != yaml.MappingNode || len(pairs) != 1 {
		d.errorf(v, p, "expected text, json, hex or one schema ({protobuf: …}, {avro: …}, {json-schema: …}), got %s", describe(v))
		return DecodeSpec{}
	}
	kind, body := pairs[0].key.Value, deref(pairs[0].val)
	bp := child(p, kind)
	sp := DecodeSpec{Kind: kind}
	switch kind {
	case "protobuf":
		d.object(body, bp, []field{
			{"files", func(v *yaml.Node, path string) { sp.Files = d.paths(v, path) }},
			{"import-paths", func(v *yaml.Node, path string) { sp.ImportPaths = d.paths(v, path) }},
			{"message", func(v *yaml.Node, path string) { sp.Message, _ = d.str(v, path) }},
		})
		if len(sp.Files) == 0 {
			d.errorf(body, bp, "files: name the .proto files (or one descriptor set, *.pb)")
		}
		if sp.Message == "" {
			d.errorf(body, bp, "message: name the message, in full (shop.Order)")
		}
	case "avro", "json-schema":
		if body.Kind == yaml.ScalarNode {
			if s, ok := d.str(body, bp); ok {
				sp.Schema = d.schemaPath(body, bp, s)
			}
		} else {
			d.object(body, bp, []field{
				{"schema", func(v *yaml.Node, path string) {
					if s, ok := d.str(v, path); ok {
						sp.Schema = d.schemaPath(v, path, s)
					}
				}},
			})
		}
		if sp.Schema == "" {
			d.errorf(body, bp, "schema: name the schema file")
		}
	default:
		d.errorf(pairs[0].key, bp, "unknown schema kind %q (want protobuf, avro or json-schema)", kind)
		return DecodeSpec{}
	}
	return sp
}

// paths reads a list of file paths (or one path), relative to the file.
func (d *decoder) paths(v *yaml.Node, p string) []string {
	if v.Kind == yaml.ScalarNode {
		if s, ok := d.str(v, p); ok && s != "" {
			return []string{d.schemaPath(v, p, s)}
		}
		return nil
	}
	if v.Kind != yaml.SequenceNode {
		d.errorf(v, p, "expected a list of paths, got %s", describe(v))
		return nil
	}
	var out []string
	for i, item := range v.Content {
		ip := fmt.Sprintf("%s[%d]", p, i)
		if s, ok := d.str(deref(item), ip); ok && s != "" {
			out = append(out, d.schemaPath(deref(item), ip, s))
		}
	}
	return out
}

// pathField decodes a file path into dst: ~ expanded (an error when it
// cannot be) and relative to the config file's directory, so the result
// does not depend on the directory the dashboard was started from; ""
// keeps the default.
func (d *decoder) pathField(name string, dst *string) field {
	return field{name, func(v *yaml.Node, path string) {
		s, ok := d.str(v, path)
		if !ok || s == "" {
			return
		}
		p, err := ExpandHome(s)
		if err != nil {
			d.errorf(v, path, "%v", err)
			return
		}
		*dst = d.relPath(p)
	}}
}

// checkedField decodes a string into dst once check accepts it; check's
// error is said at the value, and dst keeps its default.
func (d *decoder) checkedField(name string, check func(string) error, dst *string) field {
	return field{name, func(v *yaml.Node, path string) {
		if s, ok := d.str(v, path); ok {
			if err := check(s); err != nil {
				d.errorf(v, path, "%v", err)
				return
			}
			*dst = s
		}
	}}
}

// schemaPath is relPath for a schema file or import path at node v: a ~
// that cannot be expanded (~user) is an error said at the value, not a
// directory named "~user" under the config file's (the path is kept as
// written, so it is not also said to be missing).
func (d *decoder) schemaPath(v *yaml.Node, path, p string) string {
	if _, err := ExpandHome(p); err != nil {
		d.errorf(v, path, "%v", err)
		return p
	}
	return d.relPath(p)
}

// relPath expands ~ and makes p relative to the config file's directory.
func (d *decoder) relPath(p string) string {
	if x, err := ExpandHome(p); err == nil {
		p = x
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(d.dir, p)
	}
	return p
}
