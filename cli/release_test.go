package cli

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestReleaseScript runs scripts/release.sh for the host platform and runs
// the binary it made: static, stamped with the version and this checkout's
// commit, shipped with completions and man pages, listed in SHA256SUMS.
func TestReleaseScript(t *testing.T) {
	// Not parallel: a full build of three platforms would load both cores under the stop tests' 2 s bounds.
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	rev, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout (%v): the release script stamps the commit from git", err)
	}
	commit := strings.TrimSpace(string(rev))
	out := t.TempDir()
	target := runtime.GOOS + "/" + runtime.GOARCH
	cmd := exec.Command("bash", filepath.Join(root, "scripts/release.sh"))
	cmd.Env = append(os.Environ(), "TARGETS="+target, "OUT="+out, "VERSION=v0.0.0-reltest")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("release.sh: %v\n%s", err, b)
	}

	name := "ilinkdash-v0.0.0-reltest-" + runtime.GOOS + "-" + runtime.GOARCH
	tarball := filepath.Join(out, name+".tar.gz")
	sums, err := os.ReadFile(filepath.Join(out, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	body, err := os.ReadFile(tarball)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(body)
	if want := hex.EncodeToString(sum[:]) + "  ./" + name + ".tar.gz\n"; string(sums) != want {
		t.Fatalf("SHA256SUMS = %q, want %q", sums, want)
	}

	files := untarRelease(t, tarball, out)
	for _, f := range []string{"ilinkdash", "README.md", "completions/ilinkdash.bash", "completions/ilinkdash.zsh",
		"completions/ilinkdash.fish", "man/man1/ilinkdash.1", "man/man1/ilinkdash-tail.1", "man/man1/ilinkdash-serve.1"} {
		if fi, ok := files[name+"/"+f]; !ok || fi == 0 {
			t.Errorf("the tarball has no (or an empty) %s", f)
		}
	}
	bin := filepath.Join(out, name, "ilinkdash")
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	cgo := ""
	for _, s := range info.Settings {
		if s.Key == "CGO_ENABLED" {
			cgo = s.Value
		}
	}
	if cgo != "0" {
		t.Errorf("the binary was built with CGO_ENABLED=%q, want 0 (static)", cgo)
	}

	got, err := exec.Command(bin, "version", "-o", "json").Output()
	if err != nil {
		t.Fatalf("ilinkdash version: %v", err)
	}
	var v struct {
		Version  string `json:"version"`
		Revision string `json:"vcs_revision"`
		Platform string `json:"platform"`
	}
	if err := json.Unmarshal(got, &v); err != nil {
		t.Fatalf("version -o json: %v\n%s", err, got)
	}
	if v.Version != "v0.0.0-reltest" || v.Revision != commit || v.Platform != target {
		t.Fatalf("the released binary says %+v, want version v0.0.0-reltest, commit %s, %s", v, commit, target)
	}
}

// untarRelease extracts a .tar.gz into dir and returns each file's size.
func untarRelease(t *testing.T, path, dir string) map[string]int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]int64{}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag != tar.TypeReg || strings.Contains(h.Name, "..") {
			continue
		}
		files[h.Name] = h.Size
		dst := filepath.Join(dir, h.Name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		w, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode)&0o755|0o600)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(w, tr); err != nil {
			t.Fatal(err)
		}
		w.Close()
	}
}
