package tail

import (
	"time"
	"unicode/utf8"

	"ilinkdash/ui/components"
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
	drawn uint8  // previewRaw or previewDecoded once drawn; 0 before
	k, v  []byte // nil = null
	hdrs  []Header
	// The decoded key and value (their JSON documents, or why they did
	// not decode: tail_decode.go), set on the way in when a rule matches.
	kd, vd     []byte
	kerr, verr string

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
		KeyDecoded: e.kd, ValueDecoded: e.vd, KeyError: e.kerr, ValueError: e.verr,
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

// How a row previews its key and value: the bytes, or (the decoded
// format) as their schema decoded them.
const (
	previewRaw uint8 = iota + 1
	previewDecoded
)

// ensurePreview fills the display previews on first draw in a mode
// (again when the mode changed since). keyHex: the topic's decode rule
// shows keys as hex (key: hex), for a key its schema did not decode.
func (e *tailEntry) ensurePreview(mode uint8, keyHex func(topic string) bool) {
	if e.drawn == mode {
		return
	}
	e.drawn = mode
	if mode == previewDecoded {
		e.keyS, e.valS = decodedPreview(e.k, e.kd, e.kerr), decodedPreview(e.v, e.vd, e.verr)
	} else {
		e.keyS, e.valS = preview(e.k), preview(e.v)
	}
	if e.k != nil && e.kd == nil && e.kerr == "" && keyHex(e.topic) {
		e.keyS = components.HexPreview(e.k)
	}
}

// decodedPreview is a decoded side's document; one that did not decode
// shows the codec's error then its first bytes in hex.
func decodedPreview(raw, doc []byte, why string) string {
	switch {
	case doc != nil:
		return preview(doc)
	case why != "":
		return components.Failed(why, raw)
	}
	return preview(raw)
}

// entryOverhead is what an entry costs beyond its keys, values and
// headers: the struct, its slice headers and the row previews once drawn.
const entryOverhead = 512

// size is what the entry counts against the ring's byte bound.
func (e *tailEntry) size() int64 {
	return sizeOf(e.k, e.v, e.hdrs) + decodedSize(e.kd, e.vd, e.kerr, e.verr)
}

// RecordSize is what a record counts against the view's byte bound once
// buffered (a Stream's Fill.Bytes is in these units), its decoded forms
// included once it carries them.
func RecordSize(r *Record) int64 {
	return sizeOf(r.Key, r.Value, r.Headers) + decodedSize(r.KeyDecoded, r.ValueDecoded, r.KeyError, r.ValueError)
}

// decodedSize is what the decoded forms of a record add to its size.
func decodedSize(kd, vd []byte, kerr, verr string) int64 {
	return int64(len(kd) + len(vd) + len(kerr) + len(verr))
}

func sizeOf(k, v []byte, hdrs []Header) int64 {
	n := entryOverhead + len(k) + len(v)
	for _, h := range hdrs {
		n += len(h.Key) + len(h.Value) + 32
	}
	return int64(n)
}

// tailRing is a ring of entries bounded in count (cap) and in bytes
// (maxBytes, by tailEntry.size), identified by a sequence number that
// grows forever: the entries held are seqs [first, next). Whichever bound
// a push would cross drops the oldest entries; the newest is always kept,
// even alone over maxBytes.
type tailRing struct {
	buf      []tailEntry
	head     int // index of the oldest entry
	n        int
	cap      int
	bytes    int64 // Σ size of the entries held
	maxBytes int64
	next     uint64
}

func newTailRing(capacity int, maxBytes int64) tailRing {
	return tailRing{cap: max(capacity, 1), maxBytes: max(maxBytes, 1)}
}

func (r *tailRing) first() uint64 { return r.next - uint64(r.n) }

// at returns the entry of seq (which must be held).
func (r *tailRing) at(seq uint64) *tailEntry {
	i := int(seq - r.first())
	return &r.buf[(r.head+i)%len(r.buf)]
}

// push appends e and returns how many of the oldest entries it dropped.
func (r *tailRing) push(e tailEntry) (dropped int) {
	size := e.size()
	for r.n > 0 && (r.n >= r.cap || r.bytes+size > r.maxBytes) {
		r.dropOldest()
		dropped++
	}
	r.next++
	r.bytes += size
	if r.n < len(r.buf) {
		r.buf[(r.head+r.n)%len(r.buf)] = e
		r.n++
		return dropped
	}
	if r.head != 0 { // grow in order: the slots before head hold newer entries
		nb := make([]tailEntry, r.n, min(max(2*r.n, 16), r.cap))
		k := copy(nb, r.buf[r.head:])
		copy(nb[k:], r.buf[:r.head])
		r.buf, r.head = nb, 0
	}
	r.buf = append(r.buf, e)
	r.n++
	return dropped
}

// dropOldest removes the oldest entry (its bytes become garbage).
func (r *tailRing) dropOldest() {
	e := &r.buf[r.head]
	r.bytes -= e.size()
	*e = tailEntry{}
	r.head = (r.head + 1) % len(r.buf)
	r.n--
}

// clear empties the ring (and frees its memory); seqs keep growing.
func (r *tailRing) clear() {
	r.buf, r.head, r.n, r.bytes = nil, 0, 0, 0
}

// seqList is an ascending list of seqs with cheap removal at the front
// (the filter's matches).
type seqList struct {
	s     []uint64
	start int
}

func (l *seqList) len() int        { return len(l.s) - l.start }
func (l *seqList) add(seq uint64)  { l.s = append(l.s, seq) }
func (l *seqList) reset()          { l.s, l.start = l.s[:0], 0 }
func (l *seqList) items() []uint64 { return l.s[l.start:] }

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
	e := tailEntry{topic: in.get(r.Topic), off: r.Offset, part: r.Partition, k: r.Key, v: r.Value, hdrs: r.Headers,
		kd: r.KeyDecoded, vd: r.ValueDecoded, kerr: r.KeyError, verr: r.ValueError}
	if !r.Timestamp.IsZero() {
		e.ts = r.Timestamp.UnixNano()
	}
	return e
}
