package engine

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"ilinkdash/ilink/wire"
)

// The tables of docs/PROTOCOL.md that the code defines are checked
// against it here, so the document cannot drift from the engine.

const protocolDoc = "../../docs/PROTOCOL.md"

// docSection returns the text of PROTOCOL.md after the line starting
// with heading, up to the next heading of the same or a higher level.
func docSection(t *testing.T, heading string) string {
	t.Helper()
	b, err := os.ReadFile(protocolDoc)
	if err != nil {
		t.Fatal(err)
	}
	level := strings.IndexByte(heading, ' ')
	var out []string
	in := false
	for _, l := range strings.Split(string(b), "\n") {
		if in {
			if lv := strings.IndexByte(l, ' '); strings.HasPrefix(l, "#") && lv <= level && strings.Trim(l[:lv], "#") == "" {
				break
			}
			out = append(out, l)
		} else if strings.HasPrefix(l, heading) {
			in = true
		}
	}
	if !in {
		t.Fatalf("%s has no heading %q", protocolDoc, heading)
	}
	return strings.Join(out, "\n")
}

// tableRows returns the cells of the body rows of the markdown tables in
// text (header and separator rows skipped).
func tableRows(text string) [][]string {
	var rows [][]string
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "|") {
			continue
		}
		if strings.HasPrefix(l, "|---") || strings.HasPrefix(l, "|:") {
			continue
		}
		if i+1 < len(lines) && (strings.HasPrefix(lines[i+1], "|---") || strings.HasPrefix(lines[i+1], "|:")) {
			continue // header row
		}
		cells := strings.Split(strings.Trim(l, "|"), "|")
		for j := range cells {
			cells[j] = strings.TrimSpace(cells[j])
		}
		rows = append(rows, cells)
	}
	return rows
}

var codeRange = regexp.MustCompile(`\b(\d{4})(?:–(\d{4}))?\b`)

// TestProtocolModeTable checks §5.1 against the dispatch table: every
// registered code is listed exactly once, with the modes (and the
// before-HELLO permission) its route has, and nothing else is listed.
func TestProtocolModeTable(t *testing.T) {
	type access struct {
		beforeHello bool
		modes       [5]bool
	}
	doc := map[wire.Code]access{}
	rows := tableRows(docSection(t, "### 5.1 "))
	if len(rows) < 5 {
		t.Fatalf("§5.1 has %d table rows", len(rows))
	}
	for _, cells := range rows {
		if len(cells) != 7 {
			t.Fatalf("§5.1 row %q: %d cells, want 7", cells, len(cells))
		}
		var a access
		for i, c := range cells[1:] {
			switch c {
			case "✓":
			case "":
				continue
			default:
				t.Fatalf("§5.1 row %q: cell %q is neither ✓ nor empty", cells[0], c)
			}
			if i == 0 {
				a.beforeHello = true
			} else {
				a.modes[i-1] = true
			}
		}
		ms := codeRange.FindAllStringSubmatch(cells[0], -1)
		if len(ms) == 0 {
			t.Fatalf("§5.1 row %q names no code", cells[0])
		}
		for _, m := range ms {
			lo, _ := strconv.Atoi(m[1])
			hi := lo
			if m[2] != "" {
				hi, _ = strconv.Atoi(m[2])
			}
			for c := lo; c <= hi; c++ {
				if _, dup := doc[wire.Code(c)]; dup {
					t.Errorf("§5.1 lists %d twice", c)
				}
				doc[wire.Code(c)] = a
			}
		}
	}
	for code, rt := range routes {
		var a access
		a.beforeHello = rt.beforeHello
		for m := range a.modes {
			a.modes[m] = rt.modes == nil || slices.Contains(rt.modes, wire.SessionMode(m))
		}
		got, ok := doc[code]
		switch {
		case !ok:
			t.Errorf("%v is registered but missing from §5.1", code)
		case got != a:
			t.Errorf("%v: §5.1 says %+v, the engine has %+v", code, got, a)
		}
	}
	for code := range doc {
		if _, ok := routes[code]; !ok {
			t.Errorf("§5.1 lists %v, which the engine does not register", code)
		}
	}
}

var errorName = regexp.MustCompile(`MIMQE_[A-Z0-9_]*[A-Z0-9]`)

// namesInUse returns every MIMQE_ name in a string literal of the
// non-test Go sources under dir (package ilink and below: wire's
// constants, the engine, the client), with a file that has it.
func namesInUse(t *testing.T, dir string) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if v, err := strconv.Unquote(lit.Value); err == nil {
					for _, name := range errorName.FindAllString(v, -1) {
						out[name] = path
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestProtocolErrorTable checks that §4 lists every error name the code
// uses (wire's Err* constants, the engine's and the client's names), and
// only those.
func TestProtocolErrorTable(t *testing.T) {
	used := namesInUse(t, "..")
	// A scan that found almost nothing would make the check vacuous.
	for _, must := range []string{wire.ErrFollowerNode, wire.ErrUnknownSpoke, "MIMQE_CONNECT_FAILED", "MIMQE_DELIVERY_TIMEOUT"} {
		if used[must] == "" {
			t.Fatalf("the scan of ilink/ missed %s (found %d names)", must, len(used))
		}
	}
	listed := map[string]bool{}
	for _, cells := range tableRows(docSection(t, "## 4. ")) {
		if m := errorName.FindString(cells[0]); m != "" && cells[0] == "`"+m+"`" {
			if listed[m] {
				t.Errorf("§4 lists %s twice", m)
			}
			listed[m] = true
		}
	}
	for name, file := range used {
		if !listed[name] {
			t.Errorf("%s (used in %s) is missing from the error tables of §4", name, file)
		}
	}
	for name := range listed {
		if used[name] == "" {
			t.Errorf("§4 lists %s, which no code under ilink/ uses", name)
		}
	}
}
