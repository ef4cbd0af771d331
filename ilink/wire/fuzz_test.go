package wire

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzFrameReader feeds arbitrary streams to the frame reader: it must never
// panic, never return a body longer than the stream, and never accept a frame
// above its cap.
func FuzzFrameReader(f *testing.F) {
	f.Add([]byte{})
	f.Add(AppendFrame(nil, Header{Code: CodePing, Corr: 1}, nil))
	two := AppendFrame(nil, Header{Code: CodePut, Corr: 1}, (&PutRequest{Queue: "Q", MsgID: make([]byte, MsgIDLen), Payload: []byte("p")}).Encode)
	two = AppendFrame(two, Header{Code: CodeGet, Corr: 2, TimeoutMs: 100}, (&GetRequest{Queue: "Q"}).Encode)
	f.Add(two)
	f.Add(two[:len(two)-3])
	big := AppendFrame(nil, Header{}, nil)
	big[0], big[1] = 0x7f, 0xff // huge length
	f.Add(big)
	f.Add([]byte("GET / HTTP/1.1\r\n\r\n"))
	f.Add([]byte{0x16, 0x03, 0x01, 0x00, 0x10}) // TLS client hello start
	f.Fuzz(func(t *testing.T, data []byte) {
		const max = 1 << 16
		fr := NewFrameReader(bytes.NewReader(data), max)
		total := 0
		for {
			h, body, err := fr.Next()
			if err != nil {
				var big *FrameTooLargeError
				if errors.As(err, &big) && int(big.Length) <= max {
					t.Fatalf("too-large error for %d <= %d", big.Length, max)
				}
				return
			}
			if int(h.Length) > max || len(body) != h.BodyLen() {
				t.Fatalf("frame %+v body %d", h, len(body))
			}
			total += int(h.Length)
			if total > len(data) {
				t.Fatalf("read %d bytes from a %d-byte stream", total, len(data))
			}
			if h.Code == CodeHello && !h.IsResponse() {
				var m HelloRequest
				_ = Decode(body, &m)
			}
		}
	})
}

// FuzzDecodeMessages runs every session message decoder on arbitrary bodies:
// no panic, and a body that decodes re-encodes to the same bytes.
func FuzzDecodeMessages(f *testing.F) {
	f.Add(uint8(0), []byte{})
	f.Add(uint8(1), Encode(nil, &HelloReply{NodeID: 1, Nodes: []NodeInfo{{ID: 1, Addr: "a:1"}}}))
	f.Add(uint8(2), Encode(nil, &PutRequest{Queue: "Q", MsgID: make([]byte, MsgIDLen), Payload: []byte("x")}))
	f.Add(uint8(3), Encode(nil, &GetReply{MsgID: make([]byte, MsgIDLen), Payload: []byte("y")}))
	f.Add(uint8(4), Encode(nil, &ErrorBody{Name: ErrNoMessage}))
	f.Add(uint8(9), Encode(nil, &MetadataRequest{Topics: []string{"A"}}))
	f.Add(uint8(10), Encode(nil, &MetadataReply{Topics: []TopicMeta{{Name: "T", Epoch: 1, Partitions: []PartitionMeta{{ID: 0, Leader: 1, Replicas: []uint16{1, 2}, InSync: []uint16{1}}}}}}))
	f.Add(uint8(11), Encode(nil, &ProduceRequest{Acks: -1, Topics: []ProduceTopic{{Topic: "T", Epoch: 1, Partitions: []ProducePartition{{Partition: 0, Batches: []byte{1, 2, 3}}}}}}))
	f.Add(uint8(14), Encode(nil, &FetchReply{Topics: []FetchTopicResult{{Topic: "T", Partitions: []FetchPartitionResult{{Partition: 1, HighWatermark: 9, Batches: []byte{}}}}}}))
	f.Add(uint8(22), Encode(nil, &JoinGroupReply{MemberID: "m", Generation: 3, Assignment: []TopicPartitions{{Topic: "T", Partitions: []int32{0, 1}}}}))
	f.Add(uint8(24), Encode(nil, &OffsetCommitRequest{Group: "g", Offsets: []OffsetEntry{{Topic: "T", Partition: 0, Offset: 51}}}))
	f.Add(uint8(5), []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, kind uint8, body []byte) {
		ctors := []func() Message{
			func() Message { return &HelloRequest{} },
			func() Message { return &HelloReply{} },
			func() Message { return &PutRequest{} },
			func() Message { return &GetReply{} },
			func() Message { return &ErrorBody{} },
			func() Message { return &GetRequest{} },
			func() Message { return &PutReply{} },
			func() Message { return &QueueRequest{} },
			func() Message { return &DepthReply{} },
			func() Message { return &MetadataRequest{} },
			func() Message { return &MetadataReply{} },
			func() Message { return &ProduceRequest{} },
			func() Message { return &ProduceReply{} },
			func() Message { return &FetchRequest{} },
			func() Message { return &FetchReply{} },
			func() Message { return &ListOffsetsRequest{} },
			func() Message { return &ListOffsetsReply{} },
			func() Message { return &AdminPublishRequest{} },
			func() Message { return &AdminPublishReply{} },
			func() Message { return &CreateTopicRequest{} },
			func() Message { return &InitProducerReply{} },
			func() Message { return &JoinGroupRequest{} },
			func() Message { return &JoinGroupReply{} },
			func() Message { return &MemberRequest{} },
			func() Message { return &OffsetCommitRequest{} },
			func() Message { return &OffsetsReply{} },
			func() Message { return &OffsetFetchRequest{} },
			func() Message { return &DeleteGroupRequest{} },
			func() Message { return &TopicLeaveRequest{} },
			func() Message { return &CoordinatorReply{} },
		}
		m := ctors[int(kind)%len(ctors)]()
		if err := Decode(body, m); err != nil {
			return
		}
		again := Encode(nil, m)
		m2 := ctors[int(kind)%len(ctors)]()
		if err := Decode(again, m2); err != nil {
			t.Fatalf("re-decode of %T failed: %v", m, err)
		}
		if !bytes.Equal(Encode(nil, m2), again) {
			t.Fatalf("%T not stable across re-encode", m)
		}
	})
}
