package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/engine"
	"ilinkdash/ilink/ilinktest"
)

func TestPublishEmbeddedJSON(t *testing.T) {
	out, stderr, err := runCLI(t, "", "publish", "bench", "--embedded", "--count", "2000", "--json", "--size", "100", "--compression", "lz4")
	if err != nil {
		t.Fatalf("publish: %v\nstderr: %s", err, stderr)
	}
	var m map[string]any
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("output is not a JSON object: %v\n%s", err, out)
	}
	if dec.More() {
		t.Fatalf("more than one JSON value in %q", out)
	}
	for _, k := range []string{"records", "errors", "records_per_sec", "mb_per_sec", "p50_ms", "p99_ms"} {
		if _, ok := m[k]; !ok {
			t.Errorf("field %q missing in %s", k, out)
		}
	}
	if m["records"] != float64(2000) || m["errors"] != float64(0) {
		t.Fatalf("records %v errors %v, want 2000 and 0", m["records"], m["errors"])
	}
	if m["records_per_sec"].(float64) <= 0 || m["p99_ms"].(float64) < m["p50_ms"].(float64) {
		t.Fatalf("implausible figures: %s", out)
	}
}

func TestPublishToEngineWithHeadersAndFile(t *testing.T) {
	e := startTestEngine(t, engine.Config{QueueManager: "QMPUB", Cluster: "CPUB"})
	addr := strings.Join(e.DataAddrs(), ",")
	// --partitions creates the missing topic.
	if _, stderr, err := runCLI(t, "", "publish", "ORDERS", "--addr", addr, "--partitions", "2", "--key", "order-1",
		"--value", "v1", "--header", "trace-id=abc", "--header", "empty="); err != nil {
		t.Fatalf("publish --value: %v\n%s", err, stderr)
	}
	if _, stderr, err := runCLI(t, "line-1\nline-2\nline-3\n", "publish", "ORDERS", "--addr", addr, "--key", "order-1", "--file", "-"); err != nil {
		t.Fatalf("publish --file -: %v\n%s", err, stderr)
	}
	part := ilink.KeyPartition([]byte("order-1"), 2)
	var recs []string
	ilinktest.Poll(5*time.Second, func() bool {
		rs, err := e.ReadPartition("ORDERS", part, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		recs = recs[:0]
		for _, r := range rs {
			recs = append(recs, string(r.Value))
		}
		if len(recs) == 4 {
			if len(rs[0].Headers) != 2 || rs[0].Headers[0].Key != "trace-id" || string(rs[0].Headers[0].Value) != "abc" {
				t.Fatalf("headers %+v", rs[0].Headers)
			}
			return true
		}
		return false
	})
	if strings.Join(recs, ",") != "v1,line-1,line-2,line-3" {
		t.Fatalf("stored %v", recs)
	}
}

func TestPublishErrors(t *testing.T) {
	e := startTestEngine(t, engine.Config{QueueManager: "QMPUE", Cluster: "CPUE"})
	if err := e.CreateTopic("T", "partitions=1"); err != nil {
		t.Fatal(err)
	}
	addr := strings.Join(e.DataAddrs(), ",")
	cases := []cliCase{
		{[]string{"publish", "T", "--addr", addr, "--value", "x", "--header", "novalue"}, `--header "novalue": want key=value`},
		{[]string{"publish", "T", "--addr", addr}, "nothing to publish"},
		{[]string{"publish", "T", "--addr", addr, "--value", "x", "--acks", "2"}, "--acks"},
		{[]string{"publish", "T", "--addr", addr, "--value", "x", "--compression", "gzip"}, "--compression"},
		{[]string{"publish", "T", "--addr", addr, "--value", "x", "--read-only"}, "MIMQE_READ_ONLY"},
		{[]string{"publish", "NEW", "--addr", addr, "--value", "x", "--partitions", "3", "--read-only"}, "MIMQE_READ_ONLY (CreateTopic refused: read-only mode)"},
		{[]string{"publish", "MISSING", "--addr", addr, "--value", "x"}, "MIMQE_UNKNOWN_TOPIC"},
	}
	for _, tc := range cases {
		_, _, err := runCLI(t, "", tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want it to contain %q", tc.args, err, tc.want)
		}
	}
	var user []engine.TopicInfo // SYSTEM.GROUPS is created at start
	for _, ti := range e.Topics() {
		if !ti.Internal {
			user = append(user, ti)
		}
	}
	if len(user) != 1 {
		t.Errorf("topics %v: read-only created one", user)
	}
	if rs, _ := e.ReadPartition("T", 0, 0, 0); len(rs) != 0 {
		t.Errorf("read-only publish stored %d records", len(rs))
	}
}

func TestValuePool(t *testing.T) {
	pool := valuePool(100, 5000)
	if len(pool) != 50 {
		t.Fatalf("%d values of 100 bytes in 5000 bytes, want 50", len(pool))
	}
	for _, v := range pool {
		if len(v) != 100 || v[0] != '{' || v[99] != '}' {
			t.Fatalf("value %q", v)
		}
	}
}

// The --size pool is bounded in bytes: 8,192 small values, fewer large
// ones within 64 MiB, one value when a single one is larger (8,192 x 8 MB
// was the out-of-memory of publish --size 8000000); the values stay
// distinct and exactly size bytes.
func TestValuePoolBoundedInBytes(t *testing.T) {
	for _, tc := range []struct{ size, want int }{
		{1, 8192}, {100, 8192}, {8192, 8192}, {8193, 8191}, {1_048_470, 64}, {8_000_000, 8}, {64 << 20, 1}, {100 << 20, 1},
	} {
		n := valuePoolCount(tc.size, valuePoolBytes)
		if n != tc.want || (n > 1 && n*tc.size > valuePoolBytes) {
			t.Errorf("size %d: %d values, want %d (at most %d bytes)", tc.size, n, tc.want, valuePoolBytes)
		}
	}
	pool := valuePool(10_000, 1<<20)
	seen := map[string]bool{}
	total := 0
	for _, v := range pool {
		total += len(v)
		seen[string(v)] = true
		if len(v) != 10_000 {
			t.Fatalf("a value of %d bytes, want 10000", len(v))
		}
	}
	if len(pool) != 104 || total > 1<<20 || len(seen) != len(pool) {
		t.Fatalf("%d values (%d distinct), %d bytes; want 104 distinct within 1 MiB", len(pool), len(seen), total)
	}
	if pool := valuePool(3<<20, 1<<20); len(pool) != 1 || len(pool[0]) != 3<<20 {
		t.Fatalf("a value larger than the budget: %d values", len(pool))
	}
}

// publish --size beyond what one record can carry is a usage error (exit
// 2) naming --size, the value and the bound, given before anything is
// generated or started (it was a runtime out-of-memory); so is a --value
// template that can expand beyond it. The largest --size allowed is
// published.
func TestPublishSizeBeyondTheRecordCap(t *testing.T) {
	t.Parallel()
	limit, err := ilink.ProducerConfig{}.MaxValueSize("T", -1, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := runCLIResult(t, "", "publish", "T", "--size", "8000000", "--count", "1", "--embedded")
	want := fmt.Sprintf("ilinkdash: --size 8000000: a record to T carries a value of at most %d bytes (a produce request is at most 1048576 bytes, within the 134217728-byte frame cap; the record, batch and request envelope take the rest)\n", limit)
	if res.code != exitUsage || !strings.HasPrefix(res.stderr, want) || !strings.Contains(res.stderr, "Usage: ilinkdash publish TOPIC [flags]") {
		t.Fatalf("publish --size 8000000: exit %d, stderr %q; want 2 and %q", res.code, res.stderr, want)
	}
	res = runCLIResult(t, "", "publish", "T", "--size", strconv.Itoa(limit+1), "--key", "k-{{seq}}", "--addr", "127.0.0.1:1")
	if res.code != exitUsage || !strings.Contains(res.stderr, fmt.Sprintf("--size %d: a record to T carries a value of at most", limit+1)) || !strings.Contains(res.stderr, "envelope, and the key and headers take the rest") {
		t.Fatalf("publish --size limit+1 with a key: exit %d, stderr %q", res.code, res.stderr)
	}
	res = runCLIResult(t, "", "publish", "T", "--value", "{{rand 1048576}}", "--addr", "127.0.0.1:1")
	if res.code != exitUsage || !strings.Contains(res.stderr, "--value expands to up to 1048576 bytes: a record to T carries a value of at most") {
		t.Fatalf("publish --value {{rand 1048576}}: exit %d, stderr %q", res.code, res.stderr)
	}
	out, stderr, err := runCLI(t, "", "publish", "T", "--size", strconv.Itoa(limit), "--count", "2", "--embedded", "-o", "json")
	if err != nil {
		t.Fatalf("publish --size %d (the bound): %v\n%s", limit, err, stderr)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil || m["records"] != float64(2) || m["errors"] != float64(0) {
		t.Fatalf("publish --size %d: %v %s", limit, err, out)
	}
}

// A negative count, size, rate, partition or replica count or batch size
// is a usage error naming that flag, before anything connects: --size -1
// said "nothing to publish", the others were named together, and
// --batch-size -1 was the producer's MIMQE_BAD_CONFIG with exit 1.
func TestPublishNegativeFlagIsNamed(t *testing.T) {
	for _, tc := range [][]string{
		{"--size", "-1"},
		{"--value", "x", "--count", "-1"},
		{"--value", "x", "--rate", "-5"},
		{"--value", "x", "--partitions", "-1"},
		{"--value", "x", "--replicas", "-2"},
		{"--value", "x", "--batch-size", "-1"},
	} {
		args := append([]string{"publish", "T", "--addr", "127.0.0.1:1"}, tc...)
		res := runCLIResult(t, "", args...)
		flag, val := tc[len(tc)-2], tc[len(tc)-1]
		if want := flag + " " + val + ": must not be negative"; res.code != exitUsage || !strings.Contains(res.stderr, want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc, res.code, res.stderr, want)
		}
	}
}

// A bad line stops a run after the records before it were sent: the
// summary (or the JSON) says what went, then the error names the line —
// for --from-jsonl and for stdin that does not fit the topic's schema.
func TestPublishStoppedByABadLineSaysWhatWent(t *testing.T) {
	e, tgt := topicEngine(t, "REPLAY", "partitions=1")
	saved := writeFile(t, "saved.jsonl", `{"topic":"T","key":"a","value":"v1"}`+"\n"+`{"topic":"T","key":"b","value":"v2"}`+"\nnot json\n"+`{"topic":"T","value":"v4"}`+"\n")
	out, _, err := runCLI(t, "", with(tgt, "publish", "REPLAY", "--from-jsonl", saved)...)
	wantExit(t, err, 1, "--from-jsonl: line 3")
	if !strings.HasPrefix(out, "topic REPLAY: 2 records acknowledged, 0 errors") {
		t.Fatalf("stdout %q: want the summary of the 2 records before line 3", out)
	}
	out, _, err = runCLI(t, string(mustRead(t, saved)), with(tgt, "publish", "REPLAY", "--from-jsonl", "-", "-o", "json")...)
	wantExit(t, err, 1, "--from-jsonl: line 3")
	var sum publishSummary
	if jerr := json.Unmarshal([]byte(out), &sum); jerr != nil || sum.Sent != 2 || sum.Records != 2 {
		t.Fatalf("stdout %q (%v): want the JSON summary of the 2 records sent", out, jerr)
	}
	if n := endOffsetSum(t, e, "REPLAY"); n != 4 {
		t.Fatalf("%d records on the topic, want the 2 before the bad line of each run", n)
	}

	_, tgt = topicEngine(t, "SHOP.ORDERS", "partitions=1")
	flags := []string{"--value-proto", filepath.Join(demoProtoDir, "shop/order.proto") + ":shop.Order", "--proto-path", demoProtoDir}
	out, _, err = runCLI(t, "{\"id\":\"a\"}\n{\"id\":\"b\"}\n{\"id\":7}\n", with(tgt, append([]string{"publish", "SHOP.ORDERS", "--file", "-"}, flags...)...)...)
	wantExit(t, err, 1, "record 2 not sent (nor any after it)")
	if !strings.HasPrefix(out, "topic SHOP.ORDERS: 2 records acknowledged, 0 errors") {
		t.Fatalf("stdout %q: want the summary of the 2 records before the bad one", out)
	}
}

// A directory given as --file or --from-jsonl is a usage error naming the
// flag, as a missing file is; it was opened, its first read failed
// mid-run (exit 1, `read DIR: is a directory`, an empty summary first).
func TestInputFileThatIsADirectory(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"publish", "T", "--embedded", "--from-jsonl", dir},
		{"publish", "T", "--embedded", "--file", dir},
		{"queue", "put", "ORDER.IN", "--embedded", "--file", dir},
	} {
		r := runCLIResult(t, "", args...)
		want := "ilinkdash: " + args[len(args)-2] + ": " + dir + " is a directory, not a file\n"
		if r.code != exitUsage || !strings.HasPrefix(r.stderr, want) || r.stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", args, r.code, r.stdout, r.stderr, want)
		}
	}
}

// A topic that does not exist is said so, with how to create it; its
// refused records are errors, not "sent but not acknowledged" (they were
// answered): sent = records + errors + not_acknowledged.
func TestPublishMissingTopicSaidSo(t *testing.T) {
	e := startTestEngine(t, engine.Config{QueueManager: "QMPUM", Cluster: "CPUM"})
	addr := strings.Join(e.DataAddrs(), ",")
	stdout, _, err := runCLI(t, "", "publish", "MISSING", "--addr", addr, "--value", "x", "--count", "3")
	if err == nil || !strings.Contains(err.Error(), "topic MISSING: no such topic (--partitions N creates it)") {
		t.Fatalf("err = %v, want it to say the topic does not exist and how to create it", err)
	}
	if strings.Contains(stdout, "not acknowledged") || !strings.Contains(stdout, "0 records acknowledged, 3 errors") {
		t.Errorf("summary:\n%s\nwant 3 errors and nothing unanswered", stdout)
	}
	stdout, _, _ = runCLI(t, "", "publish", "MISSING", "--addr", addr, "--value", "x", "--count", "3", "-o", "json")
	var sum publishSummary
	if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	if sum.Sent != 3 || sum.Errors != 3 || sum.NotAcknowledged != 0 || sum.Records != 0 {
		t.Errorf("json %+v: want sent 3 = records 0 + errors 3 + not_acknowledged 0", sum)
	}
}

// MB/s counts the bytes of the records acknowledged, record by record: it
// was the bytes sent scaled by the share acknowledged, so a --file whose
// large line failed counted most of that line as published.
func TestPublishCountsTheBytesAcknowledged(t *testing.T) {
	_, tgt := topicEngine(t, "SIZES", "partitions=1")
	big := strings.Repeat("x", ilink.DefaultMaxRequestSize+1) // one record the producer cannot send
	r := runCLIResult(t, "a\nbb\n"+big+"\nccc\n", with(tgt, "publish", "SIZES", "--file", "-", "--key", "k", "-o", "json")...)
	var sum publishSummary
	if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil {
		t.Fatalf("stdout %q (%v), stderr %q", r.stdout, err, r.stderr)
	}
	if sum.Records != 3 || sum.Errors != 1 || sum.Bytes != 3*1+1+2+3 {
		t.Fatalf("records %d, errors %d, bytes %d: want 3, 1 and the 9 key and value bytes of the 3 acknowledged", sum.Records, sum.Errors, sum.Bytes)
	}
}
