package wire

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

func TestHeaderIs25Bytes(t *testing.T) {
	f := AppendFrame(nil, Header{Code: CodePing, Corr: 7}, nil)
	if len(f) != 25 { // spec: W-01
		t.Fatalf("empty frame is %d bytes, want 25", len(f))
	}
	if HeaderSize != 25 { // spec: W-01
		t.Fatalf("HeaderSize = %d", HeaderSize)
	}
}

func TestFrameRoundTrip(t *testing.T) {
	req := &PutRequest{Queue: "Q.ORDERS", MsgID: bytes.Repeat([]byte{1}, MsgIDLen), Payload: []byte("hello")}
	var stream []byte
	stream = AppendFrame(stream, Header{Code: CodePut, Corr: 1, TimeoutMs: 250}, req.Encode)
	stream = AppendFrame(stream, Header{Code: CodeGet, Corr: 2, Flags: FlagNoReply}, (&GetRequest{Queue: "Q"}).Encode)
	fr := NewFrameReader(bytes.NewReader(stream), DefaultMaxFrame)

	h, body, err := fr.Next()
	if err != nil {
		t.Fatal(err)
	}
	if h.Code != CodePut || h.Corr != 1 || h.TimeoutMs != 250 || h.IsResponse() {
		t.Fatalf("header %+v", h)
	}
	var got PutRequest
	if err := Decode(body, &got); err != nil {
		t.Fatal(err)
	}
	if got.Queue != req.Queue || !bytes.Equal(got.MsgID, req.MsgID) || string(got.Payload) != "hello" {
		t.Fatalf("decoded %+v", got)
	}
	h, _, err = fr.Next()
	if err != nil || h.Corr != 2 || h.Flags&FlagNoReply == 0 {
		t.Fatalf("second frame %+v %v", h, err)
	}
	if _, _, err := fr.Next(); err != io.EOF {
		t.Fatalf("want EOF, got %v", err)
	}
}

func TestFrameReaderRefusesOversize(t *testing.T) {
	var hdr [HeaderSize]byte
	PutHeader(hdr[:], Header{Length: MinMaxFrame + 1, Code: CodePut})
	fr := NewFrameReader(bytes.NewReader(hdr[:]), MinMaxFrame)
	_, _, err := fr.Next()
	var big *FrameTooLargeError
	if !errors.As(err, &big) || big.Length != MinMaxFrame+1 {
		t.Fatalf("want FrameTooLargeError, got %v", err)
	}
	// The hard limit holds even when no cap is configured.
	PutHeader(hdr[:], Header{Length: HardMaxFrame + 1})
	fr = NewFrameReader(bytes.NewReader(hdr[:]), 0)
	if _, _, err := fr.Next(); !errors.As(err, &big) {
		t.Fatalf("frame above 999,999,999 accepted: %v", err)
	}
}

func TestFrameCapRange(t *testing.T) {
	if DefaultMaxFrame != 134217728 { // spec: W-04, W-05
		t.Fatalf("default cap %d", DefaultMaxFrame)
	}
	for _, n := range []int{1048576, 999999999, DefaultMaxFrame} {
		if err := ValidateMaxFrame(n); err != nil { // spec: W-07
			t.Errorf("%d refused: %v", n, err)
		}
	}
	for _, n := range []int{1048575, 1000000000, 0, -1} {
		if err := ValidateMaxFrame(n); err == nil { // spec: W-07
			t.Errorf("%d accepted", n)
		}
	}
}

func TestParseHeaderRejectsGarbage(t *testing.T) {
	cases := map[string][]byte{
		"short":    make([]byte, 10),
		"magic":    []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"),
		"version":  func() []byte { b := AppendFrame(nil, Header{}, nil); b[6] = 9; return b }(),
		"length":   func() []byte { b := AppendFrame(nil, Header{}, nil); b[3] = 3; return b }(),
		"reserved": func() []byte { b := AppendFrame(nil, Header{}, nil); b[24] = 1; return b }(),
	}
	for bit := 3; bit < 8; bit++ {
		cases[fmt.Sprintf("flag bit %d", bit)] = func() []byte { b := AppendFrame(nil, Header{}, nil); b[7] = 1 << bit; return b }()
	}
	for name, b := range cases {
		if _, err := ParseHeader(b); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// The three defined flags parse, alone and together.
	for _, f := range []Flags{0, FlagResponse, FlagError, FlagNoReply, FlagResponse | FlagError | FlagNoReply} {
		if h, err := ParseHeader(AppendFrame(nil, Header{Flags: f}, nil)); err != nil || h.Flags != f {
			t.Errorf("flags %03b: %v (parsed %03b)", f, err, h.Flags)
		}
	}
	_, err := ParseHeader([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
	if err == nil || !strings.Contains(err.Error(), "not an iLink peer") {
		t.Errorf("HTTP bytes: %v", err)
	}
}

func TestTruncatedBody(t *testing.T) {
	f := AppendFrame(nil, Header{Code: CodePut}, (&QueueRequest{Queue: "ABCDEFG"}).Encode)
	fr := NewFrameReader(bytes.NewReader(f[:len(f)-2]), DefaultMaxFrame)
	if _, _, err := fr.Next(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("want unexpected EOF, got %v", err)
	}
}

func TestCodeNames(t *testing.T) {
	// spec: W-11
	want := map[Code]uint16{
		CodeShutdown: 3002, CodeViewLoad: 3204, CodeReloadQueue: 3315, CodePatch: 3335,
		CodeDiagCluster: 3395, CodeTopicLeave: 3401, CodeViewClusterLeaders: 3423,
		CodeViewQuarantine: 3425, CodeScanQuarantine: 3426, CodeReinject: 3427,
	}
	for c, n := range want {
		if uint16(c) != n {
			t.Errorf("%v = %d, want %d", c, uint16(c), n)
		}
	}
	if CodeTopicLeave.String() != "MIMQ_TOPIC_LEAVE(3401)" {
		t.Errorf("name %q", CodeTopicLeave.String())
	}
}

func TestFrameReaderDoesNotTrustAnnouncedLength(t *testing.T) {
	// A header announcing 100 MiB followed by 10 bytes must fail without the
	// reader allocating the announced size.
	var hdr [HeaderSize]byte
	PutHeader(hdr[:], Header{Length: 100 << 20, Code: CodePut})
	stream := append(hdr[:], make([]byte, 10)...)
	fr := NewFrameReader(bytes.NewReader(stream), DefaultMaxFrame)
	if _, _, err := fr.Next(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("want unexpected EOF, got %v", err)
	}
	if cap(fr.buf) > 1<<20 {
		t.Fatalf("reader allocated %d bytes for a 10-byte body", cap(fr.buf))
	}
}

func TestFrameReaderLargeBody(t *testing.T) {
	body := bytes.Repeat([]byte("0123456789"), 50_000) // 500 kB: several growth steps
	f := AppendFrame(nil, Header{Code: CodePut}, func(w *Writer) { w.Raw(body) })
	f = AppendFrame(f, Header{Code: CodePing}, nil)
	fr := NewFrameReader(bytes.NewReader(f), DefaultMaxFrame)
	_, got, err := fr.Next()
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("large body: err %v, equal %v", err, bytes.Equal(got, body))
	}
	if h, _, err := fr.Next(); err != nil || h.Code != CodePing {
		t.Fatalf("next frame after a large one: %+v %v", h, err)
	}
}

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += n
	return n, err
}

// A per-frame limit refuses a frame from its header: not one body byte is
// read. Frames within it, and a limit above the reader's max, change
// nothing.
func TestFrameReaderLimitRefusesFromHeader(t *testing.T) {
	limit := func(h Header) int {
		if h.Code == CodeHello {
			return MaxHandshakeFrame
		}
		return 0 // no limit of its own: the reader's max
	}
	small := AppendFrame(nil, Header{Code: CodeHello, Corr: 1}, func(w *Writer) { w.Raw(make([]byte, MaxHandshakeFrame-HeaderSize)) })
	big := AppendFrame(nil, Header{Code: CodePut, Corr: 2}, func(w *Writer) { w.Raw(make([]byte, 64<<10)) })
	over := AppendFrame(nil, Header{Code: CodeHello, Corr: 3}, func(w *Writer) { w.Raw(make([]byte, MaxHandshakeFrame-HeaderSize+1)) })
	stream := append(append(append([]byte{}, small...), big...), over...)
	cr := &countingReader{r: bytes.NewReader(stream)}
	fr := NewFrameReader(cr, MinMaxFrame)
	fr.SetLimit(limit)
	for _, want := range []Code{CodeHello, CodePut} {
		if h, _, err := fr.Next(); err != nil || h.Code != want {
			t.Fatalf("frame within the limit: %+v %v", h, err)
		}
	}
	_, _, err := fr.Next()
	var tl *FrameTooLargeError
	if !errors.As(err, &tl) || tl.Max != MaxHandshakeFrame || tl.Code != CodeHello || int(tl.Length) != len(over) {
		t.Fatalf("HELLO over the limit: %v (%+v)", err, tl)
	}
	if want := len(small) + len(big) + HeaderSize; cr.n != want {
		t.Fatalf("read %d bytes, want %d: the refused frame's body was read", cr.n, want)
	}

	// A limit never raises the reader's max.
	fr = NewFrameReader(bytes.NewReader(big), MaxHandshakeFrame)
	fr.SetLimit(func(Header) int { return HardMaxFrame })
	if _, _, err := fr.Next(); !errors.As(err, &tl) || tl.Max != MaxHandshakeFrame {
		t.Fatalf("limit above max: %v", err)
	}
}

// HELLO strings are bounded, each named as docs/PROTOCOL.md names it, and
// a HELLO with every string at the bound fits in a handshake frame.
func TestHelloStringBounds(t *testing.T) {
	at, over := strings.Repeat("n", MaxHelloString), strings.Repeat("n", MaxHelloString+1)
	max := HelloRequest{ClientName: at, ClientVersion: at, QueueManager: at, Mode: ModeAdmin}
	if err := max.CheckStrings(); err != nil {
		t.Fatalf("strings at the bound: %v", err)
	}
	if n := len(AppendFrame(nil, Header{Code: CodeHello}, max.Encode)); n > MaxHandshakeFrame || n != 801 {
		t.Fatalf("maximal HELLO frame is %d bytes (MaxHandshakeFrame %d; the doc says 801)", n, MaxHandshakeFrame)
	}
	for _, tc := range []struct {
		req  HelloRequest
		want string
	}{
		{HelloRequest{ClientName: over}, "client_name is 257 bytes; at most 256"},
		{HelloRequest{ClientVersion: over + "xx"}, "client_version is 259 bytes; at most 256"},
		{HelloRequest{ClientName: at, QueueManager: over}, "queue_manager is 257 bytes; at most 256"},
	} {
		if err := tc.req.CheckStrings(); err == nil || err.Error() != tc.want {
			t.Errorf("CheckStrings: %v, want %q", err, tc.want)
		}
	}
}
