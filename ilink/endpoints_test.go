package ilink

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseAddrs(t *testing.T) {
	t.Parallel()
	good := []struct {
		in   string
		want []string
	}{
		{"h:5000", []string{"h:5000"}}, // spec: S-01
		{"ilink-1.example:5000,ilink-2.example:5000", []string{"ilink-1.example:5000", "ilink-2.example:5000"}}, // spec: S-01
		{" a:1 , B:2 ", []string{"a:1", "b:2"}},
		{"a:1,a:1", []string{"a:1"}},
		{"[::1]:5000", []string{"[::1]:5000"}},
		{"a:080", []string{"a:80"}},
	}
	for _, c := range good {
		got, err := ParseAddrs(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseAddrs(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	bad := []struct{ in, mention string }{
		{"", "empty"},
		{"h", `entry 1 "h"`},
		{"a:1,b", `entry 2 "b"`},
		{"a:1,,b:2", "entry 2"},
		{"a:1,:5000", "missing host"},
		{"a:0", "bad port"},
		{"a:65536", "bad port"},
		{"a:x", "bad port"},
		{"a b:1", "bad host"},
	}
	for _, c := range bad {
		_, err := ParseAddrs(c.in)
		if !IsConfigError(err) || !strings.Contains(err.Error(), c.mention) {
			t.Errorf("ParseAddrs(%q) = %v; want a config error mentioning %q", c.in, err, c.mention)
		}
	}
}

func TestCandidatesOrderAndDedup(t *testing.T) {
	t.Parallel()
	e := newEndpoints([]string{"a:1", "b:2"}, "", t.Logf)
	if e.add("a:1", "A:1") {
		t.Fatal("duplicate counted as new")
	}
	if !e.setNodes([]string{"a:1", "c:3"}) {
		t.Fatal("new node not added")
	}
	if got := e.candidates(""); !reflect.DeepEqual(got, []string{"a:1", "b:2", "c:3"}) {
		t.Fatalf("candidates %v", got)
	}
	if got := e.candidates("b:2"); !reflect.DeepEqual(got, []string{"c:3", "a:1", "b:2"}) {
		t.Fatalf("candidates after b:2: %v", got)
	}
	if got := e.clusterAddresses(); !reflect.DeepEqual(got, []string{"a:1", "c:3"}) { // spec: S-04
		t.Fatalf("cluster addresses %v", got)
	}
	if e.count() != 3 {
		t.Fatalf("count %d", e.count())
	}
}

func TestEndpointCacheFileMerge(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "endpoints")

	// A missing file is an empty cache.
	if got, err := readCacheFile(path); err != nil || got != nil {
		t.Fatalf("missing file: %v %v", got, err)
	}
	n, err := mergeCacheFile(path, []string{"a:1", "b:2", "a:1"})
	if err != nil || n != 2 {
		t.Fatalf("first merge: %d %v", n, err)
	}
	got, _ := readCacheFile(path)
	if !reflect.DeepEqual(got, []string{"a:1", "b:2"}) { // spec: S-07 (no duplicates)
		t.Fatalf("after first merge: %v", got)
	}

	// Hand-edited content stays exactly as it is; only new entries are appended.
	orig := "# mine\nB:2\n  not an address\nd:4" // no final newline, odd case, junk
	if err := os.WriteFile(path, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	n, err = mergeCacheFile(path, []string{"a:1", "b:2", "d:4", "e:5"})
	if err != nil || n != 2 {
		t.Fatalf("second merge: %d %v", n, err)
	}
	data, _ := os.ReadFile(path)
	if want := orig + "\na:1\ne:5\n"; string(data) != want { // spec: S-07 (existing entries left as they are)
		t.Fatalf("file after merge:\n%q\nwant\n%q", data, want)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Fatalf("mode changed to %v", st.Mode().Perm())
	}

	// Nothing new: the file is not rewritten.
	before, _ := os.Stat(path)
	n, err = mergeCacheFile(path, []string{"e:5", "a:1"})
	if err != nil || n != 0 {
		t.Fatalf("no-op merge: %d %v", n, err)
	}
	after, _ := os.Stat(path)
	if !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
		t.Fatal("file rewritten although nothing was new")
	}

	// No temporary file is left behind.
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("directory holds %d entries, want just the cache file", len(ents))
	}
}

func TestEndpointsReadCacheFileAtStart(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "endpoints")
	if err := os.WriteFile(path, []byte("x:9\nbad line\na:1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := newEndpoints([]string{"a:1"}, path, t.Logf)
	if got := e.candidates(""); !reflect.DeepEqual(got, []string{"a:1", "x:9"}) { // spec: S-08
		t.Fatalf("candidates %v", got)
	}
	e.add("y:8")
	e.save()
	got, _ := readCacheFile(path)
	if !reflect.DeepEqual(got, []string{"x:9", "a:1", "y:8"}) { // spec: S-07
		t.Fatalf("file after save: %v", got)
	}
}

func TestMsgIDs(t *testing.T) {
	t.Parallel()
	a, b := NewMsgID(), NewMsgID()
	if a == b || a.IsZero() || len(a.String()) != 32 {
		t.Fatalf("ids %v %v", a, b)
	}
	if string(a[:8]) != string(b[:8]) {
		t.Fatal("prefix differs within the process")
	}
	p, err := ParseMsgID(a.String())
	if err != nil || p != a {
		t.Fatalf("round trip: %v %v", p, err)
	}
	if _, err := ParseMsgID("zz"); !IsConfigError(err) {
		t.Fatalf("bad id: %v", err)
	}
}
