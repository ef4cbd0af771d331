package tail

import (
	"slices"
	"time"
	"unicode/utf8"

	"ilinkdash/ui/sanitize"
)

// tailEntry is one record as the tail keeps it: the record's own byte
// slices (never copied: stored once), the metadata in place, and the
// display previews computed lazily the first time the row is drawn.
type tailEntry struct {
	topic string // interned
	ts    int64  // Unix nanoseconds; 0 = unknown
	off   int64
	part  int32
	drawn bool
	k, v  []byte // nil = null
	hdrs  []Header

	keyS, valS string // sanitized previews ("" until drawn)
}

func (e *tailEntry) key() []byte       { return e.k }
func (e *tailEntry) value() []byte     { return e.v }
func (e *tailEntry) headers() []Header { return e.hdrs }

func (e *tailEntry) time() time.Time {
	if e.ts == 0 {
		return time.Time{}
	}
	return time.Unix(0, e.ts)
}

// record rebuilds the Record (slices shared with the entry).
func (e *tailEntry) record() Record {
	return Record{
		Topic: e.topic, Partition: e.part, Offset: e.off, Timestamp: e.time(),
		Key: e.k, Value: e.v, Headers: e.hdrs,
	}
}

// previewBytes bounds how much of a key or value is sanitized for a row:
// enough for the widest column, far less than a large value.
const previewBytes = 512

// preview sanitizes the start of b for a table cell.
func preview(b []byte) string {
	if b == nil {
		return "∅"
	}
	if len(b) <= previewBytes {
		return sanitize.Bytes(b)
	}
	cut := previewBytes
	for i := 0; i < utf8.UTFMax && cut > 0 && !utf8.RuneStart(b[cut]); i++ {
		cut--
	}
	return sanitize.Bytes(b[:cut]) + "…"
}

// ensurePreview fills the display previews on first draw.
func (e *tailEntry) ensurePreview() {
	if !e.drawn {
		e.keyS, e.valS, e.drawn = preview(e.key()), preview(e.value()), true
	}
}

// tailRing is a fixed-capacity ring of entries identified by a sequence
// number that grows forever: the entries held are seqs [first, next).
type tailRing struct {
	buf  []tailEntry
	head int // index of the oldest entry once full
	n    int
	cap  int
	next uint64
}

func newTailRing(capacity int) tailRing { return tailRing{cap: max(capacity, 1)} }

func (r *tailRing) first() uint64 { return r.next - uint64(r.n) }

// at returns the entry of seq (which must be held).
func (r *tailRing) at(seq uint64) *tailEntry {
	i := int(seq - r.first())
	return &r.buf[(r.head+i)%len(r.buf)]
}

// push appends e and reports whether the oldest entry was dropped.
func (r *tailRing) push(e tailEntry) bool {
	r.next++
	if len(r.buf) < r.cap {
		r.buf = append(r.buf, e)
		r.n++
		return false
	}
	r.buf[r.head] = e // the old entry's bytes become garbage
	r.head = (r.head + 1) % len(r.buf)
	return true
}

// clear empties the ring (and frees its memory); seqs keep growing.
func (r *tailRing) clear() {
	r.buf, r.head, r.n = nil, 0, 0
}

// seqList is an ascending list of seqs with cheap removal at the front
// (the filter's matches).
type seqList struct {
	s     []uint64
	start int
}

func (l *seqList) len() int        { return len(l.s) - l.start }
func (l *seqList) at(i int) uint64 { return l.s[l.start+i] }
func (l *seqList) add(seq uint64)  { l.s = append(l.s, seq) }
func (l *seqList) reset()          { l.s, l.start = l.s[:0], 0 }
func (l *seqList) items() []uint64 { return l.s[l.start:] }
func (l *seqList) search(seq uint64) int {
	i, _ := slices.BinarySearch(l.items(), seq)
	return i
}

// dropBefore removes the seqs below first.
func (l *seqList) dropBefore(first uint64) {
	for l.start < len(l.s) && l.s[l.start] < first {
		l.start++
	}
	if l.start > 1024 && l.start > len(l.s)/2 {
		n := copy(l.s, l.s[l.start:])
		l.s, l.start = l.s[:n], 0
	}
}

// interner shares the strings that repeat from record to record (topic
// names, header names), within a bound.
type interner map[string]string

const maxInterned = 4096

func (in interner) get(s string) string {
	if v, ok := in[s]; ok {
		return v
	}
	if len(in) < maxInterned {
		in[s] = s
	}
	return s
}

// newEntry takes r into an entry (its slices are kept, not copied).
func newEntry(r *Record, in interner) tailEntry {
	e := tailEntry{topic: in.get(r.Topic), off: r.Offset, part: r.Partition, k: r.Key, v: r.Value, hdrs: r.Headers}
	if !r.Timestamp.IsZero() {
		e.ts = r.Timestamp.UnixNano()
	}
	return e
}
