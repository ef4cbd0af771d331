package wire

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestPrimitivesRoundTrip(t *testing.T) {
	var w Writer
	w.U8(1)
	w.U16(0xBEEF)
	w.U32(0xDEADBEEF)
	w.I64(-42)
	w.Bool(true)
	w.String("Hangul 한글")
	w.Bytes(nil)
	w.Bytes([]byte{})
	w.Bytes([]byte("v"))
	w.Strings([]string{"a", "", "c"})
	w.Uvarint(1 << 40)

	r := NewReader(w.B)
	if r.U8() != 1 || r.U16() != 0xBEEF || r.U32() != 0xDEADBEEF || r.I64() != -42 || !r.Bool() {
		t.Fatal("fixed ints")
	}
	if s := r.String(); s != "Hangul 한글" {
		t.Fatalf("string %q", s)
	}
	if b := r.Bytes(); b != nil {
		t.Fatalf("nil bytes came back as %v", b)
	}
	if b := r.Bytes(); b == nil || len(b) != 0 {
		t.Fatalf("empty bytes came back as %v", b)
	}
	if b := r.Bytes(); string(b) != "v" {
		t.Fatalf("bytes %q", b)
	}
	if ss := r.Strings(); !reflect.DeepEqual(ss, []string{"a", "", "c"}) {
		t.Fatalf("strings %q", ss)
	}
	if v := r.Uvarint(); v != 1<<40 {
		t.Fatalf("uvarint %d", v)
	}
	if r.Err() != nil || r.Remaining() != 0 {
		t.Fatalf("err %v remaining %d", r.Err(), r.Remaining())
	}
}

func TestReaderBoundsLengthsBeforeAllocating(t *testing.T) {
	var w Writer
	w.Uvarint(1 << 40) // claims a terabyte string
	r := NewReader(w.B)
	if s := r.String(); s != "" || !errors.Is(r.Err(), ErrShortBody) {
		t.Fatalf("got %q, %v", s, r.Err())
	}
	w = Writer{}
	w.Uvarint(1 << 30) // claims a billion array elements
	r = NewReader(w.B)
	if n := r.ArrayLen(1); n != 0 || r.Err() == nil {
		t.Fatalf("array len %d err %v", n, r.Err())
	}
	// Sticky: later reads return zero values.
	if r.U32() != 0 || r.String() != "" {
		t.Fatal("reads after an error returned data")
	}
}

func TestDecodeRejectsTrailingBytes(t *testing.T) {
	body := Encode(nil, &QueueRequest{Queue: "Q"})
	body = append(body, 0)
	err := Decode(body, &QueueRequest{})
	if !errors.Is(err, ErrTrailingBytes) {
		t.Fatalf("want trailing bytes error, got %v", err)
	}
}

func TestBadBool(t *testing.T) {
	r := NewReader([]byte{2})
	r.Bool()
	if r.Err() == nil || !strings.Contains(r.Err().Error(), "0x02") {
		t.Fatalf("err %v", r.Err())
	}
}

func TestSessionMessagesRoundTrip(t *testing.T) {
	id := bytes.Repeat([]byte{0xAB}, MsgIDLen)
	msgs := []struct{ in, out Message }{
		{&HelloRequest{ClientName: "order-svc", ClientVersion: "0.1", Mode: ModeTransacted, ConsumerProtocol: 2, QueueManager: "QM1"}, &HelloRequest{}},
		{&HelloReply{NodeID: 2, QueueManager: "QM1", Cluster: "C1", EngineVersion: "7.0.1.3552", SessionID: 99,
			Nodes: []NodeInfo{{ID: 1, Addr: "127.0.0.1:5000", Admin: "127.0.0.1:9998", Leader: true, Up: true}, {ID: 2, Addr: "127.0.0.1:5001"}}}, &HelloReply{}},
		{&PutRequest{Queue: "Q", MsgID: id, Payload: []byte("x")}, &PutRequest{}},
		{&PutReply{MsgID: id, Depth: 3}, &PutReply{}},
		{&GetRequest{Queue: "Q", MatchID: id}, &GetRequest{}},
		{&GetReply{MsgID: id, Payload: []byte{}, PutTimeMs: 1700000000000, Redelivered: true}, &GetReply{}},
		{&QueueRequest{Queue: "Q"}, &QueueRequest{}},
		{&DepthReply{Depth: 12}, &DepthReply{}},
		{&ErrorBody{Name: ErrNotLeader, Tail: "leader is node 1 at 127.0.0.1:5000", Hint: "127.0.0.1:5000"}, &ErrorBody{}},
		{&Empty{}, &Empty{}},
	}
	for _, m := range msgs {
		body := Encode(nil, m.in)
		if err := Decode(body, m.out); err != nil {
			t.Fatalf("%T: %v", m.in, err)
		}
		if !reflect.DeepEqual(m.in, m.out) {
			t.Fatalf("%T: round trip\n in %+v\nout %+v", m.in, m.in, m.out)
		}
		// Every strict prefix must fail cleanly, never panic.
		for i := 0; i < len(body); i++ {
			if err := Decode(body[:i], freshLike(m.out)); err == nil && i < len(body) {
				t.Fatalf("%T: prefix of %d/%d bytes decoded without error", m.in, i, len(body))
			}
		}
	}
}

func TestPutRequestMsgIDLengthIsAParameterCheck(t *testing.T) {
	// A short id is a well-formed body (it decodes); its length is checked
	// by CheckMsgID, which the engine turns into a refusal, not a close.
	body := Encode(nil, &PutRequest{Queue: "Q", MsgID: []byte{1, 2}, Payload: nil})
	var req PutRequest
	if err := Decode(body, &req); err != nil || len(req.MsgID) != 2 {
		t.Fatalf("decode: %v (id %x)", err, req.MsgID)
	}
	for _, n := range []int{0, 2, 15, 17} {
		if err := CheckMsgID(make([]byte, n)); err == nil || err.Error() != fmt.Sprintf("message id of %d bytes (want 16)", n) {
			t.Errorf("CheckMsgID(%d bytes) = %v", n, err)
		}
	}
	if err := CheckMsgID(nil); err == nil {
		t.Error("CheckMsgID(nil) accepted")
	}
	if err := CheckMsgID(make([]byte, MsgIDLen)); err != nil {
		t.Errorf("CheckMsgID(16 bytes) = %v", err)
	}
}

func freshLike(m Message) Message {
	return reflect.New(reflect.TypeOf(m).Elem()).Interface().(Message)
}
