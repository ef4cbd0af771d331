package cli

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/engine"
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
	e, err := engine.Start(engine.Config{ElectionDelay: 300 * time.Millisecond, QueueManager: "QMPUB", Cluster: "CPUB"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
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
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
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
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if strings.Join(recs, ",") != "v1,line-1,line-2,line-3" {
		t.Fatalf("stored %v", recs)
	}
}

func TestPublishErrors(t *testing.T) {
	e, err := engine.Start(engine.Config{ElectionDelay: 300 * time.Millisecond, QueueManager: "QMPUE", Cluster: "CPUE"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.CreateTopic("T", "partitions=1"); err != nil {
		t.Fatal(err)
	}
	addr := strings.Join(e.DataAddrs(), ",")
	cases := []struct {
		args []string
		want string
	}{
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
	pool := valuePool(100, 50)
	for _, v := range pool {
		if len(v) != 100 || v[0] != '{' || v[99] != '}' {
			t.Fatalf("value %q", v)
		}
	}
}
