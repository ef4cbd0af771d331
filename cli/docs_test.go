package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// The tests in this file keep docs/DESIGN.md true to the tree: the
// paths, packages and Go names it writes in backticks exist, the
// "docs/DESIGN.md §N" citations elsewhere resolve, and the import rules
// of its §1.3 hold. They read files only (no build, no network).

const (
	repoRoot   = ".."
	module     = "ilinkdash"
	designPath = "docs/DESIGN.md"
)

// tree is one scan of the repository, shared by the tests.
type tree struct {
	design string              // docs/DESIGN.md without its fenced code blocks
	readme string              // README.md, the same way
	pkgs   map[string][]*file  // module package dir ("" for the root) → its files
	decls  map[string]bool     // every declared name: top level, method, field, interface method
	topOf  map[string]setOf    // package name → its top-level names
	membOf map[string]setOf    // type name (any package) → its fields and methods
	embeds map[string][]string // type name → the type names it embeds
	types  setOf               // every declared type name
	texts  map[string]string   // every .go and .md file (slash path) → its text
}

type setOf map[string]bool

type file struct {
	path string // slash path from the root
	test bool
	ast  *ast.File
}

var (
	scanOnce sync.Once
	scanned  *tree
	scanErr  error
)

func scanTree(t *testing.T) *tree {
	t.Helper()
	scanOnce.Do(func() { scanned, scanErr = scan() })
	if scanErr != nil {
		t.Fatal(scanErr)
	}
	return scanned
}

var fenced = regexp.MustCompile("(?ms)^```.*?^```")

func scan() (*tree, error) {
	tr := &tree{
		pkgs:   map[string][]*file{},
		decls:  map[string]bool{},
		topOf:  map[string]setOf{},
		membOf: map[string]setOf{},
		embeds: map[string][]string{},
		types:  setOf{},
		texts:  map[string]string{},
	}
	b, err := os.ReadFile(filepath.Join(repoRoot, designPath))
	if err != nil {
		return nil, err
	}
	tr.design = fenced.ReplaceAllString(string(b), "")
	if b, err = os.ReadFile(filepath.Join(repoRoot, "README.md")); err != nil {
		return nil, err
	}
	tr.readme = fenced.ReplaceAllString(string(b), "")
	fset := token.NewFileSet()
	err = filepath.WalkDir(repoRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, repoRoot+string(filepath.Separator)))
		if d.IsDir() {
			if p != repoRoot && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, ".md") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		tr.texts[rel] = string(src)
		if !strings.HasSuffix(rel, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		tr.collect(f)
		if dir := path.Dir(rel); !inToolModule(dir) {
			if dir == "." {
				dir = ""
			}
			tr.pkgs[dir] = append(tr.pkgs[dir], &file{path: rel, test: strings.HasSuffix(rel, "_test.go"), ast: f})
		}
		return nil
	})
	return tr, err
}

// inToolModule: bench/ and screenshots/ have go.mod files of their own.
func inToolModule(dir string) bool {
	top, _, _ := strings.Cut(dir, "/")
	return top == "bench" || top == "screenshots"
}

func (tr *tree) collect(f *ast.File) {
	pkg := strings.TrimSuffix(f.Name.Name, "_test")
	top := tr.topOf[pkg]
	if top == nil {
		top = setOf{}
		tr.topOf[pkg] = top
	}
	member := func(typ, name string) {
		if tr.membOf[typ] == nil {
			tr.membOf[typ] = setOf{}
		}
		tr.membOf[typ][name] = true
		tr.decls[name] = true
	}
	fields := func(typ string, fl *ast.FieldList) {
		if fl == nil {
			return
		}
		for _, fd := range fl.List {
			for _, n := range fd.Names {
				member(typ, n.Name)
			}
			if len(fd.Names) == 0 { // embedded
				if n := typeName(fd.Type); n != "" {
					tr.embeds[typ] = append(tr.embeds[typ], n)
					member(typ, n)
				}
			}
		}
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			tr.decls[d.Name.Name] = true
			if d.Recv == nil {
				top[d.Name.Name] = true
			} else if len(d.Recv.List) > 0 {
				member(typeName(d.Recv.List[0].Type), d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					n := s.Name.Name
					top[n], tr.decls[n], tr.types[n] = true, true, true
					switch st := s.Type.(type) {
					case *ast.StructType:
						fields(n, st.Fields)
					case *ast.InterfaceType:
						fields(n, st.Methods)
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						top[n.Name], tr.decls[n.Name] = true, true
					}
				}
			}
		}
	}
}

// typeName is the name of a receiver or embedded type: T, *T, T[K], pkg.T.
func typeName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.StarExpr:
		return typeName(e.X)
	case *ast.IndexExpr:
		return typeName(e.X)
	case *ast.IndexListExpr:
		return typeName(e.X)
	case *ast.SelectorExpr:
		return e.Sel.Name
	}
	return ""
}

var backticked = regexp.MustCompile("`([^`\n]+)`")

// spans are the texts DESIGN.md writes in backticks.
func (tr *tree) spans() []string { return spansOf(tr.design) }

func spansOf(doc string) []string {
	var out []string
	for _, m := range backticked.FindAllStringSubmatch(doc, -1) {
		out = append(out, m[1])
	}
	return out
}

// A repo path: path characters only (a * glob allowed), not absolute,
// and either a slash in it or a file extension the repo uses.
var (
	pathLike = regexp.MustCompile(`^[A-Za-z0-9_.*-]+(/[A-Za-z0-9_.*-]+)*/?$`)
	fileExt  = regexp.MustCompile(`\.(go|md|mod|sum|yaml|yml|sh|golden|json|txt|png)$`)
)

func isRepoPath(s string) bool {
	return pathLike.MatchString(s) && (strings.Contains(s, "/") || fileExt.MatchString(s))
}

// Every repository path DESIGN.md (and the README's layout) names in
// backticks exists.
func TestDesignPathsExist(t *testing.T) {
	t.Parallel()
	tr := scanTree(t)
	for _, doc := range []struct {
		name, text string
		min        int
	}{{designPath, tr.design, 100}, {"README.md", tr.readme, 20}} {
		n := 0
		for _, s := range spansOf(doc.text) {
			if !isRepoPath(s) {
				continue
			}
			n++
			matches, err := filepath.Glob(filepath.Join(repoRoot, filepath.FromSlash(strings.TrimSuffix(s, "/"))))
			if err != nil || len(matches) == 0 {
				t.Errorf("%s names `%s`, which does not exist in the repository", doc.name, s)
			}
		}
		if n < doc.min {
			t.Errorf("only %d paths found in %s: the path pattern is broken", n, doc.name)
		}
	}
}

// Every package of `go list ./...` is named in DESIGN.md, as `dir/`
// (the root package as `main.go`).
func TestDesignNamesEveryPackage(t *testing.T) {
	tr := scanTree(t)
	named := setOf{}
	for _, s := range tr.spans() {
		named[strings.TrimSuffix(s, "/")] = true
	}
	if len(tr.pkgs) < 20 {
		t.Fatalf("only %d packages found: the scan is broken", len(tr.pkgs))
	}
	for dir := range tr.pkgs {
		want := dir
		if dir == "" {
			want = "main.go"
		}
		if !named[want] {
			t.Errorf("%s does not name the package %s/ (write `%s/`)", designPath, dir, dir)
		}
	}
}

// What counts as a Go name, narrowly, so that prose in backticks (a
// topic name, a health word, a key) is not taken for one:
//   - one identifier with a hump inside (withShard, TopicLister), or
//   - a dotted name whose first part is a package or a type of the tree
//     (Producer.Send, engine.Start, config.Context.FrameRate, cluster.mu),
//     with an optional call's arguments after it (Groups.runSeek(false)).
var (
	humped = regexp.MustCompile(`^[A-Za-z][a-z0-9]*[A-Z][A-Za-z0-9]*$`)
	dotted = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)((?:\.[A-Za-z_][A-Za-z0-9_]*)+)(?:\([^()]*\))?$`)
	lower  = regexp.MustCompile(`[a-z]`)
)

// goName reports whether the span is a Go name and, if so, whether the
// tree declares it.
func (tr *tree) goName(s string) (isName, declared bool) {
	if humped.MatchString(s) && lower.MatchString(s) {
		return true, tr.decls[s]
	}
	m := dotted.FindStringSubmatch(s)
	if m == nil || fileExt.MatchString(s) {
		return false, false
	}
	first, rest := m[1], strings.Split(m[2][1:], ".")
	_, isPkg := tr.topOf[first]
	if !isPkg && !tr.types[first] {
		return false, false
	}
	// Resolve part by part: a package's top-level name, then a type's
	// members (its own, or promoted from what it embeds).
	cur := []string{}
	if tr.types[first] {
		cur = append(cur, first)
	}
	name := rest[0]
	ok := (isPkg && tr.topOf[first][name]) || tr.hasMember(cur, name)
	for _, next := range rest[1:] {
		if !ok || !tr.types[name] {
			return true, false
		}
		ok, name = tr.hasMember([]string{name}, next), next
	}
	return true, ok
}

func (tr *tree) hasMember(types []string, name string) bool {
	seen := setOf{}
	for len(types) > 0 {
		typ := types[0]
		types = types[1:]
		if seen[typ] {
			continue
		}
		seen[typ] = true
		if tr.membOf[typ][name] {
			return true
		}
		types = append(types, tr.embeds[typ]...)
	}
	return false
}

// Every Go name DESIGN.md writes in backticks is declared in the tree.
func TestDesignNamesExist(t *testing.T) {
	tr := scanTree(t)
	n := 0
	for _, s := range tr.spans() {
		isName, declared := tr.goName(s)
		if !isName {
			continue
		}
		n++
		if !declared {
			t.Errorf("%s names `%s`, which nothing in the tree declares", designPath, s)
		}
	}
	if n < 300 {
		t.Errorf("only %d Go names found in %s: the name pattern is broken", n, designPath)
	}
}

// A citation of a design section: "docs/DESIGN.md §3.7", "DESIGN.md §5",
// and the bare form without ".md" the code used to write, which is
// refused.
// The project's starting decision file (/work/shared/DESIGN.md) is not
// this document and is skipped.
var (
	citation = regexp.MustCompile(`(\S*)DESIGN(\.md)?,? §(\d+(?:\.\d+)*)`)
	heading  = regexp.MustCompile(`(?m)^#{2,4} (\d+(?:\.\d+)*)\.? `)
)

// Every "docs/DESIGN.md §N" cited in a .go or .md file is a section of it.
func TestDocReferencesResolve(t *testing.T) {
	t.Parallel()
	tr := scanTree(t)
	sections := setOf{}
	for _, m := range heading.FindAllStringSubmatch(tr.texts[designPath], -1) {
		sections[m[1]] = true
	}
	if !sections["3.7"] || !sections["9"] {
		t.Fatalf("sections of %s not found (%d): the heading pattern is broken", designPath, len(sections))
	}
	n := 0
	for _, p := range sortedKeys(tr.texts) {
		if !strings.Contains(tr.texts[p], "DESIGN") {
			continue
		}
		for _, line := range strings.Split(tr.texts[p], "\n") {
			for _, m := range citation.FindAllStringSubmatch(line, -1) {
				if strings.HasSuffix(m[1], "shared/") {
					continue
				}
				n++
				switch {
				case m[2] == "":
					t.Errorf("%s: %q: cite it as docs/DESIGN.md §%s", p, strings.TrimSpace(m[0]), m[3])
				case !sections[m[3]]:
					t.Errorf("%s: %q: %s has no section %s", p, strings.TrimSpace(m[0]), designPath, m[3])
				}
			}
		}
	}
	if n == 0 {
		t.Error("no citation of docs/DESIGN.md found: the citation pattern is broken")
	}
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// Package sets for the layer rules, by module-relative directory.
func is(dirs ...string) func(string) bool {
	return func(p string) bool {
		for _, d := range dirs {
			if p == d {
				return true
			}
		}
		return false
	}
}

// under matches a directory and everything below it.
func under(dirs ...string) func(string) bool {
	return func(p string) bool {
		for _, d := range dirs {
			if p == d || strings.HasPrefix(p, d+"/") {
				return true
			}
		}
		return false
	}
}

func not(f func(string) bool) func(string) bool { return func(p string) bool { return !f(p) } }

func and(fs ...func(string) bool) func(string) bool {
	return func(p string) bool {
		for _, f := range fs {
			if !f(p) {
				return false
			}
		}
		return true
	}
}

func anyPkg(string) bool { return true }

var (
	tabPkgs      = is("ui/views/overview", "ui/views/topics", "ui/views/groups", "ui/views/cluster", "ui/views/queues", "ui/views/tail", "ui/views/publish")
	tabShared    = is("ui/views/tab", "ui/views/listdetail")
	viewPkgs     = func(p string) bool { return tabPkgs(p) || tabShared(p) }
	testOnlyPkgs = is("ui/internal/fakes", "ui/internal/viewtest", "ui/sanitize/sanitizetest", "ilink/ilinktest", "ilink/engine/enginetest")
	clientPkgs   = and(under("ilink"), not(under("ilink/engine")))
)

// layerRules are the rules of docs/DESIGN.md §1.3, one row each: no
// non-test file of a package that `importer` matches imports a package
// that `imported` matches.
var layerRules = []struct {
	rule     string
	importer func(string) bool
	imported func(string) bool
}{
	{"1: nothing imports cli/ but main.go", not(is("")), is("cli")},
	{"1: only cli/ imports ui/live/ and ui/serve/", not(is("cli")), is("ui/live", "ui/serve")},
	{"2: the leaves import no module package but ilink/numfmt/", is("ilink/wire", "ilink/position", "ilink/loadgen", "ilink/loadgen/template", "ilink/schema", "ui/sanitize"), and(anyPkg, not(is("ilink/numfmt")))},
	{"2: ilink/numfmt/ imports no module package", is("ilink/numfmt"), anyPkg},
	{"2: ilink/topicrules/ imports only ilink/position/", is("ilink/topicrules"), not(is("ilink/position", "ilink/numfmt"))},
	{"2: config/ imports only ilink/topicrules/", is("config"), not(is("ilink/topicrules"))},
	{"3: ilink/engine/ imports only ilink/wire/ and ilink/topicrules/", is("ilink/engine"), not(is("ilink/wire", "ilink/topicrules"))},
	{"3: only cli/, demo and chaos import the engine (and enginetest, for tests: rule 7)", not(is("cli", "ilink/engine/demo", "ilink/engine/chaos", "ilink/engine/enginetest")), is("ilink/engine")},
	{"4: the client imports no ui/ package", clientPkgs, under("ui")},
	{"4: the client imports no config/", clientPkgs, is("config")},
	{"4: the watch, metrics and notification packages import only the admin client, health and watch", is("ilink/admin/watch", "ilink/admin/metrics", "ilink/admin/notify"),
		and(anyPkg, not(is("ilink", "ilink/admin", "ilink/admin/health", "ilink/admin/watch", "ilink/numfmt")))},
	{"5: of ui/ only ui/live/ imports ilink/consumer/ and ilink/search/", and(under("ui"), not(is("ui/live"))), is("ilink/consumer", "ilink/search")},
	{"5: ui/common/ and ui/components/ import nothing from ilink/ but the leaves ilink/numfmt/ and ilink/schema/", is("ui/common", "ui/components"), and(under("ilink"), not(is("ilink/numfmt", "ilink/schema")))},
	{"5: the view packages never import ui/, ui/live/ or ui/serve/", viewPkgs, is("ui", "ui/live", "ui/serve")},
	{"5: a tab package never imports another", tabPkgs, tabPkgs},
	{"5: ui/views/tab/ and ui/views/listdetail/ import no tab package", tabShared, tabPkgs},
	{"7: the test helpers are imported by tests only", not(testOnlyPkgs), testOnlyPkgs},
}

// connecting are the constructors that open a connection, by import path
// and name: §1.3 rule 6 keeps them out of ui/ but ui/live/.
var connecting = map[string][]string{
	module + "/ilink":          {"Dial", "DialConn", "NewProducer"},
	module + "/ilink/admin":    {"Connect", "New"},
	module + "/ilink/consumer": {"Subscribe", "Assign"},
	module + "/ilink/search":   {"Run"},
}

// The imports of every module package obey the rules of DESIGN.md §1.3.
func TestLayering(t *testing.T) {
	tr := scanTree(t)
	for _, msg := range checkLayers(tr) {
		t.Error(msg)
	}
}

func checkLayers(tr *tree) []string {
	var bad []string
	for _, dir := range sortedKeys(tr.pkgs) {
		for _, f := range tr.pkgs[dir] {
			if f.test {
				continue
			}
			names := map[string]string{} // local name → import path, for rule 6
			for _, im := range f.ast.Imports {
				ip, _ := strconv.Unquote(im.Path.Value)
				if ip != module && !strings.HasPrefix(ip, module+"/") {
					continue
				}
				imported := strings.TrimPrefix(strings.TrimPrefix(ip, module), "/")
				local := path.Base(ip)
				if im.Name != nil {
					local = im.Name.Name
				}
				names[local] = ip
				for _, r := range layerRules {
					if r.importer(dir) && r.imported(imported) {
						bad = append(bad, f.path+" imports "+ip+", against §1.3 rule "+r.rule)
					}
				}
			}
			if !under("ui")(dir) || dir == "ui/live" {
				continue
			}
			ast.Inspect(f.ast, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				x, ok := sel.X.(*ast.Ident)
				if !ok {
					return true
				}
				for _, fn := range connecting[names[x.Name]] {
					if sel.Sel.Name == fn {
						bad = append(bad, f.path+" uses "+x.Name+"."+fn+", against §1.3 rule 6: only ui/live/ opens connections")
					}
				}
				return true
			})
		}
	}
	return bad
}
