package cli

import (
	"os"
	"sync"
)

// maxLogBytes bounds the debug log (--debug, --log-file): once the file
// would pass it, it is renamed to PATH.1 (replacing the previous one) and
// a new file is started, so a dashboard or a serve left running with
// --debug keeps at most 2 × maxLogBytes on disk.
const maxLogBytes = 16 << 20

// rotatingFile is an append-only log file bounded by max bytes, with one
// older generation beside it.
type rotatingFile struct {
	mu   sync.Mutex
	path string
	max  int64
	f    *os.File
	n    int64 // bytes in f
}

func openRotating(path string, max int64) (*rotatingFile, error) {
	r := &rotatingFile{path: path, max: max}
	if err := r.open(); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *rotatingFile) open() error {
	f, err := os.OpenFile(r.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	r.f, r.n = f, st.Size()
	return nil
}

// Write appends b, first rotating the file if b would take it past max.
func (r *rotatingFile) Write(b []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n > 0 && r.n+int64(len(b)) > r.max {
		r.f.Close()
		if err := os.Rename(r.path, r.path+".1"); err != nil && !os.IsNotExist(err) {
			return 0, err
		}
		if err := r.open(); err != nil {
			return 0, err
		}
	}
	n, err := r.f.Write(b)
	r.n += int64(n)
	return n, err
}

func (r *rotatingFile) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.f.Close()
}
