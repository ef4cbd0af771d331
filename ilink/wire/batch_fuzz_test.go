package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"reflect"
	"testing"
)

// Fuzz targets for every batch decoder (client-engine-anchors §4.2 item 7).
// The seeds below run under plain `go test`; run a target for longer with
//
//	go test -run XXX -fuzz FuzzDecodeBatch -fuzztime 60s ./ilink/wire/

// batchFuzzMax is the decompression limit of the fuzz targets: small, so a
// bomb is refused quickly (a slow input also makes minimization crawl),
// large enough for the seeds.
const batchFuzzMax = 64 << 10

// batchFuzzSeeds returns valid batches of every codec plus broken ones.
func batchFuzzSeeds(t testing.TB) [][]byte {
	recs := []batchTestRecord{
		{ts: 1000, key: nil, value: []byte("v0")},
		{ts: 999, key: []byte{}, value: nil},
		{ts: 1005, key: []byte("key"), value: []byte{}, headers: []RecordHeader{
			{Key: "h1", Value: []byte("x")}, {Key: "", Value: nil}, {Key: "h3", Value: []byte{}},
		}},
		{ts: 1006, key: []byte("key"), value: bytes.Repeat([]byte("compressible "), 4)},
	}
	var seeds [][]byte
	var all []byte
	for _, codec := range batchTestCodecs {
		b := batchBuild(t, codec, recs)
		SetBatchBaseOffset(b, 77)
		SetBatchLeaderEpoch(b, 3)
		seeds = append(seeds, b, batchBuild(t, codec, nil), b[:len(b)/2], b[:BatchHeaderSize])
		all = append(all, b...)
	}
	seeds = append(seeds,
		all,
		append(append([]byte(nil), all...), all[:30]...),
		nil,
		[]byte{},
		[]byte("garbage that is not a batch at all, long enough to have a header........"),
		bytes.Repeat([]byte{0xff}, 80),
		make([]byte, 61),
	)
	// A decompression bomb: 256 KiB of zeros, 4x batchFuzzMax (about 1 KiB
	// as lz4, a few bytes as zstd).
	bomb := NewBatchBuilder(1, 1, 1)
	bomb.Append(1, nil, make([]byte, 4*batchFuzzMax), nil)
	for _, codec := range []Codec{CodecLZ4, CodecZstd} {
		b, err := bomb.Finish(codec)
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	// Records with overlong varints and wrong offset deltas.
	seeds = append(seeds,
		batchWithSection(CodecNone, 1, []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0}),
		batchWithSection(CodecNone, 2, append(batchRawRecord(0, 0, nil, nil), batchRawRecord(0, 5, nil, nil)...)),
	)
	return seeds
}

// batchRecordsEqual compares decoded records, nil versus empty keys, values
// and header values included (an empty list equals a nil one).
func batchRecordsEqual(a, b []Record) bool {
	return len(a) == len(b) && (len(a) == 0 || reflect.DeepEqual(a, b))
}

// batchReencode builds a batch with the same producer fields, codec and
// records as a decoded one, stamped with the same base offset and epoch.
func batchReencode(t *testing.T, h BatchHeader, recs []Record) []byte {
	t.Helper()
	bb := NewBatchBuilder(h.ProducerID, h.ProducerEpoch, h.BaseSequence)
	for _, r := range recs {
		bb.Append(r.Timestamp, r.Key, r.Value, r.Headers)
	}
	out, err := bb.Finish(h.Codec())
	if err != nil {
		t.Fatalf("re-encoding %d decoded records: %v", len(recs), err)
	}
	SetBatchBaseOffset(out, h.BaseOffset)
	SetBatchLeaderEpoch(out, h.LeaderEpoch)
	return out
}

// FuzzDecodeBatch: DecodeBatch never panics and never aliases its input,
// and whatever it accepts re-encodes to a batch that decodes to the same
// records. fix lets the fuzzer get past the length and CRC checks: bit 0
// rewrites batchLength to match the input, bit 1 recomputes the CRC.
func FuzzDecodeBatch(f *testing.F) {
	for i, s := range batchFuzzSeeds(f) {
		f.Add(s, byte(0))
		f.Add(s, byte(i%4))
	}
	f.Fuzz(func(t *testing.T, data []byte, fix byte) {
		data = bytes.Clone(data)
		if fix&1 != 0 && len(data) >= batchLengthPrefix {
			binary.BigEndian.PutUint32(data[batchOffLength:], uint32(len(data)-batchLengthPrefix))
		}
		if fix&2 != 0 && len(data) >= BatchHeaderSize {
			batchFixCRC(data)
		}
		prefix := []Record{{Offset: -1}}
		recs, err := DecodeBatch(data, batchFuzzMax, prefix)
		if err != nil {
			if len(recs) != 1 || recs[0].Offset != -1 {
				t.Fatalf("failed decode changed dst: len %d", len(recs))
			}
			for _, sentinel := range []error{ErrBatchTruncated, ErrBatchCRC, ErrBatchTooLarge, ErrBatchCorrupt} {
				if errors.Is(err, sentinel) {
					return
				}
			}
			t.Fatalf("error wraps no batch sentinel: %v", err)
		}
		recs = recs[1:]
		h, err := ParseBatchHeader(data)
		if err != nil {
			t.Fatalf("DecodeBatch accepted what ParseBatchHeader refuses: %v", err)
		}
		if err := VerifyBatchCRC(data); err != nil {
			t.Fatalf("DecodeBatch accepted a bad CRC: %v", err)
		}
		if len(recs) != int(h.RecordCount) {
			t.Fatalf("%d records for recordCount %d", len(recs), h.RecordCount)
		}
		for i, r := range recs {
			if r.Offset != h.BaseOffset+int64(i) {
				t.Fatalf("record %d offset %d, base %d", i, r.Offset, h.BaseOffset)
			}
		}
		// The records own their bytes: wiping the input changes nothing.
		again, err := DecodeBatch(data, batchFuzzMax, nil)
		if err != nil || !batchRecordsEqual(again, recs) {
			t.Fatalf("second decode differs: %v", err)
		}
		for i := range data {
			data[i] = 0xa5
		}
		if !batchRecordsEqual(again, recs) {
			t.Fatal("decoded records alias the input")
		}
		// Round trip: re-encode and decode again.
		out := batchReencode(t, h, recs)
		h2, err := ParseBatchHeader(out)
		if err != nil {
			t.Fatalf("re-encoded header: %v", err)
		}
		if h2.RecordCount != h.RecordCount || h2.ProducerID != h.ProducerID || h2.ProducerEpoch != h.ProducerEpoch ||
			h2.BaseSequence != h.BaseSequence || h2.Codec() != h.Codec() || h2.BaseOffset != h.BaseOffset || h2.LeaderEpoch != h.LeaderEpoch {
			t.Fatalf("re-encoded header %+v, original %+v", h2, h)
		}
		// The re-encoded section uses minimal varints, but its timestamp
		// deltas are taken from the first record rather than the original
		// base, so allow it a little more room than the original had.
		recs2, err := DecodeBatch(out, 2*batchFuzzMax, nil)
		if err != nil {
			t.Fatalf("decoding the re-encoded batch: %v", err)
		}
		if !batchRecordsEqual(recs2, recs) {
			t.Fatalf("round trip changed the records:\n got %+v\nwant %+v", recs2, recs)
		}
	})
}

// FuzzSplitBatches: splitting never panics, returns consecutive whole
// batches that cover a prefix of the input, reports the rest as an error,
// and each returned batch passes ParseBatchHeader.
func FuzzSplitBatches(f *testing.F) {
	for _, s := range batchFuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		batches, err := SplitBatches(data)
		consumed := 0
		for i, b := range batches {
			if consumed+len(b) > len(data) || !bytes.Equal(b, data[consumed:consumed+len(b)]) {
				t.Fatalf("batch %d is not the next %d bytes of the input", i, len(b))
			}
			consumed += len(b)
			if _, err := ParseBatchHeader(b); err != nil {
				t.Fatalf("batch %d: %v", i, err)
			}
			// Whatever its contents, decoding must not panic.
			_, _ = DecodeBatch(b, batchFuzzMax, nil)
		}
		if err == nil {
			if consumed != len(data) {
				t.Fatalf("no error but %d of %d bytes consumed", consumed, len(data))
			}
			return
		}
		if consumed >= len(data) {
			t.Fatalf("error %v with all %d bytes consumed", err, len(data))
		}
		if !errors.Is(err, ErrBatchTruncated) && !errors.Is(err, ErrBatchCorrupt) {
			t.Fatalf("error wraps no batch sentinel: %v", err)
		}
		// NextBatch agrees on where it stops.
		if _, rest, nerr := NextBatch(data[consumed:]); nerr == nil || len(rest) != len(data)-consumed {
			t.Fatalf("NextBatch at offset %d: err %v, rest %d", consumed, nerr, len(rest))
		}
	})
}

// FuzzBatchVarint: the varint readers never panic, never read more than 5
// or 10 bytes, and whatever they accept re-encodes (canonically) to a prefix
// of no more bytes that decodes to the same value.
func FuzzBatchVarint(f *testing.F) {
	for _, s := range [][]byte{
		{}, {0}, {1}, {0x7f}, {0x80}, {0x80, 0x01}, {0xff, 0xff, 0xff, 0xff, 0x0f},
		{0xff, 0xff, 0xff, 0xff, 0x1f}, {0x80, 0x80, 0x80, 0x80, 0x80, 0x00},
		bytes.Repeat([]byte{0xff}, 9), append(bytes.Repeat([]byte{0xff}, 9), 0x01),
		append(bytes.Repeat([]byte{0xff}, 9), 0x02), bytes.Repeat([]byte{0x80}, 12),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		varint32.checkRead(t, data)
		varint64.checkRead(t, data)
	})
}
