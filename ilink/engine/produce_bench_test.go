package engine

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"ilinkdash/ilink/wire"
)

// BenchmarkProduceEnvelope measures the engine's produce path: one
// envelope (PRODUCE request) carrying one pre-built lz4 batch of 100-byte
// JSON-ish records for each of 6 partitions goes through dispatch, decode,
// validation (headers, CRC), the one copy, offset stamping, the idempotence
// check, the append and the reply encoding, on the calling goroutine (no
// TCP). With replicas=3 the follower goroutines pull concurrently.
//
//	go test -run '^$' -bench ProduceEnvelope -benchmem -cpu 1,2 ./ilink/engine/
func BenchmarkProduceEnvelope(b *testing.B) {
	for _, bc := range []struct {
		name       string
		nodes      int
		replicas   int
		idempotent bool
	}{
		{"replicas=1", 1, 1, false},
		{"replicas=1/idempotent", 1, 1, true},
		{"replicas=3/idempotent", 3, 3, true},
	} {
		b.Run(bc.name, func(b *testing.B) { benchProduce(b, bc.nodes, bc.replicas, bc.idempotent) })
	}
}

const (
	benchPartitions = 6
	benchPerBatch   = 2000 // ~218 KB uncompressed, like a producer's 256 KiB batch
	benchRounds     = 24   // distinct idempotent envelopes before the sequences restart
)

// benchValues is a pool of 100-byte JSON-ish values (lz4 ratio about 2.3).
func benchValues(n int) [][]byte {
	rng := rand.New(rand.NewPCG(1, 2))
	cur := []string{"EUR", "USD", "KRW", "JPY"}
	out := make([][]byte, n)
	for i := range out {
		v := fmt.Sprintf(`{"id":%d,"user":"u%05d","amount":%d.%02d,"cur":"%s","ts":%d,"tag":"`,
			rng.IntN(1e9), rng.IntN(1e5), rng.IntN(1e5), rng.IntN(100), cur[rng.IntN(len(cur))], 1_700_000_000_000+rng.Int64N(1e9))
		for len(v) < 99 {
			v += string(rune('a' + rng.IntN(26)))
		}
		out[i] = []byte(v[:99] + "}")
	}
	return out
}

func benchProduce(b *testing.B, nodes, replicas int, idempotent bool) {
	e, err := Start(Config{Nodes: nodes})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	// The byte bound keeps the engine's memory flat over b.N envelopes.
	if err := e.CreateTopic("bench", fmt.Sprintf("partitions=%d,replicas=%d,retention.bytes=%d", benchPartitions, replicas, 8<<20)); err != nil {
		b.Fatal(err)
	}
	// Placement spreads leaders over the nodes; the benchmark's connection
	// is on node 1, so node 1 leads every partition.
	for p := 0; p < benchPartitions; p++ {
		if err := e.MovePartitionLeader("bench", p, 1); err != nil {
			b.Fatal(err)
		}
	}
	pid, rounds := int64(-1), 1
	if idempotent {
		pid, rounds = 4242, benchRounds
	}
	values := benchValues(8192)
	bodies := make([][]byte, rounds)
	var wireBytes int
	for r := range bodies {
		req := &wire.ProduceRequest{Acks: wire.AcksLeader, Topics: []wire.ProduceTopic{{Topic: "bench", Epoch: 1}}}
		for p := 0; p < benchPartitions; p++ {
			seq := int32(-1)
			if idempotent {
				seq = int32(r * benchPerBatch)
			}
			bb := wire.NewBatchBuilder(pid, 0, seq)
			if !idempotent {
				bb = wire.NewBatchBuilder(-1, -1, -1)
			}
			for i := 0; i < benchPerBatch; i++ {
				bb.Append(1_700_000_000_000+int64(i), nil, values[(r*benchPartitions*benchPerBatch+p*benchPerBatch+i)%len(values)], nil)
			}
			batch, err := bb.Finish(wire.CodecLZ4)
			if err != nil {
				b.Fatal(err)
			}
			req.Topics[0].Partitions = append(req.Topics[0].Partitions, wire.ProducePartition{Partition: int32(p), Batches: batch})
		}
		bodies[r] = wire.Encode(nil, req)
		wireBytes = len(bodies[r])
	}

	c := newConn(e.nodes[0].data, nil) // no network: the handler path only
	c.sess = &session{id: 1, mode: wire.ModeProducer, client: "bench"}
	hdr := wire.Header{Code: wire.CodeProduce}
	resetSequences := func() {
		for _, p := range e.topics.lookup("bench").partitions() {
			p.mu.Lock()
			for _, r := range p.reps {
				r.log.producers = nil
			}
			p.mu.Unlock()
		}
	}
	const perEnvelope = benchPartitions * benchPerBatch
	b.SetBytes(int64(wireBytes))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := i % rounds
		if r == 0 && i > 0 && idempotent {
			b.StopTimer()
			resetSequences()
			b.StartTimer()
		}
		hdr.Corr = uint32(i)
		s := &slot{done: make(chan struct{})}
		dispatch(&request{c: c, hdr: hdr, body: bodies[r], slot: s})
		if !s.complete.Load() {
			b.Fatal("produce not answered synchronously")
		}
		if i == 0 {
			var rep wire.ProduceReply
			if err := wire.Decode(s.frame[wire.HeaderSize:], &rep); err != nil || rep.Topics[0].Partitions[0].Err.Name != "" {
				b.Fatalf("reply %+v %v", rep, err)
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)*perEnvelope/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/(float64(b.N)*perEnvelope), "ns/record")
	_, end := e.TopicOffsets("bench")
	var total int64
	for _, n := range end {
		total += n
	}
	if total != int64(b.N)*perEnvelope {
		b.Fatalf("engine holds %d records, want %d", total, int64(b.N)*perEnvelope)
	}
}
