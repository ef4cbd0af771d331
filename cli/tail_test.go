package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

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
