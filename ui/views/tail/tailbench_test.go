package tail_test

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"ilinkdash/ilink/position"
	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
	"ilinkdash/ui/internal/viewtest"
	"ilinkdash/ui/views/tail"
)

// benchStream is a TailStream whose channel the benchmark fills itself.
type benchStream struct{ ch chan tail.Batch }

func (s *benchStream) Records() <-chan tail.Batch { return s.ch }
func (s *benchStream) Err() error                 { return nil }
func (s *benchStream) Seek(context.Context, position.Position, tail.Fill) (uint64, error) {
	return 0, nil
}
func (s *benchStream) Pause(context.Context, bool) error { return nil }
func (s *benchStream) Waiting() (int64, bool)            { return 0, false }
func (s *benchStream) Fetching() tail.FetchState         { return tail.FetchState{} }
func (s *benchStream) Topics() []string                  { return []string{"BENCH"} }
func (s *benchStream) Close() error                      { return nil }
func (s *benchStream) StartTail(context.Context, tail.Spec) (tail.Stream, error) {
	return s, nil
}

// benchTail is a tail view on a benchStream with its ticks captured.
type benchTail struct {
	v    *tail.View
	s    *benchStream
	tick func(time.Time) tea.Msg
	now  time.Time
}

func newBenchTail(tb testing.TB, buffer int) *benchTail { return newBenchTailBytes(tb, buffer, 0) }

// newBenchTailBytes also sets the byte bound (0: the default).
func newBenchTailBytes(tb testing.TB, buffer int, maxBytes int64) *benchTail {
	bt := &benchTail{s: &benchStream{ch: make(chan tail.Batch, 64)}, now: fakes.Epoch}
	ctx := viewtest.BenchContext(common.FullColor)
	ctx.Config.TailBuffer, ctx.Config.TailBufferBytes = buffer, maxBytes
	ctx.Now = func() time.Time { return bt.now }
	ctx.Tick = func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
		bt.tick = fn
		return nil
	}
	bt.v = tail.New(ctx, bt.s)
	bt.v.SetSize(120, 37)
	cmd := bt.v.Open("ORDER.EVENT")
	bt.run(cmd)
	if bt.tick == nil {
		tb.Fatal("the tail did not arm its tick")
	}
	return bt
}

func (bt *benchTail) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	switch m := cmd().(type) {
	case tea.BatchMsg:
		for _, c := range m {
			bt.run(c)
		}
	case common.ViewMsg:
		bt.run(bt.v.Update(m))
	}
}

// batch feeds recs through the channel and delivers one tick (one drain,
// as every 50 ms in the program).
func (bt *benchTail) batch(recs []tail.Record) {
	for i := 0; i < len(recs); i += 2048 {
		bt.s.ch <- tail.Batch{Records: recs[i:min(i+2048, len(recs))]}
	}
	bt.now = bt.now.Add(50 * time.Millisecond)
	fn := bt.tick
	bt.tick = nil
	bt.v.Update(fn(bt.now))
}

// second is one second of the stream: 20 drains of recs, then one frame.
func (bt *benchTail) second(recs []tail.Record) {
	for j := 0; j < 20; j++ {
		bt.batch(recs)
	}
	_ = bt.v.View()
}

// records1KiB returns n records with ~1 KiB JSON values, as the fake
// tailer makes them.
func records1KiB(n int) []tail.Record {
	tl := fakes.NewTailer(fakes.TailerOptions{ValueSize: 1024})
	s, _ := tl.StartTail(context.Background(), tail.Spec{Target: "ORDER.EVENT"})
	s.(*fakes.TailStream).Emit(n)
	out := make([]tail.Record, 0, n)
	for len(out) < n {
		out = append(out, (<-s.Records()).Records...)
	}
	return out
}

// BenchmarkTailIngest50k is one second of a 50,000 records/s tail: 20
// drains of 2,500 records (one per 50 ms tick) into the 10,000-record ring,
// then one frame. Under 100 ms per op leaves the program more than 90 % of
// every second for input and drawing (frames stay ≥ 10/s).
func BenchmarkTailIngest50k(b *testing.B) {
	recs := records1KiB(2500)
	bt := newBenchTail(b, 10_000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bt.second(recs)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/20/1e6, "ms/batch")
}

// BenchmarkTailIngest50kFiltered is the same with a value filter active:
// each record is matched once, when it arrives.
func BenchmarkTailIngest50kFiltered(b *testing.B) {
	recs := records1KiB(2500)
	bt := newBenchTail(b, 10_000)
	bt.v.Update(tea.KeyPressMsg{Code: '/', Text: "/"})
	for _, r := range "v:cancelled" {
		bt.v.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	bt.v.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bt.second(recs)
	}
}

// BenchmarkTailView is one frame with a full 10,000-record buffer of 1 KiB
// records (colours on, following).
func BenchmarkTailView(b *testing.B) {
	bt := newBenchTail(b, 10_000)
	recs := records1KiB(2500)
	for j := 0; j < 4; j++ {
		bt.batch(recs)
	}
	_ = bt.v.View()
	viewtest.BenchFrames(b, bt.v)
}

// BenchmarkTailViewNewRows is a frame whose 37 rows were never drawn (their
// previews are sanitized on the way): the cost of a frame while records
// stream in.
func BenchmarkTailViewNewRows(b *testing.B) {
	bt := newBenchTail(b, 10_000)
	recs := records1KiB(40)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		bt.batch(recs)
		b.StartTimer()
		_ = bt.v.View()
	}
}

// BenchmarkTailViewDetail is a frame with the detail pane open on a 1 KiB
// JSON value shown pretty.
func BenchmarkTailViewDetail(b *testing.B) {
	bt := newBenchTail(b, 10_000)
	bt.batch(records1KiB(2500))
	bt.v.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	bt.v.Update(tea.KeyPressMsg{Code: 'f', Text: "f"})
	viewtest.BenchFrames(b, bt.v)
}

// rssMB reads the process's resident set (Linux; 0 elsewhere).
func rssMB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}

// fillFull takes 15,000 distinct 1 KiB records (5,000 dropped at the
// bound) and draws every kept one once (every preview cached), the worst
// case for memory.
func fillFull(tb testing.TB) *benchTail {
	bt := newBenchTail(tb, 10_000)
	recs := records1KiB(15_000)
	for j := 0; j < 6; j++ {
		bt.batch(recs[j*2500 : (j+1)*2500])
	}
	recs = nil
	bt.v.Update(tea.KeyPressMsg{Code: 'g', Text: "g"})
	for i := 0; i < 10_000/30; i++ {
		_ = bt.v.View()
		bt.v.Update(tea.KeyPressMsg{Code: tea.KeyPgDown})
	}
	return bt
}

// BenchmarkTailMemory reports the heap a full 10,000-record buffer of
// 1 KiB records holds (every row drawn once), and the test process's RSS.
func BenchmarkTailMemory(b *testing.B) {
	for i := 0; i < b.N; i++ {
		before := viewtest.LiveHeap()
		bt := fillFull(b)
		after := viewtest.LiveHeap()
		b.ReportMetric(float64(after-before)/(1<<20), "heap-MB")
		b.ReportMetric(rssMB(), "rss-MB")
		runtime.KeepAlive(bt)
	}
}

// TestTailMemoryBound: a full buffer of 10,000 1 KiB records is about
// 10 MiB of payload (plus what the stream allocated per record); the view
// must stay within ~3× that (entries compact, previews bounded, the
// dropped records released).
func TestTailMemoryBound(t *testing.T) {
	if raceEnabled {
		t.Skip("a memory measure, meaningless under the race detector")
	}
	before := viewtest.LiveHeap()
	bt := fillFull(t)
	after := viewtest.LiveHeap()
	used := float64(after-before) / (1 << 20)
	t.Logf("full 10k × 1 KiB buffer: %.1f MiB live heap", used)
	if used > 32 {
		t.Fatalf("the tail holds %.1f MiB for 10,000 1 KiB records", used)
	}
	runtime.KeepAlive(bt)
}

// TestTailMemoryBoundBytes: 300 distinct records of 900 KB (270 MB) into
// a tail bounded at 2,000 records and 16 MiB hold about 16 MiB, not what
// the count bound alone would let them hold.
func TestTailMemoryBoundBytes(t *testing.T) {
	if raceEnabled {
		t.Skip("a memory measure, meaningless under the race detector")
	}
	before := viewtest.LiveHeap()
	bt := newBenchTailBytes(t, 2000, 16<<20)
	for i := 0; i < 300; i++ {
		val := make([]byte, 900_000)
		val[0] = byte(i)
		bt.batch([]tail.Record{{Topic: "ORDER.EVENT", Offset: int64(i), Value: val}})
	}
	after := viewtest.LiveHeap()
	used := float64(after-before) / (1 << 20)
	buffered, total, dropped, _ := bt.v.Counts()
	t.Logf("300 × 900 KB into a 16 MiB tail: %.1f MiB live heap, %d buffered, %d dropped", used, buffered, dropped)
	if total != 300 || buffered > 18 || dropped < 282 {
		t.Fatalf("buffered %d of %d (dropped %d), want at most 18", buffered, total, dropped)
	}
	if used > 32 {
		t.Fatalf("the tail holds %.1f MiB for a 16 MiB bound", used)
	}
	runtime.KeepAlive(bt)
}
