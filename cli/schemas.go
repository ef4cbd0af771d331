package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"ilinkdash/config"
	"ilinkdash/ilink/engine/demo"
	"ilinkdash/ilink/schema"
)

// decodeFlags are the one-off schemas of a command, for use without a
// config: they apply to every topic and queue of the run and come before
// the context's decode: rules.
type decodeFlags struct {
	valueProto      string   // FILE:MESSAGE (FILE a .proto or a descriptor set)
	protoPaths      []string // import paths of --value-proto
	valueAvro       string   // FILE.avsc
	valueJSONSchema string   // FILE.json
	keyFormat       string   // text, json or hex
}

func (f *decodeFlags) register(fs *pflag.FlagSet) {
	f.registerSchemas(fs)
	fs.StringVar(&f.keyFormat, "key-format", "", "show keys as text, json or hex")
}

// registerSchemas registers the value schemas alone: for publish and queue
// put, which encode with them; --key-format only changes how keys are
// shown, so there it would be accepted and do nothing.
func (f *decodeFlags) registerSchemas(fs *pflag.FlagSet) {
	fs.StringVar(&f.valueProto, "value-proto", "", "decode values as this Protobuf message: FILE:MESSAGE (FILE a .proto file, compiled in-process, or a descriptor set *.pb)")
	fs.StringSliceVar(&f.protoPaths, "proto-path", nil, "import path for --value-proto (repeatable, as protoc's -I)")
	fs.StringVar(&f.valueAvro, "value-avro", "", "decode values with this Avro schema (.avsc; plain binary or single-object encoding)")
	fs.StringVar(&f.valueJSONSchema, "value-json-schema", "", "validate JSON values against this JSON Schema")
}

// rules is the flags' rule, or nil when none is given.
func (f *decodeFlags) rules() ([]schema.Rule, error) {
	var value schema.Spec
	var named []string
	if f.valueProto != "" {
		// The last colon: a message name has none, a path may (/srv/a:b/x.proto).
		i := strings.LastIndex(f.valueProto, ":")
		file, msg := f.valueProto[:max(i, 0)], f.valueProto[i+1:]
		if i < 0 || file == "" || msg == "" {
			return nil, usageErr("--value-proto %q: want FILE:MESSAGE (orders.proto:shop.Order)", f.valueProto)
		}
		value = schema.Spec{Kind: schema.KindProtobuf, Files: []string{file}, ImportPaths: f.protoPaths, Message: msg}
		named = append(named, "--value-proto")
	} else if len(f.protoPaths) > 0 {
		return nil, usageErr("--proto-path needs --value-proto")
	}
	if f.valueAvro != "" {
		value = schema.Spec{Kind: schema.KindAvro, Schema: f.valueAvro}
		named = append(named, "--value-avro")
	}
	if f.valueJSONSchema != "" {
		value = schema.Spec{Kind: schema.KindJSONSchema, Schema: f.valueJSONSchema}
		named = append(named, "--value-json-schema")
	}
	if len(named) > 1 {
		return nil, usageErr("%s: give one value schema", strings.Join(named, " and "))
	}
	var key schema.Spec
	switch f.keyFormat {
	case "":
	case schema.KindText, schema.KindJSON, schema.KindHex:
		key = schema.Spec{Kind: f.keyFormat}
		named = append(named, "--key-format")
	default:
		return nil, usageErr("--key-format %q: want text, json or hex", f.keyFormat)
	}
	if len(named) == 0 {
		return nil, nil
	}
	where := strings.Join(named, " ")
	// Partial: the side the flags leave out comes from the config's (or
	// the demo's) rule, so --key-format alone keeps the value's schema.
	return []schema.Rule{{Topics: "*", Key: key, Value: value, Where: where, Partial: true},
		{Queues: "*", Key: key, Value: value, Where: where, Partial: true}}, nil
}

// schemaRules are the decode: rules of a context as the schema package
// takes them.
func schemaRules(c config.Context) []schema.Rule {
	out := make([]schema.Rule, 0, len(c.Decode))
	for _, r := range c.Decode {
		out = append(out, schema.Rule{Topics: r.Topics, Queues: r.Queues, Key: schemaSpec(r.Key), Value: schemaSpec(r.Value), Where: r.Where})
	}
	return out
}

func schemaSpec(s config.DecodeSpec) schema.Spec {
	return schema.Spec{Kind: s.Kind, Files: s.Files, ImportPaths: s.ImportPaths, Message: s.Message, Schema: s.Schema}
}

// schemas compiles what a command decodes with: the flags' rule first,
// then the context's decode: rules, then, on the embedded demo, the demo
// topics' built-in schemas. A schema that does not compile is an error
// (exit 2) naming the rule, the file, its line and the reason; f may be
// nil for a command without the flags.
func schemas(r config.Resolved, f *decodeFlags) (*schema.Set, error) {
	var rules []schema.Rule
	if f != nil {
		fr, err := f.rules()
		if err != nil {
			return nil, err
		}
		rules = append(rules, fr...)
	}
	rules = append(rules, schemaRules(r.Context)...)
	rules = append(rules, builtinSchemas(r)...)
	set, err := schema.Compile(rules)
	if err != nil {
		// One line each (report prints a join so): the prefix on each,
		// not once before them all joined by a newline.
		errs := []error{err}
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			errs = j.Unwrap()
		}
		for i, e := range errs {
			errs[i] = fmt.Errorf("decode rules: %w", e)
		}
		return nil, &exitError{code: 2, err: errors.Join(errs...)}
	}
	return set, nil
}

// adminSchemas compiles the schemas of an admin command (queue put and
// browse) before it connects, so a schema that does not compile is the
// first thing said; on --embedded the demo's schemas apply.
func (a *app) adminSchemas(cmd *cobra.Command, f *adminFlags, df *decodeFlags) (*schema.Set, error) {
	r, err := a.resolve(cmd)
	if err != nil {
		return nil, err
	}
	r.Embedded = r.Embedded || f.embedded
	return schemas(r, df)
}

// builtinSchemas are the schemas that come with the cluster: the embedded
// demo's topics decode out of the box.
func builtinSchemas(r config.Resolved) []schema.Rule {
	if !r.Embedded {
		return nil
	}
	return demo.DecodeRules()
}
