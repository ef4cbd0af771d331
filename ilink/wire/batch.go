package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"unsafe"
)

// Record batches (docs/PROTOCOL.md, "Record batches"). A batch is a 61-byte
// big-endian header followed by the records section, which is compressed as
// one block when the codec is not none:
//
//	off len field
//	0   8   baseOffset       int64, stamped by the engine (producers send 0)
//	8   4   batchLength      int32, bytes after this field (total - 12)
//	12  4   leaderEpoch      int32, stamped by the engine (producers send -1)
//	16  1   magic            int8, BatchMagic (1)
//	17  4   crc              uint32, CRC-32C of bytes 21..end
//	21  2   attributes       int16, bits 0-2 codec, bits 3-15 zero
//	23  4   lastOffsetDelta  int32, recordCount - 1
//	27  8   baseTimestamp    int64 ms, timestamp of the first record
//	35  8   maxTimestamp     int64 ms, largest record timestamp
//	43  8   producerId       int64, -1 = not idempotent
//	51  2   producerEpoch    int16
//	53  4   baseSequence     int32, -1 = not idempotent
//	57  4   recordCount      int32, >= 0
//	61  ..  records
//
// The CRC starts at attributes, so the engine can stamp baseOffset and
// leaderEpoch without rehashing or decompressing anything.

// BatchHeaderSize is the size of the fixed batch header.
const BatchHeaderSize = 61

// BatchMagic is the format version of iLink v1 record batches.
const BatchMagic int8 = 1

// DefaultBatchMaxDecompressed is the decompression limit DecodeBatch uses
// when it is given a limit <= 0: the default frame cap.
const DefaultBatchMaxDecompressed = 128 << 20

// Offsets of the header fields.
const (
	batchOffBaseOffset      = 0
	batchOffLength          = 8
	batchOffLeaderEpoch     = 12
	batchOffMagic           = 16
	batchOffCRC             = 17
	batchOffAttributes      = 21 // first CRC-covered byte
	batchOffLastOffsetDelta = 23
	batchOffBaseTimestamp   = 27
	batchOffMaxTimestamp    = 35
	batchOffProducerID      = 43
	batchOffProducerEpoch   = 51
	batchOffBaseSequence    = 53
	batchOffRecordCount     = 57

	// batchLengthPrefix is the part of the header not counted by batchLength.
	batchLengthPrefix = batchOffLeaderEpoch
	// batchMinLength is the smallest valid batchLength (no records section).
	batchMinLength = BatchHeaderSize - batchLengthPrefix

	batchCodecMask = 0x07

	// batchMinRecordBody is the smallest record after its length prefix:
	// attributes, timestampDelta, offsetDelta, keyLen, valueLen and
	// headerCount, one byte each.
	batchMinRecordBody = 6
	// batchMinRecord adds the length prefix itself.
	batchMinRecord = 1 + batchMinRecordBody
)

// Sentinel errors. Every error returned by the batch functions wraps one of
// these (use errors.Is) and its text says what exactly was wrong.
var (
	// ErrBatchTruncated: the input ends before the batch does.
	ErrBatchTruncated = errors.New("batch: truncated")
	// ErrBatchCRC: the stored CRC does not match the bytes.
	ErrBatchCRC = errors.New("batch: crc mismatch")
	// ErrBatchTooLarge: the records section exceeds the decompression limit.
	ErrBatchTooLarge = errors.New("batch: records exceed size limit")
	// ErrBatchCorrupt: any other structural problem.
	ErrBatchCorrupt = errors.New("batch: corrupt")
)

var batchCRCTable = crc32.MakeTable(crc32.Castagnoli)

// RecordHeader is one record header (a "property"): a string key and a byte
// value. A nil Value is encoded as null and decodes back to nil; an empty
// non-nil Value decodes to an empty non-nil slice.
type RecordHeader struct {
	Key   string
	Value []byte
}

// Record is one decoded record. Offset and Timestamp (milliseconds) are
// absolute: batch base plus the record's deltas. A nil Key or Value was sent
// as null; an empty non-nil one was sent as zero bytes.
type Record struct {
	Offset    int64
	Timestamp int64
	Key       []byte
	Value     []byte
	Headers   []RecordHeader
}

// BatchHeader is the decoded fixed header of a batch.
type BatchHeader struct {
	BaseOffset      int64
	Length          int32 // batchLength: bytes after the Length field
	LeaderEpoch     int32
	Magic           int8
	CRC             uint32
	Attributes      int16
	LastOffsetDelta int32
	BaseTimestamp   int64
	MaxTimestamp    int64
	ProducerID      int64
	ProducerEpoch   int16
	BaseSequence    int32
	RecordCount     int32
}

// Codec returns the compression codec in the attributes.
func (h BatchHeader) Codec() Codec { return Codec(h.Attributes & batchCodecMask) }

// TotalSize is the size of the whole batch in bytes (Length + 12).
func (h BatchHeader) TotalSize() int { return int(h.Length) + batchLengthPrefix }

// LastOffset is the offset of the last record (BaseOffset + LastOffsetDelta).
func (h BatchHeader) LastOffset() int64 { return h.BaseOffset + int64(h.LastOffsetDelta) }

// ParseBatchHeader decodes and validates the header of the batch b, which
// must hold exactly one whole batch (len(b) == 12 + batchLength). It checks
// the length, magic, codec, reserved attribute bits, recordCount >= 0 and
// lastOffsetDelta == recordCount-1, but neither the CRC nor the records: it
// never decompresses. A short b yields an error wrapping ErrBatchTruncated.
func ParseBatchHeader(b []byte) (BatchHeader, error) {
	var h BatchHeader
	if len(b) < BatchHeaderSize {
		return h, fmt.Errorf("%w: %d bytes, header needs %d", ErrBatchTruncated, len(b), BatchHeaderSize)
	}
	h = BatchHeader{
		BaseOffset:      int64(binary.BigEndian.Uint64(b[batchOffBaseOffset:])),
		Length:          int32(binary.BigEndian.Uint32(b[batchOffLength:])),
		LeaderEpoch:     int32(binary.BigEndian.Uint32(b[batchOffLeaderEpoch:])),
		Magic:           int8(b[batchOffMagic]),
		CRC:             binary.BigEndian.Uint32(b[batchOffCRC:]),
		Attributes:      int16(binary.BigEndian.Uint16(b[batchOffAttributes:])),
		LastOffsetDelta: int32(binary.BigEndian.Uint32(b[batchOffLastOffsetDelta:])),
		BaseTimestamp:   int64(binary.BigEndian.Uint64(b[batchOffBaseTimestamp:])),
		MaxTimestamp:    int64(binary.BigEndian.Uint64(b[batchOffMaxTimestamp:])),
		ProducerID:      int64(binary.BigEndian.Uint64(b[batchOffProducerID:])),
		ProducerEpoch:   int16(binary.BigEndian.Uint16(b[batchOffProducerEpoch:])),
		BaseSequence:    int32(binary.BigEndian.Uint32(b[batchOffBaseSequence:])),
		RecordCount:     int32(binary.BigEndian.Uint32(b[batchOffRecordCount:])),
	}
	if err := h.validate(); err != nil {
		return h, err
	}
	if total := h.TotalSize(); len(b) != total {
		if len(b) < total {
			return h, fmt.Errorf("%w: batchLength %d needs %d bytes, have %d", ErrBatchTruncated, h.Length, total, len(b))
		}
		return h, fmt.Errorf("%w: batchLength %d covers %d bytes, buffer has %d (%d trailing)", ErrBatchCorrupt, h.Length, total, len(b), len(b)-total)
	}
	return h, nil
}

// validate checks the header fields that do not depend on the buffer size.
func (h *BatchHeader) validate() error {
	if h.Length < batchMinLength {
		return fmt.Errorf("%w: batchLength %d below minimum %d", ErrBatchCorrupt, h.Length, batchMinLength)
	}
	if h.Magic != BatchMagic {
		return fmt.Errorf("%w: magic %d, want %d", ErrBatchCorrupt, h.Magic, BatchMagic)
	}
	if c := h.Codec(); !c.Valid() {
		return fmt.Errorf("%w: invalid codec %d in attributes 0x%04x", ErrBatchCorrupt, int8(c), uint16(h.Attributes))
	}
	if h.Attributes&^batchCodecMask != 0 {
		return fmt.Errorf("%w: reserved attribute bits set in 0x%04x", ErrBatchCorrupt, uint16(h.Attributes))
	}
	if h.RecordCount < 0 {
		return fmt.Errorf("%w: negative recordCount %d", ErrBatchCorrupt, h.RecordCount)
	}
	if int64(h.LastOffsetDelta) != int64(h.RecordCount)-1 {
		return fmt.Errorf("%w: lastOffsetDelta %d with recordCount %d (want %d)", ErrBatchCorrupt, h.LastOffsetDelta, h.RecordCount, int64(h.RecordCount)-1)
	}
	return nil
}

// batchComputeCRC is the CRC-32C of the covered region of a whole batch.
func batchComputeCRC(b []byte) uint32 { return crc32.Checksum(b[batchOffAttributes:], batchCRCTable) }

// VerifyBatchCRC checks the header and the CRC of the batch b (one whole
// batch, as for ParseBatchHeader). It does not decompress.
func VerifyBatchCRC(b []byte) error {
	h, err := ParseBatchHeader(b)
	if err != nil {
		return err
	}
	if got := batchComputeCRC(b); got != h.CRC {
		return fmt.Errorf("%w: header 0x%08x computed 0x%08x", ErrBatchCRC, h.CRC, got)
	}
	return nil
}

// SetBatchBaseOffset stamps the base offset of the batch b in place. The CRC
// does not cover it and stays valid. b must hold at least the header's first
// 8 bytes; a shorter b is left alone.
func SetBatchBaseOffset(b []byte, off int64) {
	if len(b) >= batchOffBaseOffset+8 {
		binary.BigEndian.PutUint64(b[batchOffBaseOffset:], uint64(off))
	}
}

// SetBatchLeaderEpoch stamps the partition leader epoch of the batch b in
// place. The CRC does not cover it and stays valid. A b shorter than 16 bytes
// is left alone.
func SetBatchLeaderEpoch(b []byte, epoch int32) {
	if len(b) >= batchOffLeaderEpoch+4 {
		binary.BigEndian.PutUint32(b[batchOffLeaderEpoch:], uint32(epoch))
	}
}

// SetBatchBaseSequence stamps the idempotent base sequence of the whole
// batch b in place and recomputes its CRC (the sequence is covered by it).
// Producers assign sequences when a batch is frozen for sending, after it
// was built. A b shorter than a batch header is left alone.
func SetBatchBaseSequence(b []byte, seq int32) {
	if len(b) >= BatchHeaderSize {
		binary.BigEndian.PutUint32(b[batchOffBaseSequence:], uint32(seq))
		binary.BigEndian.PutUint32(b[batchOffCRC:], batchComputeCRC(b))
	}
}

// SetBatchProducer stamps the producer id, producer epoch and base sequence
// of the whole batch b in place and recomputes its CRC once. A producer
// whose engine lost its state re-stamps its unacknowledged batches with a
// new producer id this way. A b shorter than a batch header is left alone.
func SetBatchProducer(b []byte, producerID int64, epoch int16, seq int32) {
	if len(b) >= BatchHeaderSize {
		binary.BigEndian.PutUint64(b[batchOffProducerID:], uint64(producerID))
		binary.BigEndian.PutUint16(b[batchOffProducerEpoch:], uint16(epoch))
		binary.BigEndian.PutUint32(b[batchOffBaseSequence:], uint32(seq))
		binary.BigEndian.PutUint32(b[batchOffCRC:], batchComputeCRC(b))
	}
}

// NextBatch splits the first batch off a concatenation of batches, as carried
// by fetch responses and stored in logs. It returns the batch and the rest.
// An empty b returns (nil, nil, nil). If b ends inside the first batch the
// error wraps ErrBatchTruncated (a reader that asked for a byte limit may
// treat that as "no more whole batches"); the header of the returned batch
// has been checked with ParseBatchHeader, its CRC and records have not.
func NextBatch(b []byte) (batch, rest []byte, err error) {
	if len(b) == 0 {
		return nil, nil, nil
	}
	if len(b) < batchLengthPrefix {
		return nil, b, fmt.Errorf("%w: %d trailing bytes, too short for a batch length", ErrBatchTruncated, len(b))
	}
	n := int32(binary.BigEndian.Uint32(b[batchOffLength:]))
	if n < batchMinLength {
		return nil, b, fmt.Errorf("%w: batchLength %d below minimum %d", ErrBatchCorrupt, n, batchMinLength)
	}
	total := int(n) + batchLengthPrefix
	if len(b) < total {
		return nil, b, fmt.Errorf("%w: batchLength %d needs %d bytes, have %d", ErrBatchTruncated, n, total, len(b))
	}
	if _, err := ParseBatchHeader(b[:total:total]); err != nil {
		return nil, b, err
	}
	return b[:total:total], b[total:], nil
}

// SplitBatches splits a concatenation of whole batches. The returned slices
// alias b. On error it returns the batches before the bad one together with
// the error (which wraps ErrBatchTruncated when b ends inside a batch).
func SplitBatches(b []byte) ([][]byte, error) {
	var out [][]byte
	for len(b) > 0 {
		batch, rest, err := NextBatch(b)
		if err != nil {
			return out, fmt.Errorf("batch %d at byte offset %d: %w", len(out), batchConsumed(out), err)
		}
		out = append(out, batch)
		b = rest
	}
	return out, nil
}

func batchConsumed(bs [][]byte) int {
	n := 0
	for _, b := range bs {
		n += len(b)
	}
	return n
}

// DecodeBatch verifies and decodes the whole batch b and appends its records
// to dst. It checks the header (ParseBatchHeader) and the CRC, decompresses
// the records section into at most maxDecompressed bytes (<= 0 means
// DefaultBatchMaxDecompressed; a section that would be larger fails with
// ErrBatchTooLarge, having allocated at most a small multiple of the limit:
// exactly nothing when an lz4 length or zstd frame size says so up front, a
// few growing attempts for size-less zstd frames), decodes every record,
// and checks that there are exactly recordCount records whose offsetDeltas
// are 0, 1, 2, ... and that no bytes are left over.
//
// The returned records do not alias b: their keys, values and headers point
// into one buffer owned by the batch (the decompressed section, or a copy of
// the uncompressed one), so b may be reused at once. Key, Value and header
// Value slices have cap == len. Decoding allocates that buffer, room for the
// records in dst if needed, and header slabs that grow geometrically (a few
// per batch, none without headers); nothing per record. Header keys are
// strings sharing the batch buffer, without a copy.
// On error dst is returned unchanged in length.
func DecodeBatch(b []byte, maxDecompressed int, dst []Record) ([]Record, error) {
	h, sec, err := batchSection(b, maxDecompressed, false)
	if err != nil {
		return dst, err
	}
	return batchDecodeRecords(&h, sec, dst)
}

// BatchRecords walks the records of one batch in offset order, decoding
// each into a Record the caller owns: no callback and nothing allocated
// per record (a reader that keeps records in its own type copies each
// once). The zero value is ready for Reset.
//
//	var it wire.BatchRecords
//	if err := it.Reset(batch, 0, false); err != nil { ... }
//	for it.Next(&rec) { ... }
//	if err := it.Err(); err != nil { ... }
type BatchRecords struct {
	h    BatchHeader
	sec  []byte
	pos  int
	i    int
	slab []RecordHeader // headers of this batch, handed out in chunks
	err  error
}

// Reset verifies the batch b (header, CRC; see DecodeBatch) and makes its
// section ready to walk: decompressed into at most maxDecompressed bytes,
// or, uncompressed, copied (alias false: records never alias b) or used
// in place (alias true: records alias b, which the caller must never
// modify, and a record kept keeps all of b's memory).
func (it *BatchRecords) Reset(b []byte, maxDecompressed int, alias bool) error {
	h, sec, err := batchSection(b, maxDecompressed, alias)
	*it = BatchRecords{h: h, sec: sec, err: err}
	if err == nil && int(h.RecordCount)*batchMinRecord > len(sec) {
		it.err = fmt.Errorf("%w: recordCount %d cannot fit in %d decompressed bytes", ErrBatchCorrupt, h.RecordCount, len(sec))
	}
	return it.err
}

// Header is the batch's header (valid after a Reset without error).
func (it *BatchRecords) Header() *BatchHeader { return &it.h }

// Err is the error that ended the walk (nil after the last record, when
// there are exactly recordCount of them and no bytes after).
func (it *BatchRecords) Err() error { return it.err }

// Next decodes the next record into r and reports whether there was one;
// false after the last record or at an error (Err). r's slices alias the
// batch's section.
func (it *BatchRecords) Next(r *Record) bool {
	if it.err == nil && it.i < int(it.h.RecordCount) {
		// The common record (short varints, no headers) in one pass; any
		// other, valid or not, takes the careful path below.
		sec, pos := it.sec, it.pos
		if l, p, ok := varint2(sec, pos); ok && l >= batchMinRecordBody && int(l) <= len(sec)-p {
			end := p + int(l)
			if batchDecodeRecordFast(&it.h, sec[p:end:end], it.i, r) {
				it.pos = end
				it.i++
				return true
			}
		}
	}
	return it.nextCareful(r)
}

// nextCareful is Next for any record, naming what is wrong with a bad one.
func (it *BatchRecords) nextCareful(r *Record) bool {
	if it.err != nil {
		return false
	}
	count, sec, i := int(it.h.RecordCount), it.sec, it.i
	if i == count {
		if it.pos != len(sec) {
			it.err = fmt.Errorf("%w: %d bytes after the last of %d records", ErrBatchCorrupt, len(sec)-it.pos, count)
		}
		return false
	}
	pos := it.pos
	if pos >= len(sec) {
		it.err = fmt.Errorf("%w: recordCount %d but records end after %d", ErrBatchCorrupt, count, i)
		return false
	}
	l, n := varintRead32(sec[pos:])
	if n <= 0 {
		it.err = batchVarintErr(i, "length", n)
		return false
	}
	pos += n
	if l < batchMinRecordBody || int(l) > len(sec)-pos {
		it.err = fmt.Errorf("%w: record %d: length %d outside [%d, %d]", ErrBatchCorrupt, i, l, batchMinRecordBody, len(sec)-pos)
		return false
	}
	it.pos = pos + int(l)
	it.i++
	if it.err = batchDecodeRecord(&it.h, sec[pos:it.pos:it.pos], i, count, &it.slab, r); it.err != nil {
		return false
	}
	return true
}

// varint2 reads a zigzag varint of one or two bytes at b[p:] and returns it
// and the position after it; ok is false for anything else (longer, or
// running past b), which the careful path then reads or refuses.
func varint2(b []byte, p int) (v int32, next int, ok bool) {
	if p+1 >= len(b) {
		return 0, p, false
	}
	u := uint32(b[p])
	if u >= 0x80 {
		d := uint32(b[p+1])
		if d >= 0x80 {
			return 0, p, false
		}
		u, p = u&0x7f|d<<7, p+1
	}
	return varintUnzig32(u), p + 1, true
}

// batchDecodeRecordFast decodes record i into rec when it is the common
// kind: every varint one or two bytes long and no headers. It checks what
// batchDecodeRecord checks and reports false, rec untouched, for any
// other record, valid or not. r ends with the header count, whose varint
// is then the one byte 0; the varints before it have at least that byte
// after them, so varint2 never misses one for want of room.
func batchDecodeRecordFast(h *BatchHeader, r []byte, i int, rec *Record) bool {
	last := len(r) - 1
	if last < 1 || r[last] != 0 {
		return false
	}
	tsDelta, p, ok := varint2(r, 1) // r[0]: attributes, ignored
	if !ok {
		return false
	}
	offDelta, p, ok := varint2(r, p)
	if !ok || int(offDelta) != i {
		return false
	}
	var kv [2][]byte // key, value: length -1 = nil
	for f := range kv {
		l, q, ok := varint2(r, p)
		if !ok || l < -1 || int(l) > last-q {
			return false
		}
		p = q
		if l >= 0 {
			kv[f] = r[p : p+int(l) : p+int(l)]
			p += int(l)
		}
	}
	if p != last {
		return false
	}
	// Field by field: a Record built aside and copied whole stalls on
	// reading back what was just stored.
	rec.Offset = h.BaseOffset + int64(offDelta)
	rec.Timestamp = h.BaseTimestamp + int64(tsDelta)
	rec.Key, rec.Value, rec.Headers = kv[0], kv[1], nil
	return true
}

// batchSection verifies b (header, CRC) and returns its header and its
// records section: decompressed into at most maxDecompressed bytes, or
// the uncompressed one, copied unless alias.
func batchSection(b []byte, maxDecompressed int, alias bool) (BatchHeader, []byte, error) {
	h, err := ParseBatchHeader(b)
	if err != nil {
		return h, nil, err
	}
	if got := batchComputeCRC(b); got != h.CRC {
		return h, nil, fmt.Errorf("%w: header 0x%08x computed 0x%08x", ErrBatchCRC, h.CRC, got)
	}
	limit := maxDecompressed
	if limit <= 0 {
		limit = DefaultBatchMaxDecompressed
	}
	limit = min(limit, math.MaxInt32)

	raw := b[BatchHeaderSize:]
	switch c := h.Codec(); c {
	case CodecNone:
		if len(raw) > limit {
			return h, nil, fmt.Errorf("%w: records section of %d bytes, limit %d", ErrBatchTooLarge, len(raw), limit)
		}
		if int64(h.RecordCount)*batchMinRecord > int64(len(raw)) {
			return h, nil, fmt.Errorf("%w: recordCount %d cannot fit in %d bytes of records", ErrBatchCorrupt, h.RecordCount, len(raw))
		}
		if alias {
			return h, raw, nil
		}
		sec := make([]byte, len(raw))
		copy(sec, raw)
		return h, sec, nil
	default:
		if int64(h.RecordCount)*batchMinRecord > int64(limit) {
			return h, nil, fmt.Errorf("%w: recordCount %d needs at least %d bytes, limit %d", ErrBatchTooLarge, h.RecordCount, int64(h.RecordCount)*batchMinRecord, limit)
		}
		sec, err := batchDecompress(raw, c, limit)
		return h, sec, err
	}
}

func batchDecodeRecords(h *BatchHeader, sec []byte, dst []Record) ([]Record, error) {
	count := int(h.RecordCount)
	if count*batchMinRecord > len(sec) {
		return dst, fmt.Errorf("%w: recordCount %d cannot fit in %d decompressed bytes", ErrBatchCorrupt, count, len(sec))
	}
	start := len(dst)
	if cap(dst)-start < count {
		nd := make([]Record, start, start+count)
		copy(nd, dst)
		dst = nd
	}
	out := dst[start : start+count]
	it := BatchRecords{h: *h, sec: sec}
	for i := 0; i < count && it.Next(&out[i]); i++ {
	}
	if it.err == nil {
		it.Next(nil) // past the last record: r is not touched, the rest checked
	}
	if it.err != nil {
		return dst[:start], it.err
	}
	return dst[:start+count], nil
}

// batchDecodeRecord decodes record i of count into rec, r its bytes after
// the length; headers come from the batch's slab (see batchDecodeRecords).
func batchDecodeRecord(h *BatchHeader, r []byte, i, count int, slab *[]RecordHeader, rec *Record) error {
	p := 1 // attributes: ignored
	tsDelta, n := varintRead64(r[p:])
	if n <= 0 {
		return batchVarintErr(i, "timestampDelta", n)
	}
	p += n
	offDelta, n := varintRead32(r[p:])
	if n <= 0 {
		return batchVarintErr(i, "offsetDelta", n)
	}
	p += n
	if int(offDelta) != i {
		return fmt.Errorf("%w: record %d: offsetDelta %d, want %d", ErrBatchCorrupt, i, offDelta, i)
	}
	key, p2, err := batchReadBytes(r, p, i, "key")
	if err != nil {
		return err
	}
	value, p3, err := batchReadBytes(r, p2, i, "value")
	if err != nil {
		return err
	}
	p = p3
	hc, n := varintRead32(r[p:])
	if n <= 0 {
		return batchVarintErr(i, "headerCount", n)
	}
	p += n
	// Each header needs at least two bytes (two lengths).
	if hc < 0 || int(hc) > (len(r)-p)/2 {
		return fmt.Errorf("%w: record %d: headerCount %d with %d bytes left", ErrBatchCorrupt, i, hc, len(r)-p)
	}
	var hdrs []RecordHeader
	if hc > 0 {
		if hdrs, p, err = batchDecodeHeaders(r, p, i, count, int(hc), slab); err != nil {
			return err
		}
	}
	if p != len(r) {
		return fmt.Errorf("%w: record %d: %d bytes left after its fields (length %d)", ErrBatchCorrupt, i, len(r)-p, len(r))
	}
	*rec = Record{
		Offset:    h.BaseOffset + int64(offDelta),
		Timestamp: h.BaseTimestamp + tsDelta,
		Key:       key,
		Value:     value,
		Headers:   hdrs,
	}
	return nil
}

// batchDecodeHeaders decodes the hc headers of record i of count at r[p:]
// into the batch's slab, and returns them and the position after them.
func batchDecodeHeaders(r []byte, p, i, count, hc int, slab *[]RecordHeader) ([]RecordHeader, int, error) {
	if cap(*slab)-len(*slab) < hc {
		// A new chunk: enough for every remaining record to carry
		// as many headers as this one, but growing geometrically
		// from 64 so a lone header-heavy record costs little.
		// hc is bounded by the record's bytes, so is the chunk.
		size := min(hc*(count-i), max(64, 2*cap(*slab)))
		*slab = make([]RecordHeader, 0, max(size, hc))
	}
	used := len(*slab)
	hdrs := (*slab)[used : used+hc : used+hc]
	*slab = (*slab)[:used+hc]
	for j := range hdrs {
		kl, n := varintRead32(r[p:])
		if n <= 0 {
			return nil, p, batchVarintErr(i, "header key length", n)
		}
		p += n
		if kl < 0 || int(kl) > len(r)-p {
			return nil, p, fmt.Errorf("%w: record %d: header %d key length %d with %d bytes left", ErrBatchCorrupt, i, j, kl, len(r)-p)
		}
		// The section buffer is owned by this decode (or, aliased, by a
		// caller that never modifies it) and the key bytes are never
		// handed out as a slice, so they stay immutable: a string can
		// share them without a copy.
		var k string
		if kl > 0 {
			k = unsafe.String(&r[p], int(kl))
		}
		p += int(kl)
		v, pn, err := batchReadBytes(r, p, i, "header value")
		if err != nil {
			return nil, p, err
		}
		p = pn
		hdrs[j] = RecordHeader{Key: k, Value: v}
	}
	return hdrs, p, nil
}

// batchReadBytes reads a length-prefixed byte string (-1 = nil) at r[p:].
func batchReadBytes(r []byte, p, rec int, what string) ([]byte, int, error) {
	l, n := varintRead32(r[p:])
	if n <= 0 {
		return nil, p, batchVarintErr(rec, what+" length", n)
	}
	p += n
	if l == -1 {
		return nil, p, nil
	}
	if l < -1 || int(l) > len(r)-p {
		return nil, p, fmt.Errorf("%w: record %d: %s length %d with %d bytes left", ErrBatchCorrupt, rec, what, l, len(r)-p)
	}
	return r[p : p+int(l) : p+int(l)], p + int(l), nil
}

func batchVarintErr(rec int, what string, n int) error {
	if n == 0 {
		return fmt.Errorf("%w: record %d: %s varint runs past the record", ErrBatchCorrupt, rec, what)
	}
	return fmt.Errorf("%w: record %d: %s varint too long or overflows", ErrBatchCorrupt, rec, what)
}

// BatchBuilder encodes the records of one producer batch. Append encodes
// each record straight into an internal buffer (no allocation once the
// buffer has grown to the batch size); Finish or AppendTo adds the header,
// compresses and computes the CRC; TakeUncompressed finishes the batch where
// it was built, without copying it. Reset starts the next batch and keeps the
// buffers. A BatchBuilder is not safe for concurrent use.
type BatchBuilder struct {
	// buf is empty or the room of the batch header followed by the
	// encoded, uncompressed records section (section), so an uncompressed
	// batch is finished in place.
	buf        []byte
	scratch    []byte // compression output, reused across batches
	count      int32
	baseTS     int64
	maxTS      int64
	producerID int64
	epoch      int16
	baseSeq    int32
	err        error
}

// NewBatchBuilder returns a builder for a batch of the given producer
// (producerID -1, epoch -1 and baseSeq -1 for a non-idempotent producer).
func NewBatchBuilder(producerID int64, epoch int16, baseSeq int32) *BatchBuilder {
	b := &BatchBuilder{}
	b.Reset(producerID, epoch, baseSeq)
	return b
}

// Reset empties the builder for a new batch and keeps its buffers.
func (b *BatchBuilder) Reset(producerID int64, epoch int16, baseSeq int32) {
	*b = BatchBuilder{
		buf:        b.buf[:0],
		scratch:    b.scratch[:0],
		producerID: producerID,
		epoch:      epoch,
		baseSeq:    baseSeq,
	}
}

// Grow makes room for n more bytes of encoded records, so that appending them
// does not allocate.
func (b *BatchBuilder) Grow(n int) {
	if at := max(len(b.buf), BatchHeaderSize); n > 0 && cap(b.buf)-at < n {
		nb := make([]byte, len(b.buf), at+n)
		copy(nb, b.buf)
		b.buf = nb
	}
}

// Give hands the builder buf's memory to encode the next batch into (a
// batch from TakeUncompressed that is no longer needed); Reset follows.
func (b *BatchBuilder) Give(buf []byte) { b.buf = buf[:0] }

// Cap is the capacity of the builder's buffer in bytes (memory it holds).
func (b *BatchBuilder) Cap() int { return cap(b.buf) }

// section is the encoded records (after the header's room).
func (b *BatchBuilder) section() []byte { return b.buf[min(len(b.buf), BatchHeaderSize):] }

// SetProducer sets the producer id, epoch and base sequence the header
// will carry: a producer assigns them when it freezes a batch, before
// AppendTo or TakeUncompressed computes the CRC (once).
func (b *BatchBuilder) SetProducer(producerID int64, epoch int16, baseSeq int32) {
	b.producerID, b.epoch, b.baseSeq = producerID, epoch, baseSeq
}

// Count is the number of records appended since the last Reset.
func (b *BatchBuilder) Count() int { return int(b.count) }

// EncodedSize is the size the batch would have uncompressed so far: the
// 61-byte header plus every appended record. Compare EncodedSize() +
// RecordSize(...) with the batch size limit before appending.
func (b *BatchBuilder) EncodedSize() int { return BatchHeaderSize + len(b.section()) }

// RecordSizeEstimate is the encoded size of a record with this key, value
// and headers, assuming its offsetDelta and timestampDelta take 3 bytes each
// (offsetDelta < 1,048,576 and |timestampDelta| < 1,048,576 ms), which holds
// for any realistic batch; for the exact size in a given builder, use
// BatchBuilder.RecordSize.
func RecordSizeEstimate(key, value []byte, headers []RecordHeader) int {
	return batchRecordSize(3, 3, key, value, headers)
}

// HeaderLen is a record header known by its lengths: Key bytes of name
// and Value bytes of value (-1 = a nil value).
type HeaderLen struct{ Key, Value int }

// RecordSizeEstimateLen is RecordSizeEstimate for a record known by its
// lengths, without its bytes: a key of keyLen bytes and a value of valueLen
// bytes (-1 = nil), and headers. Tools use it to bound a value size before
// they build any value.
func RecordSizeEstimateLen(keyLen, valueLen int, headers []HeaderLen) int {
	field := func(n int) int {
		if n < 0 {
			return varintSizeLen(0, true)
		}
		return varintSizeLen(n, false) + n
	}
	body := 1 + 3 + 3 + field(keyLen) + field(valueLen) + varintSize32(int32(len(headers)))
	for _, h := range headers {
		body += varintSize32(int32(h.Key)) + h.Key + field(h.Value)
	}
	return varintSize32(int32(body)) + body
}

// RecordSize is the exact number of bytes Append(ts, key, value, headers)
// would add to EncodedSize.
func (b *BatchBuilder) RecordSize(ts int64, key, value []byte, headers []RecordHeader) int {
	tsDelta := int64(0)
	if b.count > 0 {
		tsDelta = ts - b.baseTS
	}
	return batchRecordSize(varintSize64(tsDelta), varintSize32(b.count), key, value, headers)
}

// batchRecordBody is the size of a record after its length prefix.
func batchRecordBody(tsSize, offSize int, key, value []byte, headers []RecordHeader) int {
	n := 1 + tsSize + offSize +
		varintSizeLen(len(key), key == nil) + len(key) +
		varintSizeLen(len(value), value == nil) + len(value) +
		varintSize32(int32(len(headers)))
	for i := range headers {
		h := &headers[i]
		n += varintSize32(int32(len(h.Key))) + len(h.Key) +
			varintSizeLen(len(h.Value), h.Value == nil) + len(h.Value)
	}
	return n
}

func batchRecordSize(tsSize, offSize int, key, value []byte, headers []RecordHeader) int {
	body := batchRecordBody(tsSize, offSize, key, value, headers)
	return varintSize32(int32(body)) + body
}

// Append encodes one record with timestamp ts (ms) at the next offset. A nil
// key or value is encoded as null, distinct from an empty one. Errors (a
// batch beyond 2 GiB or 2^31-1 records) are sticky and reported by Finish.
func (b *BatchBuilder) Append(ts int64, key, value []byte, headers []RecordHeader) {
	if b.err != nil {
		return
	}
	if b.count == math.MaxInt32 {
		b.err = errors.New("batch: too many records")
		return
	}
	if b.count == 0 {
		b.baseTS, b.maxTS = ts, ts
	} else if ts > b.maxTS {
		b.maxTS = ts
	}
	tsDelta := ts - b.baseTS
	offDelta := b.count
	body := batchRecordBody(varintSize64(tsDelta), varintSize32(offDelta), key, value, headers)
	// Lengths are int32 on the wire; the whole batch must fit in batchLength.
	if uint64(len(key))|uint64(len(value)) > math.MaxInt32 || body > math.MaxInt32-BatchHeaderSize-len(b.section())-5 {
		b.err = fmt.Errorf("batch: record %d of %d bytes makes the batch exceed 2 GiB", b.count, body)
		return
	}
	for i := range headers {
		if uint64(len(headers[i].Key))|uint64(len(headers[i].Value)) > math.MaxInt32 {
			b.err = fmt.Errorf("batch: record %d header %d too large", b.count, i)
			return
		}
	}
	need := varintSize32(int32(body)) + body
	at := max(len(b.buf), BatchHeaderSize) // the header's room comes first
	if cap(b.buf)-at < need {
		nb := make([]byte, at, max(2*cap(b.buf), at)+need)
		copy(nb, b.buf)
		b.buf = nb
	}
	buf := b.buf[at : at+need]
	p := varintPut32(buf, int32(body))
	buf[p] = 0 // attributes
	p++
	p += varintPut64(buf[p:], tsDelta)
	p += varintPut32(buf[p:], offDelta)
	p += batchPutBytes(buf[p:], key)
	p += batchPutBytes(buf[p:], value)
	p += varintPut32(buf[p:], int32(len(headers)))
	for i := range headers {
		h := &headers[i]
		p += varintPut32(buf[p:], int32(len(h.Key)))
		p += copy(buf[p:], h.Key)
		p += batchPutBytes(buf[p:], h.Value)
	}
	b.buf = b.buf[:at+need]
	b.count++
}

// batchPutBytes writes a length-prefixed byte string (nil as -1).
func batchPutBytes(dst []byte, v []byte) int {
	if v == nil {
		dst[0] = 1 // zigzag(-1)
		return 1
	}
	n := varintPut32(dst, int32(len(v)))
	return n + copy(dst[n:], v)
}

// Finish returns the complete batch (header, records compressed with codec,
// CRC) in a newly allocated slice of exactly its size, which the caller owns
// (it may keep it for retries after Reset). The builder is not changed:
// Finish may be called again, e.g. with another codec. Base offset is 0 and
// leader epoch -1 until the engine stamps them.
func (b *BatchBuilder) Finish(codec Codec) ([]byte, error) {
	if err := b.check(codec); err != nil {
		return nil, err
	}
	recs := b.section()
	if codec != CodecNone {
		var err error
		b.scratch, err = batchCompress(b.scratch[:0], recs, codec)
		if err != nil {
			return nil, err
		}
		recs = b.scratch
	}
	out := make([]byte, BatchHeaderSize+len(recs))
	copy(out[BatchHeaderSize:], recs)
	return b.finishHeader(out, codec)
}

// AppendTo appends the complete batch to dst, e.g. straight into a request
// body being built, and returns the extended slice. Otherwise like Finish.
func (b *BatchBuilder) AppendTo(dst []byte, codec Codec) ([]byte, error) {
	if err := b.check(codec); err != nil {
		return dst, err
	}
	start := len(dst)
	out := batchGrow(dst, BatchHeaderSize)
	out, err := batchCompress(out, b.section(), codec)
	if err != nil {
		return dst, err
	}
	if _, err := b.finishHeader(out[start:], codec); err != nil {
		return dst, err
	}
	return out, nil
}

// errBatchTaken is the builder's sticky error after TakeUncompressed.
var errBatchTaken = errors.New("batch: builder already taken by TakeUncompressed; Reset it first")

// TakeUncompressed returns the complete uncompressed batch, finished where
// its records were encoded: no copy of them. The caller owns it (and may
// keep it for retries). The builder goes on with spare's memory, empty,
// and refuses everything until the next Reset.
func (b *BatchBuilder) TakeUncompressed(spare []byte) ([]byte, error) {
	if err := b.check(CodecNone); err != nil {
		return nil, err
	}
	if len(b.buf) < BatchHeaderSize {
		b.buf = batchGrow(b.buf[:0], BatchHeaderSize) // no record yet
	}
	out, err := b.finishHeader(b.buf, CodecNone)
	if err != nil {
		return nil, err
	}
	b.buf, b.err = spare[:0], errBatchTaken
	return out, nil
}

func (b *BatchBuilder) check(codec Codec) error {
	if b.err != nil {
		return b.err
	}
	if !codec.Valid() {
		return fmt.Errorf("batch: invalid %v", codec)
	}
	return nil
}

// finishHeader fills in the header of batch (whose records section is
// already in place) and its CRC.
func (b *BatchBuilder) finishHeader(batch []byte, codec Codec) ([]byte, error) {
	length := len(batch) - batchLengthPrefix
	if length > math.MaxInt32 {
		return nil, fmt.Errorf("batch: %d bytes exceed the 2 GiB batch limit", len(batch))
	}
	be := binary.BigEndian
	be.PutUint64(batch[batchOffBaseOffset:], 0)
	be.PutUint32(batch[batchOffLength:], uint32(length))
	be.PutUint32(batch[batchOffLeaderEpoch:], math.MaxUint32) // -1: not stamped yet
	batch[batchOffMagic] = byte(BatchMagic)
	be.PutUint16(batch[batchOffAttributes:], uint16(codec))
	be.PutUint32(batch[batchOffLastOffsetDelta:], uint32(b.count-1))
	be.PutUint64(batch[batchOffBaseTimestamp:], uint64(b.baseTS))
	be.PutUint64(batch[batchOffMaxTimestamp:], uint64(b.maxTS))
	be.PutUint64(batch[batchOffProducerID:], uint64(b.producerID))
	be.PutUint16(batch[batchOffProducerEpoch:], uint16(b.epoch))
	be.PutUint32(batch[batchOffBaseSequence:], uint32(b.baseSeq))
	be.PutUint32(batch[batchOffRecordCount:], uint32(b.count))
	be.PutUint32(batch[batchOffCRC:], batchComputeCRC(batch))
	return batch, nil
}
