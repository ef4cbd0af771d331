package jsonl

import (
	"bytes"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestRoundTripAndReader(t *testing.T) {
	recs := []Record{
		{Topic: "ORDER.EVENT", Partition: 2, Offset: 41, Timestamp: time.Date(2026, 11, 30, 10, 0, 0, 123e6, time.UTC),
			Key: []byte("order-42"), Value: []byte(`{"id":42}` + "\x1b[2J\u202e"), Headers: []Header{{Key: "trace", Value: []byte("t1")}, {Key: "nil"}}},
		{Topic: "B", Key: nil, Value: []byte{0, 0xff, 0xfe}, Headers: []Header{{Key: "bin", Value: []byte{0x9b}}}},
	}
	var buf []byte
	for i := range recs {
		buf = Append(buf, &recs[i])
		buf = append(buf, "\n  \n"...) // blank lines are skipped
	}
	if bytes.ContainsAny(buf, "\x1b\u202e") {
		t.Fatalf("a terminal-active character reached the output: %q", buf)
	}
	r := NewReader(bytes.NewReader(buf))
	for i, want := range recs {
		got, err := r.Next()
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("record %d: %+v, want %+v", i, got, want)
		}
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("after the last record: %v", err)
	}
	bad := NewReader(strings.NewReader(`{"topic":"T","value":"x"}` + "\n" + `{"value":"no topic"}` + "\n"))
	if _, err := bad.Next(); err != nil {
		t.Fatal(err)
	}
	if _, err := bad.Next(); err == nil || !strings.Contains(err.Error(), "line 2: record without a topic") {
		t.Fatalf("error %v, want it to name line 2", err)
	}
}
