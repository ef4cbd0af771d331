package ilink

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// ParseAddrs parses "host:port" or "h1:p1,h2:p2" (spec S-01) into
// normalised, de-duplicated "host:port" strings. An error is a KindConfig
// error naming the bad entry by position and text.
func ParseAddrs(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, configError("address list is empty (want host:port or h1:p1,h2:p2)")
	}
	parts := strings.Split(s, ",")
	out := make([]string, 0, len(parts))
	for i, p := range parts {
		a, err := normalizeAddr(p)
		if err != nil {
			return nil, configError("address list %q: entry %d %q: %v", s, i+1, strings.TrimSpace(p), err)
		}
		if !containsString(out, a) {
			out = append(out, a)
		}
	}
	return out, nil
}

// normalizeAddr checks one "host:port" entry and returns it in the form
// net.JoinHostPort gives, so equal addresses compare equal.
func normalizeAddr(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", fmt.Errorf("empty entry")
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		if ae, ok := errors.AsType[*net.AddrError](err); ok {
			return "", fmt.Errorf("%s (want host:port)", ae.Err)
		}
		return "", err
	}
	if host == "" {
		return "", fmt.Errorf("missing host")
	}
	if strings.ContainsAny(host, " \t/") {
		return "", fmt.Errorf("bad host %q", host)
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return "", fmt.Errorf("bad port %q (want 1..65535)", port)
	}
	return net.JoinHostPort(strings.ToLower(host), strconv.Itoa(n)), nil
}

func containsString(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// endpoints is a session's candidate cache: configured addresses, entries
// of the endpoint cache file, the node list of every HELLO and leader
// hints, in the order they were learned, without duplicates (spec S-02..S-06).
type endpoints struct {
	mu    sync.Mutex
	list  []string
	nodes []string // data addresses from the last HELLO (ClusterAddresses)
	file  string
	logf  func(string, ...any)
}

func newEndpoints(configured []string, file string, logf func(string, ...any)) *endpoints {
	e := &endpoints{file: file, logf: logf}
	e.add(configured...)
	if file != "" {
		cached, err := readCacheFile(file)
		if err != nil {
			logf("ilink: endpoint cache %s: %v", file, err)
		}
		e.add(cached...)
	}
	return e
}

// add appends the addresses not known yet and reports whether any was new.
// Unparsable addresses are skipped.
func (e *endpoints) add(addrs ...string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	added := false
	for _, a := range addrs {
		n, err := normalizeAddr(a)
		if err != nil {
			continue
		}
		if !containsString(e.list, n) {
			e.list = append(e.list, n)
			added = true
		}
	}
	return added
}

// setNodes records the node list of a HELLO reply and adds it to the cache.
func (e *endpoints) setNodes(addrs []string) bool {
	e.mu.Lock()
	e.nodes = nil
	for _, a := range addrs {
		if n, err := normalizeAddr(a); err == nil && !containsString(e.nodes, n) {
			e.nodes = append(e.nodes, n)
		}
	}
	e.mu.Unlock()
	return e.add(addrs...)
}

// candidates returns the cache in order, starting after `after` when it is
// in the list (the address that just failed is tried last).
func (e *endpoints) candidates(after string) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]string, 0, len(e.list))
	start := 0
	for i, a := range e.list {
		if a == after {
			start = i + 1
			break
		}
	}
	for i := range e.list {
		out = append(out, e.list[(start+i)%len(e.list)])
	}
	return out
}

// count is the number of known addresses. More than one means the session
// has an endpoint list to fail over to (spec S-11, S-13).
func (e *endpoints) count() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.list)
}

func (e *endpoints) clusterAddresses() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.nodes...)
}

// save merges the cache into the endpoint cache file, if one is set.
func (e *endpoints) save() {
	if e.file == "" {
		return
	}
	e.mu.Lock()
	list := append([]string(nil), e.list...)
	e.mu.Unlock()
	if _, err := mergeCacheFile(e.file, list); err != nil {
		e.logf("ilink: endpoint cache %s: %v", e.file, err)
	}
}

// The endpoint cache file holds one host:port per line; blank lines and
// lines starting with '#' are ignored. The client only ever appends to it:
// lines already in the file are kept exactly as they are (spec S-07).

var cacheFileLocks sync.Map // abs path → *sync.Mutex, serialises read-merge-write in this process

func cacheFileLock(path string) *sync.Mutex {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	m, _ := cacheFileLocks.LoadOrStore(path, new(sync.Mutex))
	return m.(*sync.Mutex)
}

// readCacheFile returns the valid addresses of the file; a missing file is
// an empty cache.
func readCacheFile(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	addrs, _ := parseCacheData(data)
	return addrs, nil
}

// parseCacheData returns the valid addresses and the number of lines
// skipped because they are not host:port.
func parseCacheData(data []byte) (addrs []string, bad int) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		a, err := normalizeAddr(line)
		if err != nil {
			bad++
			continue
		}
		if !containsString(addrs, a) {
			addrs = append(addrs, a)
		}
	}
	return addrs, bad
}

// mergeCacheFile appends to the file every address of addrs that it does
// not hold yet, atomically (temporary file + rename), and reports how many
// were added. The file is not touched when nothing is new.
func mergeCacheFile(path string, addrs []string) (int, error) {
	mu := cacheFileLock(path)
	mu.Lock()
	defer mu.Unlock()

	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return 0, err
	}
	have, _ := parseCacheData(old)
	var add []string
	for _, a := range addrs {
		n, err := normalizeAddr(a)
		if err != nil || containsString(have, n) || containsString(add, n) {
			continue
		}
		add = append(add, n)
	}
	if len(add) == 0 {
		return 0, nil
	}
	var buf bytes.Buffer
	buf.Write(old)
	if len(old) > 0 && old[len(old)-1] != '\n' {
		buf.WriteByte('\n')
	}
	if len(old) == 0 {
		buf.WriteString("# ilinkdash endpoint cache: one host:port per line\n")
	}
	for _, a := range add {
		buf.WriteString(a)
		buf.WriteByte('\n')
	}
	return len(add), writeFileAtomic(path, buf.Bytes())
}

func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	mode := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // no-op after a successful rename
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
