package wire

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// A HELLO of this build (every layout at version 1) carries no layout
// list; one with a list decodes it after the fields, sorted by body; a
// list that runs past the body is a decode error, and a HELLO without one
// decodes to nil (docs/PROTOCOL.md §6).
func TestHelloLayoutList(t *testing.T) {
	req := HelloRequest{ClientName: "c", ClientVersion: "v", Mode: ModeProducer, ConsumerProtocol: 2, QueueManager: "QM1"}
	if len(LayoutVersions) != 0 {
		t.Fatalf("LayoutVersions = %v: the golden bytes assume every layout at version 1", LayoutVersions)
	}
	plain := Encode(nil, &req)
	w := Writer{B: append([]byte{}, plain...)}
	req.encodeTrailer(&w)
	if !bytes.Equal(w.B, plain) {
		t.Fatalf("the trailer of an empty table wrote % x", w.B[len(plain):])
	}
	var back HelloRequest
	ls, err := DecodeHello(plain, &back)
	if err != nil || ls != nil || back != req {
		t.Fatalf("HELLO without a list: %v, %v, %+v", err, ls, back)
	}

	w = Writer{B: append([]byte{}, plain...)}
	writeLayouts(&w, map[string]uint8{"PutRequest": 2, "GetReply": 3})
	if tail := w.B[len(plain):]; !bytes.Equal(tail, []byte("\x02\x08GetReply\x03\x0aPutRequest\x02")) {
		t.Fatalf("layout list bytes % x", tail)
	}
	ls, err = DecodeHello(w.B, &back)
	want := []BodyLayout{{"GetReply", 3}, {"PutRequest", 2}}
	if err != nil || !reflect.DeepEqual(ls, want) || back != req {
		t.Fatalf("HELLO with a list: %v, %v, %+v", err, ls, back)
	}
	if err := Decode(w.B, &HelloRequest{}); !errors.Is(err, ErrTrailingBytes) {
		t.Fatalf("Decode of a HELLO with a list: %v, want trailing bytes (only DecodeHello reads it)", err)
	}
	if _, err := DecodeHello(w.B[:len(w.B)-1], &back); !errors.Is(err, ErrShortBody) {
		t.Fatalf("a cut list: %v, want a short body", err)
	}
	if _, err := DecodeHello(append(w.B, 0), &back); !errors.Is(err, ErrTrailingBytes) {
		t.Fatalf("a byte after the list: %v, want trailing bytes", err)
	}
}

func TestCheckLayouts(t *testing.T) {
	if err := CheckLayouts([]BodyLayout{{"PutRequest", 2}, {"GetReply", 1}}); err != nil {
		t.Fatalf("a good list: %v", err)
	}
	for _, c := range []struct {
		ls   []BodyLayout
		want string
	}{
		{[]BodyLayout{{"PutRequest", 0}}, "layout version 0 of PutRequest (versions start at 1)"},
		{[]BodyLayout{{"PutRequest", 2}, {"PutRequest", 3}}, "layout of PutRequest stated twice"},
		{[]BodyLayout{{strings.Repeat("x", 257), 2}}, "layout body name is 257 bytes; at most 256"},
		{[]BodyLayout{{"HelloReply", 2}}, "layout version 2 of HelloReply (it has no versions)"},
	} {
		if err := CheckLayouts(c.ls); err == nil || err.Error() != c.want {
			t.Errorf("%v: %v, want %q", c.ls, err, c.want)
		}
	}
	for body := range unversionedBodies {
		if BodyVersion(body) != 1 {
			t.Errorf("%s is at version %d: it is read before any layout list, so it never takes a version", body, BodyVersion(body))
		}
	}
	if BodyName(&PutRequest{}) != "PutRequest" || BodyVersion("PutRequest") != 1 {
		t.Fatalf("BodyName %q, BodyVersion %d", BodyName(&PutRequest{}), BodyVersion("PutRequest"))
	}
}
