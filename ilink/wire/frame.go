// Package wire is ilinkdash's byte layout of the iLink protocol: frames,
// message bodies, error bodies and record batches. iLink's real layout is
// not public; docs/PROTOCOL.md is the normative description of this one, and
// everything that touches bytes lives here so another codec could replace it.
package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Frame sizes. The 25-byte header and the caps are documented iLink facts;
// the layout of the header is ours (docs/PROTOCOL.md §2).
const (
	HeaderSize      = 25
	DefaultMaxFrame = 128 << 20   // Runtime@MaxFrameLength default, client and engine
	MinMaxFrame     = 1 << 20     // smallest settable cap
	HardMaxFrame    = 999_999_999 // absolute wire limit
	Magic           = 0x494C      // "IL"
	ProtocolVersion = 1

	// MaxHandshakeFrame (ours) bounds every frame an engine reads before
	// the connection's HELLO opened a session, and a HELLO or PING at any
	// time: a HELLO whose strings are at their bound (MaxHelloString) is
	// 801 bytes. A frame over it is refused from its header, so a client
	// that has not said HELLO cannot make the engine hold more than this
	// for it (docs/PROTOCOL.md §2).
	MaxHandshakeFrame = 4 << 10
)

// Flags travel in header byte 7.
type Flags uint8

const (
	// FlagResponse marks a frame sent by the engine in answer to a request.
	FlagResponse Flags = 1 << 0
	// FlagError marks a response whose body is an ErrorBody.
	FlagError Flags = 1 << 1
	// FlagNoReply marks a request the engine must not answer (acks=0 produce).
	FlagNoReply Flags = 1 << 2

	// knownFlags are the bits a header may set; bits 3–7 make it malformed,
	// like non-zero reserved bytes (docs/PROTOCOL.md §2).
	knownFlags = FlagResponse | FlagError | FlagNoReply
)

// Header is the decoded 25-byte frame header.
//
//	off len field
//	0   4   Length    total frame length, header included, big-endian
//	4   2   Magic     0x49 0x4C ("IL")
//	6   1   Version   1
//	7   1   Flags
//	8   2   Code      request code (responses echo it)
//	10  4   Corr      correlation id chosen by the requester
//	14  2   Status    REPORT code of an error response, else 0
//	16  4   TimeoutMs how long the engine may hold the request (long polls)
//	20  5   reserved  zero
type Header struct {
	Length    uint32
	Version   uint8
	Flags     Flags
	Code      Code
	Corr      uint32
	Status    uint16
	TimeoutMs uint32
}

// BodyLen is the number of body bytes that follow the header.
func (h Header) BodyLen() int { return int(h.Length) - HeaderSize }

// IsResponse reports whether the frame answers a request.
func (h Header) IsResponse() bool { return h.Flags&FlagResponse != 0 }

// IsError reports whether the frame carries an ErrorBody.
func (h Header) IsError() bool { return h.Flags&FlagError != 0 }

// PutHeader writes h into b[0:HeaderSize].
func PutHeader(b []byte, h Header) {
	_ = b[HeaderSize-1]
	binary.BigEndian.PutUint32(b[0:], h.Length)
	binary.BigEndian.PutUint16(b[4:], Magic)
	b[6] = ProtocolVersion
	b[7] = byte(h.Flags)
	binary.BigEndian.PutUint16(b[8:], uint16(h.Code))
	binary.BigEndian.PutUint32(b[10:], h.Corr)
	binary.BigEndian.PutUint16(b[14:], h.Status)
	binary.BigEndian.PutUint32(b[16:], h.TimeoutMs)
	clear(b[20:25])
}

// ParseHeader decodes and checks a header. It does not check the length
// against a cap: that is the reader's job, because the cap is per peer.
func ParseHeader(b []byte) (Header, error) {
	if len(b) < HeaderSize {
		return Header{}, fmt.Errorf("frame header: %d bytes, need %d", len(b), HeaderSize)
	}
	if m := binary.BigEndian.Uint16(b[4:]); m != Magic {
		return Header{}, fmt.Errorf("frame header: bad magic 0x%04x (want 0x%04x): not an iLink peer", m, Magic)
	}
	h := Header{
		Length:    binary.BigEndian.Uint32(b[0:]),
		Version:   b[6],
		Flags:     Flags(b[7]),
		Code:      Code(binary.BigEndian.Uint16(b[8:])),
		Corr:      binary.BigEndian.Uint32(b[10:]),
		Status:    binary.BigEndian.Uint16(b[14:]),
		TimeoutMs: binary.BigEndian.Uint32(b[16:]),
	}
	if h.Version != ProtocolVersion {
		return Header{}, fmt.Errorf("frame header: unsupported version %d (want %d)", h.Version, ProtocolVersion)
	}
	if h.Length < HeaderSize {
		return Header{}, fmt.Errorf("frame header: length %d shorter than the header", h.Length)
	}
	if f := h.Flags &^ knownFlags; f != 0 {
		return Header{}, fmt.Errorf("frame header: unknown flag bits 0x%02x", uint8(f))
	}
	for _, r := range b[20:25] {
		if r != 0 {
			return Header{}, errors.New("frame header: reserved bytes are not zero")
		}
	}
	return h, nil
}

// FrameTooLargeError is returned by the frame reader when a peer announces a
// frame above the reader's cap. The engine answers it by dropping the
// connection without a reply, as the real engine does.
type FrameTooLargeError struct {
	Length uint32
	Max    int  // the cap that applied to this frame
	Code   Code // the request code of the refused header
}

func (e *FrameTooLargeError) Error() string {
	return fmt.Sprintf("frame of %d bytes exceeds the cap of %d bytes", e.Length, e.Max)
}

// ValidateMaxFrame checks a configured frame cap against the settable range.
func ValidateMaxFrame(n int) error {
	if n < MinMaxFrame || n > HardMaxFrame {
		return fmt.Errorf("max frame length %d out of range %d..%d", n, MinMaxFrame, HardMaxFrame)
	}
	return nil
}

// FrameReader reads frames from a stream, reusing one body buffer.
// The body returned by Next is valid until the next call.
type FrameReader struct {
	r     io.Reader
	max   int
	limit func(Header) int // per-frame cap, or nil (SetLimit)
	hdr   [HeaderSize]byte
	buf   []byte
}

// NewFrameReader returns a reader that refuses frames above max bytes
// (max is clamped to HardMaxFrame).
func NewFrameReader(r io.Reader, max int) *FrameReader {
	if max <= 0 || max > HardMaxFrame {
		max = HardMaxFrame
	}
	return &FrameReader{r: r, max: max}
}

// SetMax changes the cap for the next frames.
func (fr *FrameReader) SetMax(max int) {
	if max <= 0 || max > HardMaxFrame {
		max = HardMaxFrame
	}
	fr.max = max
}

// SetLimit makes the reader ask limit, once a frame's header has been read,
// for that frame's own cap: the lower of it and the reader's max applies,
// and a frame above it fails Next with a *FrameTooLargeError before a byte
// of its body is read. limit runs on the goroutine that calls Next. nil
// removes it.
func (fr *FrameReader) SetLimit(limit func(Header) int) { fr.limit = limit }

// Next reads one frame. Any error leaves the stream unusable: the caller
// must close the connection.
func (fr *FrameReader) Next() (Header, []byte, error) {
	if _, err := io.ReadFull(fr.r, fr.hdr[:]); err != nil {
		return Header{}, nil, err
	}
	h, err := ParseHeader(fr.hdr[:])
	if err != nil {
		return Header{}, nil, err
	}
	max := fr.max
	if fr.limit != nil {
		if l := fr.limit(h); l > 0 && l < max {
			max = l
		}
	}
	if int64(h.Length) > int64(max) {
		return h, nil, &FrameTooLargeError{Length: h.Length, Max: max, Code: h.Code}
	}
	n := h.BodyLen()
	body, err := fr.readBody(n)
	if err != nil {
		return h, nil, err
	}
	return h, body, nil
}

// readBody reads n body bytes. The buffer grows as bytes actually arrive
// (doubling from 64 KiB), so a peer that announces a large frame and sends
// nothing cannot make the reader allocate the announced size up front.
func (fr *FrameReader) readBody(n int) ([]byte, error) {
	// Do not keep a huge buffer around after one large frame.
	if cap(fr.buf) > 4<<20 && n < 64<<10 {
		fr.buf = nil
	}
	if cap(fr.buf) >= n {
		body := fr.buf[:n]
		if _, err := io.ReadFull(fr.r, body); err != nil {
			return nil, unexpected(err)
		}
		return body, nil
	}
	size := max(cap(fr.buf), 64<<10)
	buf := fr.buf[:0]
	for len(buf) < n {
		if len(buf) == cap(buf) {
			size = min(max(size, 2*cap(buf)), n)
			grown := make([]byte, len(buf), size)
			copy(grown, buf)
			buf = grown
		}
		chunk := buf[len(buf):min(cap(buf), n)]
		if _, err := io.ReadFull(fr.r, chunk); err != nil {
			return nil, unexpected(err)
		}
		buf = buf[:len(buf)+len(chunk)]
	}
	fr.buf = buf
	return buf, nil
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// AppendFrame appends a whole frame (header + body produced by enc) to dst.
// The header's Length is computed here.
func AppendFrame(dst []byte, h Header, enc func(*Writer)) []byte {
	start := len(dst)
	dst = append(dst, make([]byte, HeaderSize)...)
	w := Writer{B: dst}
	if enc != nil {
		enc(&w)
	}
	dst = w.B
	h.Length = uint32(len(dst) - start)
	PutHeader(dst[start:], h)
	return dst
}

// FrameLen returns the length a frame would have with the given body size.
func FrameLen(bodyLen int) int { return HeaderSize + bodyLen }
