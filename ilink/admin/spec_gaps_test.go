package admin

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/wire"
)

// Checks of rules no other test cites. Package admin imports ilink, so
// this is where a session, an admin service and a producer meet.

// TestSpecFrameCapPerSessionServiceProducer: the frame cap is set on each
// of the three objects, and each enforces the value it was given: a
// message under the cap goes through, one over it fails with
// MIMQE_MSG_SIZE_OVER without a request being sent, and the same message
// goes through where the cap is left at its default.
func TestSpecFrameCapPerSessionServiceProducer(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engine.Config{})
	noErr(t, e.CreateQueue("Q"))
	noErr(t, e.CreateTopic("T", "partitions=1"))
	// A 2 MiB cap (neither the minimum nor the default), and messages of
	// 1.5 MiB and 2.5 MiB.
	const limit = 2 << 20
	under, over := make([]byte, 3<<19), make([]byte, 5<<19)
	cc := countCodes(t, e)
	ctx := testCtx(t)
	addrs := strings.Join(e.DataAddrs(), ",")
	overCap := func(what string, code wire.Code, send func() error) {
		t.Helper()
		before := cc.n(code)
		err := send()
		if !ilink.HasName(err, wire.ErrMsgSizeOver) || !ilink.IsRejected(err) { // spec: W-06
			t.Fatalf("%s over a %d-byte cap: %v, want %s", what, limit, err, wire.ErrMsgSizeOver)
		}
		if n := cc.n(code) - before; n != 0 {
			t.Fatalf("%s over the cap sent %d %v requests", what, n, code)
		}
	}

	// Session (setMaxFrameLength on ILQmgr).
	dial := func(maxFrame int) *ilink.Queue {
		s, err := ilink.Dial(ctx, addrs, ilink.Options{AutoCommit: true, MaxFrame: maxFrame})
		if err != nil {
			t.Fatalf("Dial(MaxFrame %d): %v", maxFrame, err)
		}
		t.Cleanup(func() { s.Close() })
		q, err := s.AccessQueue(ctx, "Q")
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	capped := dial(limit)
	if _, err := capped.Put(ctx, under); err != nil {
		t.Fatalf("put under the session cap: %v", err)
	}
	overCap("session put", wire.CodePut, func() error { _, err := capped.Put(ctx, over); return err })
	if _, err := dial(0).Put(ctx, over); err != nil { // spec: W-06 (the refusal came from the cap set)
		t.Fatalf("put of the same message on a default session: %v", err)
	}

	// Admin service (setMaxFrameLength on ILAdminService).
	cq := connect(t, e, 1, Options{MaxFrame: limit}).AccessAdminQmgr("")
	if _, err := cq.Publish(ctx, "T", nil, under); err != nil {
		t.Fatalf("publish under the service cap: %v", err)
	}
	overCap("admin publish", wire.CodeAdminPublish, func() error { _, err := cq.Publish(ctx, "T", nil, over); return err })
	if _, err := connect(t, e, 1, Options{}).AccessAdminQmgr("").Publish(ctx, "T", nil, over); err != nil { // spec: W-06
		t.Fatalf("publish of the same record on a default service: %v", err)
	}

	// Producer (ILProducerConfig.maxFrameLength); MaxRequestSize is above
	// both sizes, so only the frame cap can refuse.
	produce := func(maxFrame int) *ilink.Producer {
		p, err := ilink.NewProducer(ctx, addrs, ilink.ProducerConfig{MaxFrameLength: maxFrame, MaxRequestSize: 8 << 20})
		if err != nil {
			t.Fatalf("NewProducer(MaxFrameLength %d): %v", maxFrame, err)
		}
		t.Cleanup(func() { p.Close() })
		return p
	}
	cp := produce(limit)
	if _, err := cp.SendSync(ctx, &ilink.ProducerRecord{Topic: "T", Value: under}); err != nil {
		t.Fatalf("send under the producer cap: %v", err)
	}
	overCap("producer send", wire.CodeProduce, func() error {
		_, err := cp.SendSync(ctx, &ilink.ProducerRecord{Topic: "T", Value: over})
		return err
	})
	if _, err := produce(0).SendSync(ctx, &ilink.ProducerRecord{Topic: "T", Value: over}); err != nil { // spec: W-06
		t.Fatalf("send of the same record by a default producer: %v", err)
	}
}

// TestSpecAdminPublishAcksOneNotIdempotent: admin publish is answered once
// the leader appended the record, while every in-sync follower still
// lacks it (acks=1, not all), and the stored batch carries no producer id
// or sequence (not idempotent), unlike an idempotent producer's batch.
func TestSpecAdminPublishAcksOneNotIdempotent(t *testing.T) {
	t.Parallel()
	e := startEngine(t, engine.Config{ReplicaLagMax: 30 * time.Second})
	noErr(t, e.CreateTopic("A8", "partitions=1,replicas=3"))
	leader := e.PartitionLeader("A8", 0)
	for n := 1; n <= 3; n++ {
		if n != leader {
			noErr(t, e.SetReplicaDelay(n, time.Hour))
		}
	}
	ctx := testCtx(t)
	q := connect(t, e, 1, Options{}).AccessAdminQmgr("")
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	r, err := q.Publish(pctx, "A8", []byte("k"), []byte("admin"))
	if err != nil {
		t.Fatalf("admin publish with both followers stalled: %v", err)
	}
	ps, err := e.TopicPartitions("A8")
	if err != nil {
		t.Fatal(err)
	}
	pi := ps[0]
	if r.Offset != 0 || pi.EndOffset != 1 || pi.HighWatermark != 0 || len(pi.InSync) != 3 { // spec: A-08 (acks=1)
		t.Fatalf("publish answered at offset %d; partition end %d, high watermark %d, in sync %v: want the answer before any in-sync follower had the record",
			r.Offset, pi.EndOffset, pi.HighWatermark, pi.InSync)
	}
	for n := 1; n <= 3; n++ {
		e.SetReplicaDelay(n, 0)
	}
	ilinktest.WaitFor(t, waitTimeout, "the followers to catch up", func() bool {
		ps, _ := e.TopicPartitions("A8")
		return ps[0].HighWatermark == 1
	})

	// Control: an idempotent producer's batch, stored after it.
	p, err := ilink.NewProducer(ctx, strings.Join(e.DataAddrs(), ","), ilink.ProducerConfig{Acks: ilink.AcksAll})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.ProducerID() < 0 {
		t.Fatalf("default producer has no producer id")
	}
	if md, err := p.SendSync(ctx, &ilink.ProducerRecord{Topic: "A8", Value: []byte("idempotent")}); err != nil || md.Offset != 1 {
		t.Fatalf("producer send: %+v %v", md, err)
	}

	// Read the stored batches back with a FETCH on an admin connection.
	c, err := ilink.DialConn(ctx, e.AdminAddrs()[0], ilink.ConnConfig{Mode: wire.ModeAdmin})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var rep wire.FetchReply
	req := &wire.FetchRequest{MaxBytes: 1 << 20, Topics: []wire.FetchTopic{{Topic: "A8", Partitions: []wire.FetchPartition{{Partition: 0, Offset: 0, MaxBytes: 1 << 20}}}}}
	noErr(t, c.Do(ctx, wire.CodeFetch, 0, req, &rep))
	if len(rep.Topics) != 1 || len(rep.Topics[0].Partitions) != 1 || rep.Topics[0].Partitions[0].Err.Name != "" {
		t.Fatalf("fetch reply %+v", rep)
	}
	bs, err := wire.SplitBatches(rep.Topics[0].Partitions[0].Batches)
	if err != nil || len(bs) != 2 {
		t.Fatalf("%d stored batches (%v), want the publish's and the producer's", len(bs), err)
	}
	var hs []wire.BatchHeader
	for _, b := range bs {
		h, err := wire.ParseBatchHeader(b)
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, h)
	}
	if hs[0].BaseOffset != 0 || hs[0].ProducerID != -1 || hs[0].BaseSequence != -1 { // spec: A-08 (not idempotent)
		t.Fatalf("admin publish stored batch %+v: want producer id -1 and sequence -1", hs[0])
	}
	if hs[1].BaseOffset != 1 || hs[1].ProducerID != p.ProducerID() || hs[1].BaseSequence != 0 {
		t.Fatalf("idempotent producer's batch %+v (producer id %d)", hs[1], p.ProducerID())
	}
	recs, err := wire.DecodeBatch(bs[0], 0, nil)
	if err != nil || len(recs) != 1 || !slices.Equal(recs[0].Value, []byte("admin")) {
		t.Fatalf("admin batch records %v %v", recs, err)
	}
}
