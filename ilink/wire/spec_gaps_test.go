package wire

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// stringConsts parses the non-test sources in dir and returns every
// exported package-level constant whose name starts with prefix and whose
// value is a string literal, with that value.
func stringConsts(t *testing.T, dir, prefix string) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	out := map[string]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatalf("parse %s: %v", f, err)
		}
		for _, d := range af.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, s := range gd.Specs {
				vs := s.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if !n.IsExported() || !strings.HasPrefix(n.Name, prefix) {
						continue
					}
					if i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue // not a name (errors.New values are vars anyway)
					}
					v, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatalf("%s: %v", fset.Position(lit.Pos()), err)
					}
					out[n.Name] = v
				}
			}
		}
	}
	return out
}

func TestSpecErrorAndRequestNamePrefixes(t *testing.T) {
	names := stringConsts(t, ".", "Err")
	// The documented names live here; a parse that found almost nothing
	// would make the check below vacuous.
	if len(names) < 30 || names["ErrNotCoordinator"] == "" || names["ErrUnknownCluster"] == "" {
		t.Fatalf("found only %d Err* string constants: %v", len(names), names)
	}
	for n, v := range names {
		if !strings.HasPrefix(v, "MIMQE_") || len(v) == len("MIMQE_") { // spec: E-02
			t.Errorf("%s = %q: an error name must start with MIMQE_", n, v)
		}
	}
	// Request names start with MIMQ_ (and are not error names).
	leave := CodeTopicLeave.String()
	if !strings.HasPrefix(leave, "MIMQ_TOPIC_LEAVE") || strings.HasPrefix(leave, "MIMQE_") { // spec: E-02
		t.Errorf("CodeTopicLeave names itself %q, want MIMQ_TOPIC_LEAVE", leave)
	}
	// No request code is named like an error, and every MIMQ-named
	// request uses the MIMQ_ prefix.
	for c, n := range codeNames {
		if strings.HasPrefix(n, "MIMQ") && (!strings.HasPrefix(n, "MIMQ_") || strings.HasPrefix(n, "MIMQE_")) { // spec: E-02
			t.Errorf("request %d is named %q: request names start with MIMQ_, not MIMQE_", uint16(c), n)
		}
	}
}

// TestSpecClientErrorNamePrefix: the error names only the client produces
// (package ilink's exported Name* string constants, in the parent
// directory) are MIMQE_ names too, like the engine's above.
func TestSpecClientErrorNamePrefix(t *testing.T) {
	names := stringConsts(t, "..", "Name")
	if len(names) < 6 || names["NameConnectionLost"] == "" || names["NameDeliveryTimeout"] == "" {
		t.Fatalf("found only %v", names)
	}
	for n, v := range names {
		if !strings.HasPrefix(v, "MIMQE_") || len(v) == len("MIMQE_") { // spec: E-02
			t.Errorf("%s = %q: an error name must start with MIMQE_", n, v)
		}
	}
}

func TestSpecReportCodes(t *testing.T) {
	// The REPORT values, and the names the engine sends with them
	// (ilink/engine's spec_gaps_test.go checks what it actually sends).
	for _, tc := range []struct {
		what      string
		got, want uint16
		name      string
		ok        func(string) bool
	}{
		{"unsupported consumer protocol", ReportUnsupported, 4157, ErrUnsupported, func(n string) bool { return n == "MIMQE_UNSUPPORTED" }},
		{"rebalanced", ReportRebalanced, 4161, ErrRebalanceInProgress, nil},
		{"not coordinator", ReportNotCoordinator, 4175, ErrNotCoordinator, func(n string) bool { return n == "MIMQE_NOT_COORDINATOR" }},
		{"loading", ReportLoading, 4176, ErrLoading, func(n string) bool { return strings.Contains(n, "LOADING") }},
		{"generation mismatch", ReportGenerationMismatch, 4178, ErrGenerationMismatch, nil},
	} {
		if tc.got != tc.want { // spec: E-04
			t.Errorf("REPORT %s = %d, want %d", tc.what, tc.got, tc.want)
		}
		if tc.ok != nil && !tc.ok(tc.name) { // spec: E-04
			t.Errorf("REPORT %d (%s) is named %q", tc.want, tc.what, tc.name)
		}
	}
}
