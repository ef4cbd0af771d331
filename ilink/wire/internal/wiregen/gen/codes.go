package gen

import (
	"fmt"
	"go/token"
	"strconv"
	"strings"
)

// The request codes of a definitions file: the const blocks and the
// names of messages_gen.go, and the request-code tables of
// docs/PROTOCOL.md (UpdateDoc), so that a code, its name and the bodies
// it carries are written once.

// Code is one request code of a codes block: a constant of type Code,
// the name Code.String gives it, and the bodies its request and reply
// carry as the document's code table shows them.
type Code struct {
	Const   string // the Go constant (CodeQmgrList)
	Value   int    // 0 to 65535
	Name    string // "QMGR LIST"
	Doc     []string
	Comment string
	Gap     bool // a blank line before it in its block, kept in the const block
	// Request and Reply are the table's cells: a declared message, maybe
	// with a note ("GetRequest (wait in header `timeout_ms`)"), "empty",
	// or a note alone ("(hub link, §11.7)"); "" when not given.
	Request, Reply string
	line           int
}

// CodeBlock is one codes block: one const block of the generated file,
// and rows of one request-code table of the document.
type CodeBlock struct {
	Doc   []string
	Codes []Code
	// Table names the document's table its codes are listed in (the
	// markers CodesBegin and CodesEnd); "" for none.
	Table string
	// ILink marks codes the iLink documentation names (not ours): the
	// table shows "(iLink)" after their names.
	ILink bool
	line  int
}

// The markers between which UpdateDoc writes the request-code table
// named %s.
const (
	CodesBegin = "<!-- wiregen:codes %s begin (generated from ilink/wire/messages.def; do not edit) -->"
	CodesEnd   = "<!-- wiregen:codes %s end -->"
)

// parseCodesHeader reads a codes block's first line: codes [table NAME]
// [ilink].
func parseCodesHeader(line string, n int, doc []string) (*CodeBlock, error) {
	b := &CodeBlock{Doc: doc, line: n}
	w := strings.Fields(line)
	for i := 1; i < len(w); i++ {
		switch {
		case w[i] == "ilink" && !b.ILink:
			b.ILink = true
		case w[i] == "table" && b.Table == "" && i+1 < len(w):
			i++
			b.Table = w[i]
		default:
			return nil, fmt.Errorf("line %d: want codes [table NAME] [ilink], have %q", n, line)
		}
	}
	return b, nil
}

// add appends the code of line n to the block, with the doc comment
// above it and, unless it is the first, the blank line before it.
func (b *CodeBlock) add(line string, n int, doc []string, gap bool) error {
	c, err := parseCode(line, n)
	c.Doc, c.Gap = doc, gap && len(b.Codes) > 0
	b.Codes = append(b.Codes, c)
	return err
}

// parseCode reads one line of a codes block: CodeName = 2000 "NAME",
// then optionally the bodies, Request -> Reply, then optionally a comment.
func parseCode(line string, n int) (Code, error) {
	c := Code{line: n}
	bad := fmt.Errorf("line %d: want CodeName = value \"NAME\" [// comment], have %q (bodies, when given: Request -> Reply, before the comment)", n, line)
	name, rest, ok := strings.Cut(line, "=")
	w := strings.Fields(name)
	if !ok || len(w) != 1 {
		return c, bad
	}
	c.Const = w[0]
	if !token.IsIdentifier(c.Const) || !token.IsExported(c.Const) {
		return c, fmt.Errorf("line %d: code %q is not an exported Go name", n, c.Const)
	}
	rest = strings.TrimSpace(rest)
	num := rest
	if i := strings.IndexAny(rest, " \t"); i >= 0 {
		num, rest = rest[:i], rest[i:]
	} else {
		rest = ""
	}
	v, err := strconv.Atoi(num)
	if err != nil || v < 0 || v > 65535 {
		return c, fmt.Errorf("line %d: value of code %s is %q: want 0 to 65535", n, c.Const, num)
	}
	c.Value = v
	rest = strings.TrimSpace(rest)
	q, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return c, bad
	}
	c.Name, _ = strconv.Unquote(q)
	if c.Name == "" {
		return c, fmt.Errorf("line %d: code %s has an empty name", n, c.Const)
	}
	rest = strings.TrimSpace(rest[len(q):])
	if i := strings.Index(rest, "//"); i >= 0 {
		rest, c.Comment = strings.TrimSpace(rest[:i]), rest[i:]
	}
	if rest == "" {
		return c, nil
	}
	req, rep, ok := strings.Cut(rest, "->")
	c.Request, c.Reply = strings.TrimSpace(req), strings.TrimSpace(rep)
	if !ok || c.Request == "" || c.Reply == "" {
		return c, bad
	}
	return c, nil
}

// checkCodes refuses a codes block without codes, and two codes with the
// same constant, value or name, naming both; a constant may not take the
// name of a declared type either. A code of a block with a table states
// its bodies, and a body it names is a declared message.
func checkCodes(f *file) error {
	types := map[string]*Decl{}
	for _, d := range f.decls {
		types[d.Name] = d
	}
	consts := map[string]Code{}
	values := map[int]Code{}
	names := map[string]Code{}
	for _, b := range f.codes {
		if len(b.Codes) == 0 {
			return fmt.Errorf("line %d: a codes block without any code", b.line)
		}
		for _, c := range b.Codes {
			if d := types[c.Const]; d != nil {
				return fmt.Errorf("line %d: code %s has the name of %s %s (line %d)", c.line, c.Const, d.Kind, d.Name, d.line)
			}
			if o, dup := consts[c.Const]; dup {
				return fmt.Errorf("line %d: code %s declared twice (first at line %d)", c.line, c.Const, o.line)
			}
			if o, dup := values[c.Value]; dup {
				return fmt.Errorf("line %d: code %s = %d, the value of %s (line %d)", c.line, c.Const, c.Value, o.Const, o.line)
			}
			if o, dup := names[c.Name]; dup {
				return fmt.Errorf("line %d: code %s is named %q, as %s is (line %d)", c.line, c.Const, c.Name, o.Const, o.line)
			}
			consts[c.Const], values[c.Value], names[c.Name] = c, c, c
			if err := checkBodies(b, c, types); err != nil {
				return err
			}
		}
	}
	return nil
}

// Bodies are the message types the code's request and reply carry, as
// its cells name them first: "Empty" for "empty", "" for a note in
// parentheses or no cell.
func (c Code) Bodies() (req, rep string) { return cellBody(c.Request), cellBody(c.Reply) }

func cellBody(cell string) string {
	body, _, _ := strings.Cut(cell, " ")
	switch {
	case body == "empty":
		return "Empty"
	case strings.HasPrefix(body, "("):
		return ""
	}
	return body
}

// checkBodies requires the bodies of a code listed in a table, and
// refuses a cell whose first word is neither "empty", a declared message
// nor a note in parentheses.
func checkBodies(b *CodeBlock, c Code, types map[string]*Decl) error {
	if b.Table != "" && c.Request == "" {
		return fmt.Errorf("line %d: code %s is listed in table %s but names no bodies (Request -> Reply)", c.line, c.Const, b.Table)
	}
	req, rep := c.Bodies()
	for _, body := range []string{req, rep} {
		if body == "" || body == "Empty" {
			continue
		}
		if d := types[body]; d == nil || d.Kind != "message" {
			return fmt.Errorf("line %d: code %s carries %q, which is no declared message", c.line, c.Const, body)
		}
	}
	return nil
}

// codeDecls writes each codes block as a const block, then the one table
// of their names.
func codeDecls(blocks []*CodeBlock) string {
	var b strings.Builder
	for _, cb := range blocks {
		b.WriteString("\n")
		for _, l := range cb.Doc {
			b.WriteString(l + "\n")
		}
		if len(cb.Codes) == 1 && cb.Codes[0].Doc == nil {
			c := cb.Codes[0]
			fmt.Fprintf(&b, "const %s Code = %d %s\n", c.Const, c.Value, c.Comment)
			continue
		}
		b.WriteString("const (\n")
		for _, c := range cb.Codes {
			if c.Gap {
				b.WriteString("\n")
			}
			for _, l := range c.Doc {
				b.WriteString(l + "\n")
			}
			fmt.Fprintf(&b, "%s Code = %d %s\n", c.Const, c.Value, c.Comment)
		}
		b.WriteString(")\n")
	}
	b.WriteString("\n// codeNames are the names Code.String gives the request codes (the\n" +
		"// codes blocks of messages.def).\n" +
		"var codeNames = map[Code]string{\n")
	for _, cb := range blocks {
		for _, c := range cb.Codes {
			fmt.Fprintf(&b, "%s: %s,\n", c.Const, strconv.Quote(c.Name))
		}
	}
	b.WriteString("}\n")
	return b.String()
}

// codeTables writes each table the codes blocks name between its markers
// in doc. Every code is in a table when any is, and every table has its
// markers, so the document lists each code once, as the file declares it.
func codeTables(blocks []*CodeBlock, doc string) (string, error) {
	rows := map[string]*strings.Builder{}
	var order []string
	for _, cb := range blocks {
		if cb.Table == "" {
			continue
		}
		t := rows[cb.Table]
		if t == nil {
			t = &strings.Builder{}
			t.WriteString("\n| code | name | request | reply |\n|---:|---|---|---|\n")
			rows[cb.Table] = t
			order = append(order, cb.Table)
		}
		mark := ""
		if cb.ILink {
			mark = " (iLink)"
		}
		for _, run := range codeRuns(cb.Codes) {
			first, last := run[0], run[len(run)-1]
			var names []string
			for _, c := range run {
				names = append(names, "`"+c.Name+"`"+mark)
			}
			value := strconv.Itoa(first.Value)
			if len(run) > 1 {
				value += "–" + strconv.Itoa(last.Value)
			}
			fmt.Fprintf(t, "| %s | %s | %s | %s |\n", value, strings.Join(names, ", "), first.Request, first.Reply)
		}
	}
	if len(order) == 0 {
		return doc, nil
	}
	for _, cb := range blocks {
		if cb.Table == "" {
			return "", fmt.Errorf("line %d: a codes block in no table, while others are: every code belongs in the document's tables", cb.line)
		}
	}
	for _, name := range order {
		begin, end := fmt.Sprintf(CodesBegin, name), fmt.Sprintf(CodesEnd, name)
		i, j := strings.Index(doc, begin), strings.Index(doc, end)
		if i < 0 || j < i {
			return "", fmt.Errorf("the document has no %q … %q for the codes of table %s", begin, end, name)
		}
		doc = doc[:i+len(begin)] + "\n" + rows[name].String() + "\n" + doc[j:]
	}
	if strings.Count(doc, "<!-- wiregen:codes ") != 2*len(order) {
		return "", fmt.Errorf("the document has request-code table markers for a table no codes block names (it names %s)", strings.Join(order, ", "))
	}
	return doc, nil
}

// codeRuns cuts a block's codes into table rows: one code a row, except
// that consecutive values whose bodies are the same note (no declared
// message: "(hub link, §11.7)") share one row, as a range.
func codeRuns(codes []Code) [][]Code {
	var runs [][]Code
	for _, c := range codes {
		if n := len(runs); n > 0 {
			last := runs[n-1][len(runs[n-1])-1]
			if strings.HasPrefix(c.Request, "(") && c.Value == last.Value+1 && c.Request == last.Request && c.Reply == last.Reply {
				runs[n-1] = append(runs[n-1], c)
				continue
			}
		}
		runs = append(runs, []Code{c})
	}
	return runs
}

// ParseCodes reads a definitions file and returns its codes blocks, for
// a test that holds the bodies they state to the code that sends and
// handles them.
func ParseCodes(src []byte) ([]*CodeBlock, error) {
	f, err := parse(src)
	if err != nil {
		return nil, err
	}
	return f.codes, nil
}
