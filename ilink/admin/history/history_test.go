package history

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/admin/health"
	"ilinkdash/ilink/admin/watch"
)

type pt struct {
	slot int
	v    int64
}

// A chunk decodes to the points encoded, also when it is continued after
// a decode (a restart), and a steady series costs a few bytes.
func TestChunkRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := range 200 {
		var want []pt
		var e enc
		slot := r.IntN(10)
		v := int64(r.IntN(1000))
		split := r.IntN(300)
		for slot < maxSlots {
			switch r.IntN(4) {
			case 0:
				v += int64(r.IntN(100000)) - 50000
			case 1:
				v += 7
			default:
			}
			e.add(slot, v)
			want = append(want, pt{slot, clampValue(v)})
			if len(want) == split {
				// Reload: the file's chunk continues.
				var err error
				if e, err = decodeChunk(e.bytes(), maxSlots, func(int, int64) {}); err != nil {
					t.Fatal(err)
				}
			}
			slot += 1 + r.IntN(3)/2*r.IntN(5)
		}
		var got []pt
		if _, err := decodeChunk(e.bytes(), maxSlots, func(s int, v int64) { got = append(got, pt{s, v}) }); err != nil {
			t.Fatalf("iter %d: %v", iter, err)
		}
		if len(got) != len(want) {
			t.Fatalf("iter %d: %d points, want %d", iter, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("iter %d point %d: %v, want %v", iter, i, got[i], want[i])
			}
		}
	}
	var e enc
	for s := range maxSlots {
		e.add(s, 1000+int64(s)*5)
	}
	if n := len(e.bytes()); n > 8 {
		t.Errorf("a linear hour takes %d bytes, want a run of at most 8", n)
	}
}

// A chunk that does not parse is an error, never a panic or a slot out
// of the chunk.
func TestChunkCorrupt(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 5000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		decodeChunk(b, 120, func(s int, _ int64) {
			if s < 0 || s >= 120 {
				t.Fatalf("slot %d out of the chunk", s)
			}
		})
	}
}

// clock is a settable test clock.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func openT(t *testing.T, path string, c *clock) *Store {
	t.Helper()
	st, warn, err := Open(path, Options{Now: c.now})
	if err != nil || warn != nil {
		t.Fatalf("Open: %v, warning %v", err, warn)
	}
	return st
}

// Points recorded are queried back at their steps, survive a close and
// a reopen, and a step's samples keep the last (fine) or the maximum
// (coarse) of a count.
func TestRecordQueryReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName("prod/eu"))
	if filepath.Base(path) != "history-prod_eu.db" {
		t.Fatalf("file name %s", filepath.Base(path))
	}
	c := &clock{time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)}
	st := openT(t, path, c)
	for i := range 360 { // 30 min, a sample every 5 s
		lag := float64(i * 10)
		st.Record(c.t, []Sample{{GroupLag("ORDERS"), lag}, {GroupRate("ORDERS"), 12.34}, {ClusterIn(), 100}})
		c.t = c.t.Add(5 * time.Second)
	}
	pts, err := st.Query(GroupLag("ORDERS"), 15*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) < 89 || len(pts) > 92 {
		t.Fatalf("15m: %d points, want about 90", len(pts))
	}
	last := pts[len(pts)-1]
	if last.V != 3590 || !last.At.Equal(c.t.Add(-5*time.Second).Truncate(10*time.Second)) {
		t.Errorf("last point %v %v", last.At, last.V)
	}
	for i := 1; i < len(pts); i++ {
		if pts[i].At.Sub(pts[i-1].At) != 10*time.Second {
			t.Fatalf("step %v at %d", pts[i].At.Sub(pts[i-1].At), i)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	c.t = c.t.Add(time.Minute)
	st = openT(t, path, c)
	defer st.Close()
	pts, _ = st.Query(GroupLag("ORDERS"), time.Hour)
	// A step keeps its last sample: 10:00:00 had 0 and 10.
	if len(pts) != 180 || pts[0].V != 10 || pts[len(pts)-1].V != 3590 {
		t.Fatalf("after reopen: %d points, %v … %v", len(pts), pts[0], pts[len(pts)-1])
	}
	// Continue after the restart: the chunk of the hour continues.
	st.Record(c.t, []Sample{{GroupLag("ORDERS"), 5}})
	c.t = c.t.Add(10 * time.Second)
	st.Record(c.t, []Sample{{GroupLag("ORDERS"), 6}})
	pts, _ = st.Query(GroupLag("ORDERS"), time.Hour)
	if n := len(pts); pts[n-2].V != 5 || pts[n-1].V != 6 || pts[0].V != 10 {
		t.Fatalf("continued: %v %v %v", pts[0], pts[n-2], pts[n-1])
	}
	coarse, _ := st.Query(GroupLag("ORDERS"), 24*time.Hour)
	// The coarse tier keeps a minute's maximum: the first minute's 12
	// samples were 0, 10, …, 110.
	if len(coarse) < 30 || coarse[0].V != 110 {
		t.Fatalf("coarse: %d points, first %v", len(coarse), coarse[0])
	}
	rate, _ := st.Query(GroupRate("ORDERS"), 24*time.Hour)
	if len(rate) == 0 || rate[0].V != 12.3 {
		t.Fatalf("rate kept to 0.1/s: %v", rate)
	}
}

// Periods older than their tier keeps are dropped.
func TestPrune(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.db")
	c := &clock{time.Date(2026, 12, 4, 0, 0, 0, 0, time.UTC)}
	st := openT(t, path, c)
	defer st.Close()
	for range 26 * 60 { // 26 h, a sample a minute
		st.Record(c.t, []Sample{{QueueDepth("Q"), 1}})
		c.t = c.t.Add(time.Minute)
	}
	var fine, coarse int
	st.db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
			switch name[0] {
			case 'f':
				fine++
			case 'c':
				coarse++
			}
			return nil
		})
	})
	if fine != 5 || coarse != 25 {
		t.Errorf("%d fine periods (want 5: the hour's quarters and the current one), %d coarse (want 25: 24 h of hours and the current)", fine, coarse)
	}
	pts, _ := st.Query(QueueDepth("Q"), 24*time.Hour)
	if len(pts) < 1400 || len(pts) > 1445 {
		t.Errorf("24 h: %d points, want about 1,440", len(pts))
	}
}

// A file that is not a bbolt database is set aside with a warning, and a
// fresh history starts.
func TestCorruptFileSetAside(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName("prod"))
	if err := os.WriteFile(path, []byte(strings.Repeat("not a database\n", 2000)), 0o600); err != nil {
		t.Fatal(err)
	}
	c := &clock{time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)}
	st, warn, err := Open(path, Options{Now: c.now})
	if err != nil {
		t.Fatalf("a corrupt file is not fatal: %v", err)
	}
	defer st.Close()
	checkSetAside(t, dir, path, warn)
	if err := st.Record(c.t, []Sample{{ClusterIn(), 1}}); err != nil {
		t.Fatal(err)
	}
}

// A bbolt file of another program (no schema key, or another version)
// is set aside too.
func TestForeignFileSetAside(t *testing.T) {
	for _, tc := range []struct{ name, schema string }{{"other program", ""}, {"other version", "ilinkdash-history 0"}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "h.db")
			db, err := bolt.Open(path, 0o600, nil)
			if err != nil {
				t.Fatal(err)
			}
			db.Update(func(tx *bolt.Tx) error {
				if tc.schema == "" {
					b, _ := tx.CreateBucket([]byte("sessions"))
					return b.Put([]byte("k"), []byte("v"))
				}
				b, _ := tx.CreateBucket(metaBucket)
				return b.Put(schemaKey, []byte(tc.schema))
			})
			db.Close()
			c := &clock{time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)}
			st, warn, err := Open(path, Options{Now: c.now})
			if err != nil {
				t.Fatalf("a foreign file is not fatal: %v", err)
			}
			defer st.Close()
			checkSetAside(t, dir, path, warn)
		})
	}
}

func checkSetAside(t *testing.T, dir, path string, warn error) {
	t.Helper()
	aside := path + ".corrupt-20261204T100000Z"
	if warn == nil || !strings.Contains(warn.Error(), "set aside as "+filepath.Base(aside)) {
		t.Fatalf("warning %v, want it to name %s", warn, filepath.Base(aside))
	}
	if _, err := os.Stat(aside); err != nil {
		t.Fatalf("the old file is not kept aside: %v", err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("no fresh file: %v", err)
	}
}

// A second store on a file in use fails (not set aside): the first one
// keeps its history.
func TestFileInUse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.db")
	c := &clock{time.Now()}
	st := openT(t, path, c)
	defer st.Close()
	_, _, err := Open(path, Options{Now: c.now})
	if err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("second open: %v", err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
}

// The recorder writes a watched snapshot's fresh lists: a group's lag
// and the cluster's in/out.
func TestRecorderWritesSnapshots(t *testing.T) {
	c := &clock{time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)}
	var mu sync.Mutex
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return c.t }
	st, _, err := Open(filepath.Join(t.TempDir(), "h.db"), Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rec := NewRecorder(st, t.Logf)
	for i := range 3 {
		mu.Lock()
		at := c.t
		mu.Unlock()
		s := &watch.Snapshot{Seq: uint64(i + 1)}
		s.Lists[watch.Groups] = watch.ListState{Polled: true, OKAt: at}
		s.Lists[watch.Topics] = watch.ListState{Polled: true, OKAt: at}
		s.StaleAfter[watch.Groups], s.StaleAfter[watch.Topics] = time.Minute, time.Minute
		s.Groups = []health.GroupStatus{{Info: admin.GroupInfo{Name: "ORDERS"}, Lag: admin.LagTotal{Records: int64(100 * (i + 1)), Partitions: 1}, Rate: -1}}
		s.Topics = []admin.TopicInfo{{Name: "T", RecordsInPerSec: 40}, {Name: "SYSTEM.X", Internal: true, RecordsInPerSec: 1000}}
		rec.Record(s)
		deadline := time.Now().Add(10 * time.Second)
		for {
			pts, _ := st.Query(GroupLag("ORDERS"), time.Hour)
			if len(pts) > 0 && pts[len(pts)-1].V == float64(100*(i+1)) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("snapshot %d not recorded: %v", i, pts)
			}
			time.Sleep(5 * time.Millisecond)
		}
		mu.Lock()
		c.t = c.t.Add(10 * time.Second)
		mu.Unlock()
	}
	rec.Close()
	rec.Record(&watch.Snapshot{Seq: 99}) // after Close: ignored, no panic
	in, _ := st.Query(ClusterIn(), time.Hour)
	if len(in) != 3 || in[0].V != 40 {
		t.Fatalf("cluster in (SYSTEM.* left out): %v", in)
	}
	if pts, _ := st.Query(GroupRate("ORDERS"), time.Hour); len(pts) != 0 {
		t.Fatalf("an unknown rate is not a point: %v", pts)
	}
}

// Past Options.MaxSeries a new series is counted (Skipped) and not
// recorded; the series already kept go on.
func TestMaxSeries(t *testing.T) {
	c := &clock{time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)}
	st, _, err := Open(filepath.Join(t.TempDir(), "h.db"), Options{Now: c.now, MaxSeries: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for i := range 3 {
		var ss []Sample
		for g := range 5 {
			ss = append(ss, Sample{GroupLag("g" + strconv.Itoa(g)), float64(10*i + g)})
		}
		if err := st.Record(c.t, ss); err != nil {
			t.Fatal(err)
		}
		c.t = c.t.Add(10 * time.Second)
	}
	if n := st.Skipped(); n != 6 {
		t.Errorf("Skipped %d, want 6 (2 series over 3 polls)", n)
	}
	for g := range 5 {
		pts, err := st.Query(GroupLag("g"+strconv.Itoa(g)), time.Hour)
		if want := 3 * btoi(g < 3); err != nil || len(pts) != want {
			t.Errorf("g%d: %d points (%v), want %d", g, len(pts), err, want)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// A write that keeps failing is said once, and its end with the count of
// the failures between (a full disk wrote a line every poll); the series
// the cap leaves out are said when there first are some and each time
// they double.
func TestRecordLogSaysEachThingOnce(t *testing.T) {
	var lines []string
	logf := func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) }
	var l recordLog
	full := errors.New("history /s/h.db: write: no space left on device")
	for range 5 {
		l.note(full, 0, 100, logf)
	}
	l.note(nil, 0, 100, logf)
	l.note(nil, 0, 100, logf)
	for _, skipped := range []int{3, 3, 5, 6, 7, 12} {
		l.note(nil, skipped, 100, logf)
	}
	want := []string{
		"lag history: history /s/h.db: write: no space left on device (said once while it lasts)",
		"lag history: recording again, after 4 more failed writes",
		"lag history: 3 series not recorded: the file keeps at most 100",
		"lag history: 6 series not recorded: the file keeps at most 100",
		"lag history: 12 series not recorded: the file keeps at most 100",
	}
	if !slices.Equal(lines, want) {
		t.Fatalf("logged\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}
