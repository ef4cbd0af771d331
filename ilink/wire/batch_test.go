package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

var batchTestCodecs = []Codec{CodecNone, CodecLZ4, CodecZstd}

// batchTestRecord is what a test appends; want is what decoding must give.
type batchTestRecord struct {
	ts      int64
	key     []byte
	value   []byte
	headers []RecordHeader
}

func batchTestRecords(n int, seed uint64) []batchTestRecord {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([]batchTestRecord, 0, n+8)
	// Hand-picked edge cases first.
	out = append(out,
		batchTestRecord{ts: 1_700_000_000_000, key: nil, value: []byte("nil key")},
		batchTestRecord{ts: 1_700_000_000_001, key: []byte{}, value: []byte("empty key")},
		batchTestRecord{ts: 1_700_000_000_002, key: []byte("k"), value: nil},
		batchTestRecord{ts: 1_700_000_000_003, key: []byte("k"), value: []byte{}},
		batchTestRecord{ts: 1_699_999_999_000, key: []byte("older ts"), value: []byte("negative delta")},
		batchTestRecord{ts: 1_700_000_000_004, key: []byte("hdrs"), value: []byte("v"), headers: []RecordHeader{
			{Key: "trace-id", Value: []byte("abc123")},
			{Key: "nil-value", Value: nil},
			{Key: "empty-value", Value: []byte{}},
			{Key: "", Value: []byte("empty key")},
		}},
		batchTestRecord{ts: math.MaxInt64, key: []byte("max ts"), value: []byte("x")},
		batchTestRecord{ts: math.MinInt64, key: []byte("min ts"), value: []byte("y")},
	)
	for i := len(out); i < n; i++ {
		r := batchTestRecord{ts: 1_700_000_000_000 + int64(i)}
		if i%3 != 0 {
			r.key = []byte(fmt.Sprintf("key-%d", i%17))
		}
		r.value = make([]byte, rng.IntN(300))
		for j := range r.value {
			r.value[j] = byte('a' + rng.IntN(8))
		}
		if i%5 == 0 {
			r.headers = []RecordHeader{{Key: "h", Value: []byte(fmt.Sprint(i))}}
		}
		out = append(out, r)
	}
	return out[:n]
}

// appendAll appends recs to bb, in order, and returns bb.
func appendAll(bb *BatchBuilder, recs []batchTestRecord) *BatchBuilder {
	for _, r := range recs {
		bb.Append(r.ts, r.key, r.value, r.headers)
	}
	return bb
}

func batchBuild(t testing.TB, codec Codec, recs []batchTestRecord) []byte {
	t.Helper()
	bb := appendAll(NewBatchBuilder(42, 7, 1000), recs)
	out, err := bb.Finish(codec)
	if err != nil {
		t.Fatalf("Finish(%v): %v", codec, err)
	}
	return out
}

func batchCheckRecords(t *testing.T, got []Record, want []batchTestRecord, baseOffset int64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("decoded %d records, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Offset != baseOffset+int64(i) {
			t.Fatalf("record %d: offset %d, want %d", i, g.Offset, baseOffset+int64(i))
		}
		if g.Timestamp != w.ts {
			t.Fatalf("record %d: timestamp %d, want %d", i, g.Timestamp, w.ts)
		}
		if (g.Key == nil) != (w.key == nil) || !bytes.Equal(g.Key, w.key) {
			t.Fatalf("record %d: key %q (nil %v), want %q (nil %v)", i, g.Key, g.Key == nil, w.key, w.key == nil)
		}
		if (g.Value == nil) != (w.value == nil) || !bytes.Equal(g.Value, w.value) {
			t.Fatalf("record %d: value %q (nil %v), want %q (nil %v)", i, g.Value, g.Value == nil, w.value, w.value == nil)
		}
		if len(g.Headers) != len(w.headers) {
			t.Fatalf("record %d: %d headers, want %d", i, len(g.Headers), len(w.headers))
		}
		for j, wh := range w.headers {
			gh := g.Headers[j]
			if gh.Key != wh.Key || (gh.Value == nil) != (wh.Value == nil) || !bytes.Equal(gh.Value, wh.Value) {
				t.Fatalf("record %d header %d: %q=%q, want %q=%q", i, j, gh.Key, gh.Value, wh.Key, wh.Value)
			}
		}
		if cap(g.Key) != len(g.Key) || cap(g.Value) != len(g.Value) {
			t.Fatalf("record %d: key/value cap exceeds len; appends would clobber neighbours", i)
		}
	}
}

func TestCodecParseAndString(t *testing.T) {
	for _, c := range batchTestCodecs {
		got, err := ParseCodec(c.String())
		if err != nil || got != c {
			t.Fatalf("ParseCodec(%q) = %v, %v", c.String(), got, err)
		}
	}
	if CodecNone != 0 || CodecLZ4 != 3 || CodecZstd != 4 {
		t.Fatalf("codec values changed: none=%d lz4=%d zstd=%d", CodecNone, CodecLZ4, CodecZstd)
	}
	for _, bad := range []string{"", "LZ4", "gzip", "snappy", "zstd "} {
		_, err := ParseCodec(bad)
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", bad)) {
			t.Fatalf("ParseCodec(%q) error %v does not name the value", bad, err)
		}
	}
	if s := Codec(5).String(); s != "codec(5)" {
		t.Fatalf("Codec(5).String() = %q", s)
	}
}

func TestBatchRoundTrip(t *testing.T) {
	recs := batchTestRecords(2000, 1)
	var plain []Record
	for _, codec := range batchTestCodecs {
		t.Run(codec.String(), func(t *testing.T) {
			b := batchBuild(t, codec, recs)
			h, err := ParseBatchHeader(b)
			if err != nil {
				t.Fatal(err)
			}
			want := BatchHeader{
				BaseOffset: 0, Length: int32(len(b) - 12), LeaderEpoch: -1, Magic: 1,
				CRC: h.CRC, Attributes: int16(codec), LastOffsetDelta: int32(len(recs) - 1),
				BaseTimestamp: recs[0].ts, MaxTimestamp: math.MaxInt64,
				ProducerID: 42, ProducerEpoch: 7, BaseSequence: 1000, RecordCount: int32(len(recs)),
			}
			if h != want {
				t.Fatalf("header\n got %+v\nwant %+v", h, want)
			}
			if h.Codec() != codec {
				t.Fatalf("Codec() = %v, want %v", h.Codec(), codec)
			}
			if codec != CodecNone {
				// The data is compressible: the codec must really be used.
				if bn := batchBuild(t, CodecNone, recs); len(b) >= len(bn) {
					t.Fatalf("%v batch of %d bytes vs %d uncompressed", codec, len(b), len(bn))
				}
			}
			SetBatchBaseOffset(b, 5000)
			got, err := DecodeBatch(b, 0, nil)
			if err != nil {
				t.Fatal(err)
			}
			batchCheckRecords(t, got, recs, 5000)
			if codec == CodecNone {
				plain = got
				return
			}
			// spec: P-41 — a compressed batch reads back the same keys,
			// values and properties (headers) as the uncompressed one.
			if plain == nil {
				t.Fatal("uncompressed subtest did not run first")
			}
			if !reflect.DeepEqual(got, plain) {
				t.Fatalf("%v records differ from uncompressed ones", codec)
			}
		})
	}
}

func TestBatchLargeValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	random := make([]byte, 3<<20) // incompressible
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	zeros := make([]byte, 5<<20) // very compressible
	recs := []batchTestRecord{
		{ts: 1, key: []byte("random"), value: random},
		{ts: 2, key: []byte("zeros"), value: zeros},
		{ts: 3, key: nil, value: []byte("small")},
	}
	for _, codec := range batchTestCodecs {
		t.Run(codec.String(), func(t *testing.T) {
			b := batchBuild(t, codec, recs)
			if _, err := DecodeBatch(b, 4<<20, nil); !errors.Is(err, ErrBatchTooLarge) {
				t.Fatalf("8 MiB of records under a 4 MiB limit: err %v, want ErrBatchTooLarge", err)
			}
			got, err := DecodeBatch(b, 16<<20, nil)
			if err != nil {
				t.Fatal(err)
			}
			batchCheckRecords(t, got, recs, 0)
		})
	}
}

func TestBatchEmpty(t *testing.T) {
	for _, codec := range batchTestCodecs {
		b := batchBuild(t, codec, nil)
		h, err := ParseBatchHeader(b)
		if err != nil {
			t.Fatalf("%v: %v", codec, err)
		}
		if h.RecordCount != 0 || h.LastOffsetDelta != -1 {
			t.Fatalf("%v: count %d lastOffsetDelta %d", codec, h.RecordCount, h.LastOffsetDelta)
		}
		got, err := DecodeBatch(b, 0, nil)
		if err != nil || len(got) != 0 {
			t.Fatalf("%v: %d records, %v", codec, len(got), err)
		}
	}
}

func TestBatchAppendToMatchesFinish(t *testing.T) {
	recs := batchTestRecords(100, 2)
	for _, codec := range batchTestCodecs {
		bb := appendAll(NewBatchBuilder(-1, -1, -1), recs)
		f, err := bb.Finish(codec)
		if err != nil {
			t.Fatal(err)
		}
		prefix := []byte("request body prefix")
		a, err := bb.AppendTo(append([]byte(nil), prefix...), codec)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(a, prefix) || !bytes.Equal(a[len(prefix):], f) {
			t.Fatalf("%v: AppendTo differs from Finish", codec)
		}
		if cap(f) != len(f) {
			t.Fatalf("%v: Finish returned cap %d for len %d", codec, cap(f), len(f))
		}
		// Reset keeps buffers but the old batch is untouched.
		keep := append([]byte(nil), f...)
		bb.Reset(1, 2, 3)
		if bb.Count() != 0 || bb.EncodedSize() != BatchHeaderSize {
			t.Fatalf("after Reset: count %d size %d", bb.Count(), bb.EncodedSize())
		}
		bb.Append(5, []byte("x"), []byte("y"), nil)
		if _, err := bb.Finish(codec); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(keep, f) {
			t.Fatalf("%v: a finished batch changed after Reset and reuse", codec)
		}
	}
	if _, err := NewBatchBuilder(0, 0, 0).Finish(Codec(2)); err == nil {
		t.Fatal("Finish with an invalid codec succeeded")
	}
}

// TestBatchTakeUncompressed: a batch finished where it was built has the
// bytes Finish gives (the producer fields set before, the CRC computed
// once, as SetBatchProducer would stamp them after); the builder then goes
// on with the spare memory and refuses everything until Reset.
func TestBatchTakeUncompressed(t *testing.T) {
	recs := batchTestRecords(100, 2)
	for _, n := range []int{0, 1, len(recs)} {
		bb := appendAll(NewBatchBuilder(-1, -1, -1), recs[:n])
		want, err := bb.Finish(CodecNone)
		if err != nil {
			t.Fatal(err)
		}
		SetBatchProducer(want, 42, 3, 17)
		bb.SetProducer(42, 3, 17)
		spare := make([]byte, 0, 4096)
		got, err := bb.TakeUncompressed(spare)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%d records: TakeUncompressed differs from Finish plus SetBatchProducer (err %v)", n, err)
		}
		if err := VerifyBatchCRC(got); err != nil {
			t.Fatal(err)
		}
		bb.Append(1, nil, []byte("late"), nil)
		if _, err := bb.TakeUncompressed(nil); !errors.Is(err, errBatchTaken) {
			t.Fatalf("a second take: %v", err)
		}
		if _, err := bb.Finish(CodecNone); !errors.Is(err, errBatchTaken) {
			t.Fatalf("Finish after a take: %v", err)
		}
		keep := append([]byte(nil), got...)
		bb.Reset(-1, -1, -1)
		bb.Append(1, nil, []byte("next"), nil)
		if cap(bb.buf) != cap(spare) || &bb.buf[:1][0] != &spare[:1][0] {
			t.Fatalf("the builder does not go on with the spare memory")
		}
		next, err := bb.TakeUncompressed(nil)
		if err != nil || !bytes.Equal(got, keep) {
			t.Fatalf("a taken batch changed when the builder went on (err %v)", err)
		}
		if d, err := DecodeBatch(next, 0, nil); err != nil || len(d) != 1 || string(d[0].Value) != "next" {
			t.Fatalf("the next batch: %v %v", d, err)
		}
	}
}

// TestBatchBuilderGive: a taken batch handed back (the producer's recycle,
// once the batch is acknowledged) is the memory the next batch is encoded
// into (growing would have moved it), and that batch is whole.
func TestBatchBuilderGive(t *testing.T) {
	recs := batchTestRecords(50, 2)
	bb := appendAll(NewBatchBuilder(-1, -1, -1), recs)
	taken, err := bb.TakeUncompressed(nil)
	if err != nil {
		t.Fatal(err)
	}
	if bb.Cap() != 0 {
		t.Fatalf("a builder taken with no spare holds %d bytes", bb.Cap())
	}
	bb.Give(taken)
	if bb.Cap() != cap(taken) {
		t.Fatalf("given %d bytes, the builder holds %d", cap(taken), bb.Cap())
	}
	bb.Reset(-1, -1, -1)
	appendAll(bb, recs[:10])
	next, err := bb.TakeUncompressed(nil)
	if err != nil || &next[0] != &taken[0] || cap(next) != cap(taken) {
		t.Fatalf("the next batch (err %v) is not encoded in the given memory (a growth would have moved it)", err)
	}
	if d, err := DecodeBatch(next, 0, nil); err != nil || len(d) != 10 || !bytes.Equal(d[9].Value, recs[9].value) {
		t.Fatalf("the next batch decodes to %d records: %v", len(d), err)
	}
}

func TestBatchRecordSize(t *testing.T) {
	recs := batchTestRecords(500, 3)
	bb := NewBatchBuilder(-1, -1, -1)
	for i, r := range recs {
		before := bb.EncodedSize()
		want := bb.RecordSize(r.ts, r.key, r.value, r.headers)
		bb.Append(r.ts, r.key, r.value, r.headers)
		if got := bb.EncodedSize() - before; got != want {
			t.Fatalf("record %d: RecordSize %d, Append added %d", i, want, got)
		}
	}
	// With small deltas the static estimate is an upper bound within 4 bytes.
	bb.Reset(-1, -1, -1)
	for i := 0; i < 100; i++ {
		v := bytes.Repeat([]byte("v"), 100)
		est := RecordSizeEstimate(nil, v, nil)
		exact := bb.RecordSize(int64(1000+i), nil, v, nil)
		if est < exact || est > exact+4 {
			t.Fatalf("record %d: estimate %d, exact %d", i, est, exact)
		}
		bb.Append(int64(1000+i), nil, v, nil)
	}
	// A 100-byte value with no key at offsetDelta 100: length 2 (body 108),
	// attributes 1, timestampDelta 1, offsetDelta 2, keyLen 1, valueLen 2,
	// value 100, headerCount 1.
	if got := bb.RecordSize(1000, nil, make([]byte, 100), nil); got != 2+1+1+2+1+2+100+1 {
		t.Fatalf("100-byte record at offsetDelta 100: %d bytes, want 110", got)
	}
}

func TestBatchStampKeepsCRC(t *testing.T) {
	for _, codec := range batchTestCodecs {
		b := batchBuild(t, codec, batchTestRecords(50, 4))
		crc := binary.BigEndian.Uint32(b[17:])
		SetBatchBaseOffset(b, 123456789)
		SetBatchLeaderEpoch(b, 77)
		if err := VerifyBatchCRC(b); err != nil {
			t.Fatalf("%v: stamped batch: %v", codec, err)
		}
		if got := binary.BigEndian.Uint32(b[17:]); got != crc {
			t.Fatalf("%v: stamping changed the crc", codec)
		}
		h, err := ParseBatchHeader(b)
		if err != nil {
			t.Fatal(err)
		}
		if h.BaseOffset != 123456789 || h.LeaderEpoch != 77 || h.LastOffset() != 123456789+49 {
			t.Fatalf("%v: stamped header %+v", codec, h)
		}
		recs, err := DecodeBatch(b, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		if recs[0].Offset != 123456789 || recs[49].Offset != 123456789+49 {
			t.Fatalf("%v: offsets %d..%d", codec, recs[0].Offset, recs[49].Offset)
		}
	}
	// Short buffers are left alone rather than panicking.
	SetBatchBaseOffset(make([]byte, 7), 1)
	SetBatchLeaderEpoch(make([]byte, 15), 1)
}

func TestBatchCorruptionDetected(t *testing.T) {
	for _, codec := range batchTestCodecs {
		orig := batchBuild(t, codec, batchTestRecords(20, 5))
		b := make([]byte, len(orig))
		for i := range orig {
			copy(b, orig)
			b[i] ^= 0x10
			err := VerifyBatchCRC(b)
			_, derr := DecodeBatch(b, 0, nil)
			switch {
			case i < batchOffLength || i >= batchOffLeaderEpoch && i < batchOffMagic:
				// baseOffset and leaderEpoch are not covered: stamping.
				if err != nil || derr != nil {
					t.Fatalf("%v: flipping uncovered byte %d: %v / %v", codec, i, err, derr)
				}
			case i < batchOffCRC:
				// batchLength or magic: refused structurally.
				if err == nil || derr == nil {
					t.Fatalf("%v: flipped length/magic byte %d not detected", codec, i)
				}
			default:
				// The CRC itself or a covered byte: always detected; in
				// the records region by the CRC (header fields may fail
				// validation first).
				if err == nil || derr == nil {
					t.Fatalf("%v: flipped byte %d not detected", codec, i)
				}
				if i >= BatchHeaderSize && !errors.Is(err, ErrBatchCRC) {
					t.Fatalf("%v: flipped record byte %d: %v, want ErrBatchCRC", codec, i, err)
				}
			}
		}
		copy(b, orig)
		b[len(b)-1] ^= 1
		err := VerifyBatchCRC(b)
		want := fmt.Sprintf("header 0x%08x computed 0x%08x", binary.BigEndian.Uint32(b[17:]), batchComputeCRC(b))
		if err == nil || !strings.Contains(err.Error(), "crc mismatch: "+want) {
			t.Fatalf("%v: crc error %q does not say %q", codec, err, want)
		}
	}
}

// batchWithSection builds a batch around an arbitrary records section, with
// a correct CRC, for tests that need malformed contents.
func batchWithSection(codec Codec, count int32, sec []byte) []byte {
	bb := NewBatchBuilder(-1, -1, -1)
	bb.count = count
	out := make([]byte, BatchHeaderSize+len(sec))
	copy(out[BatchHeaderSize:], sec)
	out, _ = bb.finishHeader(out, codec)
	return out
}

// batchFixCRC recomputes the CRC after a test edited covered bytes.
func batchFixCRC(b []byte) {
	binary.BigEndian.PutUint32(b[batchOffCRC:], batchComputeCRC(b))
}

func TestBatchBadCodecAndAttributes(t *testing.T) {
	good := batchBuild(t, CodecNone, batchTestRecords(3, 6))
	for _, attr := range []uint16{1, 2, 5, 6, 7, 0x08, 0x10, 0x8000, 0x0103} {
		b := append([]byte(nil), good...)
		binary.BigEndian.PutUint16(b[batchOffAttributes:], attr)
		batchFixCRC(b)
		_, perr := ParseBatchHeader(b)
		_, derr := DecodeBatch(b, 0, nil)
		if perr == nil || derr == nil || !errors.Is(perr, ErrBatchCorrupt) {
			t.Fatalf("attributes 0x%04x accepted: %v / %v", attr, perr, derr)
		}
		if attr&7 != 0 && attr&7 != 3 && attr&7 != 4 && !strings.Contains(perr.Error(), "invalid codec") {
			t.Fatalf("attributes 0x%04x: error %q does not mention the codec", attr, perr)
		}
	}
	b := append([]byte(nil), good...)
	b[batchOffMagic] = 2
	if _, err := ParseBatchHeader(b); err == nil || !strings.Contains(err.Error(), "magic 2") {
		t.Fatalf("magic 2: %v", err)
	}
}

func TestBatchRecordCountMismatch(t *testing.T) {
	for _, codec := range batchTestCodecs {
		good := batchBuild(t, codec, batchTestRecords(10, 7))
		for _, count := range []int32{9, 11, 0, 1000} {
			b := append([]byte(nil), good...)
			binary.BigEndian.PutUint32(b[batchOffRecordCount:], uint32(count))
			binary.BigEndian.PutUint32(b[batchOffLastOffsetDelta:], uint32(count-1))
			batchFixCRC(b)
			if _, err := ParseBatchHeader(b); err != nil {
				t.Fatalf("header with count %d should parse: %v", count, err)
			}
			_, err := DecodeBatch(b, 0, nil)
			if err == nil || !errors.Is(err, ErrBatchCorrupt) {
				t.Fatalf("%v: recordCount %d for 10 records: err %v", codec, count, err)
			}
		}
		// lastOffsetDelta inconsistent with recordCount.
		b := append([]byte(nil), good...)
		binary.BigEndian.PutUint32(b[batchOffLastOffsetDelta:], 10)
		batchFixCRC(b)
		if _, err := ParseBatchHeader(b); err == nil || !strings.Contains(err.Error(), "lastOffsetDelta 10") {
			t.Fatalf("lastOffsetDelta 10 with count 10: %v", err)
		}
		// Negative count.
		binary.BigEndian.PutUint32(b[batchOffRecordCount:], math.MaxUint32)
		binary.BigEndian.PutUint32(b[batchOffLastOffsetDelta:], math.MaxUint32-1)
		batchFixCRC(b)
		if _, err := ParseBatchHeader(b); err == nil || !strings.Contains(err.Error(), "negative recordCount") {
			t.Fatalf("recordCount -1: %v", err)
		}
	}
}

// batchRawRecord encodes a record with explicit deltas, for malformed input.
func batchRawRecord(tsDelta int64, offDelta int32, key, value []byte) []byte {
	var body []byte
	body = append(body, 0)
	body = varintAppend64(body, tsDelta)
	body = varintAppend32(body, offDelta)
	for _, f := range [][]byte{key, value} {
		if f == nil {
			body = varintAppend32(body, -1)
		} else {
			body = varintAppend32(body, int32(len(f)))
			body = append(body, f...)
		}
	}
	body = varintAppend32(body, 0)
	return append(varintAppend32(nil, int32(len(body))), body...)
}

func TestBatchMalformedRecords(t *testing.T) {
	rec0 := batchRawRecord(0, 0, []byte("k"), []byte("v"))
	cases := []struct {
		name  string
		count int32
		sec   []byte
		want  string
	}{
		{"offset gap", 2, append(append([]byte(nil), rec0...), batchRawRecord(0, 2, nil, nil)...), "offsetDelta 2, want 1"},
		{"offset repeat", 2, append(append([]byte(nil), rec0...), rec0...), "offsetDelta 0, want 1"},
		{"trailing bytes", 1, append(append([]byte(nil), rec0...), 0, 0), "2 bytes after the last"},
		{"record length past section", 1, append([]byte{0x7e}, rec0[1:]...), "length 63 outside"},
		{"key length past record", 1, []byte{12, 0, 0, 0, 40, 'a', 'b', 'c', 'd', 'e', 'f', 0}, "key length 20"},
		{"key length below -1", 1, []byte{12, 0, 0, 0, 3, 'a', 'b', 'c', 'd', 'e', 'f', 0}, "key length -2"},
		{"overlong varint", 1, []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0}, "length varint too long"},
		{"varint past end", 1, []byte{12, 0, 0x80, 0x80, 0x80, 0x80, 0x80}, "timestampDelta varint runs past"},
		{"header count too big", 1, []byte{12, 0, 0, 0, 1, 1, 0x7e, 0, 0, 0, 0, 0, 0}, "headerCount 63"},
		{"negative header key length", 1, []byte{16, 0, 0, 0, 1, 1, 2, 1, 1}, "header 0 key length -1"},
		{"unread record bytes", 1, []byte{14, 0, 0, 0, 1, 1, 0, 9, 9, 9, 9, 9, 9, 9, 9}, "bytes left after its fields"},
		{"count beyond section", 3, rec0, "cannot fit"},
	}
	for _, tc := range cases {
		for _, codec := range batchTestCodecs {
			sec, err := batchCompress(nil, tc.sec, codec)
			if err != nil {
				t.Fatal(err)
			}
			_, err = DecodeBatch(batchWithSection(codec, tc.count, sec), 0, nil)
			if err == nil || !errors.Is(err, ErrBatchCorrupt) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s/%v: err %v, want ErrBatchCorrupt mentioning %q", tc.name, codec, err, tc.want)
			}
		}
	}
}

func TestBatchTruncated(t *testing.T) {
	for _, codec := range batchTestCodecs {
		b := batchBuild(t, codec, batchTestRecords(30, 8))
		for n := 0; n < len(b); n++ {
			_, err := DecodeBatch(b[:n], 0, nil)
			if !errors.Is(err, ErrBatchTruncated) {
				t.Fatalf("%v: %d of %d bytes: err %v, want ErrBatchTruncated", codec, n, len(b), err)
			}
		}
		// Extra bytes after one batch are refused by the single-batch API.
		if _, err := DecodeBatch(append(append([]byte(nil), b...), 0), 0, nil); err == nil || !strings.Contains(err.Error(), "1 trailing") {
			t.Fatalf("%v: trailing byte: %v", codec, err)
		}
	}
}

func TestSplitBatches(t *testing.T) {
	var all []byte
	var parts [][]byte
	for i, codec := range batchTestCodecs {
		b := batchBuild(t, codec, batchTestRecords(10+i, uint64(i)))
		SetBatchBaseOffset(b, int64(100*i))
		parts = append(parts, b)
		all = append(all, b...)
	}
	got, err := SplitBatches(all)
	if err != nil || len(got) != 3 {
		t.Fatalf("split: %d batches, %v", len(got), err)
	}
	for i := range got {
		if !bytes.Equal(got[i], parts[i]) {
			t.Fatalf("batch %d differs", i)
		}
		if _, err := DecodeBatch(got[i], 0, nil); err != nil {
			t.Fatalf("batch %d: %v", i, err)
		}
	}
	if got, err := SplitBatches(nil); err != nil || len(got) != 0 {
		t.Fatalf("empty: %v %v", got, err)
	}
	// A truncated trailing batch: the whole ones come back with the error.
	for _, cut := range []int{1, 11, 12, 60, 61, len(parts[2]) - 1} {
		in := all[:len(all)-len(parts[2])+cut]
		got, err := SplitBatches(in)
		if !errors.Is(err, ErrBatchTruncated) || len(got) != 2 {
			t.Fatalf("cut %d: %d batches, err %v", cut, len(got), err)
		}
		if !strings.Contains(err.Error(), fmt.Sprintf("batch 2 at byte offset %d", len(parts[0])+len(parts[1]))) {
			t.Fatalf("cut %d: error %q does not locate the batch", cut, err)
		}
	}
	// A bad length in the middle is corruption, not truncation.
	bad := append([]byte(nil), all...)
	binary.BigEndian.PutUint32(bad[len(parts[0])+batchOffLength:], 3)
	got, err = SplitBatches(bad)
	if len(got) != 1 || err == nil || errors.Is(err, ErrBatchTruncated) || !strings.Contains(err.Error(), "batchLength 3") {
		t.Fatalf("bad length: %d batches, %v", len(got), err)
	}
	// NextBatch walks the same way without allocating.
	rest := all
	for i := 0; len(rest) > 0; i++ {
		var b []byte
		b, rest, err = NextBatch(rest)
		if err != nil || !bytes.Equal(b, parts[i]) {
			t.Fatalf("NextBatch %d: %v", i, err)
		}
	}
	if a := testing.AllocsPerRun(100, func() {
		r := all
		for len(r) > 0 {
			_, r, _ = NextBatch(r)
		}
	}); a != 0 {
		t.Fatalf("NextBatch allocates %.1f times per walk", a)
	}
}

// batchZstdSizeless compresses data into one zstd frame that does not declare
// its content size, as a streaming encoder of another peer would.
func batchZstdSizeless(t *testing.T, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := zstd.NewWriter(&buf, zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(1<<20))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	var zh zstd.Header
	if err := zh.Decode(buf.Bytes()); err != nil || zh.HasFCS {
		t.Fatalf("streaming frame should not declare its size: %+v %v", zh, err)
	}
	return buf.Bytes()
}

func TestBatchDecompressionBomb(t *testing.T) {
	const limit = 1 << 20
	zeros := make([]byte, 16<<20)
	var text []byte // compresses with sequences rather than RLE blocks
	for i := 0; len(text) < 256<<10; i++ {
		text = fmt.Appendf(text, "record %d of the bomb, lorem ipsum dolor sit amet %d\n", i, i%1000)
	}
	text = bytes.Repeat(text, 32) // 8 MiB

	lz4Sec, err := batchCompress(nil, zeros, CodecLZ4)
	if err != nil {
		t.Fatal(err)
	}
	zstdSec, err := batchCompress(nil, zeros, CodecZstd)
	if err != nil {
		t.Fatal(err)
	}
	zstdText, err := batchCompress(nil, text, CodecZstd)
	if err != nil {
		t.Fatal(err)
	}
	// An lz4 section whose prefix claims 1 GiB, and one that claims a
	// plausible size but decompresses to more.
	lie := append([]byte{0x40, 0, 0, 0}, lz4Sec[4:]...)
	short := append([]byte(nil), lz4Sec...)
	binary.BigEndian.PutUint32(short, 1000)
	// A zstd frame of 100 bytes followed by one of 8 MiB.
	zstdLie, err := batchCompress(nil, text[:100], CodecZstd)
	if err != nil {
		t.Fatal(err)
	}
	zstdLie = append(zstdLie, zstdText...) // a second, large frame

	cases := []struct {
		name  string
		codec Codec
		sec   []byte
		want  error
	}{
		{"lz4 16MiB of zeros", CodecLZ4, lz4Sec, ErrBatchTooLarge},
		{"lz4 claims 1GiB", CodecLZ4, lie, ErrBatchTooLarge},
		{"lz4 block bigger than its claim", CodecLZ4, short, ErrBatchCorrupt},
		{"zstd 16MiB of zeros", CodecZstd, zstdSec, ErrBatchTooLarge},
		{"zstd 8MiB of text", CodecZstd, zstdText, ErrBatchTooLarge},
		{"zstd sizeless zeros", CodecZstd, batchZstdSizeless(t, zeros), ErrBatchTooLarge},
		{"zstd sizeless text", CodecZstd, batchZstdSizeless(t, text), ErrBatchTooLarge},
		{"zstd small frame then big one", CodecZstd, zstdLie, ErrBatchTooLarge},
		{"none over limit", CodecNone, zeros[:limit+1], ErrBatchTooLarge},
	}
	for _, tc := range cases {
		b := batchWithSection(tc.codec, 1, tc.sec)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := DecodeBatch(b, limit, nil)
		runtime.ReadMemStats(&after)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: err %v, want %v", tc.name, err, tc.want)
			continue
		}
		// The limit bounds memory, not just the result: the inputs expand
		// to 8-16x the limit; size-less zstd costs a few attempts of
		// growing size (each may overshoot by a block), well under 8x.
		t.Logf("%s: %v, allocated %d", tc.name, err, after.TotalAlloc-before.TotalAlloc)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8*limit {
			t.Errorf("%s: refused, but allocated %d bytes for a %d limit", tc.name, alloc, limit)
		}
	}
	// Size-less frames decode once the limit allows them (the growing
	// buffer path) and then fail on their contents, not their size.
	for _, data := range [][]byte{zeros[:3<<20], text[:3<<20]} {
		_, err = DecodeBatch(batchWithSection(CodecZstd, 1, batchZstdSizeless(t, data)), 4<<20, nil)
		if !errors.Is(err, ErrBatchCorrupt) || errors.Is(err, ErrBatchTooLarge) {
			t.Fatalf("size-less zstd within limit: %v", err)
		}
	}
	// A legitimate size-less frame of real records decodes.
	recs := batchTestRecords(3000, 10)
	bb := appendAll(NewBatchBuilder(-1, -1, -1), recs)
	zsec := batchZstdSizeless(t, bb.section())
	sizeless := make([]byte, BatchHeaderSize+len(zsec))
	copy(sizeless[BatchHeaderSize:], zsec)
	sizeless, _ = bb.finishHeader(sizeless, CodecZstd)
	got, err := DecodeBatch(sizeless, 1<<20, nil)
	if err != nil {
		t.Fatal(err)
	}
	batchCheckRecords(t, got, recs, 0)
	if _, err := DecodeBatch(sizeless, len(bb.section())-1, nil); !errors.Is(err, ErrBatchTooLarge) {
		t.Fatalf("size-less records one byte over the limit: %v", err)
	}
	// A record count that cannot fit under the limit is refused before
	// decompressing.
	if _, err := DecodeBatch(batchWithSection(CodecLZ4, 1<<30, lz4Sec), limit, nil); !errors.Is(err, ErrBatchTooLarge) {
		t.Fatalf("count 2^30 under 1 MiB limit: %v", err)
	}
}

func TestBatchLZ4EmptyBlock(t *testing.T) {
	// Our writer's encoding of an empty records section.
	sec, err := batchCompress(nil, nil, CodecLZ4)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(sec, []byte{0, 0, 0, 0, 0}) {
		t.Fatalf("lz4 empty section % x", sec)
	}
	n, err := lz4.UncompressBlock(sec[4:], make([]byte, 16))
	if err != nil || n != 0 {
		t.Fatalf("lz4 library disagrees on the empty block: %d %v", n, err)
	}
}

func TestDecodeBatchDoesNotAlias(t *testing.T) {
	for _, codec := range batchTestCodecs {
		recs := batchTestRecords(50, 11)
		b := batchBuild(t, codec, recs)
		prefix := []Record{{Offset: -5}}
		got, err := DecodeBatch(b, 0, prefix)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 51 || got[0].Offset != -5 {
			t.Fatalf("%v: dst prefix not kept: len %d first %+v", codec, len(got), got[0])
		}
		for i := range b {
			b[i] = 0xff
		}
		batchCheckRecords(t, got[1:], recs, 0)
		// Appending to a key must not overwrite the value after it.
		if len(got[11].Key) == 0 || len(got[11].Value) == 0 {
			t.Fatal("record 10 should have a key and a value")
		}
		k := append(got[11].Key, "XXXX"...)
		_ = k
		batchCheckRecords(t, got[1:], recs, 0)
		// A failed decode leaves dst's length alone.
		out, err := DecodeBatch(b, 0, got[:1])
		if err == nil || len(out) != 1 {
			t.Fatalf("%v: failed decode returned len %d, err %v", codec, len(out), err)
		}
	}
}

// TestBatchRecordsAlias: BatchRecords gives the records DecodeBatch does;
// with alias, an uncompressed batch's records point into the batch itself
// (no copy), a compressed one's never do; without alias none do.
func TestBatchRecordsAlias(t *testing.T) {
	for _, codec := range batchTestCodecs {
		recs := batchTestRecords(50, 11)
		b := batchBuild(t, codec, recs)
		for _, alias := range []bool{false, true} {
			var it BatchRecords
			if err := it.Reset(b, 0, alias); err != nil {
				t.Fatal(err)
			}
			if it.Header().RecordCount != 50 {
				t.Fatalf("%v: header says %d records", codec, it.Header().RecordCount)
			}
			var got []Record
			var r Record
			for it.Next(&r) {
				got = append(got, r)
			}
			if err := it.Err(); err != nil {
				t.Fatalf("%v alias %v: %v", codec, alias, err)
			}
			batchCheckRecords(t, got, recs, 0)
			v := got[11].Value
			inside := len(v) > 0 && uintptr(unsafe.Pointer(&v[0])) >= uintptr(unsafe.Pointer(&b[0])) &&
				uintptr(unsafe.Pointer(&v[0])) < uintptr(unsafe.Pointer(&b[0]))+uintptr(len(b))
			if want := alias && codec == CodecNone; inside != want {
				t.Errorf("%v alias %v: a value inside the batch %v, want %v", codec, alias, inside, want)
			}
		}
	}
	// Bytes after the last record end the walk with an error, as in
	// DecodeBatch.
	sec := append(batchRawRecord(0, 0, nil, []byte("v")), batchRawRecord(0, 1, nil, []byte("w"))...)
	b := batchWithSection(CodecNone, 2, append(sec, 0))
	var it BatchRecords
	if err := it.Reset(b, 0, true); err != nil {
		t.Fatal(err)
	}
	var r Record
	n := 0
	for it.Next(&r) {
		n++
	}
	if err := it.Err(); n != 2 || !errors.Is(err, ErrBatchCorrupt) || !strings.Contains(err.Error(), "1 bytes after the last of 2 records") {
		t.Fatalf("%d records, err %v", n, err)
	}
}

// batchPoolsLossy reports whether sync.Pool drops items (it does on purpose
// under the race detector), which makes pooled-path allocation counts
// meaningless.
func batchPoolsLossy() bool {
	var p sync.Pool
	lost := 0
	for i := 0; i < 200; i++ {
		x := new([64]byte)
		p.Put(x)
		if p.Get() != x {
			lost++
		}
	}
	return lost > 10
}

func TestBatchAllocations(t *testing.T) {
	v := bytes.Repeat([]byte("0123456789"), 10)
	hdrs := []RecordHeader{{Key: "a", Value: []byte("b")}}
	bb := NewBatchBuilder(1, 1, 0)
	bb.Grow(1 << 20)
	if a := testing.AllocsPerRun(1000, func() { bb.Append(1, []byte("key"), v, hdrs) }); a != 0 {
		t.Fatalf("Append allocates %.2f times per record", a)
	}
	bb.Reset(1, 1, 0)
	for i := 0; i < 2000; i++ {
		bb.Append(int64(i), nil, v, hdrs)
	}
	if batchPoolsLossy() {
		t.Log("sync.Pool drops items (race detector): skipping pooled allocation counts")
		return
	}
	for _, codec := range batchTestCodecs {
		b, err := bb.Finish(codec)
		if err != nil {
			t.Fatal(err)
		}
		// Warm the pools, then Finish must allocate only the result.
		if a := testing.AllocsPerRun(20, func() { _, _ = bb.Finish(codec) }); a > 1 {
			t.Errorf("%v: Finish allocates %.1f times per batch", codec, a)
		}
		dst := make([]Record, 0, 2000)
		// The buffer, the header slab chunks (64, 128, ... 1024), plus a
		// constant for the decompressor: nothing per record.
		limit := 4.0 + 5
		if a := testing.AllocsPerRun(20, func() { _, _ = DecodeBatch(b, 0, dst[:0]) }); a > limit {
			t.Errorf("%v: DecodeBatch allocates %.1f times for 2000 records", codec, a)
		}
	}
	bb.Reset(1, 1, 0)
	for i := 0; i < 2000; i++ {
		bb.Append(int64(i), nil, v, nil)
	}
	b, _ := bb.Finish(CodecLZ4)
	dst := make([]Record, 0, 2000)
	if a := testing.AllocsPerRun(20, func() { _, _ = DecodeBatch(b, 0, dst[:0]) }); a > 2 {
		t.Errorf("lz4 without headers: DecodeBatch allocates %.1f times for 2000 records", a)
	}
}

// varintWidth is one width of the zigzag varint, so the tests and the fuzz
// target check the 32- and the 64-bit codec with the same code.
type varintWidth[T int32 | int64] struct {
	name     string // "varint" or "varlong", as the failure messages say
	maxBytes int
	append   func([]byte, T) []byte
	size     func(T) int
	read     func([]byte) (T, int)
}

var (
	varint32 = varintWidth[int32]{"varint", 5, varintAppend32, varintSize32, varintRead32}
	varint64 = varintWidth[int64]{"varlong", 10, varintAppend64, varintSize64, varintRead64}
)

// checkRoundTrip: v encodes to size(v) bytes that read back as v, and a
// truncated read reports n == 0.
func (w varintWidth[T]) checkRoundTrip(t *testing.T, v T) {
	t.Helper()
	b := w.append(nil, v)
	if len(b) != w.size(v) {
		t.Fatalf("%d: size %d vs %d", v, len(b), w.size(v))
	}
	got, n := w.read(b)
	if got != v || n != len(b) {
		t.Fatalf("%d: read %d (%d bytes)", v, got, n)
	}
	if _, n := w.read(b[:len(b)-1]); n != 0 {
		t.Fatalf("%d: truncated read gave n=%d", v, n)
	}
}

// checkRead: whatever read accepts from data is at most maxBytes, and
// re-encodes (canonically) to a prefix of no more bytes that reads back as
// the same value; it reports truncation only with fewer than maxBytes.
func (w varintWidth[T]) checkRead(t *testing.T, data []byte) {
	t.Helper()
	v, n := w.read(data)
	switch {
	case n > 0:
		if n > w.maxBytes || n > len(data) {
			t.Fatalf("%s read %d bytes of %d", w.name, n, len(data))
		}
		enc := w.append(nil, v)
		if len(enc) > n || len(enc) != w.size(v) {
			t.Fatalf("%s %d re-encodes to %d bytes, read %d", w.name, v, len(enc), n)
		}
		if v2, n2 := w.read(enc); v2 != v || n2 != len(enc) {
			t.Fatalf("%s %d round trips to %d", w.name, v, v2)
		}
	case n == 0 && len(data) >= w.maxBytes:
		t.Fatalf("%s reported truncation with %d bytes available", w.name, len(data))
	}
}

func TestBatchVarint(t *testing.T) {
	for _, v := range []int32{0, 1, -1, 63, -64, 64, -65, 8191, -8192, 8192, math.MaxInt32, math.MinInt32} {
		varint32.checkRoundTrip(t, v)
	}
	for _, v := range []int64{0, 1, -1, math.MaxInt64, math.MinInt64, 1 << 40, -(1 << 40)} {
		varint64.checkRoundTrip(t, v)
	}
	if len(varintAppend32(nil, math.MinInt32)) != 5 || len(varintAppend64(nil, math.MinInt64)) != 10 {
		t.Fatal("extreme values should take 5 and 10 bytes")
	}
	// Too long or too wide.
	for _, b := range [][]byte{
		{0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, // 6 bytes
		{0xff, 0xff, 0xff, 0xff, 0x1f},       // 33 bits
	} {
		if _, n := varintRead32(b); n >= 0 {
			t.Fatalf("varint % x accepted (n=%d)", b, n)
		}
	}
	for _, b := range [][]byte{
		append(bytes.Repeat([]byte{0x80}, 10), 0),   // 11 bytes
		append(bytes.Repeat([]byte{0xff}, 9), 0x02), // 65 bits
	} {
		if _, n := varintRead64(b); n >= 0 {
			t.Fatalf("varlong % x accepted (n=%d)", b, n)
		}
	}
	// Non-minimal but in range is accepted.
	if v, n := varintRead32([]byte{0x82, 0x80, 0x00}); v != 1 || n != 3 {
		t.Fatalf("non-minimal 1: %d %d", v, n)
	}
}

// batchBenchValues returns 1024 JSON-like 100-byte values: realistic enough
// for the codecs (shared structure, varying digits and a random token).
func batchBenchValues() [][]byte {
	rng := rand.New(rand.NewPCG(42, 42))
	const hex = "0123456789abcdef"
	vals := make([][]byte, 1024)
	for i := range vals {
		v := fmt.Appendf(nil, `{"id":%08d,"user":"user-%04d","amount":%5d.%02d,"token":"`,
			rng.IntN(1e8), rng.IntN(5000), rng.IntN(1e5), rng.IntN(100))
		for len(v) < 98 {
			v = append(v, hex[rng.IntN(16)])
		}
		vals[i] = append(v, `"}`...)
	}
	return vals
}

// benchmarkBatchBuild appends b.N records of 100-byte values into batches
// of up to 256 KiB (the producer's path: size check, Append, Finish per full
// batch); ns/op and allocs/op are per record.
func benchmarkBatchBuild(b *testing.B, codec Codec) {
	const batchSize = 256 << 10
	vals := batchBenchValues()
	bb := NewBatchBuilder(1, 0, 0)
	bb.Grow(batchSize)
	ts := int64(1_700_000_000_000)
	var wire int64
	finish := func() {
		out, err := bb.Finish(codec)
		if err != nil {
			b.Fatal(err)
		}
		wire += int64(len(out))
	}
	b.SetBytes(100)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		v := vals[i&1023]
		if bb.Count() > 0 && bb.EncodedSize()+RecordSizeEstimate(nil, v, nil) > batchSize {
			finish()
			bb.Reset(1, 0, int32(i))
		}
		bb.Append(ts+int64(i>>12), nil, v, nil)
	}
	finish()
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(float64(wire)/float64(b.N), "wireB/record")
}

func BenchmarkBatchBuild100B_None(b *testing.B) { benchmarkBatchBuild(b, CodecNone) }
func BenchmarkBatchBuild100B_LZ4(b *testing.B)  { benchmarkBatchBuild(b, CodecLZ4) }
func BenchmarkBatchBuild100B_Zstd(b *testing.B) { benchmarkBatchBuild(b, CodecZstd) }

func benchmarkDecodeBatch(b *testing.B, codec Codec) {
	const batchSize = 256 << 10
	vals := batchBenchValues()
	bb := NewBatchBuilder(1, 0, 0)
	for i := 0; bb.EncodedSize()+RecordSizeEstimate(nil, vals[i&1023], nil) <= batchSize; i++ {
		bb.Append(int64(1_700_000_000_000+i), nil, vals[i&1023], nil)
	}
	batch, err := bb.Finish(codec)
	if err != nil {
		b.Fatal(err)
	}
	n := bb.Count()
	dst := make([]Record, 0, n)
	b.SetBytes(int64(bb.EncodedSize()))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		recs, err := DecodeBatch(batch, 0, dst[:0])
		if err != nil || len(recs) != n {
			b.Fatalf("%d records, %v", len(recs), err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(float64(n), "records/batch")
}

func BenchmarkDecodeBatch100B_LZ4(b *testing.B)  { benchmarkDecodeBatch(b, CodecLZ4) }
func BenchmarkDecodeBatch100B_None(b *testing.B) { benchmarkDecodeBatch(b, CodecNone) }
func BenchmarkDecodeBatch100B_Zstd(b *testing.B) { benchmarkDecodeBatch(b, CodecZstd) }

func TestSetBatchBaseSequence(t *testing.T) {
	for _, codec := range []Codec{CodecNone, CodecLZ4, CodecZstd} {
		bb := NewBatchBuilder(42, 0, -1)
		bb.Append(1000, []byte("k"), []byte("value"), nil)
		out, err := bb.Finish(codec)
		if err != nil {
			t.Fatal(err)
		}
		SetBatchBaseSequence(out, 77)
		if err := VerifyBatchCRC(out); err != nil {
			t.Fatalf("%v: %v", codec, err)
		}
		h, _ := ParseBatchHeader(out)
		if h.BaseSequence != 77 || h.ProducerID != 42 {
			t.Fatalf("%v: header %+v", codec, h)
		}
		recs, err := DecodeBatch(out, 0, nil)
		if err != nil || len(recs) != 1 || string(recs[0].Value) != "value" {
			t.Fatalf("%v: decode %v %v", codec, recs, err)
		}
	}
}

func TestSetBatchProducer(t *testing.T) {
	for _, codec := range []Codec{CodecNone, CodecLZ4} {
		bb := NewBatchBuilder(42, 0, -1)
		bb.Append(1000, []byte("k"), []byte("value"), nil)
		out, err := bb.Finish(codec)
		if err != nil {
			t.Fatal(err)
		}
		SetBatchProducer(out, 9001, 3, 12)
		if err := VerifyBatchCRC(out); err != nil {
			t.Fatalf("%v: %v", codec, err)
		}
		h, _ := ParseBatchHeader(out)
		if h.ProducerID != 9001 || h.ProducerEpoch != 3 || h.BaseSequence != 12 {
			t.Fatalf("%v: header %+v", codec, h)
		}
		if recs, err := DecodeBatch(out, 0, nil); err != nil || len(recs) != 1 || string(recs[0].Value) != "value" {
			t.Fatalf("%v: decode %v %v", codec, recs, err)
		}
	}
}

// RecordSizeEstimateLen, from lengths alone, is RecordSizeEstimate of the
// bytes, across the varint boundaries of the record, key, value and
// header lengths, nil and empty parts included.
func TestRecordSizeEstimateLen(t *testing.T) {
	lens := []int{-1, 0, 1, 63, 64, 8191, 8192, 1<<20 - 30, 1 << 20, 2 << 20}
	bytesOf := func(n int) []byte {
		if n < 0 {
			return nil
		}
		return make([]byte, n)
	}
	for _, k := range []int{-1, 0, 5, 64, 8192} {
		for _, v := range lens {
			for _, hs := range [][]HeaderLen{nil, {{Key: 3, Value: -1}}, {{Key: 0, Value: 0}, {Key: 70, Value: 9000}}} {
				var headers []RecordHeader
				for _, h := range hs {
					headers = append(headers, RecordHeader{Key: string(make([]byte, h.Key)), Value: bytesOf(h.Value)})
				}
				want := RecordSizeEstimate(bytesOf(k), bytesOf(v), headers)
				if got := RecordSizeEstimateLen(k, v, hs); got != want {
					t.Fatalf("key %d value %d headers %v: %d, want %d", k, v, hs, got, want)
				}
			}
		}
	}
}
