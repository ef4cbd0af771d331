package schema

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/bufbuild/protocompile"
	"github.com/bufbuild/protocompile/reporter"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

// maxListed is how many message names an unknown-message error lists.
const maxListed = 10

// protobufCodec decodes and encodes one message type of compiled
// descriptors through dynamic messages, so no generated Go code is needed.
type protobufCodec struct {
	name string
	md   protoreflect.MessageDescriptor
	// types resolves Any payloads and extensions against the schema's own
	// files, not the binary's generated ones.
	types *dynamicpb.Types
	// vocab is the text its JSON mapping can make up (Literal), built on
	// first use.
	vocab vocabOnce
}

// Protobuf compiles the .proto files in-process and returns the codec of
// message (a full name: shop.Order), which any of them or their imports
// defines. Imports resolve through importPaths, as protoc's -I does, and
// then the well-known types (google/protobuf/*.proto) built in. A file
// under none of importPaths is named relative to its own directory, which
// then serves as an import path too, so a file importing its siblings
// needs no import path at all.
//
// A file that does not compile is an error naming file:line:col and the
// reason; a message the files do not define is an error listing the ones
// they do.
func Protobuf(files, importPaths []string, message string) (Codec, error) {
	return protobufFrom(os.ReadFile, files, importPaths, message)
}

// ProtobufFS is Protobuf over the files of fsys (an embed.FS of built-in
// schemas, say): files and importPaths are paths in fsys.
func ProtobufFS(fsys fs.FS, files, importPaths []string, message string) (Codec, error) {
	return protobufFrom(func(name string) ([]byte, error) { return fs.ReadFile(fsys, filepath.ToSlash(name)) },
		files, importPaths, message)
}

// inImportPaths is the first import path's file named f (relative), as
// protoc finds an input file that is not where it was given.
func inImportPaths(read func(string) ([]byte, error), f string, importPaths []string) (string, bool) {
	if filepath.IsAbs(f) {
		return "", false
	}
	for _, ip := range importPaths {
		if _, err := read(filepath.Join(ip, f)); err == nil {
			return filepath.Join(ip, f), true
		}
	}
	return "", false
}

func protobufFrom(read func(string) ([]byte, error), files, importPaths []string, message string) (Codec, error) {
	if len(files) == 0 {
		return nil, errors.New("protobuf: no .proto file given")
	}
	res := &diskResolver{read: read, opened: map[string]string{}}
	for _, ip := range importPaths {
		res.importPaths = append(res.importPaths, filepath.Clean(ip))
	}
	names := make([]string, len(files))
	for i, f := range files {
		if _, err := read(f); err != nil {
			// As protoc: a relative file not found as given is looked
			// for in the import paths (-I schemas shop/order.proto).
			in, ok := inImportPaths(read, f, res.importPaths)
			if !ok {
				if len(res.importPaths) > 0 && !filepath.IsAbs(f) && errors.Is(err, fs.ErrNotExist) {
					return nil, fmt.Errorf("protobuf: %w (nor in the import paths %s)", err, strings.Join(res.importPaths, ", "))
				}
				return nil, fmt.Errorf("protobuf: %w", err)
			}
			f = in
		}
		name, ok := importName(f, res.importPaths)
		if !ok {
			dir := filepath.Dir(filepath.Clean(f))
			if !slices.Contains(res.importPaths, dir) {
				res.importPaths = append(res.importPaths, dir)
			}
			name = filepath.Base(f)
		}
		if slices.Contains(names[:i], name) {
			return nil, fmt.Errorf("protobuf: %s is given twice (as %s)", f, name)
		}
		names[i] = name
		res.opened[name] = f // the path as given, for errors and Name
	}

	c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(res)}
	compiled, err := c.Compile(context.Background(), names...)
	if err != nil {
		return nil, res.compileError(err)
	}

	// The descriptors protocompile links resolve features afresh on every
	// question a decode asks (HasPresence, …); rebuilt by protodesc they
	// answer from fields, which halves the cost of a decode.
	l := setLoader{file: strings.Join(files, ", "), byPath: map[string]*descriptorpb.FileDescriptorProto{}, reg: new(protoregistry.Files)}
	var collect func(protoreflect.FileDescriptor)
	collect = func(fd protoreflect.FileDescriptor) {
		if _, ok := l.byPath[fd.Path()]; ok {
			return
		}
		l.byPath[fd.Path()] = protodesc.ToFileDescriptorProto(fd)
		for i := range fd.Imports().Len() {
			collect(fd.Imports().Get(i).FileDescriptor)
		}
	}
	for _, f := range compiled {
		collect(f)
	}
	reg := l.reg
	var defined []protoreflect.FileDescriptor
	for _, f := range compiled {
		fd, err := l.load(f.Path(), nil)
		if err != nil {
			return nil, err
		}
		defined = append(defined, fd)
	}
	md, err := findMessage(reg, message, defined, strings.Join(files, ", "))
	if err != nil {
		return nil, err
	}
	return &protobufCodec{
		name:  fmt.Sprintf("protobuf %s (%s)", md.FullName(), res.path(md.ParentFile().Path())),
		md:    md,
		types: dynamicpb.NewTypes(reg),
	}, nil
}

// ProtobufDescriptorSet reads a FileDescriptorSet (a *.pb or *.binpb file,
// as `protoc --descriptor_set_out --include_imports` or `buf build -o`
// writes) and returns the codec of message. A well-known type the set
// leaves out (written without --include_imports) is taken from the ones
// built in; any other missing import is an error.
func ProtobufDescriptorSet(file, message string) (Codec, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("protobuf: %w", err)
	}
	var set descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(raw, &set); err != nil {
		return nil, fmt.Errorf("protobuf: %s is not a descriptor set: %s", file, protoReason(err))
	}
	if len(set.File) == 0 {
		return nil, fmt.Errorf("protobuf: descriptor set %s holds no file", file)
	}
	l := setLoader{file: file, byPath: map[string]*descriptorpb.FileDescriptorProto{}, reg: new(protoregistry.Files)}
	for _, fdp := range set.File {
		l.byPath[fdp.GetName()] = fdp
	}
	var defined []protoreflect.FileDescriptor
	for _, fdp := range set.File {
		fd, err := l.load(fdp.GetName(), nil)
		if err != nil {
			return nil, err
		}
		// The well-known types a set includes are no news to the operator.
		if !strings.HasPrefix(fd.Path(), "google/protobuf/") {
			defined = append(defined, fd)
		}
	}
	md, err := findMessage(l.reg, message, defined, file)
	if err != nil {
		return nil, err
	}
	return &protobufCodec{
		name:  fmt.Sprintf("protobuf %s (%s)", md.FullName(), file),
		md:    md,
		types: dynamicpb.NewTypes(l.reg),
	}, nil
}

func (c *protobufCodec) Name() string { return c.name }

// Decode unmarshals b as the message and writes it as protobuf's JSON
// mapping, compacted so equal records give equal bytes (protojson varies
// its whitespace on purpose). Fields are named as the .proto file spells
// them (UseProtoNames), not lowerCamelCase: those are the names the team
// reads in its schema and types in a field search; Encode takes both.
// Fields at their default value are left out, as the wire leaves them out;
// enums are their names, 64-bit integers strings, a Timestamp RFC 3339.
//
// Bytes that carry none of the message's fields (every field number
// unknown to it, or of the wrong wire type) are an error rather than an
// empty object: they were almost surely written with another schema.
func (c *protobufCodec) Decode(b []byte) ([]byte, error) {
	m := dynamicpb.NewMessage(c.md)
	// Required fields (proto2) are checked once, by protojson below.
	if err := (proto.UnmarshalOptions{AllowPartial: true, Resolver: c.types}).Unmarshal(b, m); err != nil {
		return nil, fmt.Errorf("not a %s: %s", c.md.FullName(), protoReason(err))
	}
	if unknown := m.GetUnknown(); len(unknown) > 0 && len(unknown) == len(b) {
		return nil, fmt.Errorf("not a %s: none of its fields in the %d bytes (field numbers %s)",
			c.md.FullName(), len(b), fieldNumbers(unknown))
	}
	// A message that can hold no required field skips protojson's check
	// of them (a tenth of a decode).
	v := c.vocabulary()
	partial := !v.required && !v.none
	out, err := protojson.MarshalOptions{UseProtoNames: true, Resolver: c.types, AllowPartial: partial}.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("%s to JSON: %s", c.md.FullName(), protoReason(err))
	}
	return dropSpaces(out), nil
}

// dropSpaces removes, in place, the white space between the tokens of
// protojson's output (it adds some at random, on purpose): all a
// json.Compact would do to it, at a third of the cost.
func dropSpaces(b []byte) []byte {
	out := b[:0]
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inString && c == '\\' && i+1 < len(b):
			out = append(out, c, b[i+1])
			i++
			continue
		case inString && c == '"':
			inString = false
		case c == '"':
			inString = true
		case !inString && (c == ' ' || c == '\n' || c == '\t' || c == '\r'):
			continue
		}
		out = append(out, c)
	}
	return out
}

// Encode parses doc as protobuf's JSON mapping of the message (field names
// as in the .proto file or lowerCamelCase) and marshals it
// deterministically, so the same JSON always gives the same bytes. An
// unknown field or a value of the wrong type is an error naming the field
// and its position in doc.
func (c *protobufCodec) Encode(doc []byte) ([]byte, error) {
	m := dynamicpb.NewMessage(c.md)
	if err := (protojson.UnmarshalOptions{Resolver: c.types}).Unmarshal(doc, m); err != nil {
		reason := protoReason(err)
		// protojson names the field in most errors but not all (a bad
		// Timestamp says only the value), and never its path: add it.
		if path := fieldAt(doc, reason); path != "" {
			return nil, fmt.Errorf("JSON does not fit %s at %s: %s", c.md.FullName(), path, reason)
		}
		return nil, fmt.Errorf("JSON does not fit %s: %s", c.md.FullName(), reason)
	}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %s", c.md.FullName(), protoReason(err))
	}
	return b, nil
}

// diskResolver finds the files protocompile asks for under the import
// paths and remembers where each was found, so errors name the file on
// disk rather than its import name.
type diskResolver struct {
	read        func(string) ([]byte, error) // os.ReadFile, or an fs.FS's
	importPaths []string
	mu          sync.Mutex
	opened      map[string]string // import name → path on disk
}

func (r *diskResolver) FindFileByPath(name string) (protocompile.SearchResult, error) {
	r.mu.Lock()
	known, ok := r.opened[name]
	r.mu.Unlock()
	candidates := []string{known}
	if !ok {
		candidates = candidates[:0]
		for _, ip := range r.importPaths {
			candidates = append(candidates, filepath.Join(ip, filepath.FromSlash(name)))
		}
	}
	for _, p := range candidates {
		src, err := r.read(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return protocompile.SearchResult{}, err
		}
		r.mu.Lock()
		r.opened[name] = p
		r.mu.Unlock()
		return protocompile.SearchResult{Source: bytes.NewReader(src)}, nil
	}
	return protocompile.SearchResult{}, fmt.Errorf("%s is in none of the import paths (%s): %w",
		name, strings.Join(r.importPaths, ", "), os.ErrNotExist)
}

// path is where the file of import name was read, or name itself for a
// built-in well-known type.
func (r *diskResolver) path(name string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p, ok := r.opened[name]; ok {
		return p
	}
	return name
}

// compileError says where and why compiling failed: file:line:col, with
// the file as found on disk, then the reason.
func (r *diskResolver) compileError(err error) error {
	var ewp reporter.ErrorWithPos
	if !errors.As(err, &ewp) {
		return fmt.Errorf("protobuf: %w", err)
	}
	pos := ewp.GetPosition()
	where := r.path(pos.Filename)
	if pos.Line > 0 {
		where = fmt.Sprintf("%s:%d:%d", where, pos.Line, pos.Col)
	}
	return fmt.Errorf("protobuf: %s: %w", where, ewp.Unwrap())
}

// importName is file's name relative to the first import path holding it,
// with forward slashes, as an import statement would spell it.
func importName(file string, importPaths []string) (string, bool) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return "", false
	}
	for _, ip := range importPaths {
		ipAbs, err := filepath.Abs(ip)
		if err != nil {
			continue
		}
		rel, err := filepath.Rel(ipAbs, abs)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		return filepath.ToSlash(rel), true
	}
	return "", false
}

// register adds fd and, first, everything it imports to reg, once each.
func register(reg *protoregistry.Files, fd protoreflect.FileDescriptor) error {
	if _, err := reg.FindFileByPath(fd.Path()); err == nil {
		return nil
	}
	imports := fd.Imports()
	for i := range imports.Len() {
		if err := register(reg, imports.Get(i).FileDescriptor); err != nil {
			return err
		}
	}
	return reg.RegisterFile(fd)
}

// setLoader builds the files of a descriptor set in dependency order,
// whatever order the set lists them in.
type setLoader struct {
	file   string
	byPath map[string]*descriptorpb.FileDescriptorProto
	reg    *protoregistry.Files
}

func (l *setLoader) load(path string, importedBy []string) (protoreflect.FileDescriptor, error) {
	if fd, err := l.reg.FindFileByPath(path); err == nil {
		return fd, nil
	}
	if slices.Contains(importedBy, path) {
		return nil, fmt.Errorf("protobuf: %s: import cycle: %s → %s", l.file, strings.Join(importedBy, " → "), path)
	}
	fdp, ok := l.byPath[path]
	if !ok {
		// A set written without --include_imports: the well-known types
		// are built in, anything else is missing.
		if fd, err := protoregistry.GlobalFiles.FindFileByPath(path); err == nil && strings.HasPrefix(path, "google/protobuf/") {
			return fd, register(l.reg, fd)
		}
		return nil, fmt.Errorf("protobuf: %s: %s imports %s, which the set does not hold (write it with --include_imports)",
			l.file, importedBy[len(importedBy)-1], path)
	}
	for _, dep := range fdp.GetDependency() {
		if _, err := l.load(dep, append(importedBy, path)); err != nil {
			return nil, err
		}
	}
	fd, err := protodesc.NewFile(fdp, l.reg)
	if err != nil {
		return nil, fmt.Errorf("protobuf: %s: %s: %s", l.file, path, protoReason(err))
	}
	if err := l.reg.RegisterFile(fd); err != nil {
		return nil, fmt.Errorf("protobuf: %s: %s: %s", l.file, path, protoReason(err))
	}
	return fd, nil
}

// findMessage looks message up in reg; when it is not there the error
// lists (up to maxListed of) the messages the defined files hold.
func findMessage(reg *protoregistry.Files, message string, defined []protoreflect.FileDescriptor, where string) (protoreflect.MessageDescriptor, error) {
	name := protoreflect.FullName(strings.TrimPrefix(strings.TrimSpace(message), "."))
	if name == "" {
		return nil, fmt.Errorf("protobuf: no message named for %s", where)
	}
	d, err := reg.FindDescriptorByName(name)
	if err == nil {
		if md, ok := d.(protoreflect.MessageDescriptor); ok && !md.IsMapEntry() {
			return md, nil
		}
		return nil, fmt.Errorf("protobuf: %s in %s is not a message", name, where)
	}
	var all []string
	for _, fd := range defined {
		all = appendMessages(all, fd.Messages())
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("protobuf: no message %s: %s defines no message", name, where)
	}
	list := strings.Join(all[:min(len(all), maxListed)], ", ")
	if len(all) > maxListed {
		list += fmt.Sprintf(" and %d more", len(all)-maxListed)
	}
	return nil, fmt.Errorf("protobuf: no message %s in %s; it defines %s", name, where, list)
}

// appendMessages appends the full names of msgs and the messages nested in
// them, leaving out the entries protoc makes for map fields.
func appendMessages(names []string, msgs protoreflect.MessageDescriptors) []string {
	for i := range msgs.Len() {
		md := msgs.Get(i)
		if md.IsMapEntry() {
			continue
		}
		names = append(names, string(md.FullName()))
		names = appendMessages(names, md.Messages())
	}
	return names
}

// fieldNumbers lists the field numbers of wire-format bytes, for an error
// about bytes that are not the message.
func fieldNumbers(b []byte) string {
	var nums []string
	for len(b) > 0 && len(nums) < 5 {
		num, typ, n := protowire.ConsumeField(b)
		if n < 0 {
			break
		}
		nums = append(nums, fmt.Sprintf("%d (wire type %d)", num, typ))
		b = b[n:]
	}
	if len(b) > 0 {
		nums = append(nums, "…")
	}
	return strings.Join(nums, ", ")
}

// protoReason is a protobuf error's text without its "proto:" prefix,
// which the library writes with a randomly varying space to discourage
// matching on it.
func protoReason(err error) string {
	s := err.Error()
	if rest, ok := strings.CutPrefix(s, "proto:"); ok {
		s = strings.TrimLeft(rest, " \u00a0")
	}
	return s
}

// errorPos is the position protojson's errors start with.
var errorPos = regexp.MustCompile(`\(line (\d+):(\d+)\)`)

// fieldAt is the path (lines[0].qty) of the field at the position a
// protojson error gives, or "" when it has none or it is the document.
func fieldAt(doc []byte, reason string) string {
	m := errorPos.FindStringSubmatch(reason)
	if m == nil {
		return ""
	}
	line, _ := strconv.Atoi(m[1])
	col, _ := strconv.Atoi(m[2])
	offset := 0
	for ; line > 1; line-- {
		i := bytes.IndexByte(doc[offset:], '\n')
		if i < 0 {
			return ""
		}
		offset += i + 1
	}
	// The column counts runes from 1.
	for ; col > 1 && offset < len(doc); col-- {
		_, n := utf8.DecodeRune(doc[offset:])
		offset += n
	}
	return jsonPath(doc, offset)
}

// jsonPath is the path of the innermost member or element of doc whose
// key or value spans offset.
func jsonPath(doc []byte, offset int) string {
	type frame struct {
		array     bool
		index     int
		key       string
		expectKey bool
	}
	var stack []*frame
	path := func() string {
		var b strings.Builder
		for _, f := range stack {
			switch {
			case f.array:
				fmt.Fprintf(&b, "[%d]", f.index)
			case !f.expectKey:
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(f.key)
			}
		}
		return b.String()
	}
	// done marks the value of the innermost member or element read.
	done := func() {
		if len(stack) == 0 {
			return
		}
		top := stack[len(stack)-1]
		if top.array {
			top.index++
		} else {
			top.expectKey = true
		}
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			return path()
		}
		end := int(dec.InputOffset())
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if key, ok := tok.(string); ok && top != nil && !top.array && top.expectKey {
			top.key, top.expectKey = key, false
			if end > offset {
				return path()
			}
			continue
		}
		if end > offset {
			return path()
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{expectKey: true})
		case json.Delim('['):
			stack = append(stack, &frame{array: true})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			done()
		default:
			done()
		}
	}
}
