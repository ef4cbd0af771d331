package serve

import (
	"bytes"
	"slices"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"ilinkdash/ilink/ilinktest"
)

// firstFrameWriter closes first when the output holds the tab bar.
type firstFrameWriter struct {
	buf   []byte
	first chan struct{}
}

func (w *firstFrameWriter) Write(p []byte) (int, error) {
	if w.first != nil {
		w.buf = append(w.buf, p...)
		if bytes.Contains(w.buf, []byte("Overview")) {
			close(w.first)
			w.first, w.buf = nil, nil
		}
	}
	return len(p), nil
}

// BenchmarkFirstFrame is the time from the end of the SSH handshake
// (authentication included) to the first frame's bytes at the client: a
// session, a pty request, the shell, the dashboard's first render.
// Target: at most 300 ms on loopback.
//
//	go test -run '^$' -bench FirstFrame -benchtime 20x ./ui/serve/
func BenchmarkFirstFrame(b *testing.B) {
	r := startRig(b, rigOpts{})
	var took []time.Duration
	for b.Loop() {
		conn, err := r.dial(r.operator)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		sess, err := conn.NewSession()
		if err != nil {
			b.Fatal(err)
		}
		w := &firstFrameWriter{first: make(chan struct{})}
		first := w.first
		sess.Stdout = w
		if err := sess.RequestPty("xterm-256color", 40, 120, gossh.TerminalModes{}); err != nil {
			b.Fatal(err)
		}
		if err := sess.Shell(); err != nil {
			b.Fatal(err)
		}
		select {
		case <-first:
		case <-time.After(deadline):
			b.Fatal("no first frame")
		}
		took = append(took, time.Since(start))
		b.StopTimer()
		_ = conn.Close()
		ilinktest.WaitFor(b, deadline, "the session to end", func() bool { return len(r.srv.Sessions()) == 0 })
		b.StartTimer()
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(took[len(took)-1].Microseconds())/1000, "max-ms")
}
