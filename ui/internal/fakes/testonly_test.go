package fakes_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// testOnly are the packages only tests import: the fakes, the view test
// rig, the hostile payloads and the shared test helpers. A package among
// them may import another.
var testOnly = []string{
	"ilinkdash/ui/internal/fakes",
	"ilinkdash/ui/internal/viewtest",
	"ilinkdash/ui/sanitize/sanitizetest",
	"ilinkdash/ilink/ilinktest",
	"ilinkdash/ilink/engine/enginetest",
}

// TestFakesAreTestOnly: no non-test Go file of the module imports the
// fakes (or the other test-only packages), so no fake can reach the
// product.
func TestFakesAreTestOnly(t *testing.T) {
	root := moduleRoot(t)
	isTestOnly := func(dir string) bool {
		for _, p := range testOnly {
			if dir == filepath.Join(root, strings.TrimPrefix(p, "ilinkdash/")) {
				return true
			}
		}
		return false
	}
	files, seen := 0, map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || fileExists(filepath.Join(path, "go.mod"))) {
				return filepath.SkipDir // another module (bench/), or tooling
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		files++
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			for _, banned := range testOnly {
				if p != banned {
					continue
				}
				seen[banned] = true
				if !isTestOnly(filepath.Dir(path)) {
					rel, _ := filepath.Rel(root, path)
					t.Errorf("%s imports %s: only tests may", rel, banned)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The walk read the module: hundreds of files, and the test-only
	// packages importing each other (so the check can see an import).
	if files < 100 || !seen["ilinkdash/ui/internal/fakes"] {
		t.Fatalf("read %d non-test files, saw imports of %v: the walk missed the module", files, seen)
	}
}

func moduleRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for !fileExists(filepath.Join(dir, "go.mod")) {
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test")
		}
		dir = up
	}
	return dir
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
