package search

import (
	"errors"
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink/consumer"
	"ilinkdash/ilink/position"
)

// On a pattern, TOPIC:P@OFFSET scans that partition of that topic only,
// from the offset; a P@OFFSET that names no topic is refused with the form
// to use (every topic of the pattern has its own partition P).
func TestSearchTopicPartitionOffsetOnAPattern(t *testing.T) {
	e := startEngine(t)
	for _, topic := range []string{"SP.KR", "SP.US"} {
		if err := e.CreateTopic(topic, "partitions=3,replicas=1"); err != nil {
			t.Fatal(err)
		}
		produce(t, e, topic, 0, 300)
	}
	addrs := strings.Join(e.DataAddrs(), ",")
	from := &position.Position{Kind: position.Offset, Partition: 2, Offset: 10, Topic: "SP.US"}
	var got []*consumer.Record
	p, err := Run(testCtx(t, time.Minute), addrs, Spec{Target: "SP.*", From: from}, Options{}, func(r *consumer.Record) error {
		got = append(got, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 {
		t.Fatal("no record scanned")
	}
	for _, r := range got {
		if r.Topic != "SP.US" || r.Partition != 2 || r.Offset < 10 {
			t.Fatalf("scanned %s/%d@%d; want only SP.US partition 2 from offset 10", r.Topic, r.Partition, r.Offset)
		}
	}
	if got[0].Offset != 10 || p.Matches != int64(len(got)) {
		t.Fatalf("first offset %d, matches %d of %d records", got[0].Offset, p.Matches, len(got))
	}

	_, err = Run(testCtx(t, time.Minute), addrs, Spec{Target: "SP.*", From: &position.Position{Kind: position.Offset, Partition: 2, Offset: 10}}, Options{}, func(*consumer.Record) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "TOPIC:P@OFFSET") {
		t.Fatalf("P@OFFSET on a pattern: %v; want a refusal naming TOPIC:P@OFFSET", err)
	}
	_, err = Run(testCtx(t, time.Minute), addrs, Spec{Target: "SP.*", From: &position.Position{Kind: position.Offset, Partition: 2, Offset: 10, Topic: "OTHER.X"}}, Options{}, func(*consumer.Record) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "does not match the pattern SP.*") {
		t.Fatalf("a topic outside the pattern: %v", err)
	}
}

// A match that emit could not hand over (a cancelled search) is not
// counted: the count and what the caller received agree.
func TestSearchCountsOnlyMatchesHandedOver(t *testing.T) {
	e := startEngine(t)
	if err := e.CreateTopic("SP.ONE", "partitions=1,replicas=1"); err != nil {
		t.Fatal(err)
	}
	produce(t, e, "SP.ONE", 0, 50)
	stop := errors.New("the reader is gone")
	taken := 0
	p, err := Run(testCtx(t, time.Minute), strings.Join(e.DataAddrs(), ","), Spec{Target: "SP.ONE", ValueContains: []byte("value-")}, Options{}, func(*consumer.Record) error {
		if taken == 5 {
			return stop
		}
		taken++
		return nil
	})
	if !errors.Is(err, stop) {
		t.Fatalf("err %v, want the emit error", err)
	}
	if p.Matches != int64(taken) {
		t.Fatalf("progress says %d matches; %d were handed over", p.Matches, taken)
	}
}
