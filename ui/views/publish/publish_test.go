package publish_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"ilinkdash/ilink/ilinktest"
	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
	"ilinkdash/ui/internal/viewtest"
	"ilinkdash/ui/views/publish"
	"ilinkdash/ui/views/tab"
)

type pubRig struct {
	*viewtest.Rig
	pub *fakes.Publisher
	v   *publish.View
}

func newPubRig(t *testing.T, readOnly bool, pub *fakes.Publisher) *pubRig {
	t.Helper()
	pr := &pubRig{pub: pub}
	pr.Rig = viewtest.New(t, readOnly, func(ctx *common.Context, _ *fakes.Source) common.View {
		if pub == nil {
			pr.v = publish.New(ctx, nil)
		} else {
			pr.v = publish.New(ctx, pub)
		}
		return pr.v
	})
	return pr
}

// fill sets the form's text fields (by index) and leaves the focus on the
// first field.
func (r *pubRig) fill(vals map[int]string) {
	r.v.SetTarget("")
	for i, val := range vals {
		r.v.Field(i).Input.SetValue(val)
	}
}

// send publishes count records to topic as an operator would: down to the
// count field, enter to edit it (ctrl+u clears it), the count, then enter
// and enter again through the confirmation.
func (r *pubRig) send(topic, count string) {
	r.v.SetTarget(topic)
	r.Key("down", "down", "down", "down", "enter", "ctrl+u")
	r.TypeText(count)
	r.Key("enter", "enter")
}

func TestPublishFormValidation(t *testing.T) {
	r := newPubRig(t, false, &fakes.Publisher{Manual: true})
	const (
		topic, key, value, file, headers, count, rate = 0, 1, 2, 3, 4, 5, 6
	)
	for _, c := range []struct {
		vals map[int]string
		want string
	}{
		{map[int]string{topic: ""}, "give the topic to publish to"},
		{map[int]string{topic: "ORDER.*"}, "a topic name has no spaces"},
		{map[int]string{topic: "A B"}, "a topic name has no spaces"},
		{map[int]string{topic: "T", key: "k-{{rand x}}"}, `key: {{rand x}} at column 3: its N must be a whole number from 1 to 1048576, not "x"`},
		{map[int]string{topic: "T", value: "{{nope}}"}, `value: {{nope}} at column 1: unknown placeholder "nope"`},
		{map[int]string{topic: "T", value: "{{seq"}, "value: unterminated"},
		{map[int]string{topic: "T", value: "v", file: "/etc/hosts"}, "give a value or a file, not both"},
		{map[int]string{topic: "T", headers: "novalue"}, `headers: "novalue" is not NAME=VALUE`},
		{map[int]string{topic: "T", headers: "=v"}, `headers: "=v" is not NAME=VALUE`},
		{map[int]string{topic: "T", headers: "a={{rand 0}}"}, "header a: {{rand 0}}"},
		{map[int]string{topic: "T", count: "0"}, "count must be a whole number from 1 to 100,000,000"},
		{map[int]string{topic: "T", count: "abc"}, "count must be a whole number"},
		{map[int]string{topic: "T", count: "100000001"}, "count must be a whole number"},
		{map[int]string{topic: "T", rate: "-1"}, "rate must be a number of records per second"},
		{map[int]string{topic: "T", rate: "fast"}, "rate must be a number"},
		// Beyond what one record carries (ilink.ProducerConfig.MaxValueSize): refused before a run.
		{map[int]string{topic: "T", value: "{{rand 1048576}}"}, "value: up to 1,048,576 bytes a record; a record to T carries a value of at most 1,048,470 bytes"},
		{map[int]string{topic: "T", value: "{{rand 1048000}}", key: "{{rand 600}}"}, "value: up to 1,048,000 bytes a record; a record to T carries a value of at most 1,047,869 bytes"},
	} {
		r.v.Field(count).Input.SetValue("1")
		r.v.Field(rate).Input.SetValue("0")
		for i := 0; i <= rate; i++ {
			if i != count && i != rate {
				r.v.Field(i).Input.SetValue("")
			}
		}
		r.fill(c.vals)
		r.Key("ctrl+s") // the form opens navigating: enter would edit the topic
		s := strings.Join(strings.Fields(r.Screen()), " ")
		if !strings.Contains(s, strings.Join(strings.Fields(c.want), " ")) {
			t.Errorf("%v: screen lacks %q:\n%s", c.vals, c.want, r.Screen())
		}
		if r.pub.Runs() != 0 {
			t.Fatalf("%v: a run started despite the error", c.vals)
		}
		if !r.v.Capturing() {
			t.Fatalf("%v: the form lost the focus on an error", c.vals)
		}
	}
}

func TestPublishSendsTemplatedRecords(t *testing.T) {
	r := newPubRig(t, false, &fakes.Publisher{})
	r.v.SetTarget("ORDER.EVENT")
	// The form opens navigating on the key: nothing is typed into it yet.
	if r.v.Capturing() || !strings.Contains(r.Screen(), "▸ Key") {
		t.Fatalf("SetTarget did not open the form navigating on the key:\n%s", r.Screen())
	}
	r.Key("enter") // edit the key
	r.TypeText("order-{{seq}}")
	r.Key("tab")
	r.TypeText(`{"id":{{seq}},"r":"{{rand 4}}","u":"{{uuid}}","at":"{{now}}"}`)
	r.Key("tab", "tab")
	r.TypeText(`source=ilinkdash, run=r{{seq}}, note=a\,b`)
	r.Key("tab", "backspace")
	r.TypeText("25")
	r.Key("tab", "tab", "right", "right", "tab", "right") // zstd, acks 1
	r.Key("enter", "enter")                               // review, confirm
	run := r.pub.Last()
	if run == nil {
		t.Fatal("no run")
	}
	spec := run.Spec()
	if spec.Topic != "ORDER.EVENT" || spec.Count != 25 || spec.Compression != "zstd" || spec.Acks != "1" || spec.Rate != 0 {
		t.Fatalf("spec %+v", spec)
	}
	if !run.Wait(5 * time.Second) {
		t.Fatal("run did not finish")
	}
	r.Advance(250 * time.Millisecond)
	recs := run.Records()
	if len(recs) != 25 {
		t.Fatalf("%d records", len(recs))
	}
	val := regexp.MustCompile(`^\{"id":(\d+),"r":"[0-9A-Za-z]{4}","u":"[0-9a-f-]{36}","at":"2\d{3}-\d\d-\d\dT[0-9:.]+Z"\}$`)
	for i, rec := range recs {
		if string(rec.Key) != "order-"+strconv.Itoa(i) {
			t.Fatalf("key %d: %q", i, rec.Key)
		}
		m := val.FindStringSubmatch(string(rec.Value))
		if m == nil || m[1] != strconv.Itoa(i) {
			t.Fatalf("value %d: %q", i, rec.Value)
		}
		if len(rec.Headers) != 3 || rec.Headers[0].Key != "source" || string(rec.Headers[1].Value) != "r"+strconv.Itoa(i) || string(rec.Headers[2].Value) != "a,b" {
			t.Fatalf("headers %d: %+v", i, rec.Headers)
		}
	}
	r.MustShow("done in", "25/25 acknowledged", "connections node 1: 1 · node 2: 1 · node 3: 1", "last P")
	if fl := viewtest.Took[common.FlashMsg](r.Rig); len(fl) != 1 || !strings.Contains(fl[0].Text, "published 25 records") {
		t.Fatalf("flash %+v", fl)
	}
	if r.v.Running() || !strings.Contains(r.v.Status(), "published 25/25") {
		t.Fatalf("status %q", r.v.Status())
	}
	// A null key when Key is blank; a static value shared as is.
	r.v.SetTarget("ORDER.EVENT") // focus on the key
	r.Key("enter", "ctrl+u", "down", "ctrl+u")
	r.TypeText("same")
	r.Key("enter", "enter")
	run2 := r.pub.Last()
	if run2 == run {
		t.Fatalf("no second run:\n%s", r.Screen())
	}
	run2.Wait(5 * time.Second)
	for _, rec := range run2.Records() {
		if rec.Key != nil || string(rec.Value) != "same" {
			t.Fatalf("record %+v", rec)
		}
	}
}

func TestPublishProgressErrorsAndStop(t *testing.T) {
	pub := &fakes.Publisher{Manual: true, FailEvery: 10}
	r := newPubRig(t, false, pub)
	r.send("PAYMENT.RESULT", "1000")
	if r.v.Capturing() {
		t.Fatal("the form kept the focus after sending")
	}
	run := pub.Last()
	run.Step(100)
	r.Advance(250 * time.Millisecond)
	r.MustShow("● running", "90/1,000 acknowledged", "10 failed", "90 rec/s", "latency p50", "10× MIMQE_NOT_LEADER: partition 2 is led by node 3")
	if !strings.Contains(r.v.Status(), "publishing 100/1,000") {
		t.Fatalf("status %q", r.v.Status())
	}
	// Progress is read every 250 ms, not per record.
	run.Step(50)
	r.MustShow("90/1,000 acknowledged")
	r.Advance(250 * time.Millisecond)
	r.MustShow("135/1,000 acknowledged")
	// Sending again while running is refused.
	r.Key("e", "ctrl+s")
	r.MustShow("a publish is running (ctrl+x stops it)")
	r.Key("esc")
	r.Key("x")
	r.Advance(250 * time.Millisecond)
	r.MustShow("■ stopped", "135/1,000 acknowledged")
	if fl := viewtest.Took[common.FlashMsg](r.Rig); len(fl) < 2 || !strings.Contains(fl[len(fl)-1].Text, "stopped: 135 of 1,000 records acknowledged · 15 failed") {
		t.Fatalf("flashes %+v", fl)
	}
	if r.v.Running() {
		t.Fatal("still running after stop")
	}
}

func TestPublishFileValue(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "blob.bin")
	os.WriteFile(bin, []byte{0, 1, 2, '{', '{', 0xff}, 0o644)
	tmpl := filepath.Join(dir, "t.json")
	os.WriteFile(tmpl, []byte(`{"n":{{seq}}}`), 0o644)
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"n":{{seqq}}}`), 0o644)

	pub := &fakes.Publisher{}
	r := newPubRig(t, false, pub)
	send := func(path string, count string) {
		r.v.SetTarget("T")
		r.v.Field(3).Input.SetValue(path)
		r.v.Field(5).Input.SetValue(count)
		r.Key("ctrl+s", "enter")
		if run := pub.Last(); run != nil {
			run.Wait(5 * time.Second)
			r.Advance(250 * time.Millisecond) // the view learns that the run is done
		}
	}
	send(bin, "2")
	pub.Last().Wait(5 * time.Second)
	if recs := pub.Last().Records(); len(recs) != 2 || string(recs[1].Value) != "\x00\x01\x02{{\xff" {
		t.Fatalf("binary file: %+v", recs)
	}
	send(tmpl, "3")
	pub.Last().Wait(5 * time.Second)
	if recs := pub.Last().Records(); len(recs) != 3 || string(recs[2].Value) != `{"n":2}` {
		t.Fatalf("template file: %+v", recs)
	}
	runs := pub.Runs()
	send(bad, "1")
	r.MustShow("not sent:", `unknown placeholder "seqq"`)
	send(filepath.Join(dir, "missing"), "1")
	r.MustShow("not sent: file:", "no such file")
	// A file under the 8 MiB read limit but larger than a record carries.
	big := filepath.Join(dir, "big.bin")
	os.WriteFile(big, make([]byte, 2_000_000), 0o644)
	send(big, "1")
	r.MustShow("not sent: file:", "up to 2,000,000 bytes a record", "at most 1,048,470 bytes")
	if pub.Runs() != runs {
		t.Fatal("a bad file started a run")
	}
	// The one "~" rule (config.ExpandHome): ~/ is the home directory,
	// ~user is refused by name.
	t.Setenv("HOME", dir)
	send("~/"+filepath.Base(tmpl), "1")
	pub.Last().Wait(5 * time.Second)
	if recs := pub.Last().Records(); len(recs) != 1 || string(recs[0].Value) != `{"n":0}` {
		t.Fatalf("~/ file: %+v", recs)
	}
	runs = pub.Runs()
	send("~nobody/x", "1")
	r.MustShow("not sent: file:", `only "~" and "~/" are expanded, not "~user"`)
	if pub.Runs() != runs {
		t.Fatal("a bad file started a run")
	}
}

func TestPublishStartError(t *testing.T) {
	pub := &fakes.Publisher{Err: errors.New("MIMQE_READ_ONLY: \x1b]0;x\x07refused")}
	r := newPubRig(t, false, pub)
	r.v.SetTarget("T")
	r.Key("ctrl+s", "enter")
	r.MustShow("not sent: MIMQE_READ_ONLY: ␛]0;x␇refused")
	r.MustNotShow("\x1b")
}

func TestPublishReadOnlyAndUnavailable(t *testing.T) {
	ro := newPubRig(t, true, &fakes.Publisher{})
	ro.MustShow("Publishing is disabled: this context is read-only")
	ro.v.SetTarget("T")
	ro.Key("enter")
	if ro.pub.Runs() != 0 || ro.v.Capturing() || len(ro.v.ShortHelp()) != 0 {
		t.Fatal("read-only publish view acts")
	}
	for _, b := range ro.Ctx.Keys.Mutating() {
		if b == &ro.Ctx.Keys.PublishSend && b.Enabled() {
			t.Fatal("PublishSend enabled read-only")
		}
	}
	na := newPubRig(t, false, nil)
	na.MustShow("Publishing is not available")
}

func TestPublishShutdownStops(t *testing.T) {
	pub := &fakes.Publisher{Manual: true}
	r := newPubRig(t, false, pub)
	r.send("T", "50")
	pub.Last().Step(5)
	r.v.Shutdown()
	if p := pub.Last().Progress(); !p.Done || !p.Stopped {
		t.Fatalf("shutdown did not stop the run: %+v", p)
	}
}

// recSender is a PublishSender that records what it got.
type recSender struct {
	mu       sync.Mutex
	n        int
	fail     func(seq int) error
	latency  time.Duration
	closed   bool
	conns    map[int]int
	inFlight sync.WaitGroup
}

func (s *recSender) Send(topic string, r *publish.Record, done func(int32, int64, error)) {
	s.mu.Lock()
	seq := s.n
	s.n++
	s.mu.Unlock()
	var err error
	if s.fail != nil {
		err = s.fail(seq)
	}
	s.inFlight.Go(func() {
		// The acknowledgement's latency, which the run measures: the
		// sleep is what is under test, not a wait for something.
		time.Sleep(s.latency)
		done(int32(seq%2), int64(seq), err)
	})
}
func (s *recSender) Connections() map[int]int { return s.conns }

// Close returns once every record's done was called, as the producer's
// flush does (or when ctx ends).
func (s *recSender) Close(ctx context.Context) error {
	flushed := make(chan struct{})
	go func() { s.inFlight.Wait(); close(flushed) }()
	select {
	case <-flushed:
	case <-ctx.Done():
		return ctx.Err()
	}
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	return nil
}

// waitProgress polls run until cond holds (10 s at most) and returns the
// progress it held on.
func waitProgress(t *testing.T, run publish.Run, what string, cond func(publish.Progress) bool) publish.Progress {
	t.Helper()
	var p publish.Progress
	if !ilinktest.Poll(10*time.Second, func() bool { p = run.Progress(); return cond(p) }) {
		t.Fatalf("no %s within 10 s: %+v", what, p)
	}
	return p
}

func TestRunPublishDriver(t *testing.T) {
	s := &recSender{latency: 2 * time.Millisecond, conns: map[int]int{2: 3}, fail: func(seq int) error {
		switch {
		case seq%7 == 6:
			return errors.New("MIMQE_NOT_LEADER: moved")
		case seq%11 == 10:
			return errors.New("MIMQE_RECORD_TOO_LARGE")
		}
		return nil
	}}
	spec := publish.Spec{Topic: "T", Count: 60, Rate: 600, Record: func(seq int64, r *publish.Record) { r.Value = []byte("v") }}
	start := time.Now()
	run := publish.Drive(context.Background(), spec, s)
	p := waitProgress(t, run, "end", func(p publish.Progress) bool { return p.Done })
	if p.Stopped {
		t.Fatalf("progress %+v", p)
	}
	if el := time.Since(start); el < 80*time.Millisecond {
		t.Fatalf("60 records at 600/s took %v: the rate is not applied", el)
	}
	if p.Sent != 60 || p.Acked+p.Failed != 60 || p.Failed != 13 {
		t.Fatalf("counts %+v", p)
	}
	if len(p.Errors) != 2 || p.Errors[0].Text != "MIMQE_NOT_LEADER: moved" || p.Errors[0].Count != 8 || p.Errors[1].Count != 5 {
		t.Fatalf("errors %+v", p.Errors)
	}
	if p.LatencyP50 < 2*time.Millisecond || p.LatencyP99 < p.LatencyP50 || len(p.Last) != 8 || p.Connections[2] != 3 {
		t.Fatalf("latency/last/conns %+v", p)
	}
	if !s.closed {
		t.Fatal("the sender was not closed")
	}

	// Stop halts sending; what was sent is awaited.
	s2 := &recSender{latency: time.Millisecond}
	run2 := publish.Drive(context.Background(), publish.Spec{Topic: "T", Count: 1_000_000, Rate: 1000,
		Record: func(int64, *publish.Record) {}}, s2)
	waitProgress(t, run2, "records sent", func(p publish.Progress) bool { return p.Sent >= 10 })
	run2.Stop()
	run2.Stop() // idempotent
	p = waitProgress(t, run2, "end", func(p publish.Progress) bool { return p.Done })
	if !p.Stopped || p.Sent >= 1_000_000 || p.Acked != p.Sent {
		t.Fatalf("stopped run %+v", p)
	}
}

// TestPublishDurationsRound: the run's time is rounded to the second shown,
// not truncated: 1.75 s running reads "running 2s", 3.99 s "done in 4s"
// (it used to read "running 1s" and "done in 3s").
func TestPublishDurationsRound(t *testing.T) {
	pub := &fakes.Publisher{Manual: true}
	r := newPubRig(t, false, pub)
	r.send("PAYMENT.RESULT", "399")
	run := pub.Last()
	run.Step(175) // 10 ms of fake time each: 1.75 s
	r.Advance(250 * time.Millisecond)
	r.MustShow("● running 2s", "175/399 acknowledged")
	run.Step(224) // 3.99 s
	r.Advance(250 * time.Millisecond)
	r.MustShow("✓ done in 4s", "399/399 acknowledged")
	if fl := viewtest.Took[common.FlashMsg](r.Rig); len(fl) != 1 || fl[0].Text != "published 399 records in 4s" {
		t.Fatalf("flash %+v", fl)
	}
}

// A publish to a missing topic stops at the first MIMQE_UNKNOWN_TOPIC
// (instead of failing every record at the set rate) and offers to create
// the topic; created, the same records are published again.
func TestPublishMissingTopicStopsAndOffersToCreate(t *testing.T) {
	exists := map[string]bool{}
	var mu sync.Mutex
	pub := &fakes.Publisher{Exists: func(topic string) bool {
		mu.Lock()
		defer mu.Unlock()
		return exists[topic]
	}}
	var created []tab.TopicSpec
	r := newPubRig(t, false, pub)
	r.v.SetCreator(creatorFunc(func(_ context.Context, spec tab.TopicSpec) error {
		mu.Lock()
		defer mu.Unlock()
		created = append(created, spec)
		exists[spec.Name] = true
		return nil
	}))
	r.v.SetTarget("NEW.TOPIC")
	r.v.Field(5).Input.SetValue("1000") // count
	r.Key("ctrl+s", "enter")
	run := pub.Last()
	if !run.Wait(5 * time.Second) {
		t.Fatal("run did not finish")
	}
	r.Advance(time.Second)
	p := run.Progress()
	if !p.MissingTopic || p.Failed == 0 || p.Failed+p.Acked >= 1000 {
		t.Fatalf("the run did not stop at the unknown topic: %+v", p)
	}
	r.MustShow("Topic NEW.TOPIC does not exist", "stopped at the first MIMQE_UNKNOWN_TOPIC", "Partitions")
	// The default partitions are selected: typing replaces them. The
	// create dialogs share one rule (ilink/topicrules): 2000 partitions
	// are refused naming the field and its range, nothing is created.
	r.Key("enter")
	r.TypeText("2000")
	r.Key("enter")
	r.MustShow("Partitions: 2000 out of range 1..1024")
	r.MustNotShow("Create NEW.TOPIC: 2000 partitions")
	for range 4 {
		r.Key("backspace")
	}
	r.TypeText("6")
	r.Key("enter")
	r.MustShow("Create NEW.TOPIC: 6 partitions")
	if len(created) != 0 {
		t.Fatal("created before the review")
	}
	r.Key("enter")
	if len(created) != 1 || created[0].Name != "NEW.TOPIC" || created[0].Partitions != 6 {
		t.Fatalf("created %+v", created)
	}
	if pub.Runs() != 2 {
		t.Fatalf("%d runs, want the same publish again after the create", pub.Runs())
	}
	again := pub.Last()
	if !again.Wait(5 * time.Second) {
		t.Fatal("second run did not finish")
	}
	if p := again.Progress(); p.Acked != 1000 || p.Failed != 0 || p.MissingTopic {
		t.Fatalf("second run %+v", p)
	}
}

type creatorFunc func(context.Context, tab.TopicSpec) error

func (f creatorFunc) CreateTopic(ctx context.Context, s tab.TopicSpec) error { return f(ctx, s) }
