package wire

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"ilinkdash/ilink/wire/internal/wiregen/gen"
)

// The bodies messages.def states for each request code (and so the code
// tables of docs/PROTOCOL.md) are read here from the code that uses
// them: the engine's handler of the code decodes the request body the
// file names and replies with the reply body it names, and every call of
// the client that sends the code sends that request body and reads that
// reply body. The uses are read from the source (go/ast): a body given
// as a composite literal (&wire.PutRequest{…}), a local declared with
// one, or a parameter of that type; a use the scan cannot type is passed
// over, and the counts of typed uses keep the scan honest.

// codeUse is what a piece of code does with a request code's bodies.
type codeUse struct {
	where    string // file:line
	req, rep string // body type names; "" where the scan cannot tell
}

func TestCodeBodiesAsUsed(t *testing.T) {
	blocks, err := gen.ParseCodes(readFiles(t, "messages.def")[0])
	if err != nil {
		t.Fatal(err)
	}
	handlers := scanEngine(t, "../engine")
	client := scanClient(t, "..", "../admin", "../consumer")
	typed := map[string]int{}
	for _, b := range blocks {
		for _, c := range b.Codes {
			wantReq, wantRep := c.Bodies()
			if wantReq == "" {
				continue // a note: described in prose (the hub link)
			}
			uses, ok := handlers[c.Const]
			if !ok {
				t.Errorf("%s: no engine handler is registered", c.Const)
			}
			for _, u := range uses {
				checkUse(t, "engine", c, u, wantReq, wantRep, typed)
			}
			for _, u := range client[c.Const] {
				checkUse(t, "client", c, u, wantReq, wantRep, typed)
			}
		}
	}
	// The scan reads most uses; a drop means it lost its way, not that
	// the bodies agree.
	for side, min := range map[string]int{"engine": 90, "client": 70} {
		if typed[side] < min {
			t.Errorf("only %d typed body uses on the %s side (want at least %d): the scan is broken", typed[side], side, min)
		}
	}
	t.Logf("typed body uses: %v", typed)
}

// checkUse compares a use's typed bodies, on side "engine" or
// "client", with the ones declared, and counts them in typed.
func checkUse(t *testing.T, side string, c gen.Code, u codeUse, wantReq, wantRep string, typed map[string]int) {
	t.Helper()
	who := map[string]string{"engine": "the engine's handler", "client": "the client"}[side]
	if u.req != "" {
		typed[side]++
		if u.req != wantReq {
			t.Errorf("%s: %s %s request body is %s; messages.def says %s", u.where, who, c.Const, u.req, wantReq)
		}
	}
	if u.rep != "" {
		typed[side]++
		if u.rep != wantRep {
			t.Errorf("%s: %s %s reply body is %s; messages.def says %s", u.where, who, c.Const, u.rep, wantRep)
		}
	}
}

// source is the parsed non-test Go files of a package directory, with
// their functions by name.
type source struct {
	fset  *token.FileSet
	files []*ast.File
	funcs map[string][]*ast.FuncDecl // by name; methods share a name across receivers
}

func parseSource(t *testing.T, dir string) *source {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no Go files in %s (%v)", dir, err)
	}
	s := &source{fset: token.NewFileSet(), funcs: map[string][]*ast.FuncDecl{}}
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		src, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(s.fset, n, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		s.files = append(s.files, f)
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				s.funcs[fd.Name.Name] = append(s.funcs[fd.Name.Name], fd)
			}
		}
	}
	return s
}

func (s *source) where(p token.Pos) string {
	pos := s.fset.Position(p)
	return filepath.Base(pos.Filename) + ":" + strconv.Itoa(pos.Line)
}

// codeConst is the name of a wire.CodeX expression, or "".
func codeConst(e ast.Expr) string {
	if sel, ok := e.(*ast.SelectorExpr); ok {
		if x, ok := sel.X.(*ast.Ident); ok && x.Name == "wire" && strings.HasPrefix(sel.Sel.Name, "Code") {
			return sel.Sel.Name
		}
	}
	return ""
}

// wireTypeName is T of the type or value expressions wire.T, *wire.T,
// wire.T{…} and &wire.T{…}, or "".
func wireTypeName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.UnaryExpr:
		return wireTypeName(x.X)
	case *ast.StarExpr:
		return wireTypeName(x.X)
	case *ast.CompositeLit:
		return wireTypeName(x.Type)
	case *ast.SelectorExpr:
		if id, ok := x.X.(*ast.Ident); ok && id.Name == "wire" && x.Sel.Name != "Message" {
			return x.Sel.Name // wire.Message is any body: untyped
		}
	}
	return ""
}

// locals are the wire body types of a function's parameters and of the
// locals it declares with one (var x wire.T, x := &wire.T{…}).
func locals(fd *ast.FuncDecl) map[string]string {
	out := map[string]string{}
	for _, f := range fd.Type.Params.List {
		if tn := wireTypeName(f.Type); tn != "" {
			for _, n := range f.Names {
				out[n.Name] = tn
			}
		}
	}
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.ValueSpec:
			tn := wireTypeName(x.Type)
			for i, id := range x.Names {
				if tn == "" && i < len(x.Values) {
					tn = wireTypeName(x.Values[i])
				}
				if tn != "" {
					out[id.Name] = tn
				}
			}
		case *ast.AssignStmt:
			if x.Tok == token.DEFINE && len(x.Lhs) == len(x.Rhs) {
				for i, l := range x.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						if tn := wireTypeName(x.Rhs[i]); tn != "" {
							out[id.Name] = tn
						}
					}
				}
			}
		}
		return true
	})
	return out
}

// bodyType types a body argument: a composite literal, or a local or
// parameter (&x or x) of a known type; "" otherwise.
func bodyType(e ast.Expr, loc map[string]string) string {
	if tn := wireTypeName(e); tn != "" {
		return tn
	}
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
		e = u.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return loc[id.Name]
	}
	return ""
}

// scanEngine finds each registered handler (register(wire.CodeX,
// route{fn: h}) or a map literal wire.CodeX: h) and what it decodes
// (r.decode) and replies (r.reply, r.replyEmpty), following the calls
// that pass the request on.
func scanEngine(t *testing.T, dir string) map[string][]codeUse {
	s := parseSource(t, dir)
	handler := map[string]string{} // code const → handler func
	for _, f := range s.files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.CallExpr:
				if id, ok := x.Fun.(*ast.Ident); ok && id.Name == "register" && len(x.Args) == 2 {
					if code := codeConst(x.Args[0]); code != "" {
						if fn := routeFn(x.Args[1]); fn != "" {
							handler[code] = fn
						}
					}
				}
			case *ast.KeyValueExpr:
				if code := codeConst(x.Key); code != "" {
					if id, ok := x.Value.(*ast.Ident); ok && len(s.funcs[id.Name]) == 1 {
						handler[code] = id.Name
					}
				}
			}
			return true
		})
	}
	out := map[string][]codeUse{}
	for code, fn := range handler {
		fds := s.funcs[fn]
		if len(fds) != 1 {
			t.Errorf("engine handler %s of %s: %d functions of that name", fn, code, len(fds))
			continue
		}
		var uses []codeUse
		s.requestUses(fds[0], map[*ast.FuncDecl]bool{}, &uses)
		if len(uses) == 0 {
			uses = append(uses, codeUse{where: s.where(fds[0].Pos())}) // decodes nothing the scan can see
		}
		out[code] = uses
	}
	return out
}

// routeFn is the fn field of a route{…} literal.
func routeFn(e ast.Expr) string {
	cl, ok := e.(*ast.CompositeLit)
	if !ok {
		return ""
	}
	for _, el := range cl.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "fn" {
				if v, ok := kv.Value.(*ast.Ident); ok {
					return v.Name
				}
			}
		}
	}
	return ""
}

// requestUses adds what fd does with its *request parameter's bodies,
// and what the functions and methods it passes the request to do.
func (s *source) requestUses(fd *ast.FuncDecl, seen map[*ast.FuncDecl]bool, uses *[]codeUse) {
	if seen[fd] {
		return
	}
	seen[fd] = true
	r := requestParam(fd)
	if r == "" {
		return
	}
	loc := locals(fd)
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == r {
				switch {
				case sel.Sel.Name == "decode" && len(call.Args) == 1:
					*uses = append(*uses, codeUse{where: s.where(call.Pos()), req: bodyType(call.Args[0], loc)})
				case sel.Sel.Name == "reply" && len(call.Args) == 1:
					*uses = append(*uses, codeUse{where: s.where(call.Pos()), rep: bodyType(call.Args[0], loc)})
				case sel.Sel.Name == "replyEmpty":
					*uses = append(*uses, codeUse{where: s.where(call.Pos()), rep: "Empty"})
				}
				return true
			}
		}
		for _, a := range call.Args {
			if id, ok := a.(*ast.Ident); ok && id.Name == r {
				name := ""
				switch f := call.Fun.(type) {
				case *ast.Ident:
					name = f.Name
				case *ast.SelectorExpr:
					name = f.Sel.Name
				}
				if callees := s.funcs[name]; len(callees) == 1 {
					s.requestUses(callees[0], seen, uses)
				}
				break
			}
		}
		return true
	})
}

// requestParam is the name of fd's *request parameter, or its receiver
// when fd is a method of *request.
func requestParam(fd *ast.FuncDecl) string {
	isReq := func(e ast.Expr) bool {
		st, ok := e.(*ast.StarExpr)
		if !ok {
			return false
		}
		id, ok := st.X.(*ast.Ident)
		return ok && id.Name == "request"
	}
	if fd.Recv != nil && len(fd.Recv.List) == 1 && isReq(fd.Recv.List[0].Type) && len(fd.Recv.List[0].Names) == 1 {
		return fd.Recv.List[0].Names[0].Name
	}
	for _, f := range fd.Type.Params.List {
		if isReq(f.Type) && len(f.Names) == 1 {
			return f.Names[0].Name
		}
	}
	return ""
}

// clientCalls are the client's calls that send a code: the request
// body's position after the code's argument (the reply's is the next).
var clientCalls = map[string]int{
	"Do": 2, "do": 2, "doWait": 2, "Send": 2, "SendNoReply": 1,
	"read": 1, "write": 1, "groupCall": 1,
}

// scanClient finds every call that sends a code (clientCalls), every
// Request{Code, Req, Resp} literal and every return of a code with its
// request, and types their bodies.
func scanClient(t *testing.T, dirs ...string) map[string][]codeUse {
	out := map[string][]codeUse{}
	for _, dir := range dirs {
		s := parseSource(t, dir)
		for _, fds := range s.funcs {
			for _, fd := range fds {
				s.clientUses(fd, out)
			}
		}
	}
	for _, uses := range out {
		sort.Slice(uses, func(i, j int) bool { return uses[i].where < uses[j].where })
	}
	return out
}

func (s *source) clientUses(fd *ast.FuncDecl, out map[string][]codeUse) {
	loc := locals(fd)
	arg := func(args []ast.Expr, i int) string {
		if i >= len(args) {
			return ""
		}
		if id, ok := args[i].(*ast.Ident); ok && id.Name == "nil" {
			return "" // the reply is not read
		}
		return bodyType(args[i], loc)
	}
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.CallExpr:
			name := ""
			if sel, ok := x.Fun.(*ast.SelectorExpr); ok {
				name = sel.Sel.Name
			}
			off, known := clientCalls[name]
			for i, a := range x.Args {
				if code := codeConst(a); code != "" && known {
					out[code] = append(out[code], codeUse{where: s.where(x.Pos()), req: arg(x.Args, i+off), rep: arg(x.Args, i+off+1)})
				}
			}
		case *ast.CompositeLit:
			fields := map[string]ast.Expr{}
			for _, el := range x.Elts {
				if kv, ok := el.(*ast.KeyValueExpr); ok {
					if k, ok := kv.Key.(*ast.Ident); ok {
						fields[k.Name] = kv.Value
					}
				}
			}
			if code := codeConst(fields["Code"]); code != "" {
				u := codeUse{where: s.where(x.Pos())}
				if e, ok := fields["Req"]; ok {
					u.req = bodyType(e, loc)
				}
				if e, ok := fields["Resp"]; ok {
					u.rep = bodyType(e, loc)
				}
				out[code] = append(out[code], u)
			}
		case *ast.ReturnStmt:
			if len(x.Results) == 2 {
				if code := codeConst(x.Results[0]); code != "" {
					out[code] = append(out[code], codeUse{where: s.where(x.Pos()), req: bodyType(x.Results[1], loc)})
				}
			}
		}
		return true
	})
}
