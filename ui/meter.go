package ui

import (
	"io"
	"os"
	"sync/atomic"
	"time"
)

// Meter sits between the program and the terminal: it counts the bytes
// written and notices writes that block, which on a slow link (SSH over a
// thin pipe) means every buffer between here and the screen is full.
// While that lasts, and for a while after, Slow reports true and the
// dashboard falls back to the low-bandwidth budget by itself
// (common.Pace.SlowTerminal), so that the backlog drains instead of
// growing. Pass it to the program with tea.WithOutput.
type Meter struct {
	w       io.Writer
	bytes   atomic.Int64
	slowTil atomic.Int64 // Unix ns: writes count as blocking until then
	now     func() time.Time
}

// Blocking writes: a write longer than SlowWrite marks the terminal slow
// for SlowHold.
const (
	SlowWrite = 40 * time.Millisecond
	SlowHold  = 15 * time.Second
)

// NewMeter wraps w. When w is a terminal file (os.Stdout), the result is
// one too (Fd, Read, Close), so the program still sets raw mode, reads
// the size and detects colours through it.
func NewMeter(w io.Writer) (io.Writer, *Meter) {
	m := &Meter{w: w, now: time.Now}
	if f, ok := w.(*os.File); ok {
		return &fileMeter{File: f, m: m}, m
	}
	return m, m
}

// Write implements io.Writer.
func (m *Meter) Write(p []byte) (int, error) {
	t0 := m.now()
	n, err := m.w.Write(p)
	m.bytes.Add(int64(n))
	if t1 := m.now(); t1.Sub(t0) > SlowWrite {
		m.slowTil.Store(t1.Add(SlowHold).UnixNano())
	}
	return n, err
}

// Bytes is the total written so far.
func (m *Meter) Bytes() int64 { return m.bytes.Load() }

// Slow reports whether a write blocked recently.
func (m *Meter) Slow() bool { return m.now().UnixNano() < m.slowTil.Load() }

// fileMeter is a Meter that is also the terminal file.
type fileMeter struct {
	*os.File
	m *Meter
}

func (f *fileMeter) Write(p []byte) (int, error) { return f.m.Write(p) }
