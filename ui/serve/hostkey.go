package serve

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	gossh "golang.org/x/crypto/ssh"
)

// loadHostKey reads the host key at path, or creates an ed25519 one there
// (mode 0600, its directory 0700, the public half beside it as path.pub)
// when there is none. created reports a new key. An existing key readable
// by group or others is refused, as sshd refuses it.
func loadHostKey(path string) (signer gossh.Signer, created bool, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		data, err = createHostKey(path)
		created = true
	}
	if err != nil {
		return nil, false, err
	}
	if !created {
		st, err := os.Stat(path)
		if err != nil {
			return nil, false, err
		}
		if perm := st.Mode().Perm(); perm&0o077 != 0 {
			return nil, false, fmt.Errorf("%s is accessible by others (mode %04o): chmod 600 it", path, perm)
		}
	}
	signer, err = gossh.ParsePrivateKey(data)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	return signer, created, nil
}

// checkHostKey is loadHostKey for a key that exists; for a missing one it
// only makes the directory loadHostKey will create it in.
func checkHostKey(path string) error {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return os.MkdirAll(filepath.Dir(path), 0o700)
	}
	_, _, err := loadHostKey(path)
	return err
}

func createHostKey(path string) ([]byte, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	block, err := gossh.MarshalPrivateKey(priv, "ilinkdash serve host key")
	if err != nil {
		return nil, err
	}
	data := pem.EncodeToMemory(block)
	// O_EXCL: two servers starting at once must not overwrite each other's key.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return nil, err
	}
	sshPub, err := gossh.NewPublicKey(pub)
	if err != nil {
		return nil, err
	}
	// The public half, for known_hosts; losing it costs nothing.
	_ = os.WriteFile(path+".pub", gossh.MarshalAuthorizedKey(sshPub), 0o644)
	return data, nil
}
