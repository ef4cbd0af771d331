package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// Compression of the records section of a batch (docs/PROTOCOL.md, "Record
// batches", "Compression"). Only the records section is compressed, as one
// block per batch; the 61-byte header always stays plain so the engine never
// decompresses.
//
//   - lz4: uint32 big-endian uncompressed length, then one LZ4 *block*
//     (the raw block format, not the LZ4 frame format: no magic, no block
//     checksums, no end mark). The explicit length lets a decoder check its
//     limit and allocate exactly once before decompressing.
//   - zstd: one or more standard zstd frames (RFC 8878). Our writer emits a
//     single frame with Frame_Content_Size, a 64 KiB window, no checksum and
//     level SpeedFastest; readers accept any valid frames.

// Codec is the compression codec of a batch, stored in bits 0-2 of the batch
// attributes.
type Codec int8

// The codecs. Values 1, 2, 5, 6 and 7 are reserved and make a batch invalid.
const (
	CodecNone Codec = 0
	CodecLZ4  Codec = 3
	CodecZstd Codec = 4
)

// String returns "none", "lz4", "zstd", or "codec(N)" for an invalid value.
func (c Codec) String() string {
	switch c {
	case CodecNone:
		return "none"
	case CodecLZ4:
		return "lz4"
	case CodecZstd:
		return "zstd"
	}
	return fmt.Sprintf("codec(%d)", int8(c))
}

// Valid reports whether c is one of CodecNone, CodecLZ4, CodecZstd.
func (c Codec) Valid() bool { return c == CodecNone || c == CodecLZ4 || c == CodecZstd }

// ParseCodec parses a codec name as used in configuration: "none", "lz4" or
// "zstd" (exact, lower case). Anything else is an error that names the value.
func ParseCodec(s string) (Codec, error) {
	switch s {
	case "none":
		return CodecNone, nil
	case "lz4":
		return CodecLZ4, nil
	case "zstd":
		return CodecZstd, nil
	}
	return CodecNone, fmt.Errorf("unknown compression codec %q (want none, lz4 or zstd)", s)
}

// batchLZ4MaxRatio bounds how far an LZ4 block can expand: every 255 bytes of
// output need at least one input byte, so a declared size beyond this ratio
// is a lie and is refused before allocating.
const batchLZ4MaxRatio = 256

// batchZstdMaxRatio bounds the first allocation for zstd output when the frame
// does not declare its size or declares an implausible one: a 4-byte RLE
// block header plus one byte can produce at most 128 KiB.
const batchZstdMaxRatio = 32 << 10

// batchZstdFullSlack: a failed decode whose output stopped less than this
// short of the buffer's capacity ran out of room (one 128 KiB block plus the
// decoder's over-allocation margin, doubled for safety).
const batchZstdFullSlack = 2 * (128<<10 + 64)

// batchZstdWindow is the encoder window (and the usual frame window).
const batchZstdWindow = 64 << 10

// batchLZ4CCompatMin: from this section size on, lz4 uses the reference
// implementation's algorithm (lz4.CompressorCCompat, like LZ4_compress_fast),
// which measured about 1.5-2x faster than lz4.Compressor on 32-256 KiB of
// 100-byte JSON-like records for a few percent less compression; smaller
// sections use lz4.Compressor, faster there. Both emit standard LZ4 blocks.
const batchLZ4CCompatMin = 16 << 10

var (
	batchLZ4Pool        = sync.Pool{New: func() any { return new(lz4.Compressor) }}
	batchLZ4CCompatPool = sync.Pool{New: func() any { return new(lz4.CompressorCCompat) }}

	batchZstdEncPool = sync.Pool{New: func() any {
		enc, err := zstd.NewWriter(nil,
			zstd.WithEncoderLevel(zstd.SpeedFastest),
			zstd.WithWindowSize(batchZstdWindow),
			zstd.WithEncoderConcurrency(1),
			zstd.WithZeroFrames(true),
			zstd.WithEncoderCRC(false),
			zstd.WithLowerEncoderMem(false),
		)
		if err != nil {
			// The options are constants; failing here is a programming error.
			panic("wire: zstd encoder options: " + err.Error())
		}
		return enc
	}}

	batchZstdDecPool = sync.Pool{New: func() any {
		dec, err := zstd.NewReader(nil,
			zstd.WithDecoderConcurrency(1),
			// The real, per-call limit is the capacity of the output
			// buffer (WithDecodeAllCapLimit); this is a backstop.
			zstd.WithDecoderMaxMemory(math.MaxInt32),
			zstd.WithDecodeAllCapLimit(true),
		)
		if err != nil {
			panic("wire: zstd decoder options: " + err.Error())
		}
		return dec
	}}
)

// batchCompress appends the compressed form of src to dst.
func batchCompress(dst, src []byte, codec Codec) ([]byte, error) {
	switch codec {
	case CodecNone:
		return append(dst, src...), nil
	case CodecLZ4:
		if uint64(len(src)) > math.MaxUint32 {
			return dst, fmt.Errorf("batch: lz4: records section of %d bytes is too large", len(src))
		}
		bound := lz4.CompressBlockBound(len(src))
		start := len(dst)
		dst = batchGrow(dst, 4+bound)
		binary.BigEndian.PutUint32(dst[start:], uint32(len(src)))
		var n int
		var err error
		if len(src) >= batchLZ4CCompatMin {
			c := batchLZ4CCompatPool.Get().(*lz4.CompressorCCompat)
			n, err = c.CompressBlock(src, dst[start+4:start+4+bound])
			batchLZ4CCompatPool.Put(c)
		} else {
			c := batchLZ4Pool.Get().(*lz4.Compressor)
			n, err = c.CompressBlock(src, dst[start+4:start+4+bound])
			batchLZ4Pool.Put(c)
		}
		if err != nil {
			return dst[:start], fmt.Errorf("batch: lz4 compress: %w", err)
		}
		if n == 0 && len(src) > 0 {
			// Cannot happen with a CompressBlockBound-sized destination.
			return dst[:start], errors.New("batch: lz4 compress: no output")
		}
		return dst[:start+4+n], nil
	case CodecZstd:
		enc := batchZstdEncPool.Get().(*zstd.Encoder)
		dst = enc.EncodeAll(src, dst)
		batchZstdEncPool.Put(enc)
		return dst, nil
	}
	return dst, fmt.Errorf("batch: cannot compress with invalid %v", codec)
}

// batchGrow extends b by n bytes (contents of the new bytes unspecified).
func batchGrow(b []byte, n int) []byte {
	if cap(b)-len(b) < n {
		nb := make([]byte, len(b), 2*cap(b)+n)
		copy(nb, b)
		b = nb
	}
	return b[:len(b)+n]
}

// batchDecompress decompresses the records section src of a batch compressed
// with codec into a newly allocated buffer of at most limit bytes. It never
// allocates more than limit bytes (plus a small constant) for output, whatever
// the input claims.
func batchDecompress(src []byte, codec Codec, limit int) ([]byte, error) {
	switch codec {
	case CodecLZ4:
		return batchDecompressLZ4(src, limit)
	case CodecZstd:
		return batchDecompressZstd(src, limit)
	}
	return nil, fmt.Errorf("batch: cannot decompress invalid %v", codec)
}

func batchDecompressLZ4(src []byte, limit int) ([]byte, error) {
	if len(src) < 4 {
		return nil, fmt.Errorf("%w: lz4 records section of %d bytes has no length prefix", ErrBatchCorrupt, len(src))
	}
	size := uint64(binary.BigEndian.Uint32(src))
	block := src[4:]
	if size > uint64(limit) {
		return nil, fmt.Errorf("%w: lz4 records section declares %d bytes, limit %d", ErrBatchTooLarge, size, limit)
	}
	if size > uint64(len(block))*batchLZ4MaxRatio {
		return nil, fmt.Errorf("%w: lz4 records section declares %d bytes from a %d-byte block", ErrBatchCorrupt, size, len(block))
	}
	out := make([]byte, size)
	if size == 0 {
		// An empty input compresses to the single token byte 0x00; an
		// empty block is accepted too.
		if len(block) > 1 || len(block) == 1 && block[0] != 0 {
			return nil, fmt.Errorf("%w: lz4 block of %d bytes for empty records section", ErrBatchCorrupt, len(block))
		}
		return out, nil
	}
	n, err := lz4.UncompressBlock(block, out)
	if err != nil {
		return nil, fmt.Errorf("%w: lz4 decompress (declared %d bytes): %v", ErrBatchCorrupt, size, err)
	}
	if uint64(n) != size {
		return nil, fmt.Errorf("%w: lz4 records section declares %d bytes, block holds %d", ErrBatchCorrupt, size, n)
	}
	return out, nil
}

func batchDecompressZstd(src []byte, limit int) ([]byte, error) {
	// Size the output from the first frame's declared content size when it
	// has one. A declared size above the limit is refused outright, one no
	// zstd block could expand to is a lie.
	guess := uint64(len(src)) * 4
	var h zstd.Header
	if err := h.Decode(src); err == nil && h.HasFCS {
		if h.FrameContentSize > uint64(limit) {
			return nil, fmt.Errorf("%w: zstd frame declares %d bytes, limit %d", ErrBatchTooLarge, h.FrameContentSize, limit)
		}
		if h.FrameContentSize > uint64(len(src))*batchZstdMaxRatio {
			return nil, fmt.Errorf("%w: zstd frame declares %d bytes from %d compressed", ErrBatchCorrupt, h.FrameContentSize, len(src))
		}
		guess = h.FrameContentSize
	}
	guess = min(guess, uint64(len(src))*batchZstdMaxRatio, uint64(limit))
	guess = max(guess, min(uint64(limit), 512))

	dec := batchZstdDecPool.Get().(*zstd.Decoder)
	defer batchZstdDecPool.Put(dec)
	for {
		// WithDecodeAllCapLimit: the decoder stops at cap(out) give or
		// take one block (it may grow the buffer by one block before it
		// notices), so one attempt allocates at most about 2x guess + 128
		// KiB. Frames with a size (ours, libzstd's one-shot API) take one
		// attempt with an exact buffer; size-less ones double from a guess,
		// so a refused bomb costs a few times the limit in total, never
		// more, whatever it would expand to.
		out, err := dec.DecodeAll(src, make([]byte, 0, guess))
		if err == nil {
			return out, nil
		}
		// Running out of room shows as ErrDecoderSizeExceeded or, inside a
		// block, as a generic "output bigger than max block size" with the
		// completed blocks (less than one block short of the cap) returned.
		full := errors.Is(err, zstd.ErrDecoderSizeExceeded) ||
			uint64(len(out))+batchZstdFullSlack >= guess
		if !full {
			return nil, fmt.Errorf("%w: zstd decompress: %v", ErrBatchCorrupt, err)
		}
		if guess >= uint64(limit) {
			return nil, fmt.Errorf("%w: zstd records section decompresses to more than %d bytes", ErrBatchTooLarge, limit)
		}
		// A frame without a size, several frames, or a lying size: retry
		// with twice the room, never beyond the limit.
		guess = min(guess*2, uint64(limit))
	}
}
