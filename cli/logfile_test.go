package cli

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ilinkdash/config"
)

// The debug log stays bounded however much is logged: the file and its one
// older generation each hold at most the bound, and the newest line is in
// the file.
func TestDebugLogIsBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "debug.log")
	const max = 4096
	f, err := openRotating(path, max)
	if err != nil {
		t.Fatal(err)
	}
	l := log.New(f, "", 0)
	const lines = 2000 // about 60 KB: 15 times the bound
	for i := 0; i < lines; i++ {
		l.Printf("line %05d of the debug log", i)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + ".1"} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() > max || st.Size() == 0 {
			t.Errorf("%s holds %d bytes, bound %d", filepath.Base(p), st.Size(), max)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if last := fmt.Sprintf("line %05d of the debug log\n", lines-1); !strings.HasSuffix(string(b), last) {
		t.Errorf("the log does not end with the newest line %q", last)
	}
	// Reopened, it goes on from its size, still within the bound.
	f, err = openRotating(path, max)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.n != int64(len(b)) {
		t.Errorf("reopened at %d bytes, the file holds %d", f.n, len(b))
	}
}

// Every cluster of a command writes to one debug log: the second
// cluster's open shares the first's file (two writers on a rotating file
// would each rotate it under the other), and close closes it once.
func TestCommandLogIsOpenedOnce(t *testing.T) {
	file := filepath.Join(t.TempDir(), "debug.log")
	r := config.Resolved{Debug: true, LogFile: file}
	var l commandLog
	first, err := l.open(r)
	if err != nil {
		t.Fatal(err)
	}
	closer := l.closer
	second, err := l.open(r)
	if err != nil {
		t.Fatal(err)
	}
	if l.closer != closer {
		t.Fatal("the second cluster opened the log again")
	}
	first("from prod")
	second("from dr")
	l.close()
	l.close() // idempotent
	b, err := os.ReadFile(file)
	if err != nil || !strings.Contains(string(b), "from prod") || !strings.Contains(string(b), "from dr") {
		t.Fatalf("the log holds %q (%v), want both clusters' lines", b, err)
	}
	var off commandLog // without --debug nothing is opened
	if f, err := off.open(config.Resolved{}); err != nil || f != nil {
		t.Fatalf("without --debug: %v, %v", f != nil, err)
	}
}
