package history

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// damagedHistory writes a history of 300 groups' lag over two minutes,
// closes it and overwrites the root page of its first fine chunk bucket
// with garbage: a file whose meta pages and schema are intact (Open takes
// it), but whose chunks bbolt cannot read.
func damagedHistory(t *testing.T, path string, c *clock) {
	t.Helper()
	st := openT(t, path, c)
	for range 12 {
		var ss []Sample
		for g := range 300 {
			ss = append(ss, Sample{GroupLag("group-" + strconv.Itoa(g)), float64(g)})
		}
		if err := st.Record(c.t, ss); err != nil {
			t.Fatal(err)
		}
		c.t = c.t.Add(10 * time.Second)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var page int64
	pageSize := db.Info().PageSize
	db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			if name[0] == 'f' && page == 0 {
				page = int64(b.Root())
			}
			return nil
		})
	})
	db.Close()
	if page == 0 {
		t.Fatal("the fine chunk bucket is inline: no page of its own to damage")
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt([]byte(strings.Repeat("\xa5", pageSize)), page*int64(pageSize)); err != nil {
		t.Fatal(err)
	}
}

// A history whose chunk pages are damaged (a disk error, a copy cut
// short) opens, since its meta pages are sound; reading or writing a
// damaged chunk made bbolt panic, which ended the exporter (or the
// dashboard) at its next write, and again at every restart. The store now
// sets the file aside, as Open does a file that is not a history, starts
// a fresh one and says so; the recording goes on.
func TestDamagedChunksSetAside(t *testing.T) {
	for _, first := range []string{"record", "query"} {
		t.Run(first, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, FileName("prod"))
			c := &clock{time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)}
			damagedHistory(t, path, c)
			st := openT(t, path, c)
			defer st.Close()
			var err error
			switch first {
			case "record":
				for i := 0; i < 2 && err == nil; i++ { // the second closes the first's step: a write
					c.t = c.t.Add(10 * time.Second)
					err = st.Record(c.t, []Sample{{GroupLag("group-1"), 5}})
				}
			case "query":
				_, err = st.Query(GroupLag("group-1"), 15*time.Minute)
			}
			aside := path + ".corrupt-" + c.t.UTC().Format("20060102T150405Z")
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "set aside as "+filepath.Base(aside)) {
				t.Fatalf("the %s on a damaged file: %v, want it to name the file and where it was set aside", first, err)
			}
			if _, err := os.Stat(aside); err != nil {
				t.Fatalf("the damaged file is not kept aside: %v", err)
			}
			for range 2 {
				c.t = c.t.Add(10 * time.Second)
				if err := st.Record(c.t, []Sample{{GroupLag("group-1"), 7}}); err != nil {
					t.Fatalf("recording after the file was set aside: %v", err)
				}
			}
			pts, err := st.Query(GroupLag("group-1"), 15*time.Minute)
			if err != nil || len(pts) == 0 || pts[len(pts)-1].V != 7 {
				t.Fatalf("the fresh history: %v, %v", pts, err)
			}
		})
	}
}
