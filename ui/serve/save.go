package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"ilinkdash/config"
	"ilinkdash/ui/views/tail"
)

// A session never names a file on the jump host. The tail's save (`w`)
// is the only write a session can cause, and it goes through here:
// operators only, into --save-dir (opened as an os.Root, so no name can
// leave it, through "..", an absolute path or a symlink), under a name the
// server makes, capped at --save-max-bytes, audited. Nothing the client
// sees says whether some other server path exists.

var _ tail.Saver = (*sessionSources)(nil)

// SavePlace: the save directory, or why this session cannot save.
func (ss *sessionSources) SavePlace() (string, error) {
	switch {
	case ss.readOnly:
		return "", errors.New("saving writes a file on the server, so only operators may, and only where the server says (serve --save-dir); copy a value with c instead")
	case ss.s.cfg.Serve.SaveDir == "":
		return "", errors.New("saving is off on this server (serve --save-dir); copy a value with c instead")
	}
	return ss.s.cfg.Serve.SaveDir, nil
}

// errSaveCap ends a save over --save-max-bytes (the file is removed).
type errSaveCap struct{ max int64 }

func (e errSaveCap) Error() string {
	return fmt.Sprintf("the save is larger than this server allows (%s, serve --save-max-bytes); filter the records (/) and save fewer", config.FormatBytes(e.max))
}

// errSaveFailed is what the client is told of a file system error; the
// server's log has the error itself.
var errSaveFailed = errors.New("the save failed on the server (its log says why)")

func (ss *sessionSources) SaveTail(ctx context.Context, target string, records int, write func(io.Writer) (int64, error)) (string, int64, error) {
	if _, err := ss.SavePlace(); err != nil {
		return "", 0, err
	}
	var name string
	var n int64
	detail := fmt.Sprintf("records=%d", records)
	err := ss.act(ctx, "tail-save", target, detail, func(context.Context) error {
		var err error
		name, n, err = ss.s.saveFile(ss.sess.id, target, write)
		return err
	})
	return name, n, err
}

// saveFile writes one save into the save directory under a new name.
func (s *Server) saveFile(session uint64, target string, write func(io.Writer) (int64, error)) (string, int64, error) {
	sc := s.cfg.Serve
	root, err := os.OpenRoot(sc.SaveDir)
	if err != nil {
		s.logf("serve: save directory %s: %v", sc.SaveDir, err)
		return "", 0, errSaveFailed
	}
	defer root.Close()
	base := saveName(session, target, time.Now())
	var f *os.File
	var name string
	for i := 1; i <= 100; i++ {
		name = base + ".jsonl"
		if i > 1 {
			name = fmt.Sprintf("%s-%d.jsonl", base, i)
		}
		f, err = root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		s.logf("serve: save %s in %s: %v", name, sc.SaveDir, err)
		return "", 0, errSaveFailed
	}
	n, err := write(&capWriter{w: f, left: sc.SaveMaxBytes})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = root.Remove(name)
		var capped errSaveCap
		if errors.As(err, &capped) {
			return "", n, errSaveCap{max: sc.SaveMaxBytes}
		}
		s.logf("serve: save %s in %s: %v", name, sc.SaveDir, err)
		return "", n, errSaveFailed
	}
	return name, n, nil
}

// saveName is tail-<session>-<target>-<time>, with only [A-Za-z0-9._-]
// from the target (a pattern such as ORDER.* becomes ORDER._).
func saveName(session uint64, target string, now time.Time) string {
	t := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			return r
		case r == '.':
			return '.'
		}
		return '_'
	}, target)
	t = strings.Trim(t, ".")
	if len(t) > 64 {
		t = t[:64]
	}
	if t == "" {
		t = "records"
	}
	return fmt.Sprintf("tail-%d-%s-%s", session, t, now.UTC().Format("20060102-150405"))
}

// capWriter fails a write that would pass the cap.
type capWriter struct {
	w    io.Writer
	left int64
}

func (c *capWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > c.left {
		return 0, errSaveCap{}
	}
	n, err := c.w.Write(p)
	c.left -= int64(n)
	return n, err
}
