// Package history keeps a bounded on-disk history of a cluster's figures
// — each group's lag and commit rate, each topic's rates in and out, each
// queue's depth, the cluster's in and out — so that a chart can show the
// last 15 minutes to 24 hours, also after a restart.
//
// The file is a bbolt database (one file, transactions, crash-safe: a
// write is all there or not at all), by default
// $XDG_STATE_HOME/ilinkdash/history-<context>.db (FileName). Two tiers:
//
//   - fine: a point every 10 s, kept Options.FineFor (1 h by default:
//     the 15 min and 1 h charts);
//   - coarse: a point every minute, kept 24 h (the 6 h and 24 h charts).
//
// Each series' points of one chunk period (15 minutes of the fine tier,
// an hour of the coarse one) are one value, delta-varint encoded
// (chunk.go), in a bucket per tier and period; a period older than its
// tier keeps is dropped whole. Several samples within one step keep the
// last (fine) or, in the coarse tier, a count's maximum and a rate's
// mean. Record takes a poll's samples and writes, in one transaction,
// only when a step has closed: at most one transaction a poll (and, once
// every 15 minutes, one that drops and compacts the periods that closed).
//
// Size: a point costs 0 to 3 bytes (one for a delta within ±31, two
// within ±4,095, nothing in a steady run), and a series holds at most
// about 1,900 points (1.25 h of fine ones, 25 h of coarse ones);
// BenchmarkFill2000Groups24h measures the file for 2,000 groups over 24 h
// (README, "Lag history"). The file is capped at Options.MaxBytes and at
// Options.MaxSeries series.
//
// A file that is not a bbolt database, or one without this package's
// schema key, is renamed aside (<file>.corrupt-<time>) and a fresh one
// started: Open returns a warning, never an error for it. One whose
// pages turn out damaged later (bbolt cannot read a chunk) is set aside
// the same way when it is read or written, the call's error saying so.
package history

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// schema is the value of the meta bucket's schema key: a file with another
// (or none, but other buckets) is not this package's.
const schema = "ilinkdash-history 3"

var (
	metaBucket = []byte("meta")
	schemaKey  = []byte("schema")
)

// Defaults of Options.
const (
	DefaultFineFor   = time.Hour
	DefaultMaxSeries = 32768
	DefaultMaxBytes  = 64 << 20
)

// Keep is how long the history reaches back (the coarse tier).
const Keep = 24 * time.Hour

// Options tune a Store; the zero value takes the defaults.
type Options struct {
	// Now is the clock (tests); nil is time.Now.
	Now func() time.Time
	// FineFor is how long the 10 s points are kept (up to Keep).
	FineFor time.Duration
	// MaxSeries bounds the series recorded; the ones beyond are counted
	// (Skipped) and not recorded.
	MaxSeries int
	// MaxBytes bounds the file (bbolt's MaxSize): a write that would grow
	// it beyond fails, and the next one, after pruning, is tried again.
	MaxBytes int

	noSync bool // the benchmark's fill: no fsync
}

// tier is one resolution.
type tier struct {
	id    byte
	step  int64 // seconds
	slots int64 // steps a chunk covers
	keep  time.Duration
}

func (t tier) period() int64 { return t.step * t.slots }

// bucket names a chunk bucket: the tier's byte and the period's start
// (unix seconds, big-endian, so the buckets sort by time).
func (t tier) bucket(period int64) []byte {
	b := make([]byte, 9)
	b[0] = t.id
	binary.BigEndian.PutUint64(b[1:], uint64(period))
	return b
}

const numTiers = 2

// tstate is one series in one tier: the chunk of the current period and
// the step being observed.
type tstate struct {
	period   int64 // start of e's period
	e        enc
	loaded   bool  // e continues what the file holds for period
	slot     int64 // the step observed (unix / step), -1 none
	last     float64
	maxV     float64
	sum      float64
	n        int
	dirty    bool // e has points the file does not
	seenSlot int64
}

type sstate struct {
	key  string
	kind Kind
	t    [numTiers]tstate
}

// Store is an open history. Its methods may be called from any goroutine.
type Store struct {
	path  string
	now   func() time.Time
	tiers [numTiers]tier
	max   int
	opts  Options // Open's, for the fresh file after a damaged one (damaged)

	mu      sync.Mutex
	db      *bolt.DB
	series  map[string]*sstate
	skipped int
	pruned  int64 // fine period of the last prune
}

// FileName is the history file of a context: history-<context>.db, the
// name's characters other than letters, digits, '.', '-' and '_' as '_'.
func FileName(context string) string {
	if context == "" {
		context = "default"
	}
	safe := strings.Map(func(r rune) rune {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_') {
			return r
		}
		return '_'
	}, context)
	return "history-" + safe + ".db"
}

// Open opens (or creates) the history at path. A file that is not a
// history (not bbolt, or another schema) is renamed aside and a fresh one
// started: warn then says so. err is for what cannot be helped by that
// (the directory cannot be made, another process holds the file).
func Open(path string, o Options) (st *Store, warn, err error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.FineFor <= 0 {
		o.FineFor = DefaultFineFor
	}
	o.FineFor = min(o.FineFor, Keep)
	if o.MaxSeries <= 0 {
		o.MaxSeries = DefaultMaxSeries
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, nil, fmt.Errorf("history: %w", err)
	}
	db, why := openChecked(path, o)
	if why != nil {
		if !foreign(why) {
			return nil, nil, fmt.Errorf("history %s: %w", path, why)
		}
		aside := path + ".corrupt-" + o.Now().UTC().Format("20060102T150405Z")
		if err := os.Rename(path, aside); err != nil {
			return nil, nil, fmt.Errorf("history %s is not a history file (%v) and cannot be set aside: %w", path, why, err)
		}
		warn = fmt.Errorf("history %s was not a history file (%v): set aside as %s, a fresh one started", path, why, filepath.Base(aside))
		if db, why = openChecked(path, o); why != nil {
			return nil, warn, fmt.Errorf("history %s: %w", path, why)
		}
	}
	st = &Store{path: path, now: o.Now, max: o.MaxSeries, opts: o, db: db, series: map[string]*sstate{}, pruned: -1}
	st.tiers = [numTiers]tier{{id: 'f', step: 10, slots: 90, keep: o.FineFor}, {id: 'c', step: 60, slots: 60, keep: Keep}}
	return st, warn, nil
}

// errForeign: the file is a bbolt database, but not a history.
var errForeign = errors.New("no history schema")

// foreign reports whether err says the file is not a history (rather than
// that it could not be opened at all).
func foreign(err error) bool {
	return errors.Is(err, errForeign) || errors.Is(err, berrors.ErrInvalid) || errors.Is(err, berrors.ErrVersionMismatch) ||
		errors.Is(err, berrors.ErrChecksum) || errors.Is(err, errPanic)
}

var errPanic = errors.New("unreadable database")

// openChecked opens the bbolt file and checks (or, in an empty file,
// writes) the schema key. A file that opens but is not a history is
// closed again: errForeign.
func openChecked(path string, o Options) (db *bolt.DB, err error) {
	defer func() {
		// bbolt may panic on a file whose pages are garbage.
		if r := recover(); r != nil {
			if db != nil {
				db.Close()
			}
			db, err = nil, fmt.Errorf("%w: %v", errPanic, r)
		}
	}()
	db, err = bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second, MaxSize: o.MaxBytes, NoSync: o.noSync})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, errors.New("in use by another ilinkdash (its lock is held)")
	}
	if err != nil {
		return nil, err
	}
	db.AllocSize = 1 << 20
	err = db.Update(func(tx *bolt.Tx) error {
		if m := tx.Bucket(metaBucket); m != nil {
			if v := m.Get(schemaKey); string(v) != schema {
				return fmt.Errorf("%w: schema %q", errForeign, v)
			}
			return nil
		}
		empty := true
		tx.ForEach(func([]byte, *bolt.Bucket) error { empty = false; return nil })
		if !empty {
			return errForeign
		}
		m, err := tx.CreateBucket(metaBucket)
		if err != nil {
			return err
		}
		return m.Put(schemaKey, []byte(schema))
	})
	if err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// Path is the file the store writes.
func (s *Store) Path() string { return s.path }

// Skipped is how many series were not recorded because MaxSeries was
// reached.
func (s *Store) Skipped() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.skipped
}

// ErrClosed is what a closed store's Record and Query return.
var ErrClosed = errors.New("history closed")

// Record takes the samples of one poll, observed at at. The steps that
// closed before at are written, in one transaction (none while at is in
// the step of the previous poll).
func (s *Store) Record(at time.Time, samples []Sample) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db == nil {
		return ErrClosed
	}
	// The steps before at are closed: written first, then at's samples
	// observed (their step stays open for the next samples).
	err := s.guard(func() error { return s.write(at.Unix(), false) })
	if s.db == nil {
		return err // damaged, and no fresh file
	}
	for i := range samples {
		st := s.state(samples[i].Series)
		if st == nil {
			continue
		}
		for ti := range s.tiers {
			st.t[ti].observe(s.tiers[ti].step, at.Unix(), samples[i].V)
		}
	}
	return err
}

// state is the series' state, nil past MaxSeries.
func (s *Store) state(se Series) *sstate {
	k := se.key()
	if st, ok := s.series[k]; ok {
		return st
	}
	if len(s.series) >= s.max || se.Kind == 0 || se.Kind >= numKinds || len(k) > 1024 {
		s.skipped++
		return nil
	}
	st := &sstate{key: k, kind: se.Kind}
	for ti := range st.t {
		st.t[ti].slot = -1
	}
	s.series[k] = st
	return st
}

// observe takes a sample at unix second now.
func (t *tstate) observe(step, now int64, v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return
	}
	slot := now / step
	switch {
	case slot < t.slot:
		return // the clock went back
	case slot == t.slot:
		t.last, t.maxV, t.sum, t.n = v, max(t.maxV, v), t.sum+v, t.n+1
	default:
		t.slot, t.last, t.maxV, t.sum, t.n = slot, v, v, v, 1
	}
	t.seenSlot = slot
}

// value is the step's point as stored: a count's maximum (the coarse
// tier) or last (the fine one), a rate's mean.
func (t *tstate) value(k Kind, coarse bool) int64 {
	v := t.last
	switch {
	case k.rate():
		v = t.sum / float64(t.n)
	case coarse:
		v = t.maxV
	}
	return clampValue(int64(math.Round(v * k.scale())))
}

// due is a series' tier whose observed step is to be written.
type due struct {
	st *sstate
	ti int
}

// write closes the steps before now (all of them when final) into their
// chunks and writes the chunks that changed, in one transaction; once a
// fine period, a second one prunes.
func (s *Store) write(now int64, final bool) error {
	var work []due
	for _, st := range s.series {
		for ti, tr := range s.tiers {
			t := &st.t[ti]
			if t.slot >= 0 && (final || t.slot < now/tr.step) {
				work = append(work, due{st, ti})
			}
		}
	}
	if err := s.writeSteps(work); err != nil {
		return err
	}
	if now/s.tiers[0].period() == s.pruned {
		return nil
	}
	// Every fine period, a transaction of its own drops and compacts the
	// periods that closed: apart from the steps' rewrite, so the file
	// need not hold both copies at once.
	if err := s.db.Update(func(tx *bolt.Tx) error { return s.prune(tx, now) }); err != nil {
		return fmt.Errorf("history %s: %w", s.path, err)
	}
	s.pruned = now / s.tiers[0].period()
	s.forget(now)
	return nil
}

// writeSteps puts the steps due into their chunks and writes the chunks
// that changed, in one transaction.
func (s *Store) writeSteps(work []due) error {
	if len(work) == 0 {
		return nil
	}
	err := s.db.Update(func(tx *bolt.Tx) error {
		for _, d := range work {
			if err := s.close(tx, d.st, d.ti); err != nil {
				return err
			}
		}
		for _, st := range s.series {
			for ti := range st.t {
				if t := &st.t[ti]; t.dirty {
					if err := s.put(tx, st, ti); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("history %s: %w", s.path, err)
	}
	for _, st := range s.series {
		for ti := range st.t {
			st.t[ti].dirty = false
		}
	}
	return nil
}

// close puts the step observed into its chunk, loading the chunk the file
// holds for its period first.
func (s *Store) close(tx *bolt.Tx, st *sstate, ti int) error {
	tr, t := s.tiers[ti], &st.t[ti]
	at := t.slot * tr.step
	period := at - at%tr.period()
	if !t.loaded || t.period != period {
		t.period, t.e, t.loaded = period, enc{}, true
		if b := tx.Bucket(tr.bucket(period)); b != nil {
			if v := b.Get([]byte(st.key)); v != nil {
				if e, err := decodeChunk(v, int(tr.slots), func(int, int64) {}); err == nil {
					t.e = e
				}
			}
		}
	}
	t.e.add(int((at-period)/tr.step), t.value(st.kind, ti > 0))
	t.slot, t.n, t.dirty = -1, 0, true
	return nil
}

func (s *Store) put(tx *bolt.Tx, st *sstate, ti int) error {
	t := &st.t[ti]
	b, err := tx.CreateBucketIfNotExists(s.tiers[ti].bucket(t.period))
	if err != nil {
		return err
	}
	b.FillPercent = 0.95 // keys arrive in no order, but most are rewritten in place
	return b.Put([]byte(st.key), t.e.bytes())
}

// prune drops the periods older than their tier keeps.
func (s *Store) prune(tx *bolt.Tx, now int64) error {
	var old [][]byte
	err := tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
		if len(name) != 9 {
			return nil
		}
		for _, tr := range s.tiers {
			if name[0] == tr.id {
				end := int64(binary.BigEndian.Uint64(name[1:])) + tr.period()
				if end <= now-int64(tr.keep/time.Second) { // nothing of it in the window
					old = append(old, append([]byte(nil), name...))
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, name := range old {
		if err := tx.DeleteBucket(name); err != nil {
			return err
		}
	}
	for _, tr := range s.tiers {
		cur := now - now%tr.period()
		if err := compact(tx, tr.bucket(cur-tr.period())); err != nil {
			return err
		}
	}
	return nil
}

// compact rewrites the bucket of a period that has closed with full
// pages: its values grew a step at a time, which leaves bbolt's pages
// about half full.
func compact(tx *bolt.Tx, name []byte) error {
	b := tx.Bucket(name)
	if b == nil || b.Get(compactedKey) != nil {
		return nil
	}
	var kv [][2][]byte
	b.ForEach(func(k, v []byte) error {
		kv = append(kv, [2][]byte{append([]byte(nil), k...), append([]byte(nil), v...)})
		return nil
	})
	if err := tx.DeleteBucket(name); err != nil {
		return err
	}
	nb, err := tx.CreateBucket(name)
	if err != nil {
		return err
	}
	nb.FillPercent = 1
	for _, e := range kv {
		if err := nb.Put(e[0], e[1]); err != nil {
			return err
		}
	}
	return nb.Put(compactedKey, []byte{1})
}

// compactedKey marks a compacted bucket; no series key is empty.
var compactedKey = []byte{0}

// forget drops the state of series not observed for a coarse period
// (a group deleted, a tail's temporary group): their chunks stay in the
// file, and a series seen again continues them.
func (s *Store) forget(now int64) {
	c := s.tiers[numTiers-1]
	for k, st := range s.series {
		t := &st.t[numTiers-1]
		if t.slot < 0 && !t.dirty && (now/c.step)-t.seenSlot > c.slots {
			delete(s.series, k)
		}
	}
}

// tierFor is the finest tier that reaches back span.
func (s *Store) tierFor(span time.Duration) int {
	for ti, tr := range s.tiers {
		if span <= tr.keep {
			return ti
		}
	}
	return numTiers - 1
}

// Step is the spacing of the points Query returns for span.
func (s *Store) Step(span time.Duration) time.Duration {
	return time.Duration(s.tiers[s.tierFor(span)].step) * time.Second
}

// Query returns the points of a series over the last span, oldest first:
// from the fine tier when it reaches back so far, else the coarse one;
// the step being observed is the last point.
func (s *Store) Query(se Series, span time.Duration) ([]Point, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db == nil {
		return nil, ErrClosed
	}
	ti := s.tierFor(span)
	tr := s.tiers[ti]
	now := s.now().Unix()
	from := now - int64(span/time.Second)
	key := []byte(se.key())
	var pts []Point
	read := func(tx *bolt.Tx) error {
		for p := from - from%tr.period(); p <= now; p += tr.period() {
			b := tx.Bucket(tr.bucket(p))
			if b == nil {
				continue
			}
			v := b.Get(key)
			if v == nil {
				continue
			}
			_, err := decodeChunk(v, int(tr.slots), func(slot int, v int64) {
				if at := p + int64(slot)*tr.step; at >= from-tr.step && at <= now {
					pts = append(pts, Point{At: time.Unix(at, 0), V: float64(v) / se.Kind.scale()})
				}
			})
			if err != nil {
				return nil // a damaged chunk: its points so far
			}
		}
		return nil
	}
	err := s.guard(func() error { return s.db.View(read) })
	if err != nil {
		return nil, err // a damaged file, set aside: a fresh one has no points
	}
	if st := s.series[se.key()]; st != nil && st.t[ti].slot >= 0 {
		t := &st.t[ti]
		at := time.Unix(t.slot*tr.step, 0)
		if len(pts) == 0 || pts[len(pts)-1].At.Before(at) {
			pts = append(pts, Point{At: at, V: float64(t.value(st.kind, ti > 0)) / se.Kind.scale()})
		}
	}
	return pts, err
}

// Flush writes every step observed, also those still open.
func (s *Store) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db == nil {
		return ErrClosed
	}
	return s.guard(func() error { return s.write(s.now().Unix(), true) })
}

// Close writes what was observed and closes the file.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db == nil {
		return nil
	}
	err := s.guard(func() error { return s.write(s.now().Unix(), true) })
	if s.db == nil {
		return err // damaged, and no fresh file
	}
	if cerr := s.db.Close(); err == nil {
		err = cerr
	}
	s.db = nil
	return err
}

// guard runs fn, one or two transactions, under s.mu. bbolt panics on a
// page it cannot read (a file damaged on the disk, or cut short, whose
// meta pages are sound: Open took it); that panic is the file's damage,
// not the program's, so the file is set aside as Open sets aside a file
// that is not a history, and a fresh one started (damaged). bbolt rolls
// the transaction back before the panic reaches here.
func (s *Store) guard(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = s.damaged(fmt.Errorf("%w: %v", errPanic, r))
		}
	}()
	return fn()
}

// damaged closes the damaged file, sets it aside and opens a fresh one in
// its place (s.db nil when that fails), and says so. The steps observed
// and not written are lost with the file's chunks they continued.
func (s *Store) damaged(why error) error {
	_ = s.db.Close()
	s.db, s.series, s.pruned = nil, map[string]*sstate{}, -1
	aside := s.path + ".corrupt-" + s.now().UTC().Format("20060102T150405Z")
	if err := os.Rename(s.path, aside); err != nil {
		return fmt.Errorf("history %s is damaged (%v) and cannot be set aside: %w; no history from now on", s.path, why, err)
	}
	db, err := openChecked(s.path, s.opts)
	if err != nil {
		return fmt.Errorf("history %s was damaged (%v): set aside as %s; no fresh one: %w", s.path, why, filepath.Base(aside), err)
	}
	s.db = db
	return fmt.Errorf("history %s was damaged (%v): set aside as %s, a fresh one started", s.path, why, filepath.Base(aside))
}

// Size is the file's size in bytes.
func (s *Store) Size() (int64, error) {
	fi, err := os.Stat(s.path)
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}
