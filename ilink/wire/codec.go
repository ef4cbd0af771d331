package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Writer appends message-body primitives to B. Integers are big-endian and
// fixed width; strings and byte slices carry a uvarint length prefix
// (docs/PROTOCOL.md §3).
type Writer struct{ B []byte }

func (w *Writer) U8(v uint8)   { w.B = append(w.B, v) }
func (w *Writer) U16(v uint16) { w.B = binary.BigEndian.AppendUint16(w.B, v) }
func (w *Writer) U32(v uint32) { w.B = binary.BigEndian.AppendUint32(w.B, v) }
func (w *Writer) U64(v uint64) { w.B = binary.BigEndian.AppendUint64(w.B, v) }
func (w *Writer) I16(v int16)  { w.U16(uint16(v)) }
func (w *Writer) I32(v int32)  { w.U32(uint32(v)) }
func (w *Writer) I64(v int64)  { w.U64(uint64(v)) }

// Bool writes 1 or 0.
func (w *Writer) Bool(v bool) {
	if v {
		w.U8(1)
	} else {
		w.U8(0)
	}
}

// Uvarint writes an unsigned LEB128 varint.
func (w *Writer) Uvarint(v uint64) { w.B = binary.AppendUvarint(w.B, v) }

// String writes uvarint(len) then the bytes.
func (w *Writer) String(s string) {
	w.Uvarint(uint64(len(s)))
	w.B = append(w.B, s...)
}

// Bytes writes a nullable byte slice: uvarint(len+1) then the bytes, with 0
// meaning nil, so nil and empty stay distinct.
func (w *Writer) Bytes(b []byte) {
	if b == nil {
		w.Uvarint(0)
		return
	}
	w.Uvarint(uint64(len(b)) + 1)
	w.B = append(w.B, b...)
}

// Raw appends bytes with no prefix (the length must be known to the reader).
func (w *Writer) Raw(b []byte) { w.B = append(w.B, b...) }

// Strings writes uvarint(count) then each string.
func (w *Writer) Strings(ss []string) { writeArray(w, ss, encodeString) }

func encodeString(s *string, w *Writer) { w.String(*s) }
func decodeString(s *string, r *Reader) { *s = r.String() }

// ArrayLen writes an element count.
func (w *Writer) ArrayLen(n int) { w.Uvarint(uint64(n)) }

// ErrShortBody and ErrTrailingBytes are the two structural decode failures.
var (
	ErrShortBody     = errors.New("message body too short")
	ErrTrailingBytes = errors.New("message body has trailing bytes")
)

// Reader decodes message-body primitives with a sticky error: after the
// first failure every call returns zero values, and Err reports the cause.
// Every length is checked against the bytes that remain before anything
// is allocated, so a hostile body cannot make the reader allocate more than
// its own size.
type Reader struct {
	b   []byte
	off int
	err error
}

// NewReader reads from b.
func NewReader(b []byte) *Reader { return &Reader{b: b} }

// Err returns the first decoding error.
func (r *Reader) Err() error { return r.err }

// Remaining is the number of unread bytes.
func (r *Reader) Remaining() int { return len(r.b) - r.off }

// Fail records a decoding error (the first one wins).
func (r *Reader) Fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

func (r *Reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b)-r.off {
		r.err = ErrShortBody
		return nil
	}
	s := r.b[r.off : r.off+n]
	r.off += n
	return s
}

func (r *Reader) U8() uint8 {
	if b := r.take(1); b != nil {
		return b[0]
	}
	return 0
}

func (r *Reader) U16() uint16 {
	if b := r.take(2); b != nil {
		return binary.BigEndian.Uint16(b)
	}
	return 0
}

func (r *Reader) U32() uint32 {
	if b := r.take(4); b != nil {
		return binary.BigEndian.Uint32(b)
	}
	return 0
}

func (r *Reader) U64() uint64 {
	if b := r.take(8); b != nil {
		return binary.BigEndian.Uint64(b)
	}
	return 0
}

func (r *Reader) I16() int16 { return int16(r.U16()) }
func (r *Reader) I32() int32 { return int32(r.U32()) }
func (r *Reader) I64() int64 { return int64(r.U64()) }

// Bool reads one byte; values other than 0 and 1 are an error.
func (r *Reader) Bool() bool {
	switch v := r.U8(); v {
	case 0:
		return false
	case 1:
		return true
	default:
		r.Fail(fmt.Errorf("bad bool byte 0x%02x", v))
		return false
	}
}

// Uvarint reads an unsigned varint of at most 10 bytes.
func (r *Reader) Uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		if n == 0 {
			r.err = ErrShortBody
		} else {
			r.err = errors.New("varint overflows 64 bits")
		}
		return 0
	}
	r.off += n
	return v
}

// length reads a uvarint length and checks it against what remains.
func (r *Reader) length() int {
	v := r.Uvarint()
	if r.err != nil {
		return 0
	}
	if v > uint64(r.Remaining()) || v > math.MaxInt32 {
		r.err = fmt.Errorf("length %d exceeds the %d bytes left: %w", v, r.Remaining(), ErrShortBody)
		return 0
	}
	return int(v)
}

// String reads a length-prefixed string.
func (r *Reader) String() string {
	n := r.length()
	return string(r.take(n))
}

// Bytes reads a nullable byte slice written by Writer.Bytes. The result
// aliases the body: copy it if it must outlive the frame buffer.
func (r *Reader) Bytes() []byte {
	v := r.Uvarint()
	if r.err != nil || v == 0 {
		return nil
	}
	v--
	if v > uint64(r.Remaining()) {
		r.err = fmt.Errorf("byte string of %d exceeds the %d bytes left: %w", v, r.Remaining(), ErrShortBody)
		return nil
	}
	b := r.take(int(v))
	if b == nil {
		return []byte{}
	}
	return b
}

// BytesCopy is Bytes with its own backing array.
func (r *Reader) BytesCopy() []byte {
	b := r.Bytes()
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}

// Raw reads n bytes with no prefix.
func (r *Reader) Raw(n int) []byte { return r.take(n) }

// Rest returns every unread byte.
func (r *Reader) Rest() []byte { return r.take(r.Remaining()) }

// ArrayLen reads an element count and bounds it by the remaining bytes
// divided by the smallest encoded element size, so a count can never
// allocate more than the body could fill.
func (r *Reader) ArrayLen(minElem int) int {
	v := r.Uvarint()
	if r.err != nil {
		return 0
	}
	if minElem < 1 {
		minElem = 1
	}
	if v > uint64(r.Remaining()/minElem) {
		r.err = fmt.Errorf("array of %d elements cannot fit in %d bytes: %w", v, r.Remaining(), ErrShortBody)
		return 0
	}
	return int(v)
}

// Strings reads a string array (nil when empty).
func (r *Reader) Strings() []string { return readArray(r, 1, decodeString) }

// Message is a request or response body.
type Message interface {
	Encode(w *Writer)
	Decode(r *Reader)
}

// Decode decodes body into m and requires that every byte was consumed.
func Decode(body []byte, m Message) error {
	r := NewReader(body)
	m.Decode(r)
	if r.err != nil {
		return fmt.Errorf("decode %T: %w", m, r.err)
	}
	if r.Remaining() != 0 {
		return fmt.Errorf("decode %T: %d %w", m, r.Remaining(), ErrTrailingBytes)
	}
	return nil
}

// Encode appends m's body to dst.
func Encode(dst []byte, m Message) []byte {
	w := Writer{B: dst}
	m.Encode(&w)
	return w.B
}

// writeArray writes an element count, then each element with enc.
func writeArray[T any](w *Writer, xs []T, enc func(*T, *Writer)) {
	w.ArrayLen(len(xs))
	for i := range xs {
		enc(&xs[i], w)
	}
}

// readArray reads what writeArray wrote. minElem is the smallest encoded
// size of one element, which bounds the count by the bytes left (see
// ArrayLen); an empty array decodes as nil.
func readArray[T any](r *Reader, minElem int, dec func(*T, *Reader)) []T {
	n := r.ArrayLen(minElem)
	if n == 0 {
		return nil
	}
	xs := make([]T, n)
	for i := range xs {
		dec(&xs[i], r)
	}
	return xs
}

// readArrayFrom reads what writeArray wrote into the free end of *buf and
// returns that part, its capacity clipped so an append to it cannot run
// into a neighbour's elements. The many small arrays of one reply
// (partitions of thousands of topics) then share a few backing arrays:
// when *buf is full, a new one at least twice as large is started and
// the old one is left to the slices already cut from it, so nothing is
// copied. dec may fill other buffers, not *buf. An empty array decodes as
// nil.
func readArrayFrom[T any](r *Reader, minElem int, buf *[]T, dec func(*T, *Reader)) []T {
	n := r.ArrayLen(minElem)
	if n == 0 {
		return nil
	}
	if cap(*buf)-len(*buf) < n {
		*buf = make([]T, 0, max(n, 2*cap(*buf), 64))
	}
	start := len(*buf)
	*buf = (*buf)[:start+n]
	xs := (*buf)[start : start+n : start+n]
	for i := range xs {
		dec(&xs[i], r)
	}
	return xs
}
