package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ilinkdash/config"
)

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
