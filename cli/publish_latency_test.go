package cli

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"ilinkdash/ui/jsonl"
)

// Replayed records keep their saved timestamps (--keep-timestamps), but
// the ack latency is measured from when each was sent: it used to be
// measured from the saved timestamp, an hour here.
func TestPublishKeptTimestampsLatencyFromSend(t *testing.T) {
	saved := time.Now().Add(-time.Hour).UTC()
	var in []byte
	for i := range 20 {
		in = jsonl.Append(in, &jsonl.Record{Topic: "OLD", Timestamp: saved.Add(time.Duration(i) * time.Millisecond),
			Key: []byte(fmt.Sprintf("k-%d", i)), Value: []byte("v")})
	}
	out, stderr, err := runCLI(t, string(in), "publish", "LAT.T", "--embedded", "--from-jsonl", "-", "--keep-timestamps", "-o", "json")
	if err != nil {
		t.Fatalf("publish: %v\n%s", err, stderr)
	}
	var sum publishSummary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if sum.Records != 20 || sum.Errors != 0 {
		t.Fatalf("20 records replayed: %+v", sum)
	}
	if sum.MaxMs <= 0 || sum.MaxMs > 30_000 || sum.P99Ms > sum.MaxMs {
		t.Fatalf("ack latency p99 %.3f ms, max %.3f ms: not measured from the send", sum.P99Ms, sum.MaxMs)
	}
}
