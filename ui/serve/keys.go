package serve

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// Role is what a key may do on the served dashboard.
type Role int

const (
	// RoleViewer gets a read-only dashboard: the client layer refuses
	// every mutating call.
	RoleViewer Role = iota + 1
	// RoleOperator may mutate (unless the context itself is read-only).
	RoleOperator
)

func (r Role) String() string {
	switch r {
	case RoleViewer:
		return "viewer"
	case RoleOperator:
		return "operator"
	}
	return "none"
}

// keySetting is the flag (and serve section field) naming the role's key
// file, for an error about it.
func (r Role) keySetting() string {
	if r == RoleOperator {
		return "--operator-keys"
	}
	return "--authorized-keys"
}

// Identity is who a session is: the key that authenticated it, as its
// SHA256 fingerprint and the comment of its line in the key file.
type Identity struct {
	Fingerprint string
	Comment     string
	Role        Role
}

// Name is how the identity is shown: the comment, else the fingerprint.
func (id Identity) Name() string {
	if id.Comment != "" {
		return id.Comment
	}
	return id.Fingerprint
}

// keyFile is one OpenSSH authorized_keys file. It is re-read when its
// modification time or size changes, checked with one stat per
// authentication attempt, so adding or revoking a key needs no restart.
type keyFile struct {
	path string
	role Role
	logf func(string, ...any)

	mu   sync.Mutex
	mod  time.Time
	size int64
	seen bool              // stat succeeded at the last check
	keys map[string]string // wire form of the key → comment
}

// newKeyFile reads path; a missing or unreadable file is an error at
// start (later it only empties the key set, with a log line).
func newKeyFile(path string, role Role, logf func(string, ...any)) (*keyFile, error) {
	k := &keyFile{path: path, role: role, logf: logf}
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%s keys (%s): %w", role, role.keySetting(), err)
	}
	if err := k.read(st); err != nil {
		return nil, fmt.Errorf("%s keys (%s): %w", role, role.keySetting(), err)
	}
	return k, nil
}

// lookup reports whether key is in the file, and its comment.
func (k *keyFile) lookup(key gossh.PublicKey) (string, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.refresh()
	c, ok := k.keys[string(key.Marshal())]
	return c, ok
}

// count is the number of keys currently loaded.
func (k *keyFile) count() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.keys)
}

// refresh re-reads the file when it changed. A file that disappeared or
// cannot be read any more grants nothing until it is back: refusing is
// the safe side when a key file is being replaced.
func (k *keyFile) refresh() {
	st, err := os.Stat(k.path)
	if err != nil {
		if k.seen || len(k.keys) > 0 {
			k.logf("serve: %s keys %s: %v; refusing its keys until it is back", k.role, k.path, err)
		}
		k.keys, k.seen = nil, false
		return
	}
	if k.seen && st.ModTime().Equal(k.mod) && st.Size() == k.size {
		return
	}
	if err := k.read(st); err != nil {
		k.logf("serve: %s keys: %v; refusing its keys until it is fixed", k.role, err)
		k.keys = nil
		return
	}
	k.logf("serve: %s keys: loaded %d from %s", k.role, len(k.keys), k.path)
}

// read parses the file. Lines that are not a plain key are skipped with
// a log line naming file:line, as sshd does; lines with options
// (from=, command=, cert-authority...) are skipped too, because serve
// does not implement them and silently dropping a from= restriction would
// widen access.
func (k *keyFile) read(st fs.FileInfo) error {
	data, err := os.ReadFile(k.path)
	if err != nil {
		return err
	}
	k.mod, k.size, k.seen = st.ModTime(), st.Size(), true
	k.keys = parseAuthorizedKeys(k.path, data, k.logf)
	return nil
}

func parseAuthorizedKeys(path string, data []byte, logf func(string, ...any)) map[string]string {
	keys := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		pk, comment, opts, _, err := gossh.ParseAuthorizedKey(line)
		switch {
		case err != nil:
			logf("serve: %s:%d: not an OpenSSH public key (%v); line ignored", path, n, err)
			continue
		case len(opts) > 0:
			logf("serve: %s:%d: key options (%s) are not supported; line ignored", path, n, opts[0])
			continue
		}
		if _, cert := pk.(*gossh.Certificate); cert {
			logf("serve: %s:%d: certificates are not supported; line ignored", path, n)
			continue
		}
		keys[string(pk.Marshal())] = comment
	}
	if err := sc.Err(); err != nil {
		logf("serve: %s: %v; the rest of the file is ignored", path, err)
	}
	return keys
}

// keyring answers "who is this key": operators first, so a key listed in
// both files may mutate.
type keyring struct{ files []*keyFile }

func (r *keyring) identify(key gossh.PublicKey) (Identity, bool) {
	if key == nil {
		return Identity{}, false
	}
	for _, f := range r.files {
		if c, ok := f.lookup(key); ok {
			return Identity{Fingerprint: gossh.FingerprintSHA256(key), Comment: c, Role: f.role}, true
		}
	}
	return Identity{}, false
}

// newKeyring loads the operator and viewer files (either may be "").
func newKeyring(operators, viewers string, logf func(string, ...any)) (*keyring, error) {
	r := &keyring{}
	var errs []error
	for _, f := range []struct {
		path string
		role Role
	}{{operators, RoleOperator}, {viewers, RoleViewer}} {
		if f.path == "" {
			continue
		}
		kf, err := newKeyFile(f.path, f.role, logf)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		r.files = append(r.files, kf)
	}
	switch len(errs) { // one line, both files named (errors.Join's line break is no use on a terminal)
	case 1:
		return nil, errs[0]
	case 2:
		return nil, fmt.Errorf("%w; %w", errs[0], errs[1])
	}
	if len(r.files) == 0 {
		return nil, errors.New("no key file: give --authorized-keys (read-only viewers) and/or --operator-keys (operators), or set them in the serve section")
	}
	return r, nil
}
