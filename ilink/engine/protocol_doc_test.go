package engine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"testing"
	"time"

	"ilinkdash/ilink/wire"
)

// The tests of this file pin docs/PROTOCOL.md at the byte level: frames
// are built and replies parsed by hand, following the document, without
// package wire's encoders and decoders (only its constants), so that they
// fail when the engine and the document part ways.

// docConn is a connection driven byte by byte.
type docConn struct {
	t    testing.TB
	nc   net.Conn
	corr uint32
}

func dialDoc(t testing.TB, addr string) *docConn {
	t.Helper()
	nc := dialTest(t, addr)
	return &docConn{t: t, nc: nc}
}

// docFrame builds a request frame as §2 describes it.
func docFrame(code uint16, corr uint32, flags byte, status uint16, timeoutMs uint32, body []byte) []byte {
	b := make([]byte, 25, 25+len(body))
	binary.BigEndian.PutUint32(b[0:], uint32(25+len(body)))
	b[4], b[5], b[6], b[7] = 0x49, 0x4C, 1, flags
	binary.BigEndian.PutUint16(b[8:], code)
	binary.BigEndian.PutUint32(b[10:], corr)
	binary.BigEndian.PutUint16(b[14:], status)
	binary.BigEndian.PutUint32(b[16:], timeoutMs)
	return append(b, body...)
}

func (c *docConn) write(b []byte) {
	c.t.Helper()
	c.nc.SetWriteDeadline(time.Now().Add(ioTimeout))
	if _, err := c.nc.Write(b); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// send writes a request with the next correlation id and returns it.
func (c *docConn) send(code wire.Code, flags byte, timeoutMs uint32, body []byte) uint32 {
	c.t.Helper()
	c.corr++
	c.write(docFrame(uint16(code), c.corr, flags, 0, timeoutMs, body))
	return c.corr
}

// docReply is a reply frame split by hand.
type docReply struct {
	hdr  [25]byte
	body []byte
}

func (r docReply) flags() byte    { return r.hdr[7] }
func (r docReply) code() uint16   { return binary.BigEndian.Uint16(r.hdr[8:]) }
func (r docReply) corr() uint32   { return binary.BigEndian.Uint32(r.hdr[10:]) }
func (r docReply) status() uint16 { return binary.BigEndian.Uint16(r.hdr[14:]) }

func (c *docConn) next() docReply {
	c.t.Helper()
	c.nc.SetReadDeadline(time.Now().Add(ioTimeout))
	var r docReply
	if _, err := io.ReadFull(c.nc, r.hdr[:]); err != nil {
		c.t.Fatalf("read header: %v", err)
	}
	n := binary.BigEndian.Uint32(r.hdr[0:])
	if n < 25 || r.hdr[4] != 0x49 || r.hdr[5] != 0x4C || r.hdr[6] != 1 || !bytes.Equal(r.hdr[20:25], make([]byte, 5)) {
		c.t.Fatalf("reply header % x breaks §2", r.hdr)
	}
	r.body = make([]byte, n-25)
	if _, err := io.ReadFull(c.nc, r.body); err != nil {
		c.t.Fatalf("read body: %v", err)
	}
	return r
}

// call sends a request and reads its reply, which must echo code and corr
// with the Response flag (and no bit other than Response and Error).
func (c *docConn) call(code wire.Code, timeoutMs uint32, body []byte) docReply {
	c.t.Helper()
	corr := c.send(code, 0, timeoutMs, body)
	r := c.next()
	if r.corr() != corr || r.code() != uint16(code) || r.flags()&^0x02 != 0x01 {
		c.t.Fatalf("reply to %v corr %d: header % x", code, corr, r.hdr)
	}
	return r
}

// ok is call for a request that must succeed.
func (c *docConn) ok(code wire.Code, timeoutMs uint32, body []byte) []byte {
	c.t.Helper()
	r := c.call(code, timeoutMs, body)
	if r.flags() != 0x01 || r.status() != 0 {
		name, tail, _ := docError(c.t, r.body)
		c.t.Fatalf("%v: refused %s (%s)", code, name, tail)
	}
	return r.body
}

// refused is call for a request that must be refused with name; it
// returns the tail and the hint.
func (c *docConn) refused(code wire.Code, body []byte, name string) (tail, hint string) {
	c.t.Helper()
	r := c.call(code, 0, body)
	if r.flags() != 0x03 {
		c.t.Fatalf("%v: flags %02x, want Response|Error (03)", code, r.flags())
	}
	got, tail, hint := docError(c.t, r.body)
	if got != name {
		c.t.Fatalf("%v: refused %s (%s), want %s", code, got, tail, name)
	}
	return tail, hint
}

// expectClosed asserts the engine closes without sending a byte.
func (c *docConn) expectClosed(what string) {
	c.t.Helper()
	c.nc.SetReadDeadline(time.Now().Add(ioTimeout))
	var b [1]byte
	n, err := c.nc.Read(b[:])
	switch {
	case n != 0 || err == nil:
		c.t.Fatalf("%s: read %d bytes; want the connection closed without a reply", what, n)
	case errors.Is(err, os.ErrDeadlineExceeded):
		c.t.Fatalf("%s: connection still open", what)
	}
}

// docError parses a §4 error body.
func docError(t testing.TB, body []byte) (name, tail, hint string) {
	t.Helper()
	d := &docReader{t: t, b: body}
	name, tail, hint = d.str(), d.str(), d.str()
	d.end()
	return
}

// docBody appends §3 primitives.
type docBody []byte

func (b docBody) u8(v uint8) docBody   { return append(b, v) }
func (b docBody) i32(v int32) docBody  { return binary.BigEndian.AppendUint32(b, uint32(v)) }
func (b docBody) i64(v int64) docBody  { return binary.BigEndian.AppendUint64(b, uint64(v)) }
func (b docBody) uv(v uint64) docBody  { return binary.AppendUvarint(b, v) }
func (b docBody) str(s string) docBody { return append(b.uv(uint64(len(s))), s...) }

// bytesField is §3 `bytes`: nil is 0, else length+1 then the bytes.
func (b docBody) bytesField(v []byte) docBody {
	if v == nil {
		return b.uv(0)
	}
	return append(b.uv(uint64(len(v))+1), v...)
}

func helloBody(mode wire.SessionMode) docBody {
	return docBody{}.str("doc-client").str("0").u8(uint8(mode)).u8(2).str("")
}

// docReader reads §3 primitives (and the zigzag varint of §11.1).
type docReader struct {
	t testing.TB
	b []byte
}

func (d *docReader) take(n int) []byte {
	d.t.Helper()
	if len(d.b) < n {
		d.t.Fatalf("body ends %d bytes early", n-len(d.b))
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}

func (d *docReader) u8() uint8   { return d.take(1)[0] }
func (d *docReader) u16() uint16 { return binary.BigEndian.Uint16(d.take(2)) }
func (d *docReader) i32() int32  { return int32(binary.BigEndian.Uint32(d.take(4))) }
func (d *docReader) i64() int64  { return int64(binary.BigEndian.Uint64(d.take(8))) }

func (d *docReader) uv() uint64 {
	d.t.Helper()
	return takeVarint(d, "uvarint", binary.Uvarint)
}

func (d *docReader) zigzag() int64 {
	d.t.Helper()
	return takeVarint(d, "varint", binary.Varint)
}

// takeVarint takes one varint of the kind read decodes.
func takeVarint[T uint64 | int64](d *docReader, kind string, read func([]byte) (T, int)) T {
	d.t.Helper()
	v, n := read(d.b)
	if n <= 0 {
		d.t.Fatalf("bad %s at % x", kind, d.b)
	}
	d.b = d.b[n:]
	return v
}

func (d *docReader) str() string { return string(d.take(int(d.uv()))) }

func (d *docReader) boolean() bool {
	d.t.Helper()
	switch v := d.u8(); v {
	case 0, 1:
		return v == 1
	default:
		d.t.Fatalf("bool byte %d", v)
		return false
	}
}

func (d *docReader) end() {
	d.t.Helper()
	if len(d.b) != 0 {
		d.t.Fatalf("%d bytes left after the last field: % x", len(d.b), d.b)
	}
}

// ---- §1, §2, §6: the connection before and after HELLO ----

func TestProtocolBeforeAndAfterHello(t *testing.T) {
	t.Parallel()
	e := startEngine(t, Config{Nodes: 1})
	for _, tc := range []struct {
		addr string
		mode wire.SessionMode
	}{{e.DataAddrs()[0], wire.ModeProducer}, {e.AdminAddrs()[0], wire.ModeAdmin}} {
		c := dialDoc(t, tc.addr)
		// PING before HELLO: the 25-byte reply, byte for byte.
		corr := c.send(wire.CodePing, 0, 0, nil)
		want := docFrame(uint16(wire.CodePing), corr, 0x01, 0, 0, nil)
		if r := c.next(); !bytes.Equal(append(r.hdr[:], r.body...), want) { // spec: W-01
			t.Fatalf("PING reply % x, want % x", append(r.hdr[:], r.body...), want)
		}
		// Every other known request is refused, whatever its mode rule,
		// and the connection stays open.
		for _, code := range []wire.Code{wire.CodeGet, wire.CodeMetadata, wire.CodeFetch, wire.CodeNodeList, wire.CodeGroupList} {
			tail, hint := c.refused(code, nil, wire.ErrSessionMode)
			if tail != code.String()+" before HELLO" || hint != "" {
				t.Fatalf("%v before HELLO: tail %q hint %q", code, tail, hint)
			}
		}
		// An unknown code is MIMQE_INVALID_REQ_CODE before HELLO too.
		if tail, _ := c.refused(4242, nil, wire.ErrInvalidReqCode); tail != "request code 4242" { // spec: W-12
			t.Fatalf("unknown code: tail %q", tail)
		}
		// HELLO still opens the session on the same connection.
		d := &docReader{t: t, b: c.ok(wire.CodeHello, 0, helloBody(tc.mode))}
		if id := d.u16(); id != 1 {
			t.Fatalf("HELLO reply node %d", id)
		}
		// A second HELLO is refused, the connection and its mode stay.
		if tail, _ := c.refused(wire.CodeHello, helloBody(wire.ModeConsumer), wire.ErrSessionMode); tail != "session already open" {
			t.Fatalf("second HELLO: tail %q", tail)
		}
		c.ok(wire.CodePing, 0, nil)
		if tc.mode == wire.ModeProducer {
			// Still a producer session: FETCH (consumer, admin) is refused.
			if tail, _ := c.refused(wire.CodeFetch, nil, wire.ErrSessionMode); tail != "FETCH(1202) not allowed in producer session" { // spec: Q-06
				t.Fatalf("FETCH in the producer session: tail %q", tail)
			}
		}
	}
}

func TestProtocolHeaderFlags(t *testing.T) {
	t.Parallel()
	e := startEngine(t, Config{Nodes: 1})
	addr := e.DataAddrs()[0]
	// Bits 3–7, and Response or Error on a request, make the frame fatal:
	// closed without a reply, before and after HELLO.
	for _, flags := range []byte{1 << 3, 1 << 4, 1 << 5, 1 << 6, 1 << 7, 0x01, 0x02, 0x03} {
		for _, hello := range []bool{false, true} {
			c := dialDoc(t, addr)
			if hello {
				c.ok(wire.CodeHello, 0, helloBody(wire.ModeProducer))
			}
			c.write(docFrame(uint16(wire.CodePing), 9, flags, 0, 0, nil))
			c.expectClosed(fmt.Sprintf("flags %02x (HELLO first: %v)", flags, hello))
		}
	}
	// NoReply is honoured on any request: no answer at all, not even a
	// refusal; the next request is answered with its own corr.
	c := dialDoc(t, addr)
	c.send(wire.CodePing, 0x04, 0, nil)
	c.send(wire.CodeGet, 0x04, 0, nil) // would be MIMQE_SESSION_MODE
	if r := c.call(wire.CodePing, 0, nil); r.corr() != 3 || r.flags() != 0x01 {
		t.Fatalf("after two NoReply requests: corr %d flags %02x", r.corr(), r.flags())
	}
	// A request's status is ignored; timeout_ms is ignored by requests
	// that do not wait.
	c.write(docFrame(uint16(wire.CodePing), 77, 0, 4161, 5000, nil))
	if r := c.next(); r.corr() != 77 || r.flags() != 0x01 || r.status() != 0 {
		t.Fatalf("PING with status 4161: header % x", r.hdr)
	}
}

// ---- §7: message ids ----

func TestProtocolMsgIDLength(t *testing.T) {
	t.Parallel()
	e := startEngine(t, Config{Nodes: 1})
	mustCreate(t, e, "Q")
	c := dialDoc(t, e.DataAddrs()[0])
	c.ok(wire.CodeHello, 0, helloBody(wire.ModeTransacted))
	id := bytes.Repeat([]byte{0xA5}, 16)
	put := func(id []byte) docBody { return docBody{}.str("Q").bytesField(id).bytesField([]byte("p")).uv(0) } // no headers
	c.ok(wire.CodePut, 0, put(id))
	// A PUT id that is not 16 bytes is refused; the connection and its
	// transaction stay.
	for _, bad := range [][]byte{nil, {}, make([]byte, 15), make([]byte, 17)} {
		tail, _ := c.refused(wire.CodePut, put(bad), wire.ErrInvalidArgument)
		if want := "message id of " + itoa(len(bad)) + " bytes (want 16)"; tail != want {
			t.Fatalf("PUT id of %d bytes: tail %q, want %q", len(bad), tail, want)
		}
	}
	c.ok(wire.CodeCommit, 0, nil)
	wantDepth(t, e, "Q", 1, "after one good and four refused puts")
	// A GET match id: nil = the next message; any other length than 16
	// is refused the same way.
	tail, _ := c.refused(wire.CodeGet, docBody{}.str("Q").bytesField([]byte{1, 2, 3}), wire.ErrInvalidArgument)
	if tail != "match message id of 3 bytes (want 16)" {
		t.Fatalf("GET match id of 3 bytes: tail %q", tail)
	}
	d := &docReader{t: t, b: c.ok(wire.CodeGet, 0, docBody{}.str("Q").bytesField(id))}
	if got := d.take(int(d.uv() - 1)); !bytes.Equal(got, id) {
		t.Fatalf("GET by id returned id % x", got)
	}
}

// ---- §8: LIST_OFFSETS ----

func TestProtocolListOffsetsReplyLayout(t *testing.T) {
	t.Parallel()
	e := topicEngine(t, Config{}, "LO", "partitions=2,replicas=3")
	leader := partitionInfo(t, e, "LO", 0).Leader
	p := openSession(t, e.DataAddrs()[leader-1], wire.ModeProducer)
	p.mustProduce("LO", topicEpoch(t, e, "LO"), 0, batchOf(t, -1, -1, wire.CodecNone, 1000, "a", "b", "c")) // ts 1000, 1001, 1002
	eventually(t, "LO/0 committed", func() bool { return partitionInfo(t, e, "LO", 0).HighWatermark == 3 })

	req := func(parts ...[2]int64) docBody {
		b := docBody{}.uv(1).str("LO").uv(uint64(len(parts)))
		for _, pt := range parts {
			b = b.i32(int32(pt[0])).i64(pt[1])
		}
		return b
	}
	// res is one documented partition result.
	type res struct {
		part       int32
		name, tail string
		off, ts    int64
		hint       uint16
	}
	parse := func(body []byte) []res {
		d := &docReader{t: t, b: body}
		if n := d.uv(); n != 1 {
			t.Fatalf("%d topics", n)
		}
		if name := d.str(); name != "LO" {
			t.Fatalf("topic %q", name)
		}
		out := make([]res, d.uv())
		for i := range out {
			out[i] = res{d.i32(), d.str(), d.str(), d.i64(), d.i64(), d.u16()}
		}
		d.end()
		return out
	}
	c := dialDoc(t, e.DataAddrs()[leader-1])
	c.ok(wire.CodeHello, 0, helloBody(wire.ModeConsumer))
	got := parse(c.ok(wire.CodeListOffsets, 0, req([2]int64{0, -1}, [2]int64{0, -2}, [2]int64{0, 1001}, [2]int64{0, 5000}, [2]int64{0, -3}, [2]int64{7, -1})))
	want := []res{
		{0, "", "", 3, -1, 0},   // latest: the high watermark, timestamp -1
		{0, "", "", 0, -1, 0},   // earliest: the log start, timestamp -1
		{0, "", "", 1, 1001, 0}, // a time: the first record at or after it, with its timestamp
		{0, "", "", 3, -1, 0},   // no record at or after: the end offset, timestamp -1
		{0, wire.ErrInvalidArgument, "timestamp -3", -1, -1, 0},
		{7, wire.ErrUnknownTopic, "LO has no partition 7", -1, -1, 0},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("LIST_OFFSETS results\n got %+v\nwant %+v", got, want)
	}
	// The worked example of §8, byte for byte.
	body := c.ok(wire.CodeListOffsets, 0, req([2]int64{0, 1001}))
	want1 := []byte{0x01, 0x02, 'L', 'O', 0x01, 0, 0, 0, 0, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0x03, 0xE9, 0, 0}
	if !bytes.Equal(body, want1) {
		t.Fatalf("LIST_OFFSETS LO/0 at 1001: % x, want % x", body, want1)
	}
	// From a node that does not lead the partition: MIMQE_FOLLOWER_NODE
	// with leader_hint = the leader's node id; the error body's hint is
	// not involved.
	other := leader%3 + 1
	f := dialDoc(t, e.DataAddrs()[other-1])
	f.ok(wire.CodeHello, 0, helloBody(wire.ModeConsumer))
	got = parse(f.ok(wire.CodeListOffsets, 0, req([2]int64{0, -1})))
	if len(got) != 1 || got[0].name != wire.ErrFollowerNode || got[0].off != -1 || got[0].ts != -1 || got[0].hint != uint16(leader) {
		t.Fatalf("LIST_OFFSETS on node %d (leader %d): %+v", other, leader, got)
	}
}

// ---- §11.1: admin counts are §3 uvarints, admin integers zigzag ----

func TestProtocolAdminCountsArePlainUvarints(t *testing.T) {
	t.Parallel()
	e := startEngine(t, Config{})
	c := dialDoc(t, e.AdminAddrs()[0])
	c.ok(wire.CodeHello, 0, helloBody(wire.ModeAdmin))
	body := c.ok(wire.CodeNodeList, 0, docBody{}.str(""))
	// Three nodes: the count is the §3 uvarint 03 (zigzag would be 06);
	// the first id, 1, is the zigzag varint 02.
	if len(body) < 2 || body[0] != 0x03 || body[1] != 0x02 {
		t.Fatalf("NODE LIST body starts % x, want 03 02", body[:min(len(body), 2)])
	}
	d := &docReader{t: t, b: body}
	n := d.uv()
	for i := range n {
		if id := d.zigzag(); id != int64(i)+1 {
			t.Fatalf("node %d has id %d", i, id)
		}
		d.str()    // queue_manager
		d.str()    // data_addr
		d.str()    // admin_addr
		d.str()    // role
		d.str()    // state
		d.zigzag() // partitions
		d.zigzag() // lag_records
		d.zigzag() // lag_ms
	}
	d.end()
}

// ---- §11.8: members and offsets are arrays ----

func TestProtocolDescribeGroupArrays(t *testing.T) {
	t.Parallel()
	e := groupEngine(t, "DG", "partitions=2")
	leader := partitionInfo(t, e, "DG", 1).Leader
	p := openSession(t, e.DataAddrs()[leader-1], wire.ModeProducer)
	p.mustProduce("DG", topicEpoch(t, e, "DG"), 1, plainBatch(t, "a", "b"))
	eventually(t, "DG/1 committed", func() bool { return partitionInfo(t, e, "DG", 1).HighWatermark == 2 })
	g := "doc-group"
	m := coordSession(t, e, g)
	j := m.mustJoin(g, "", true, "DG")
	wantOK(t, m.commitFailure(g, j, off("DG", 1, 1)), "commit")
	for _, addr := range []string{e.DataAddrs()[0], e.AdminAddrs()[0]} {
		mode := wire.ModeConsumer
		if addr == e.AdminAddrs()[0] {
			mode = wire.ModeAdmin
		}
		c := dialDoc(t, addr)
		c.ok(wire.CodeHello, 0, helloBody(mode))
		d := &docReader{t: t, b: c.ok(wire.CodeDescribeGroup, 0, docBody{}.str(g))}
		if name, state := d.str(), d.str(); name != g || state != GroupStable {
			t.Fatalf("group %q state %q", name, state)
		}
		if gen, coord := d.zigzag(), d.zigzag(); gen != int64(j.Generation) || coord != int64(e.CoordinatorOf(g)) {
			t.Fatalf("generation %d coordinator %d", gen, coord)
		}
		if !d.boolean() {
			t.Fatal("not durable")
		}
		if n := d.uv(); n != 1 { // members: array
			t.Fatalf("%d members", n)
		}
		if id := d.str(); id != j.MemberID {
			t.Fatalf("member %q", id)
		}
		d.str() // client_name
		d.str() // host
		if n := d.uv(); n != 1 {
			t.Fatalf("assignment of %d topics", n)
		}
		if topic, parts := d.str(), d.uv(); topic != "DG" || parts != 2 || d.i32() != 0 || d.i32() != 1 {
			t.Fatalf("assignment %q %d", topic, parts)
		}
		d.zigzag()               // last_seen_ms
		if n := d.uv(); n != 2 { // offsets: array, one per partition of a subscribed or committed topic
			t.Fatalf("%d offsets", n)
		}
		type row struct {
			topic              string
			part               int32
			commit, start, end int64
			owner              string
		}
		var rows []row
		for range 2 {
			rows = append(rows, row{d.str(), d.i32(), d.zigzag(), d.zigzag(), d.zigzag(), d.str()})
		}
		d.end()
		want := []row{{"DG", 0, -1, 0, 0, j.MemberID}, {"DG", 1, 1, 0, 2, j.MemberID}}
		if !slices.Equal(rows, want) {
			t.Fatalf("offsets %+v, want %+v", rows, want)
		}
	}
}

// ---- §10: generations, JOIN, commits of partitions not owned ----

func TestProtocolGroupGenerations(t *testing.T) {
	t.Parallel()
	g := "doc-generations"
	e, c := groupClient(t, "GG", "partitions=2", g)
	// The group's generation goes up by one at every JOIN; each member
	// carries the generation of its own last JOIN.
	a := c.mustJoin(g, "", true, "GG")
	if a.Generation != 1 || !slices.Equal(assigned(a.Assignment, "GG"), []int32{0, 1}) {
		t.Fatalf("first join: generation %d assignment %v", a.Generation, a.Assignment)
	}
	// JOIN waits for no other member: B is answered at once, with only
	// the free partitions of its target (none: A holds both).
	b := c.mustJoin(g, "", true, "GG")
	if b.Generation != 2 || len(b.Assignment) != 0 { // spec: C-26
		t.Fatalf("second join: generation %d assignment %v", b.Generation, b.Assignment)
	}
	if d := describe(t, e, g); d.Generation != 2 {
		t.Fatalf("group generation %d, want 2", d.Generation)
	}
	// A's generation 1 is still A's: its heartbeat is told to rejoin
	// (4161, it holds B's partition 1), not fenced (4178), and it may
	// still commit what it holds.
	if f := c.heartbeat(g, a); f == nil || f.report != wire.ReportRebalanced || !bytes.HasPrefix([]byte(f.text), []byte(wire.ErrRebalanceInProgress)) {
		t.Fatalf("A's heartbeat at generation 1: %v", f)
	}
	wantOK(t, c.commitFailure(g, a, off("GG", 1, 7)), "A commits a partition it still holds")
	// B's heartbeat is fine (nothing of its target is free yet).
	wantOK(t, c.heartbeat(g, b), "B's heartbeat")
	// Another member's generation is not A's: 4178.
	stale := *a
	stale.Generation = b.Generation
	if _, f := c.commitAs(g, &stale, off("GG", 0, 1)); f == nil || f.report != wire.ReportGenerationMismatch {
		t.Fatalf("A commits with B's generation: %v", f)
	}
	// A commit of partitions none of which the member holds: the whole
	// request is refused with REPORT 4161 and nothing is stored.
	if _, f := c.commitAs(g, b, off("GG", 1, 9)); f == nil || f.report != wire.ReportRebalanced {
		t.Fatalf("B commits partition 1 held by A: %v", f)
	}
	if got := c.committed(g, "GG", 1); got != 7 {
		t.Fatalf("commit of GG/1 is %d after the refused one, want 7", got)
	}
	// A rejoins (generation 3) and keeps its target, partition 0; B is
	// then told to rejoin and gets partition 1 (generation 4).
	a = c.mustJoin(g, a.MemberID, true, "GG")
	if a.Generation != 3 || !slices.Equal(assigned(a.Assignment, "GG"), []int32{0}) {
		t.Fatalf("A's rejoin: generation %d assignment %v", a.Generation, a.Assignment)
	}
	if f := c.heartbeat(g, b); f == nil || f.report != wire.ReportRebalanced {
		t.Fatalf("B's heartbeat after A released partition 1: %v", f)
	}
	b = c.mustJoin(g, b.MemberID, true, "GG")
	if b.Generation != 4 || !slices.Equal(assigned(b.Assignment, "GG"), []int32{1}) { // spec: C-26
		t.Fatalf("B's rejoin: generation %d assignment %v", b.Generation, b.Assignment)
	}
	// A's generation 3 stays valid though the group is at 4. A commit
	// mixing a held and a no-longer-held partition is answered: the held
	// one is stored, the other carries MIMQE_REBALANCE in its entry.
	wantOK(t, c.heartbeat(g, a), "A's heartbeat at generation 3 (group at 4)")
	rep, f := c.commitAs(g, a, off("GG", 0, 5), off("GG", 1, 11))
	if f != nil || len(rep.Offsets) != 2 || rep.Offsets[0].Err.Name != "" || rep.Offsets[1].Err.Name != wire.ErrRebalanceInProgress || rep.Offsets[1].Offset != 11 {
		t.Fatalf("mixed commit: %v %+v", f, rep)
	}
	if c.committed(g, "GG", 0) != 5 || c.committed(g, "GG", 1) != 7 {
		t.Fatalf("commits after the mixed commit: %d, %d", c.committed(g, "GG", 0), c.committed(g, "GG", 1))
	}
}

// ---- §10: the coordinator hash ----

func TestProtocolCoordinatorHash(t *testing.T) {
	t.Parallel()
	e := startEngine(t, Config{}) // SYSTEM.GROUPS has 3 partitions
	leaders := make([]int, 3)
	for p := range leaders {
		leaders[p] = partitionInfo(t, e, wire.GroupsTopic, p).Leader
	}
	if leaders[0] == leaders[2] {
		t.Fatalf("setup: SYSTEM.GROUPS partitions 0 and 2 share leader %d", leaders[0])
	}
	// The worked example of §10: "billing" → partition 0 (|murmur2| % 3
	// would give 2).
	c := dialDoc(t, e.DataAddrs()[0])
	c.ok(wire.CodeHello, 0, helloBody(wire.ModeConsumer))
	d := &docReader{t: t, b: c.ok(wire.CodeFindCoordinator, 0, docBody{}.str("billing"))}
	node, addr := d.u16(), d.str()
	d.end()
	if int(node) != leaders[0] || addr != e.DataAddrs()[leaders[0]-1] {
		t.Fatalf("FIND COORDINATOR billing: node %d %s, want node %d (leader of %s/0)", node, addr, leaders[0], wire.GroupsTopic)
	}
	// An admin connection is given the coordinator's admin address.
	a := dialDoc(t, e.AdminAddrs()[0])
	a.ok(wire.CodeHello, 0, helloBody(wire.ModeAdmin))
	d = &docReader{t: t, b: a.ok(wire.CodeFindCoordinator, 0, docBody{}.str("billing"))}
	if node, addr := d.u16(), d.str(); int(node) != leaders[0] || addr != e.AdminAddrs()[leaders[0]-1] {
		t.Fatalf("FIND COORDINATOR on an admin connection: node %d %s", node, addr)
	}
}

// ---- §11.5, §11.6, §11.4, §11.8: text line endings ----

func TestProtocolTextLineEndings(t *testing.T) {
	t.Parallel()
	e := startEngine(t, groupConfig())
	if err := e.AddQuarantine(QuarantineEntry{Dir: "d1", Queue: "Q", Payload: []byte("x")}); err != nil {
		t.Fatal(err)
	}
	mustCreateTopic(t, e, "TX", "partitions=2")
	c := dialDoc(t, e.AdminAddrs()[0])
	c.ok(wire.CodeHello, 0, helloBody(wire.ModeAdmin))
	text := func(code wire.Code, body docBody) string {
		d := &docReader{t: t, b: c.ok(code, 0, body)}
		s := d.str()
		d.end()
		return s
	}
	// Line formats: every line, the last one included, ends with "\n";
	// no "\r", no empty line.
	for _, tc := range []struct {
		code  wire.Code
		body  docBody
		first string
	}{
		{wire.CodeViewClusterLeaders, docBody{}.str(""), "ILLT1|C1|"},
		{wire.CodeDiagCluster, docBody{}.str(""), "DIAG CLUSTER C1\n"},
		{wire.CodeViewQuarantine, docBody{}.str(""), "QUARANTINE|QM1|"},
		{wire.CodeScanQuarantine, docBody{}.str("").str("").str("").uv(0).u8(0).uv(0), "SCAN|*|*|0\n"},
	} {
		s := text(tc.code, tc.body)
		if !bytes.HasPrefix([]byte(s), []byte(tc.first)) || s[len(s)-1] != '\n' || bytes.ContainsAny([]byte(s), "\r") || bytes.Contains([]byte(s), []byte("\n\n")) {
			t.Fatalf("%v text %q: want lines each ending in \\n, starting %q", tc.code, s, tc.first)
		}
	}
	// SUBSCRIPTION LIST joins its lines with "\n", no trailing newline;
	// no qualifying group is the empty string.
	if s := text(wire.CodeSubscriptionList, docBody{}.str("").str("TX")); s != "" {
		t.Fatalf("subscription list without groups: %q", s)
	}
	g := "doc-text"
	m := coordSession(t, e, g)
	j := m.mustJoin(g, "", true, "TX")
	wantOK(t, m.commitFailure(g, j, off("TX", 0, 0)), "commit")
	want := "doc-text|Stable|0|0|0|members=1\ndoc-text|Stable|1|-1|-1|members=1"
	if s := text(wire.CodeSubscriptionList, docBody{}.str("").str("TX")); s != want {
		t.Fatalf("subscription list %q, want %q", s, want)
	}
}

// ---- §3.1: placeholder values in FETCH and PRODUCE replies ----

func TestProtocolPlaceholders(t *testing.T) {
	t.Parallel()
	e := topicEngine(t, Config{}, "PH", "partitions=1,replicas=3")
	leader := partitionInfo(t, e, "PH", 0).Leader
	other := leader%3 + 1
	epoch := topicEpoch(t, e, "PH")
	p := openSession(t, e.DataAddrs()[leader-1], wire.ModeProducer)
	p.mustProduce("PH", epoch, 0, plainBatch(t, "a", "b", "c"))
	eventually(t, "PH/0 committed", func() bool { return partitionInfo(t, e, "PH", 0).HighWatermark == 3 })

	type fetchRes struct {
		part       int32
		name       string
		hw, start  int64
		hint       uint16
		nilBatches bool
	}
	fetch := func(addr string, part int32, offset int64) fetchRes {
		c := dialDoc(t, addr)
		c.ok(wire.CodeHello, 0, helloBody(wire.ModeConsumer))
		body := docBody{}.i32(1).i32(1 << 20).uv(1).str("PH").uv(1).i32(part).i64(offset).i32(1 << 20)
		d := &docReader{t: t, b: c.ok(wire.CodeFetch, 0, body)}
		if d.uv() != 1 || d.str() != "PH" || d.uv() != 1 {
			t.Fatal("FETCH reply shape")
		}
		r := fetchRes{part: d.i32(), name: d.str()}
		d.str() // tail
		r.hw, r.start, r.hint = d.i64(), d.i64(), d.u16()
		n := d.uv() // bytes: 0 = nil
		r.nilBatches = n == 0
		if n > 0 {
			d.take(int(n - 1))
		}
		d.end()
		return r
	}
	for _, tc := range []struct {
		what   string
		addr   string
		part   int32
		offset int64
		want   fetchRes
	}{
		{"unknown partition", e.DataAddrs()[leader-1], 5, 0, fetchRes{5, wire.ErrUnknownTopic, -1, -1, 0, true}},
		{"follower", e.DataAddrs()[other-1], 0, 0, fetchRes{0, wire.ErrFollowerNode, -1, -1, uint16(leader), true}},
		{"out of range", e.DataAddrs()[leader-1], 0, 4, fetchRes{0, wire.ErrOffsetOutOfRange, 3, 0, 0, true}},
		{"at the end", e.DataAddrs()[leader-1], 0, 3, fetchRes{0, "", 3, 0, 0, true}},
		{"records", e.DataAddrs()[leader-1], 0, 0, fetchRes{0, "", 3, 0, 0, false}},
	} {
		if got := fetch(tc.addr, tc.part, tc.offset); got != tc.want {
			t.Errorf("FETCH %s: %+v, want %+v", tc.what, got, tc.want)
		}
	}

	// PRODUCE: a refused partition has base_offset -1 and
	// log_append_time 0; leader_hint only with MIMQE_FOLLOWER_NODE.
	produce := func(addr string, part int32) (name string, base, appendTime int64, hint uint16) {
		c := dialDoc(t, addr)
		c.ok(wire.CodeHello, 0, helloBody(wire.ModeProducer))
		body := docBody{}.u8(1).uv(1).str("PH").i32(epoch).uv(1).i32(part).bytesField(plainBatch(t, "x"))
		d := &docReader{t: t, b: c.ok(wire.CodeProduce, 0, body)}
		if d.uv() != 1 || d.str() != "PH" || d.uv() != 1 || d.i32() != part {
			t.Fatal("PRODUCE reply shape")
		}
		name = d.str()
		d.str() // tail
		base, appendTime, hint = d.i64(), d.i64(), d.u16()
		d.end()
		return
	}
	if name, base, at, hint := produce(e.DataAddrs()[leader-1], 3); name != wire.ErrUnknownTopic || base != -1 || at != 0 || hint != 0 {
		t.Errorf("PRODUCE to an unknown partition: %s base %d time %d hint %d", name, base, at, hint)
	}
	if name, base, at, hint := produce(e.DataAddrs()[other-1], 0); name != wire.ErrFollowerNode || base != -1 || at != 0 || hint != uint16(leader) {
		t.Errorf("PRODUCE to a follower: %s base %d time %d hint %d", name, base, at, hint)
	}
	if name, base, at, hint := produce(e.DataAddrs()[leader-1], 0); name != "" || base != 3 || at <= 0 || hint != 0 {
		t.Errorf("PRODUCE to the leader: %s base %d time %d hint %d", name, base, at, hint)
	}
}
