package live

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ui/views/tail"

	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/position"
	"ilinkdash/ilink/wire"
)

// collect reads batches until pred says stop, within the deadline.
func collect(t *testing.T, s tail.Stream, what string, stop func(got []tail.Record, b tail.Batch) bool) []tail.Record {
	t.Helper()
	var got []tail.Record
	done := false
	ilinktest.WaitFor(t, deadline, what, func() bool {
		select {
		case b := <-s.Records():
			if b.Epoch == 0 {
				return false // before the jump
			}
			got = append(got, b.Records...)
			done = stop(got, b)
		default:
		}
		return done
	})
	return got
}

// A seek with a Fill sends what the fill allows from the target and then
// holds: the last batch says Held, no FETCH reaches the engine, Waiting
// counts the rest from end offsets, and a resume continues right after
// the last record sent, each record once.
func TestTailSeekFillHolds(t *testing.T) {
	t.Parallel()
	const topic = "LIVE.FILL"
	e := engineWithTopic(t, topic, "partitions=1")
	produce(t, e, topic, 0, 5000)
	var fetches atomic.Int64
	t.Cleanup(e.Control(func(ev *engine.ControlEvent) engine.ControlAction {
		if ev.Code == wire.CodeFetch {
			fetches.Add(1)
		}
		return engine.ControlAction{}
	}))
	s := startTail(t, e, tail.Spec{Target: topic})
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	if _, err := s.Seek(ctx, position.Position{Kind: position.Offset, Partition: -1, Offset: 100}, tail.Fill{Records: 1000}); err != nil {
		t.Fatal(err)
	}
	got := collect(t, s, "the held batch", func(_ []tail.Record, b tail.Batch) bool { return b.Held })
	if len(got) != 1000 || got[0].Offset != 100 || got[len(got)-1].Offset != 1099 {
		t.Fatalf("sent %d records (%d..%d); want 1000 from offset 100", len(got), got[0].Offset, got[len(got)-1].Offset)
	}
	ilinktest.WaitFor(t, deadline, "Waiting counts the 3,900 records beyond", func() bool { n, ok := s.Waiting(); return ok && n == 3900 })
	before := fetches.Load()
	produce(t, e, topic, 5000, 100)
	ilinktest.WaitFor(t, deadline, "Waiting follows new records", func() bool { n, ok := s.Waiting(); return ok && n == 4000 })
	if n := fetches.Load() - before; n != 0 {
		t.Fatalf("%d FETCH requests while held", n)
	}
	select {
	case b := <-s.Records():
		t.Fatalf("a batch of %d records arrived while held", len(b.Records))
	default:
	}
	if err := s.Pause(ctx, false); err != nil {
		t.Fatal(err)
	}
	rest := collect(t, s, "the rest after resume", func(got []tail.Record, _ tail.Batch) bool { return len(got) >= 4000 })
	for i, r := range rest {
		if r.Offset != int64(1100+i) {
			t.Fatalf("record %d after resume has offset %d, want %d", i, r.Offset, 1100+i)
		}
	}

	// The bytes bound: what is sent fits it, and the next record would not.
	unit := tail.RecordSize(&got[0])
	if _, err := s.Seek(ctx, position.Position{Kind: position.Earliest, Partition: -1}, tail.Fill{Bytes: 10*unit + unit/2}); err != nil {
		t.Fatal(err)
	}
	byBytes := collect(t, s, "the held batch (bytes)", func(_ []tail.Record, b tail.Batch) bool { return b.Held })
	var sum int64
	for i := range byBytes {
		sum += tail.RecordSize(&byBytes[i])
	}
	if len(byBytes) == 0 || byBytes[0].Offset != 0 || sum > 10*unit+unit/2 || sum+unit <= 10*unit+unit/2-unit {
		t.Fatalf("bytes fill sent %d records, %d bytes (unit %d)", len(byBytes), sum, unit)
	}
	if err := s.Pause(ctx, false); err != nil {
		t.Fatal(err)
	}
	next := collect(t, s, "the record after the bytes hold", func(got []tail.Record, _ tail.Batch) bool { return len(got) > 0 })
	if next[0].Offset != byBytes[len(byBytes)-1].Offset+1 {
		t.Fatalf("after the bytes hold, resume starts at %d; want %d", next[0].Offset, byBytes[len(byBytes)-1].Offset+1)
	}
}

// On a pattern a jump names its topic: TOPIC:P@OFFSET moves that
// partition of that topic only; P@OFFSET alone is refused with the form.
// A pattern with no topic reports none, and a topic created for it is
// picked up.
func TestTailPatternSeekAndTopics(t *testing.T) {
	t.Parallel()
	e := startEngine(t)
	s := startTail(t, e, tail.Spec{Target: "LIVE.PAT.*"})
	if got := s.Topics(); len(got) != 0 {
		t.Fatalf("topics %v before any exists", got)
	}
	for _, topic := range []string{"LIVE.PAT.A", "LIVE.PAT.B"} {
		if err := e.CreateTopic(topic, "partitions=2"); err != nil {
			t.Fatal(err)
		}
		produce(t, e, topic, 0, 40)
	}
	ilinktest.WaitFor(t, deadline, "both topics tailed", func() bool { return len(s.Topics()) == 2 })
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	_, err := s.Seek(ctx, position.Position{Kind: position.Offset, Partition: 1, Offset: 3}, tail.Fill{})
	if err == nil || !strings.Contains(err.Error(), "TOPIC:P@OFFSET") {
		t.Fatalf("P@OFFSET on a pattern: %v", err)
	}
	// A partition of LIVE.PAT.B that holds records (the producer may
	// have put them all on one).
	part := int32(0)
	if recs, _ := e.ReadPartition("LIVE.PAT.B", 1, 0, 10); len(recs) > 3 {
		part = 1
	}
	// Wait for both topics' partitions to be assigned before seeking.
	ilinktest.WaitFor(t, deadline, "4 partitions assigned", func() bool {
		_, err := s.Seek(ctx, position.Position{Kind: position.Offset, Partition: part, Offset: 3, Topic: "LIVE.PAT.B"}, tail.Fill{})
		return err == nil
	})
	var got []tail.Record
	ilinktest.WaitFor(t, deadline, "records of LIVE.PAT.B partition 1 from 3", func() bool {
		select {
		case b := <-s.Records():
			if b.Epoch > 0 {
				got = append(got, b.Records...)
			}
		default:
		}
		return len(got) > 0
	})
	for _, r := range got {
		if r.Topic != "LIVE.PAT.B" || r.Partition != part {
			t.Fatalf("after the seek: %s/%d@%d (%s)", r.Topic, r.Partition, r.Offset, fmt.Sprint(len(got)))
		}
	}
	if got[0].Offset != 3 {
		t.Fatalf("first record after the seek at %d, want 3", got[0].Offset)
	}
}
