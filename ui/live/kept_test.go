package live

import (
	"testing"
	"unsafe"

	"ilinkdash/ilink/consumer"
	"ilinkdash/ilink/wire"
)

// A record the tail or a search keeps must not share its fetch reply: a
// consumed record's key, value and header bytes may alias the whole reply,
// and the buffers' byte bounds count only the record's own bytes.
func TestKeptRecordOwnsItsBytes(t *testing.T) {
	t.Parallel()
	reply := make([]byte, 8<<20) // a large fetch reply the record aliases
	copy(reply[100:], "key")
	copy(reply[200:], "value")
	copy(reply[300:], "hkeyhval")
	r := consumer.Record{Topic: "T", Partition: 2, Offset: 7,
		Key: reply[100:103:103], Value: reply[200:205],
		Headers: []wire.RecordHeader{{Key: unsafe.String(&reply[300], 4), Value: reply[304:308]}}}

	kept := KeptRecordOf(&r)
	for i := range reply { // the reply is reused or changed: the kept record is not
		reply[i] = 'x'
	}
	if string(kept.Key) != "key" || string(kept.Value) != "value" || kept.Headers[0].Key != "hkey" || string(kept.Headers[0].Value) != "hval" {
		t.Fatalf("kept record changed with the reply: key %q value %q header %q=%q", kept.Key, kept.Value, kept.Headers[0].Key, kept.Headers[0].Value)
	}
	if c := cap(kept.Value) + cap(kept.Key) + cap(kept.Headers[0].Value); c > 64 {
		t.Fatalf("the kept record's slices reach %d bytes of capacity for 12 bytes of data", c)
	}
	if kept.Topic != "T" || kept.Partition != 2 || kept.Offset != 7 {
		t.Fatalf("kept record %+v", kept)
	}
	if n := KeptRecordOf(&consumer.Record{}); n.Key != nil || n.Value != nil {
		t.Fatalf("a nil key or value must stay nil (a tombstone): %+v", n)
	}
}
