package wire

import (
	"bytes"
	"reflect"
	"testing"
)

// batchSectionRecords splits an uncompressed records section into each
// record's bytes after its length prefix.
func batchSectionRecords(t testing.TB, sec []byte) [][]byte {
	t.Helper()
	var out [][]byte
	for p := 0; p < len(sec); {
		l, n := varintRead32(sec[p:])
		if n <= 0 || l < 0 || int(l) > len(sec)-p-n {
			t.Fatalf("bad record length at %d", p)
		}
		p += n
		out = append(out, sec[p:p+int(l):p+int(l)])
		p += int(l)
	}
	return out
}

// The one-pass path takes the records consumers mostly see (short
// varints, no headers) and leaves every other kind to the careful path;
// both decode a record to the same Record.
func TestBatchRecordFastPath(t *testing.T) {
	value100 := bytes.Repeat([]byte("v"), 100)
	cases := []struct {
		name string
		rec  batchTestRecord
		fast bool
	}{
		{"null key, 100-byte value", batchTestRecord{ts: 1000, value: value100}, true},
		{"key and value", batchTestRecord{ts: 1001, key: []byte("k"), value: []byte("v")}, true},
		{"empty key, null value", batchTestRecord{ts: 1002, key: []byte{}}, true},
		{"timestamp 8 s after the base", batchTestRecord{ts: 1000 + 8000, value: value100}, true},
		{"timestamp 9 s after the base (3-byte varint)", batchTestRecord{ts: 1000 + 9000, value: value100}, false},
		{"value of 8 KiB (3-byte length)", batchTestRecord{ts: 1000, value: bytes.Repeat([]byte("v"), 8<<10)}, false},
		{"a header", batchTestRecord{ts: 1000, value: value100, headers: []RecordHeader{{Key: "h", Value: []byte{0}}}}, false},
	}
	for _, c := range cases {
		b := batchBuild(t, CodecNone, []batchTestRecord{{ts: 1000, value: []byte("first")}, c.rec})
		SetBatchBaseOffset(b, 500)
		h, err := ParseBatchHeader(b)
		if err != nil {
			t.Fatal(err)
		}
		r := batchSectionRecords(t, b[BatchHeaderSize:])[1]
		var fast, careful Record
		got := batchDecodeRecordFast(&h, r, 1, &fast)
		var slab []RecordHeader
		if err := batchDecodeRecord(&h, r, 1, 2, &slab, &careful); err != nil {
			t.Fatalf("%s: careful path: %v", c.name, err)
		}
		if got != c.fast {
			t.Fatalf("%s: fast path took it: %v, want %v", c.name, got, c.fast)
		}
		if got && !reflect.DeepEqual(fast, careful) {
			t.Fatalf("%s: fast path %+v, careful path %+v", c.name, fast, careful)
		}
		if careful.Offset != 501 || careful.Timestamp != c.rec.ts {
			t.Fatalf("%s: offset %d timestamp %d", c.name, careful.Offset, careful.Timestamp)
		}
		// Through Next, whichever path it takes.
		recs, err := DecodeBatch(b, 0, nil)
		if err != nil || len(recs) != 2 || !reflect.DeepEqual(recs[1], careful) {
			t.Fatalf("%s: DecodeBatch %+v, %v", c.name, recs, err)
		}
	}
}

// The fast path refuses what the careful path refuses (it never accepts
// a record the careful path would not, nor decodes one differently).
func TestBatchRecordFastPathRefusesBadRecords(t *testing.T) {
	h := BatchHeader{BaseOffset: 10, BaseTimestamp: 1000, RecordCount: 3}
	good := batchRawRecord(0, 1, nil, []byte("value"))
	body := func(raw []byte) []byte {
		_, n := varintRead32(raw)
		return raw[n:]
	}
	cases := map[string][]byte{
		"offsetDelta 2 for record 1": body(batchRawRecord(0, 2, nil, []byte("value"))),
		"key length -2":              append([]byte{0, 0, 2, 3}, body(good)[4:]...),
		"value longer than the record": func() []byte {
			r := append([]byte(nil), body(good)...)
			r[4] = 40 // zigzag 20: 20 bytes of value, 5 there
			return r
		}(),
		"a byte after the header count": append(append([]byte(nil), body(good)...), 0),
		"header count 1 without header": func() []byte {
			r := append([]byte(nil), body(good)...)
			r[len(r)-1] = 2
			return r
		}(),
		"empty":       {},
		"one byte":    {0},
		"truncated":   body(good)[:4],
		"varint runs": {0, 0x80, 0x80, 0x80, 0},
	}
	for name, r := range cases {
		var rec Record
		if batchDecodeRecordFast(&h, r, 1, &rec) {
			t.Fatalf("%s: the fast path took % x", name, r)
		}
		if !reflect.DeepEqual(rec, Record{}) {
			t.Fatalf("%s: the fast path wrote %+v", name, rec)
		}
		if len(r) < batchMinRecordBody {
			continue // Next refuses the length before decoding
		}
		var slab []RecordHeader
		if err := batchDecodeRecord(&h, r, 1, 3, &slab, &rec); err == nil {
			t.Fatalf("%s: the careful path took % x", name, r)
		}
	}
	var rec Record
	if !batchDecodeRecordFast(&h, body(good), 1, &rec) || rec.Offset != 11 || string(rec.Value) != "value" || rec.Key != nil {
		t.Fatalf("the good record: %+v", rec)
	}
}

// FuzzBatchRecordFast: whatever record bytes the fast path takes, the
// careful path takes too and decodes to the same Record.
func FuzzBatchRecordFast(f *testing.F) {
	f.Add(batchRawRecord(3, 1, nil, []byte("value"))[1:], 1)
	f.Add(batchRawRecord(-70, 0, []byte("key"), nil)[1:], 0)
	f.Add([]byte{0, 0, 2, 1, 0, 0}, 1)
	f.Fuzz(func(t *testing.T, r []byte, i int) {
		h := BatchHeader{BaseOffset: 100, BaseTimestamp: 5000, RecordCount: 1 << 20}
		var fast, careful Record
		if !batchDecodeRecordFast(&h, r, i, &fast) {
			return
		}
		var slab []RecordHeader
		if err := batchDecodeRecord(&h, r, i, int(h.RecordCount), &slab, &careful); err != nil {
			t.Fatalf("fast path took % x, careful path: %v", r, err)
		}
		if !reflect.DeepEqual(fast, careful) {
			t.Fatalf("% x: fast %+v, careful %+v", r, fast, careful)
		}
	})
}
