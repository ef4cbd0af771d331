// Package gen turns ilink/wire/messages.def into the message types,
// codecs and request codes of ilink/wire (messages_gen.go), franz-go kmsg
// style: one definitions file, every Encode and Decode written from it.
// It is the library half of the wiregen command, so that a test of
// ilink/wire can run it in memory and compare its output with the
// committed file.
package gen

import (
	"bufio"
	"bytes"
	"fmt"
	"go/format"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// scalar is one wire primitive: its Go type, how it is written and read,
// and the fewest bytes it takes (what bounds an array count, ArrayLen).
type scalar struct {
	goType string
	write  string // %s = the value
	read   string
	min    int
	elem   string // suffix of its element helpers (encodeX/decodeX)
	doc    string // the type as docs/PROTOCOL.md writes it
}

// scalars are the primitives of docs/PROTOCOL.md §3 and §11.1.
var scalars = map[string]scalar{
	"string":   {"string", "w.String(%s)", "r.String()", 1, "String", "string"},
	"bool":     {"bool", "w.Bool(%s)", "r.Bool()", 1, "Bool", "bool"},
	"u8":       {"uint8", "w.U8(%s)", "r.U8()", 1, "U8", "u8"},
	"u16":      {"uint16", "w.U16(%s)", "r.U16()", 2, "U16", "u16"},
	"u32":      {"uint32", "w.U32(%s)", "r.U32()", 4, "U32", "u32"},
	"u64":      {"uint64", "w.U64(%s)", "r.U64()", 8, "U64", "u64"},
	"i16":      {"int16", "w.I16(%s)", "r.I16()", 2, "I16", "i16"},
	"i32":      {"int32", "w.I32(%s)", "r.I32()", 4, "I32", "i32"},
	"i64":      {"int64", "w.I64(%s)", "r.I64()", 8, "I64", "i64"},
	"uvarint":  {"uint64", "w.Uvarint(%s)", "r.Uvarint()", 1, "Uvarint", "uvarint"},
	"varint":   {"int", "w.Varint(int64(%s))", "r.smallInt()", 1, "Int", "varint"},
	"varint64": {"int64", "w.Varint(%s)", "r.Varint()", 1, "Int64", "varint"},
	"f32":      {"float64", "w.F32(%s)", "r.F32()", 4, "F32", "f32"},
	"bytes":    {"[]byte", "w.Bytes(%s)", "r.Bytes()", 1, "Bytes", "bytes"},
}

// Type is a field's type: a scalar (possibly under another Go type), a
// struct, or an array of either.
type Type struct {
	Scalar   string // key of scalars, or ""
	GoName   string // the Go type of a scalar when not its own (u8:SessionMode)
	Struct   string // a declared struct, message or codec
	Elem     *Type  // array element
	Nullable bool   // array preceded by a has_… bool (nil = not given)
	Pooled   bool   // decoded into a reply-wide backing array (readArrayFrom)
}

// Field is one field of a declaration, in Go declaration order.
type Field struct {
	Name    string
	Type    *Type
	Doc     []string // comment lines above it
	Comment string   // comment after it
	line    int
}

// Decl is one declaration of the file.
type Decl struct {
	Kind   string // "message", "struct" or "codec"
	Name   string
	Doc    []string
	Fields []Field
	Wire   []string // wire order when it is not the declaration order
	Check  bool     // Decode ends with the hand-written m.check(r)
	Suffix string   // codec: methods encode<Suffix>/decode<Suffix> on a type declared elsewhere
	line   int

	// Trailer: Encode ends with the hand-written m.encodeTrailer(w), an
	// extension after the last field that the type does not hold.
	Trailer bool
	// Version is the layout version of a message (the version option), 0
	// when not given: version 1, the layout of the first release.
	Version int
}

// file is a parsed definitions file.
type file struct {
	decls []*Decl
	codes []*CodeBlock
}

// Parse reads a definitions file and returns its declarations (the codes
// blocks are only generated, not returned). Its grammar, line by line:
//
//	# a note for the reader of the file (dropped)
//	// doc comment of the next declaration (copied)
//	message Name [check] [trailer] [version N]
//	                       a body: Encode and Decode, a Message
//	struct Name            a part of bodies: encode and decode
//	codec Type Suffix      encode<Suffix>/decode<Suffix> for a type declared in Go
//	<tab>// doc comment of the next field
//	<tab>Field type [pooled] [// comment]
//	<tab>wire: F1 F2 …     the wire order, when not the field order
//	codes [table NAME] [ilink]
//	                       a block of request codes, listed in the document's
//	                       table NAME; ilink: codes iLink's documentation names
//	<tab>// doc comment of the next code
//	<tab>CodeName = 2000 "NAME" [Request -> Reply] [// comment]
//	                       a constant of type Code, the name Code.String gives
//	                       it, and the bodies of its table row (codes.go)
//
// A codes block becomes one const block of the generated file (its doc
// comment, the codes' comments and the blank lines between codes kept; a
// block of one undocumented code is a single const line), and every block
// fills the one table of names, codeNames. No two codes share a value, a
// name or a constant.
//
// Types: the scalars string bool u8 u16 u32 u64 i16 i32 i64 uvarint
// varint varint64 f32 bytes, a scalar under another Go type (u8:int8,
// varint:int32), a declared name, []T, and ?[]T (a has_… bool first).
//
// Options of a message: check (Decode ends with the hand-written
// m.check(r)), trailer (Encode ends with the hand-written
// m.encodeTrailer(w)) and version N, the body's layout version (1 to 255;
// 1 when not given), which a layout change bumps so that the engine can
// refuse a client speaking another (LayoutVersions).
func Parse(src []byte) ([]*Decl, error) {
	f, err := parse(src)
	if err != nil {
		return nil, err
	}
	return f.decls, nil
}

func parse(src []byte) (*file, error) {
	var decls []*Decl
	var codes []*CodeBlock
	var doc []string
	var cur *Decl
	var block *CodeBlock // the codes block being read, if any
	gap := false         // a blank line since the last code
	sc := bufio.NewScanner(bytes.NewReader(src))
	n := 0
	for sc.Scan() {
		n++
		raw := strings.TrimRight(sc.Text(), " \t")
		line := strings.TrimSpace(raw)
		indented := raw != "" && (raw[0] == '\t' || raw[0] == ' ')
		switch {
		case line == "":
			doc = nil
			gap = true
			continue
		case strings.HasPrefix(line, "#"):
			continue
		case strings.HasPrefix(line, "//"):
			doc = append(doc, line)
			continue
		}
		if !indented && (line == "codes" || strings.HasPrefix(line, "codes ")) {
			b, err := parseCodesHeader(line, n, doc)
			if err != nil {
				return nil, err
			}
			block = b
			codes = append(codes, block)
			doc, cur = nil, nil
			continue
		}
		if !indented {
			d, err := parseDecl(line, n)
			if err != nil {
				return nil, err
			}
			d.Doc = doc
			doc = nil
			decls = append(decls, d)
			cur, block = d, nil
			continue
		}
		if block != nil {
			if err := block.add(line, n, doc, gap); err != nil {
				return nil, err
			}
			doc, gap = nil, false
			continue
		}
		if cur == nil {
			return nil, fmt.Errorf("line %d: a field outside any declaration", n)
		}
		if rest, ok := strings.CutPrefix(line, "wire:"); ok {
			cur.Wire = strings.Fields(rest)
			continue
		}
		f, err := parseField(line, n)
		if err != nil {
			return nil, err
		}
		f.Doc = doc
		doc = nil
		cur.Fields = append(cur.Fields, f)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if err := check(decls); err != nil {
		return nil, err
	}
	f := &file{decls, codes}
	if err := checkCodes(f); err != nil {
		return nil, err
	}
	return f, nil
}

func parseDecl(line string, n int) (*Decl, error) {
	w := strings.Fields(line)
	d := &Decl{Kind: w[0], line: n}
	switch {
	case (w[0] == "message" || w[0] == "struct") && len(w) >= 2:
		d.Name = w[1]
		for i := 2; i < len(w); i++ {
			switch opt := w[i]; {
			case w[0] != "message":
				return nil, fmt.Errorf("line %d: unknown option %q of %s %s", n, opt, w[0], w[1])
			case opt == "check":
				d.Check = true
			case opt == "trailer":
				d.Trailer = true
			case opt == "version" && d.Version == 0:
				if i+1 == len(w) {
					return nil, fmt.Errorf("line %d: version of message %s: no number after it", n, w[1])
				}
				i++
				v, err := strconv.Atoi(w[i])
				if err != nil || v < 1 || v > 255 {
					return nil, fmt.Errorf("line %d: version of message %s is %q: want 1 to 255", n, w[1], w[i])
				}
				d.Version = v
			default:
				return nil, fmt.Errorf("line %d: unknown option %q of %s %s", n, opt, w[0], w[1])
			}
		}
	case w[0] == "codec" && len(w) == 3:
		d.Name, d.Suffix = w[1], w[2]
	default:
		return nil, fmt.Errorf("line %d: want message Name, struct Name, codec Type Suffix or codes, have %q", n, line)
	}
	return d, nil
}

func parseField(line string, n int) (Field, error) {
	f := Field{line: n}
	if i := strings.Index(line, "//"); i >= 0 {
		f.Comment = strings.TrimSpace(line[i:])
		line = line[:i]
	}
	w := strings.Fields(line)
	if len(w) < 2 || len(w) > 3 || (len(w) == 3 && w[2] != "pooled") {
		return f, fmt.Errorf("line %d: want Field type [pooled], have %q", n, line)
	}
	t, err := parseType(w[1])
	if err != nil {
		return f, fmt.Errorf("line %d: field %s: %v", n, w[0], err)
	}
	if len(w) == 3 {
		if t.Elem == nil {
			return f, fmt.Errorf("line %d: field %s: only an array can be pooled", n, w[0])
		}
		t.Pooled = true
	}
	f.Name, f.Type = w[0], t
	return f, nil
}

func parseType(s string) (*Type, error) {
	if rest, ok := strings.CutPrefix(s, "?[]"); ok {
		e, err := parseType(rest)
		if err != nil {
			return nil, err
		}
		return &Type{Elem: e, Nullable: true}, nil
	}
	if rest, ok := strings.CutPrefix(s, "[]"); ok {
		e, err := parseType(rest)
		if err != nil {
			return nil, err
		}
		if e.Elem != nil {
			return nil, fmt.Errorf("arrays of arrays are not supported")
		}
		return &Type{Elem: e}, nil
	}
	kind, goName, conv := strings.Cut(s, ":")
	if _, ok := scalars[kind]; ok {
		t := &Type{Scalar: kind}
		if conv && goName == "" {
			return nil, fmt.Errorf("no Go type after %q", s)
		}
		if conv {
			t.GoName = goName
		}
		return t, nil
	}
	if conv || !unicode.IsUpper(rune(s[0])) {
		return nil, fmt.Errorf("unknown type %q", s)
	}
	return &Type{Struct: s}, nil
}

// check resolves names and wire orders.
func check(decls []*Decl) error {
	byName := map[string]*Decl{}
	for _, d := range decls {
		if byName[d.Name] != nil {
			return fmt.Errorf("line %d: %s declared twice", d.line, d.Name)
		}
		byName[d.Name] = d
	}
	for _, d := range decls {
		names := map[string]bool{}
		for _, f := range d.Fields {
			if names[f.Name] {
				return fmt.Errorf("line %d: %s.%s declared twice", f.line, d.Name, f.Name)
			}
			names[f.Name] = true
			t := f.Type
			if t.Elem != nil {
				t = t.Elem
			}
			if t.Struct != "" {
				ref := byName[t.Struct]
				if ref == nil {
					return fmt.Errorf("line %d: %s.%s: unknown type %s", f.line, d.Name, f.Name, t.Struct)
				}
				if ref.Kind == "codec" && f.Type.Elem == nil {
					return fmt.Errorf("line %d: %s.%s: codec %s only as an array element", f.line, d.Name, f.Name, t.Struct)
				}
			}
		}
		if d.Wire != nil {
			if len(d.Wire) != len(d.Fields) {
				return fmt.Errorf("line %d: %s: wire order names %d of %d fields", d.line, d.Name, len(d.Wire), len(d.Fields))
			}
			for _, w := range d.Wire {
				if !names[w] {
					return fmt.Errorf("line %d: %s: wire order names unknown field %s", d.line, d.Name, w)
				}
				delete(names, w)
			}
		}
	}
	return nil
}

// gen holds what generating needs across declarations.
type gen struct {
	decls  []*Decl
	byName map[string]*Decl
	used   map[string]bool // struct decode methods and element helpers referenced
}

// Generate returns the gofmt'd Go source of messages_gen.go.
func Generate(src []byte) ([]byte, error) {
	f, err := parse(src)
	if err != nil {
		return nil, err
	}
	decls := f.decls
	g := &gen{decls: decls, byName: map[string]*Decl{}, used: map[string]bool{}}
	for _, d := range decls {
		g.byName[d.Name] = d
	}
	var b bytes.Buffer
	b.WriteString("// Code generated by wiregen from messages.def; DO NOT EDIT.\n// Edit messages.def and run go generate ./ilink/wire.\n\npackage wire\n")
	b.WriteString(codeDecls(f.codes))
	// Messages first: what they reference decides which part decoders
	// exist (a part decoded only inside a pooled reply has none).
	bodies := map[string]string{}
	for _, d := range decls {
		if d.Kind == "message" {
			bodies[d.Name] = g.messageMethods(d)
		}
	}
	for changed := true; changed; {
		changed = false
		for _, d := range decls {
			if d.Kind == "message" {
				continue
			}
			if _, done := bodies[d.Name]; done && !g.used[d.Name+".decode"] {
				continue
			}
			body := g.partMethods(d)
			if bodies[d.Name] != body {
				bodies[d.Name] = body
				changed = true
			}
		}
	}
	for _, d := range decls {
		if d.Kind != "codec" {
			b.WriteString("\n")
			b.WriteString(g.typeDecl(d))
		}
		b.WriteString(bodies[d.Name])
	}
	b.WriteString(g.elemHelpers())
	b.WriteString(g.layoutVersions())
	out, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("generated code does not parse: %v\n%s", err, b.Bytes())
	}
	return out, nil
}

func (g *gen) goType(t *Type) string {
	switch {
	case t.Elem != nil:
		return "[]" + g.goType(t.Elem)
	case t.Struct != "":
		return t.Struct
	case t.GoName != "":
		return t.GoName
	}
	return scalars[t.Scalar].goType
}

func (g *gen) typeDecl(d *Decl) string {
	var b strings.Builder
	for _, l := range d.Doc {
		b.WriteString(l + "\n")
	}
	fmt.Fprintf(&b, "type %s struct {\n", d.Name)
	for _, f := range d.Fields {
		for _, l := range f.Doc {
			b.WriteString(l + "\n")
		}
		fmt.Fprintf(&b, "%s %s %s\n", f.Name, g.goType(f.Type), f.Comment)
	}
	b.WriteString("}\n")
	return b.String()
}

// MinSize is the fewest bytes a value of t encodes to.
func (g *gen) minSize(t *Type) int {
	switch {
	case t.Elem != nil:
		return 1 // the count (and, nullable, the bool: still at least 1)
	case t.Struct != "":
		n := 0
		for _, f := range g.byName[t.Struct].Fields {
			n += g.minSize(f.Type)
		}
		return n
	}
	return scalars[t.Scalar].min
}

// wireFields returns d's fields in wire order.
func wireFields(d *Decl) []Field {
	if d.Wire == nil {
		return d.Fields
	}
	var out []Field
	for _, name := range d.Wire {
		for _, f := range d.Fields {
			if f.Name == name {
				out = append(out, f)
			}
		}
	}
	return out
}

func (g *gen) methodName(struc, verb string) string {
	d := g.byName[struc]
	switch d.Kind {
	case "message":
		return strings.ToUpper(verb[:1]) + verb[1:]
	case "codec":
		return verb + d.Suffix
	}
	return verb
}

func (g *gen) encodeStmt(x string, t *Type) string {
	switch {
	case t.Nullable:
		inner := g.encodeStmt(x, &Type{Elem: t.Elem, Pooled: t.Pooled})
		return fmt.Sprintf("w.Bool(%s != nil)\nif %s != nil {\n%s\n}", x, x, inner)
	case t.Elem != nil:
		e := t.Elem
		switch {
		case e.Scalar == "string" && e.GoName == "":
			return fmt.Sprintf("w.Strings(%s)", x)
		case e.Scalar != "":
			return fmt.Sprintf("writeArray(w, %s, %s)", x, g.elemHelper("encode", e))
		}
		return fmt.Sprintf("writeArray(w, %s, (*%s).%s)", x, e.Struct, g.methodName(e.Struct, "encode"))
	case t.Struct != "":
		return fmt.Sprintf("%s.%s(w)", x, g.methodName(t.Struct, "encode"))
	}
	s := scalars[t.Scalar]
	v := x
	if t.GoName != "" && t.Scalar != "varint" {
		v = s.goType + "(" + x + ")"
	}
	return fmt.Sprintf(s.write, v)
}

// decodeCtx is the decoding of one message whose parts have pooled
// arrays: the buffers and the closures declared at the top of its Decode.
type decodeCtx struct {
	bufs    map[*Type]string
	closure map[string]bool // struct → decoded by the closure decode<Struct>
}

// decodeStmt assigns x from the reader.
func (g *gen) decodeStmt(x string, t *Type, ctx *decodeCtx) string {
	switch {
	case t.Nullable:
		inner := g.decodeStmt(x, &Type{Elem: t.Elem, Pooled: t.Pooled}, ctx)
		return fmt.Sprintf("if r.Bool() {\n%s\nif %s == nil {\n%s = %s{}\n}\n}", inner, x, x, g.goType(t))
	case t.Elem != nil:
		e := t.Elem
		var dec string
		switch {
		case e.Scalar == "string" && e.GoName == "" && !t.Pooled:
			return fmt.Sprintf("%s = r.Strings()", x)
		case e.Scalar != "":
			dec = g.elemHelper("decode", e)
		case ctx != nil && ctx.closure[e.Struct]:
			dec = "decode" + e.Struct
		default:
			dec = fmt.Sprintf("(*%s).%s", e.Struct, g.methodName(e.Struct, "decode"))
			g.used[e.Struct+".decode"] = true
		}
		if t.Pooled {
			if ctx == nil {
				panic("pooled array outside a pooled decode")
			}
			return fmt.Sprintf("%s = readArrayFrom(r, %d, &%s, %s)", x, g.minSize(e), ctx.bufs[t], dec)
		}
		return fmt.Sprintf("%s = readArray(r, %d, %s)", x, g.minSize(e), dec)
	case t.Struct != "":
		if ctx != nil && ctx.closure[t.Struct] {
			return fmt.Sprintf("decode%s(&%s, r)", t.Struct, x)
		}
		g.used[t.Struct+".decode"] = true
		return fmt.Sprintf("%s.%s(r)", x, g.methodName(t.Struct, "decode"))
	}
	s := scalars[t.Scalar]
	if t.GoName != "" {
		return fmt.Sprintf("%s = %s(%s)", x, t.GoName, s.read)
	}
	return fmt.Sprintf("%s = %s", x, s.read)
}

// elemHelper names the element codec of a scalar array and records that
// it is needed.
func (g *gen) elemHelper(verb string, e *Type) string {
	if e.GoName != "" {
		panic("arrays of converted scalars are not supported")
	}
	g.used["elem."+e.Scalar] = true
	return verb + scalars[e.Scalar].elem
}

func (g *gen) elemHelpers() string {
	var kinds []string
	for k := range g.used {
		if s, ok := strings.CutPrefix(k, "elem."); ok {
			kinds = append(kinds, s)
		}
	}
	sort.Strings(kinds)
	var b strings.Builder
	for _, k := range kinds {
		s := scalars[k]
		if k == "string" {
			continue // codec.go has encodeString and decodeString
		}
		fmt.Fprintf(&b, "\nfunc encode%s(v *%s, w *Writer) { %s }\n", s.elem, s.goType, fmt.Sprintf(s.write, "*v"))
		fmt.Fprintf(&b, "func decode%s(v *%s, r *Reader) { *v = %s }\n", s.elem, s.goType, s.read)
	}
	return b.String()
}

// hasPooled reports whether decoding struct name reaches a pooled array.
func (g *gen) hasPooled(name string, seen map[string]bool) bool {
	if seen[name] {
		return false
	}
	seen[name] = true
	for _, f := range g.byName[name].Fields {
		t := f.Type
		if t.Pooled {
			return true
		}
		if t.Elem != nil {
			t = t.Elem
		}
		if t.Struct != "" && g.hasPooled(t.Struct, seen) {
			return true
		}
	}
	return false
}

func (g *gen) messageMethods(d *Decl) string {
	var b strings.Builder
	fields := wireFields(d)
	if len(fields) == 0 {
		fmt.Fprintf(&b, "\nfunc (*%s) Encode(*Writer) {}\nfunc (*%s) Decode(*Reader) {}\n", d.Name, d.Name)
		return b.String()
	}
	fmt.Fprintf(&b, "\nfunc (m *%s) Encode(w *Writer) {\n", d.Name)
	for _, f := range fields {
		b.WriteString(g.encodeStmt("m."+f.Name, f.Type) + "\n")
	}
	if d.Trailer {
		b.WriteString("m.encodeTrailer(w)\n")
	}
	b.WriteString("}\n")
	b.WriteString("\n")
	var ctx *decodeCtx
	if g.hasPooled(d.Name, map[string]bool{}) {
		ctx = &decodeCtx{bufs: map[*Type]string{}, closure: map[string]bool{}}
		fmt.Fprintf(&b, "// Decode cuts the nested arrays marked pooled in messages.def out of\n// reply-wide backing arrays (readArrayFrom): a poll of thousands of\n// entries costs a few allocations, not one per entry.\n")
	}
	fmt.Fprintf(&b, "func (m *%s) Decode(r *Reader) {\n", d.Name)
	if ctx != nil {
		b.WriteString(g.pooledPrelude(d, ctx))
	}
	for _, f := range fields {
		b.WriteString(g.decodeStmt("m."+f.Name, f.Type, ctx) + "\n")
	}
	if d.Check {
		b.WriteString("m.check(r)\n")
	}
	b.WriteString("}\n")
	return b.String()
}

// pooledPrelude declares the buffers of every pooled array under d and a
// closure for every struct on the way to one, inner ones first.
func (g *gen) pooledPrelude(d *Decl, ctx *decodeCtx) string {
	var order []string
	var visit func(name string)
	visit = func(name string) {
		for _, f := range g.byName[name].Fields {
			t := f.Type
			if t.Elem != nil {
				t = t.Elem
			}
			if f.Type.Pooled {
				if _, ok := ctx.bufs[f.Type]; !ok {
					ctx.bufs[f.Type] = g.bufName(f.Name, ctx)
				}
			}
			if t.Struct != "" && !ctx.closure[t.Struct] && g.hasPooled(t.Struct, map[string]bool{}) {
				ctx.closure[t.Struct] = true
				visit(t.Struct)
				order = append(order, t.Struct)
			}
		}
	}
	visit(d.Name)
	var b strings.Builder
	var bufs []string
	for t, name := range ctx.bufs {
		bufs = append(bufs, fmt.Sprintf("var %s %s\n", name, g.goType(&Type{Elem: t.Elem})))
	}
	sort.Strings(bufs)
	for _, l := range bufs {
		b.WriteString(l)
	}
	for _, name := range order {
		fmt.Fprintf(&b, "decode%s := func(v *%s, r *Reader) {\n", name, name)
		for _, f := range wireFields(g.byName[name]) {
			b.WriteString(g.decodeStmt("v."+f.Name, f.Type, ctx) + "\n")
		}
		b.WriteString("}\n")
	}
	return b.String()
}

func (g *gen) bufName(field string, ctx *decodeCtx) string {
	base := strings.ToLower(field[:1]) + field[1:]
	name := base
	for i := 2; ; i++ {
		clash := false
		for _, n := range ctx.bufs {
			if n == name {
				clash = true
			}
		}
		if !clash && name != "m" && name != "r" && name != "v" {
			return name
		}
		name = fmt.Sprintf("%s%d", base, i)
	}
}

// layoutVersions writes the table of the bodies whose layout version is
// above 1, by name (empty while every layout is the first release's).
func (g *gen) layoutVersions() string {
	var b strings.Builder
	b.WriteString("\n// LayoutVersions are the layout versions of the bodies whose layout\n" +
		"// changed since the first release (the version option of messages.def),\n" +
		"// by body name; every other body is at version 1. A client states them in\n" +
		"// HELLO and the engine refuses a body whose version it does not speak\n" +
		"// with MIMQE_UNSUPPORTED (docs/PROTOCOL.md §6).\n" +
		"var LayoutVersions = map[string]uint8{\n")
	for _, d := range g.decls {
		if d.Kind == "message" && d.Version > 1 {
			fmt.Fprintf(&b, "%q: %d,\n", d.Name, d.Version)
		}
	}
	b.WriteString("}\n")
	return b.String()
}

// partMethods writes the encode and (when referenced) decode of a struct
// or codec.
func (g *gen) partMethods(d *Decl) string {
	var b strings.Builder
	enc, dec := g.methodName(d.Name, "encode"), g.methodName(d.Name, "decode")
	fields := wireFields(d)
	fmt.Fprintf(&b, "\nfunc (m *%s) %s(w *Writer) {\n", d.Name, enc)
	for _, f := range fields {
		b.WriteString(g.encodeStmt("m."+f.Name, f.Type) + "\n")
	}
	b.WriteString("}\n")
	if !g.used[d.Name+".decode"] {
		return b.String()
	}
	fmt.Fprintf(&b, "\nfunc (m *%s) %s(r *Reader) {\n", d.Name, dec)
	for _, f := range fields {
		b.WriteString(g.decodeStmt("m."+f.Name, f.Type, nil) + "\n")
	}
	b.WriteString("}\n")
	return b.String()
}

// The markers between which UpdateDoc writes the layout table of
// docs/PROTOCOL.md.
const (
	DocBegin = "<!-- wiregen:layouts begin (generated from ilink/wire/messages.def; do not edit) -->"
	DocEnd   = "<!-- wiregen:layouts end -->"
)

// UpdateDoc returns doc with the text between DocBegin and DocEnd
// replaced by the layout table of the definitions in src, and the text
// between each table's CodesBegin and CodesEnd by its request codes.
func UpdateDoc(src, doc []byte) ([]byte, error) {
	f, err := parse(src)
	if err != nil {
		return nil, err
	}
	g := &gen{decls: f.decls, byName: map[string]*Decl{}}
	for _, d := range f.decls {
		g.byName[d.Name] = d
	}
	s := string(doc)
	i := strings.Index(s, DocBegin)
	j := strings.Index(s, DocEnd)
	if i < 0 || j < i {
		return nil, fmt.Errorf("the document has no %q … %q", DocBegin, DocEnd)
	}
	s = s[:i+len(DocBegin)] + "\n" + g.layoutTable() + s[j:]
	s, err = codeTables(f.codes, s)
	if err != nil {
		return nil, err
	}
	return []byte(s), nil
}

// layoutTable lists every body and part with its fields in wire order.
func (g *gen) layoutTable() string {
	var b strings.Builder
	b.WriteString("\n| body | min bytes | fields, in wire order |\n|---|---:|---|\n")
	for _, d := range g.decls {
		name := d.Name
		if d.Kind != "message" {
			name += " (part)"
		}
		if d.Version > 1 {
			name += fmt.Sprintf(" (v%d)", d.Version)
		}
		var fs []string
		for _, f := range wireFields(d) {
			fs = append(fs, g.docField(f))
		}
		layout := strings.Join(fs, ", ")
		if layout == "" {
			layout = "(nothing)"
		}
		fmt.Fprintf(&b, "| %s | %d | %s |\n", name, g.minSize(&Type{Struct: d.Name}), layout)
	}
	b.WriteString("\n")
	return b.String()
}

func (g *gen) docField(f Field) string {
	name := "`" + SnakeCase(f.Name) + "`"
	if f.Type.Nullable {
		return fmt.Sprintf("`has_%s` bool, then %s %s", SnakeCase(f.Name), name, g.docType(&Type{Elem: f.Type.Elem}))
	}
	return name + " " + g.docType(f.Type)
}

func (g *gen) docType(t *Type) string {
	switch {
	case t.Elem != nil:
		return "array<" + g.docType(t.Elem) + ">"
	case t.Struct != "":
		return t.Struct
	case t.GoName == "int8":
		return scalars[t.Scalar].doc + " as i8"
	}
	return scalars[t.Scalar].doc
}

// SnakeCase writes a Go field name as docs/PROTOCOL.md names fields:
// QueueManager → queue_manager, MsgIDs → msg_ids, ID → id.
func SnakeCase(s string) string {
	s = strings.ReplaceAll(s, "IDs", "Ids")
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		if unicode.IsUpper(r) && i > 0 {
			prevLower := unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1])
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if prevLower || (unicode.IsUpper(rs[i-1]) && nextLower) {
				b.WriteByte('_')
			}
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}
