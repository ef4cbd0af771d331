package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/consumer"
	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ilink/schema"
	"ilinkdash/ilink/wire"
)

func TestTailBadFlagsAreUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"tail", "T", "--from", "yesterday"},
		{"tail", "T", "--format", "xml"},
		{"tail", "T", "--commit", "sometimes"},
		{"tail", "T", "--count", "-1"},
		{"tail", "T", "--partition", "-3"}, // it read every partition, silently
	} {
		res := runCLIResult(t, "", args...)
		if res.code != exitUsage || !strings.Contains(res.stderr, "Usage: ilinkdash tail TOPIC_OR_PATTERN [flags]") {
			t.Errorf("%v: exit %d, stderr %q; want a usage error (exit 2) with the usage line", args, res.code, res.stderr)
		}
	}
	if r := runCLIResult(t, "", "search", "T", "--key", "k", "--partition", "-1"); r.code != exitUsage || !strings.HasPrefix(r.stderr, "ilinkdash: --partition -1: want a partition number, 0 or more\n") {
		t.Errorf("search --partition -1: exit %d, stderr %q", r.code, r.stderr)
	}
	_, _, err := runCLI(t, "", "tail", "T", "--from", "yesterday")
	if err == nil || !strings.Contains(err.Error(), `--from: position "yesterday": want earliest, latest`) {
		t.Errorf("message: %v", err)
	}
}

func tailTestRecord() *consumer.Record {
	return &consumer.Record{
		Topic:     "ORDER.EVENT",
		Partition: 2,
		Offset:    41,
		Timestamp: time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC),
		Key:       nil,
		Value:     []byte{0x00, 0xff, 0x1b, '[', '2', 'J'},
		Headers: []wire.RecordHeader{
			{Key: "trace-id", Value: []byte("abc")},
			{Key: "bin", Value: []byte{0xfe}},
			{Key: "none", Value: nil},
		},
	}
}

func TestTailJSONFormat(t *testing.T) {
	var b bytes.Buffer
	if err := printTail(t, "json")(&b, tailTestRecord()); err != nil {
		t.Fatal(err)
	}
	r := tailTestRecord()
	r.Key = []byte("order-1")
	r.Value = []byte("caf\u00e9 \u202e\u009b evil")
	if err := printTail(t, "json")(&b, r); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines: %q", len(lines), b.String())
	}
	var m1, m2 map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &m1); err != nil {
		t.Fatal(err)
	}
	if m1["topic"] != "ORDER.EVENT" || m1["partition"] != float64(2) || m1["offset"] != float64(41) ||
		m1["timestamp"] != "2026-01-02T03:04:05.006Z" || m1["key"] != nil || m1["value_encoding"] != "base64" ||
		m1["value"] != "AP8bWzJK" {
		t.Fatalf("binary record: %s", lines[0])
	}
	if _, ok := m1["key_encoding"]; ok {
		t.Fatalf("key_encoding on a null key: %s", lines[0])
	}
	hs := m1["headers"].([]any)
	if len(hs) != 3 || hs[0].(map[string]any)["value"] != "abc" || hs[1].(map[string]any)["value_encoding"] != "base64" || hs[2].(map[string]any)["value"] != nil {
		t.Fatalf("headers: %s", lines[0])
	}
	if err := json.Unmarshal([]byte(lines[1]), &m2); err != nil {
		t.Fatal(err)
	}
	if m2["key"] != "order-1" || m2["value"] != "caf\u00e9 \u202e\u009b evil" || m2["value_encoding"] != nil {
		t.Fatalf("text record: %s", lines[1])
	}
	// Bidi overrides and C1 controls are escaped on the line itself.
	if strings.ContainsRune(lines[1], '\u202e') || strings.ContainsRune(lines[1], '\u009b') || !strings.Contains(lines[1], `\u202e`) {
		t.Fatalf("raw terminal controls in %q", lines[1])
	}
}

func TestTailTextAndHexFormats(t *testing.T) {
	var b bytes.Buffer
	r := tailTestRecord()
	r.Key = []byte("k\x1b]0;title\x07")
	if err := printTail(t, "text")(&b, r); err != nil {
		t.Fatal(err)
	}
	line := b.String()
	if strings.ContainsAny(line, "\x1b\x07\x00") || strings.Count(line, "\n") != 1 {
		t.Fatalf("unsanitized text line %q", line)
	}
	if !strings.HasPrefix(line, "2026-01-02T03:04:05.006Z ORDER.EVENT/2@41 key=") || !strings.Contains(line, "h:trace-id=abc") {
		t.Fatalf("text line %q", line)
	}
	b.Reset()
	if err := printTail(t, "hex")(&b, tailTestRecord()); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != "2026-01-02T03:04:05.006Z ORDER.EVENT/2@41 h:trace-id=616263 h:bin=fe h:none= value=00ff1b5b324a\n" {
		t.Fatalf("hex line %q", got)
	}
}

// printTail is the record printer of a --format, without schemas.
func printTail(t *testing.T, format string) func(io.Writer, *consumer.Record) error {
	t.Helper()
	p, err := newTailPrinter(format)
	if err != nil {
		t.Fatal(err)
	}
	return p.write
}

// --exit-at-end on a pattern that matches no topic says so and fails: a
// typo must not pass for an empty save. A pattern matching an empty topic
// reads to its end (nothing) and succeeds.
func TestTailExitAtEndOnAPatternThatMatchesNothing(t *testing.T) {
	_, tgt := topicEngine(t, "EAE.T", "partitions=2")
	r := runCLIResult(t, "", with(tgt, "tail", "NOPE.*", "--exit-at-end", "--from", "earliest")...)
	if r.code != exitError1 || r.stderr != "ilinkdash: tail: no topic matches NOPE.*\n" || r.stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q; want exit 1 and that no topic matches", r.code, r.stdout, r.stderr)
	}
	r = runCLIResult(t, "", with(tgt, "tail", "EAE.*", "--exit-at-end", "--from", "earliest")...)
	if r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Fatalf("an empty matching topic: exit %d, stdout %q, stderr %q; want exit 0 and nothing", r.code, r.stdout, r.stderr)
	}
}

// A tail on a pattern that matches no topic waits for one, as it should,
// and now says so on stderr: it waited in silence, so a mistyped pattern
// looked like a quiet topic. An interrupt then ends it cleanly.
func TestTailOnAPatternThatMatchesNothingSaysItWaits(t *testing.T) {
	_, tgt := topicEngine(t, "WAIT.T", "partitions=1")
	var out bytes.Buffer
	var errb ilinktest.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		code, _ := newTestApp(t, nil).execute(ctx, with(tgt, "tail", "NOPE.*", "--config", ""), strings.NewReader(""), &out, &errb)
		done <- code
	}()
	want := "ilinkdash: tail: no topic matches NOPE.* yet; waiting for one (checked every 10s; ctrl+c stops)\n"
	ilinktest.WaitFor(t, 20*time.Second, "the waiting line on stderr", func() bool { return errb.String() == want })
	cancel()
	select {
	case code := <-done:
		if code != 0 || out.Len() != 0 || errb.String() != want {
			t.Fatalf("interrupted: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("tail did not end on its interrupt")
	}
	// A pattern that matches says nothing of the kind.
	r := runCLIResult(t, "", with(tgt, "tail", "WAIT.*", "--exit-at-end", "--from", "earliest")...)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("a matching pattern: exit %d, stderr %q", r.code, r.stderr)
	}
}

// A decode rule's display formats show in the text line: value: hex as
// hex, key: json and value: json as their JSON on one line (bytes that are
// not JSON as text). Only key: hex was honoured; the rest printed as text.
func TestTailTextLineHonoursTheRulesFormats(t *testing.T) {
	set, err := schema.Compile([]schema.Rule{
		{Topics: "HEX.*", Value: schema.Spec{Kind: schema.KindHex}},
		{Topics: "JSON.*", Key: schema.Spec{Kind: schema.KindJSON}, Value: schema.Spec{Kind: schema.KindJSON}},
	})
	if err != nil {
		t.Fatal(err)
	}
	p, err := newTailPrinter("text")
	if err != nil {
		t.Fatal(err)
	}
	p.set = set
	for _, c := range []struct {
		topic      string
		key, value string
		want       string
	}{
		{"HEX.T", "k", "ab", " key=k 6162\n"},
		{"JSON.T", "{ \"id\" : 1 }", "{\n  \"a\": [1, 2],\n  \"s\": \"\u202e\"\n}", ` key={"id":1} {"a":[1,2],"s":"\u202e"}` + "\n"},
		{"JSON.T", "plain", "not json\n", " key=plain not json␊\n"},
		{"TEXT.T", "k", "{\n}", " key=k {␊}\n"},
	} {
		var b bytes.Buffer
		r := tailTestRecord()
		r.Topic, r.Key, r.Value, r.Headers = c.topic, []byte(c.key), []byte(c.value), nil
		if err := p.write(&b, r); err != nil {
			t.Fatal(err)
		}
		if got := b.String(); !strings.HasSuffix(got, c.topic+"/2@41"+c.want) {
			t.Errorf("%s %q %q: line %q, want it to end %q", c.topic, c.key, c.value, got, c.want)
		}
	}
}

// A manual commit the group's coordinator cannot take (its failover) is
// said once and kept, the latest offset per partition, and taken later;
// the tail goes on. It ended the tail (exit 1) at every coordinator
// failover. A refusal still ends it; one not taken at the end is said.
func TestManualCommitsThroughACoordinatorFailover(t *testing.T) {
	busy := &ilink.Error{Name: wire.ErrNotAvailable, Tail: "group coordinator for G", Kind: ilink.KindRejected}
	down := true
	var committed []string
	commit := func(_ context.Context, topic string, part int32, off int64) error {
		if down {
			return busy
		}
		committed = append(committed, fmt.Sprintf("%s/%d@%d", topic, part, off))
		return nil
	}
	var stderr ilinktest.Buffer
	run := tailRun{target: "T", stderr: &stderr}
	var m manualCommits
	ctx := context.Background()
	for off := int64(1); off <= 3; off++ {
		if err := m.commit(ctx, commit, run, "T", 0, off); err != nil {
			t.Fatalf("commit %d in the failover: %v (it ended the tail)", off, err)
		}
	}
	if err := m.commit(ctx, commit, run, "T", 1, 1); err != nil {
		t.Fatal(err)
	}
	if got := stderr.String(); strings.Count(got, "\n") != 1 || !strings.Contains(got, "commit T/0@1 not taken: MIMQE_NOT_AVAILABLE (group coordinator for G) (still trying") {
		t.Fatalf("stderr %q: want one line saying so", got)
	}
	down = false
	m.tried = time.Time{} // the retry interval passed
	if err := m.retry(ctx, commit, run); err != nil || len(m.pending) != 0 {
		t.Fatalf("retry: %v, pending %v", err, m.pending)
	}
	if got := strings.Join(committed, " "); got != "T/0@3 T/1@1" && got != "T/1@1 T/0@3" {
		t.Fatalf("committed %q: want the latest offset of each partition once", committed)
	}
	if !strings.HasSuffix(stderr.String(), "ilinkdash: tail: commits taken again\n") {
		t.Fatalf("stderr %q: want the end of the failover said", stderr.String())
	}
	// A refusal ends the tail.
	refused := errors.Join(&ilink.Error{Name: wire.ErrTopicRebalanced, Kind: ilink.KindRejected})
	if err := m.commit(ctx, func(context.Context, string, int32, int64) error { return refused }, run, "T", 0, 9); err == nil || !strings.Contains(err.Error(), "tail T: commit T/0@9") {
		t.Fatalf("a refused commit: %v, want the tail ended", err)
	}
	// Not taken at the end: said.
	m, down = manualCommits{}, true
	if err := m.commit(ctx, commit, run, "T", 0, 5); err != nil {
		t.Fatal(err)
	}
	if err := m.last(ctx, commit, run); err != nil || !strings.HasSuffix(stderr.String(), "the commits of 1 partition not taken at the end: the group reads their last records again\n") {
		t.Fatalf("last: %v, stderr %q", err, stderr.String())
	}
}

// tail --group G --exit-at-end whose member is given no partition (another
// member holds the topic's only one) says so and waits for its share:
// given none within the wait, it fails naming the group; it exited 0 at
// once, having printed nothing (an empty save). Given the partition when
// the holder leaves, it reads to the end.
func TestTailExitAtEndWaitsForTheGroupsShare(t *testing.T) {
	defer func(w time.Duration) { shareWait = w }(shareWait)
	shareWait = 1500 * time.Millisecond
	e, tgt := topicEngine(t, "SHARE.T", "partitions=1")
	_, q := adminAt(t, e.AdminAddrs()[0])
	if _, err := q.Publish(context.Background(), "SHARE.T", nil, []byte("r0")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opt := consumer.NewOptions()
	opt.Group = "share-g"
	holder, err := consumer.Subscribe(ctx, strings.Join(e.DataAddrs(), ","), "SHARE.T", opt)
	if err != nil {
		t.Fatal(err)
	}
	r := runCLIResult(t, "", with(tgt, "tail", "SHARE.T", "--group", "share-g", "--exit-at-end", "--from", "earliest")...)
	if r.code != exitError1 || r.stdout != "" || !strings.Contains(r.stderr, "group share-g gave this member no partition of SHARE.T yet (another member holds them); waiting up to 2s") ||
		!strings.Contains(r.stderr, "tail SHARE.T: group share-g gave this member no partition within 2s: another member holds them all; nothing was read") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 1 and the group named", r.code, r.stdout, r.stderr)
	}
	// The holder leaves while the tail waits: it gets the partition.
	shareWait = 20 * time.Second
	go func() {
		time.Sleep(500 * time.Millisecond) // into the tail's wait: a member leaving then
		holder.Close()
	}()
	r = runCLIResult(t, "", with(tgt, "tail", "SHARE.T", "--group", "share-g", "--exit-at-end", "--from", "earliest")...)
	if r.code != 0 || !strings.Contains(r.stdout, "SHARE.T/0@0") {
		t.Fatalf("after the holder left: exit %d, stdout %q, stderr %q; want the record read to the end", r.code, r.stdout, r.stderr)
	}
}

// A tail whose fetches fail (all nodes down) says so once after
// fetchQuiet, and once when fetching works again: it printed nothing, an
// outage looking like a quiet topic.
func TestTailSaysWhenFetchingFails(t *testing.T) {
	var stderr ilinktest.Buffer
	var w fetchWatch
	t0 := time.Date(2026, 12, 7, 10, 0, 0, 0, time.Local)
	down := consumer.FetchHealth{Err: errors.New("MIMQE_CONNECT_FAILED (127.0.0.1:1: connection refused)"), FailingSince: t0}
	w.check(down, t0.Add(time.Second), &stderr) // not yet
	w.check(down, t0.Add(6*time.Second), &stderr)
	w.check(down, t0.Add(9*time.Second), &stderr) // said once
	w.check(consumer.FetchHealth{OK: t0.Add(10 * time.Second)}, t0.Add(10*time.Second), &stderr)
	w.check(consumer.FetchHealth{OK: t0.Add(11 * time.Second)}, t0.Add(11*time.Second), &stderr)
	want := "ilinkdash: tail: no fetch since 10:00:00: MIMQE_CONNECT_FAILED (127.0.0.1:1: connection refused) (still trying)\nilinkdash: tail: fetching again\n"
	if got := stderr.String(); got != want {
		t.Fatalf("stderr %q, want %q", got, want)
	}
}
