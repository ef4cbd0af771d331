package cli

import (
	"bytes"
	"context"
	"ilinkdash/ilink/ilinktest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/wire"
	"ilinkdash/ui/jsonl"
)

// seedTopic writes n records key-<i>, value {"n":<i>} with header seq=<i>
// and a fixed timestamp base + i ms.
func seedTopic(t *testing.T, addrs []string, topic string, n int, base time.Time) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// acks=all: a search reads up to the high watermark, which under load
	// can trail what the leader alone acknowledged.
	p, err := ilink.NewProducer(ctx, strings.Join(addrs, ","), ilink.ProducerConfig{LingerMs: 1, Acks: ilink.AcksAll})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for i := 0; i < n; i++ {
		s := strconv.Itoa(i)
		p.Send(&ilink.ProducerRecord{Topic: topic, Key: []byte("key-" + s), Value: []byte(`{"n":` + s + `}`),
			Headers: []wire.RecordHeader{{Key: "seq", Value: []byte(s)}}, Timestamp: base.Add(time.Duration(i) * time.Millisecond)}, nil)
	}
	if err := p.Flush(ctx); err != nil {
		t.Fatal(err)
	}
}

func jsonLines(t *testing.T, out string) []jsonl.Record {
	t.Helper()
	var recs []jsonl.Record
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		r, err := jsonl.Parse([]byte(l))
		if err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		recs = append(recs, r)
	}
	return recs
}

func TestSearchTailAndReplay(t *testing.T) {
	e, _ := queueEngine(t)
	addr := []string{"--addr", strings.Join(e.DataAddrs(), ",")}
	if err := e.CreateTopic("SR", "partitions=3"); err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	seedTopic(t, e.DataAddrs(), "SR", 300, base)

	// search: key, header, value regex, ranges; progress summary on stderr.
	out, stderr, err := runCLI(t, "", with(addr, "search", "SR", "--key", "key-150", "-o", "json")...)
	if err != nil {
		t.Fatalf("search: %v\n%s", err, stderr)
	}
	recs := jsonLines(t, out)
	if len(recs) != 1 || string(recs[0].Value) != `{"n":150}` || len(recs[0].Headers) != 1 {
		t.Fatalf("search --key: %+v\nstderr: %s", recs, stderr)
	}
	if !strings.Contains(stderr, "search: scanned 300 records in") || !strings.Contains(stderr, "1 match") {
		t.Fatalf("stderr summary: %q", stderr)
	}
	out, _, err = runCLI(t, "", with(addr, "search", "SR", "--value-regex", `"n":1[0-9]\}`, "--header", "seq")...)
	if err != nil || strings.Count(out, "\n") != 10 || !strings.Contains(out, "key=key-15") {
		t.Fatalf("search --value-regex: %v\n%s", err, out)
	}
	out, _, err = runCLI(t, "", with(addr, "search", "SR", "--value-contains", `"n":2`, "--from", base.Add(200*time.Millisecond).Format(time.RFC3339Nano),
		"--to", base.Add(210*time.Millisecond).Format(time.RFC3339Nano), "-o", "json")...)
	if recs := jsonLines(t, out); err != nil || len(recs) != 10 {
		t.Fatalf("search by time range: %v, %d records\n%s", err, len(recs), out)
	}
	for _, bad := range [][]string{
		{"search", "SR", "--value-regex", "("},
		{"search", "SR", "--from", "soonish"},
		{"search", "SR", "-o", "xml"},
		{"search", "S.*", "--partition", "1"},
		{"search", "SR", "--header", "=v"},
	} {
		_, _, err := runCLI(t, "", with(addr, bad...)...)
		wantExit(t, err, 2, "")
	}
	// Cancelled (the command's context): exit 130, no group left behind.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a := newTestApp(t, nil)
	a.root.SetArgs(with(addr, "search", "SR", "--config", ""))
	a.root.SetOut(&ilinktest.Buffer{})
	a.root.SetErr(&ilinktest.Buffer{})
	if err := a.root.ExecuteContext(ctx); err == nil {
		t.Fatal("a cancelled search succeeded")
	}
	if gs := e.Groups(); len(gs) != 0 {
		t.Fatalf("search left groups %v", gs)
	}

	// tail --partition --key --exit-at-end: kcat-style, stops at the end.
	out, stderr, err = runCLI(t, "", with(addr, "tail", "SR", "--partition", "1", "--from", "earliest", "--exit-at-end", "--format", "json")...)
	if err != nil {
		t.Fatalf("tail --exit-at-end: %v\n%s", err, stderr)
	}
	p1 := jsonLines(t, out)
	_, end := e.TopicOffsets("SR")
	if len(p1) != int(end[1]) || len(p1) == 0 {
		t.Fatalf("tail --partition 1 --exit-at-end: %d records, partition 1 holds %d", len(p1), end[1])
	}
	for _, r := range p1 {
		if r.Partition != 1 {
			t.Fatalf("record of partition %d", r.Partition)
		}
	}
	out, _, err = runCLI(t, "", with(addr, "tail", "SR", "--key", "key-7", "--from", "earliest", "--exit-at-end")...)
	if err != nil || strings.Count(out, "\n") != 1 || !strings.Contains(out, "key=key-7 ") {
		t.Fatalf("tail --key --exit-at-end: %v\n%s", err, out)
	}
	_, _, err = runCLI(t, "", with(addr, "tail", "S.*", "--partition", "0")...)
	wantExit(t, err, 2, "--partition needs a topic")

	// Replay what tail saved into another topic, with keys, headers and timestamps.
	out, _, err = runCLI(t, "", with(addr, "tail", "SR", "--from", "earliest", "--exit-at-end", "--format", "json")...)
	if err != nil {
		t.Fatal(err)
	}
	saved := filepath.Join(t.TempDir(), "saved.jsonl")
	if err := os.WriteFile(saved, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := e.CreateTopic("SR.REPLAY", "partitions=3"); err != nil {
		t.Fatal(err)
	}
	_, stderr, err = runCLI(t, "", with(addr, "publish", "SR.REPLAY", "--from-jsonl", saved, "--keep-timestamps", "--json")...)
	if err != nil {
		t.Fatalf("publish --from-jsonl: %v\n%s", err, stderr)
	}
	out, _, err = runCLI(t, "", with(addr, "search", "SR.REPLAY", "-o", "json")...)
	replayed := jsonLines(t, out)
	if err != nil || len(replayed) != 300 {
		t.Fatalf("replayed %d records: %v", len(replayed), err)
	}
	byKey := map[string]jsonl.Record{}
	for _, r := range replayed {
		byKey[string(r.Key)] = r
	}
	r150 := byKey["key-150"]
	if string(r150.Value) != `{"n":150}` || len(r150.Headers) != 1 || string(r150.Headers[0].Value) != "150" || !r150.Timestamp.Equal(base.Add(150*time.Millisecond)) {
		t.Fatalf("replayed key-150: %+v", r150)
	}
	// Same keys land on the same partitions (the partitioner hashes the key).
	orig := map[string]int32{}
	for _, r := range jsonLines(t, string(mustRead(t, saved))) {
		orig[string(r.Key)] = r.Partition
	}
	for k, r := range byKey {
		if orig[k] != r.Partition {
			t.Fatalf("%s: partition %d, was %d", k, r.Partition, orig[k])
		}
	}
	_, _, err = runCLI(t, "", with(addr, "publish", "SR.REPLAY", "--from-jsonl", saved, "--key", "k")...)
	wantExit(t, err, 2, "records keep their own keys")
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte(`{"topic":"x","value":"ok"}`+"\n"+"not json\n"), 0o600)
	_, _, err = runCLI(t, "", with(addr, "publish", "SR.REPLAY", "--from-jsonl", bad)...)
	if err == nil || !strings.Contains(err.Error(), "--from-jsonl: line 2") {
		t.Fatalf("bad line: %v", err)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// cancelOnWrite is standard output whose reader goes away once the
// first block is written: the stdout watch (watchStdoutReader) cancels
// the run with errStdoutClosed, as for `ilinkdash search T | head -1`.
type cancelOnWrite struct {
	cancel func(error)
	n      int
}

func (w *cancelOnWrite) Write(p []byte) (int, error) {
	w.n += len(p)
	w.cancel(errStdoutClosed)
	return len(p), nil
}

func TestSearchReaderGoneIsAQuietExitZero(t *testing.T) {
	e := startTestEngine(t, engine.Config{})
	if err := e.CreateTopic("SRH", "partitions=1"); err != nil {
		t.Fatal(err)
	}
	seedTopic(t, e.DataAddrs(), "SRH", 3000, time.Now().Add(-time.Hour)) // ~150 KB of lines: stdout is written before the scan ends
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	out := &cancelOnWrite{cancel: cancel}
	var errb bytes.Buffer
	a := newTestApp(t, nil)
	code, err := a.execute(ctx, []string{"search", "SRH", "--addr", strings.Join(e.DataAddrs(), ","), "--config", ""}, strings.NewReader(""), out, &errb)
	if out.n == 0 {
		t.Fatal("nothing written before the scan ended")
	}
	if code != 0 || errb.Len() != 0 {
		t.Fatalf("exit %d (%v), stderr %q: want a quiet exit 0 when the reader went away (not interrupted, 130)", code, err, errb.String())
	}
}

// A --field the topic's schema lacks is a usage error naming the step and
// the fields there are; it scanned the topic and found nothing, silently.
func TestSearchFieldTheSchemaLacks(t *testing.T) {
	r := runCLIResult(t, "", "search", "SHOP.ORDERS", "--embedded", "--field", "customer.city=Seoul")
	want := `ilinkdash: --field customer.city=Seoul: shop.Order.customer has no field "city" (its fields: id, name, address)` + "\n"
	if r.code != exitUsage || !strings.HasPrefix(r.stderr, want) || r.stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 2 and %q", r.code, r.stdout, r.stderr, want)
	}
	r = runCLIResult(t, "", "search", "SHOP.ORDERS", "--embedded", "--field", "customer.address.city=Seoul", "--max", "1")
	if r.code != 0 || !strings.Contains(r.stdout, `"city":"Seoul"`) {
		t.Fatalf("a field it has: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}
