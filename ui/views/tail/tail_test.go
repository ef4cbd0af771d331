package tail_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"ilinkdash/ui/sanitize/sanitizetest"

	"ilinkdash/ui/internal/viewtest"
	"ilinkdash/ui/jsonl"

	tea "charm.land/bubbletea/v2"

	"ilinkdash/ilink/position"
	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
	"ilinkdash/ui/views/tail"
)

// tailRig is a rig on a tail view with a manual fake tailer.
type tailRig struct {
	*viewtest.Rig
	tl *fakes.Tailer
	v  *tail.View
}

func newTailRig(t *testing.T, buffer int, opt fakes.TailerOptions) *tailRig {
	t.Helper()
	fk := fakes.NewTailer(opt)
	return newTailRigOver(t, buffer, fk, fk)
}

// newTailRigOver is newTailRig with the view reading tl, a tailer built
// over the fake fk (which the rig's open and emit drive).
func newTailRigOver(t *testing.T, buffer int, tl tail.Tailer, fk *fakes.Tailer) *tailRig {
	t.Helper()
	tr := &tailRig{tl: fk}
	tr.Rig = viewtest.New(t, false, func(ctx *common.Context, _ *fakes.Source) common.View {
		if buffer > 0 {
			ctx.Config.TailBuffer = buffer
		}
		tr.v = tail.New(ctx, tl)
		return tr.v
	})
	return tr
}

// open tails target and lets n records in.
func (r *tailRig) open(target string, n int) *fakes.TailStream {
	r.T.Helper()
	r.Run(r.v.Open(target))
	s := r.tl.Last()
	if s == nil {
		r.T.Fatal("no stream started")
	}
	r.emit(n)
	return s
}

// warned fails unless the view's one flash since the last is a warning
// saying text; it then forgets what the view emitted.
func (r *tailRig) warned(text string) {
	r.T.Helper()
	if fl := viewtest.Took[common.FlashMsg](r.Rig); len(fl) != 1 || fl[0].Level != common.LevelWarn || fl[0].Text != text {
		r.T.Fatalf("flash %+v, want the warning %q", fl, text)
	}
	r.Out = nil
}

func (r *tailRig) emit(n int) {
	r.tl.Last().Emit(n)
	r.Advance(300 * time.Millisecond)
}

func TestTailBatchesFollowAndRate(t *testing.T) {
	r := newTailRig(t, 0, fakes.TailerOptions{})
	r.MustShow("Nothing tailed yet")
	s := r.open("ORDER.EVENT", 100)
	if got := s.Spec(); got.Target != "ORDER.EVENT" || got.Group != "" || got.From.Kind != position.Latest {
		t.Fatalf("spec %+v", got)
	}
	// Following: the newest record is on screen, the oldest is not.
	r.MustShow("● live", "100 total", "buffer 100/10,000", `"id":98`, "2016")
	r.MustNotShow(`"id":0,`)
	if b, total, dropped, _ := r.v.Counts(); b != 100 || total != 100 || dropped != 0 {
		t.Fatalf("counts %d %d %d", b, total, dropped)
	}
	// One drain per tick, of at most 8,192 records (the rest waits in
	// the bounded channel).
	s.Emit(20000)
	for _, want := range []int64{100 + 8192, 100 + 2*8192, 20100, 20100} {
		r.FireOne()
		if _, total, _, _ := r.v.Counts(); total != want {
			t.Fatalf("after one tick: %d, want %d", total, want)
		}
	}
	s.Emit(5000)
	r.Advance(300 * time.Millisecond)
	r.MustShow("25,100 total", `"id":25098`)
	if !strings.Contains(r.v.Status(), "rec/s") {
		t.Fatalf("status %q", r.v.Status())
	}
	// Scrolling up stops following; new records then do not move the view.
	r.Key("k", "k")
	before := r.Screen()
	s.Emit(10)
	r.Advance(300 * time.Millisecond)
	after := r.Screen()
	if rowsOf(before) != rowsOf(after) {
		t.Fatalf("the view moved while scrolled up:\n%s\n---\n%s", before, after)
	}
	r.MustShow("scrolled (G follows)")
	r.Key("G")
	r.MustShow(`"id":25108`)
	r.MustNotShow("scrolled")
}

// rowsOf keeps the record rows of a tail screen (drops the status lines).
func rowsOf(screen string) string {
	var out []string
	for _, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(l, "10:") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// Pause is back pressure: the stream is asked to stop fetching, what is
// published meanwhile waits (counted, not received, not dropped), and
// resume continues from there, every record received once.
func TestTailPauseResumeLosesNothing(t *testing.T) {
	r := newTailRig(t, 0, fakes.TailerOptions{})
	s := r.open("ORDER.EVENT", 40)
	r.Key("space")
	if p := s.Pauses(); len(p) != 1 || !p[0] {
		t.Fatalf("pause did not reach the stream: %v", p)
	}
	frozen := rowsOf(r.Screen())
	s.Emit(25)
	r.Advance(time.Second)
	r.MustShow("⏸ PAUSED · 25 newer waiting", "40 total")
	if got := rowsOf(r.Screen()); got != frozen {
		t.Fatalf("paused screen changed:\n%s\n---\n%s", frozen, got)
	}
	if b, total, _, _ := r.v.Counts(); b != 40 || total != 40 {
		t.Fatalf("buffered %d, total %d while paused: records were received", b, total)
	}
	if r.v.Shown() != 40 {
		t.Fatalf("shown while paused: %d", r.v.Shown())
	}
	r.Key("space")
	if p := s.Pauses(); len(p) != 2 || p[1] {
		t.Fatalf("resume did not reach the stream: %v", p)
	}
	r.Advance(time.Second)
	r.MustNotShow("PAUSED")
	r.MustShow(`"id":64`, "65 total")
	if b, total, dropped, _ := r.v.Counts(); b != 65 || total != 65 || dropped != 0 || r.v.Shown() != 65 {
		t.Fatalf("after resume: buffered %d total %d dropped %d shown %d; want 65 65 0 65", b, total, dropped, r.v.Shown())
	}
}

func TestTailDropsOldestAtTheBound(t *testing.T) {
	r := newTailRig(t, 100, fakes.TailerOptions{})
	r.open("ORDER.EVENT", 250)
	b, total, dropped, _ := r.v.Counts()
	if b != 100 || total != 250 || dropped != 150 {
		t.Fatalf("buffered %d total %d dropped %d", b, total, dropped)
	}
	r.MustShow("dropped 150", "buffer 100/100")
	r.Key("g") // top: the oldest kept record is #150
	r.MustShow(`"id":150,`)
	r.MustNotShow(`"id":149,`)
	// While paused nothing arrives, so nothing is dropped; records that
	// arrived before the pause took effect can still push the paused rows
	// out, which leaves a note, not a crash.
	r.Key("space")
	r.emit(300)
	r.MustShow("300 newer waiting", "dropped 150")
	s := r.tl.Last()
	s.Pause(context.Background(), false) // the 300 arrive as if they had been in flight
	r.Advance(time.Second)
	r.MustShow("dropped 450", "the records shown when you paused were dropped")
}

func TestTailFilterKinds(t *testing.T) {
	r := newTailRig(t, 0, fakes.TailerOptions{})
	s := r.open("ORDER.EVENT", 0)
	s.EmitRecords(
		tail.Record{Topic: "ORDER.EVENT", Partition: 0, Offset: 1, Key: []byte("alpha"), Value: []byte(`{"status":"PAID"}`),
			Headers: []tail.Header{{Key: "Trace-Id", Value: []byte("t-1")}}},
		tail.Record{Topic: "ORDER.EVENT", Partition: 1, Offset: 2, Key: []byte("beta"), Value: []byte(`{"status":"NEW"}`),
			Headers: []tail.Header{{Key: "source", Value: []byte("billing")}}},
		tail.Record{Topic: "ORDER.RETRY", Partition: 2, Offset: 3, Key: nil, Value: []byte("payment failed: card declined")},
		tail.Record{Topic: "ORDER.EVENT", Partition: 1, Offset: 4, Key: []byte("Gamma-7"), Value: []byte{0, 1, 2, 0xff}},
	)
	r.Advance(300 * time.Millisecond)
	for _, c := range []struct {
		filter string
		want   int
	}{
		{"", 4},
		{"paid", 1},     // smart case: lower matches PAID
		{"PAID", 1},     // exact
		{"Paid", 0},     // a capital: case-sensitive
		{"k:alpha", 1},  // key
		{"k:status", 0}, // not in any key
		{"v:status", 2}, // value
		{`v:'card declined'`, 1},
		{`v:"status":"NEW"`, 1},  // double quotes are literal (JSON)
		{"re:^(alpha|beta)$", 2}, // key or value regexp
		{`v:re:"status":"(NEW|PAID)"`, 2},
		{"k:re:^g", 0}, // regexp is case-sensitive
		{"k:re:(?i)^g", 1},
		{"h:trace-id", 1}, // header names fold case
		{"h:source=bill", 1},
		{"h:source=card", 0},
		{"h:=t-1", 1}, // any header's value
		{"p:1", 2},
		{"t:retry", 1},
		{"!p:1", 2},
		{"p:1 v:status", 1}, // terms AND
		{"!k:e", 3},         // alpha, the null key and Gamma-7 hold no "e"
	} {
		r.Key("/")
		r.Key("ctrl+u")
		r.TypeText(c.filter)
		r.Key("enter")
		if got := r.v.Shown(); got != c.want {
			t.Errorf("filter %q: %d rows, want %d\n%s", c.filter, got, c.want, r.Screen())
		}
	}
	// A bad regexp keeps the previous filter and says why.
	r.Key("/", "ctrl+u")
	r.TypeText("p:2")
	r.TypeText(" re:(")
	r.MustShow("bad regexp", "missing closing )")
	if r.v.Shown() != 1 {
		t.Fatalf("bad regexp changed the rows: %d", r.v.Shown())
	}
	r.Key("esc")
	if r.v.Shown() != 4 || r.v.Capturing() {
		t.Fatal("esc did not clear the filter")
	}
	// The filter runs incrementally on arriving records.
	r.Filter("v:status")
	s.Emit(30) // fake JSON values all hold "status"
	r.Advance(300 * time.Millisecond)
	if r.v.Shown() != 32 {
		t.Fatalf("incremental filter: %d rows", r.v.Shown())
	}
	r.MustShow("32 of 34 match")
	r.Key("esc") // Back clears the filter
	if r.v.Shown() != 34 {
		t.Fatalf("Back did not clear the filter: %d", r.v.Shown())
	}
}

func TestTailDetailFormats(t *testing.T) {
	r := newTailRig(t, 0, fakes.TailerOptions{})
	s := r.open("ORDER.EVENT", 0)
	s.EmitRecords(tail.Record{
		Topic: "ORDER.EVENT", Partition: 3, Offset: 4242, Timestamp: fakes.Epoch,
		Key: []byte("k-1"), Value: []byte(`{"id":1,"items":[1,2]}`),
		Headers: []tail.Header{{Key: "trace-id", Value: []byte("abc")}, {Key: "empty", Value: nil}},
	})
	r.Advance(300 * time.Millisecond)
	r.Key("enter")
	r.MustShow("ORDER.EVENT · P3 @ 4,242 · 2026-11-30 10:00:00.000 UTC", "key     k-1", "trace-id = abc", "empty = null",
		"[text]", `{"id":1,"items":[1,2]}`)
	r.Key("f")
	r.MustShow("[json]", `"id": 1,`, `"items": [`)
	r.Key("f")
	r.MustShow("[hex]", "00000000  7b 22 69 64 22 3a 31 2c  22 69 74 65 6d 73 22 3a  |{\"id\":1,\"items\":|")
	r.Key("f")
	r.MustShow("[text]")
	// Not JSON: said so, shown as text.
	s.EmitRecords(tail.Record{Topic: "ORDER.EVENT", Offset: 4243, Value: []byte("plain words")})
	r.Advance(300 * time.Millisecond)
	r.Key("G", "f")
	r.MustShow("not JSON", "plain words")
	r.Key("esc")
	r.MustNotShow("[json]")
}

func TestTailSaveJSONLRoundTrip(t *testing.T) {
	r := newTailRig(t, 0, fakes.TailerOptions{Hostile: true})
	s := r.open("ORDER.EVENT", 0)
	extra := []tail.Record{
		{Topic: "ORDER.EVENT", Partition: 1, Offset: 7, Timestamp: fakes.Epoch.Add(123 * time.Millisecond),
			Key: nil, Value: []byte{0, 1, 0xfe, 0xff}, Headers: []tail.Header{{Key: "bin", Value: []byte{0x9b, 0}}, {Key: "nil", Value: nil}}},
		{Topic: "ORDER.EVENT", Partition: 2, Offset: 8, Key: []byte(""), Value: nil},
		{Topic: "ORDER.EVENT", Partition: 2, Offset: 9, Timestamp: fakes.Epoch, Key: []byte("k\u202e"), Value: []byte("\x1b]52;c;eA==\x07 \u2028 \U000E0041 é")},
	}
	s.EmitRecords(extra...)
	s.Emit(60) // every 5th carries a hostile payload
	r.Advance(300 * time.Millisecond)

	// A short directory: the dialog wraps its error line, and a long
	// temporary path (its length varies) could split the words checked.
	dir, err := os.MkdirTemp("", "sv")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "o.jsonl")
	r.Key("w")
	r.MustShow("Save the tail buffer", "63 records", "./ilinkdash-tail-ORDER.EVENT-20261130-100000.jsonl")
	r.Key("enter", "ctrl+u") // the dialog opens navigating: enter edits
	r.TypeText(path)
	r.Key("enter")
	flashes := viewtest.Took[common.FlashMsg](r.Rig)
	if len(flashes) != 1 || !strings.Contains(flashes[0].Text, "saved 63 records") {
		t.Fatalf("flashes %+v", flashes)
	}
	if r.v.Capturing() {
		t.Fatal("the dialog stayed open")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []tail.Record
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		for _, c := range line {
			if c < 0x20 || c == 0x7f {
				t.Fatalf("control byte %#x in saved line %q", c, line)
			}
		}
		if bytes.Contains(line, []byte("\u202e")) || bytes.Contains(line, []byte{0xc2, 0x9b}) {
			t.Fatalf("unescaped format/C1 character in %q", line)
		}
		rec, err := jsonl.Parse(line)
		if err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		got = append(got, rec)
	}
	if len(got) != 63 {
		t.Fatalf("%d records saved", len(got))
	}
	for i, want := range extra {
		assertSameRecord(t, got[i], want)
	}
	// The fake's hostile records survive byte for byte.
	hostile := 0
	for _, g := range got[3:] {
		for _, p := range sanitizetest.Hostile() {
			if bytes.Equal(g.Value, p.Bytes) || bytes.Equal(g.Key, p.Bytes) {
				hostile++
			}
		}
	}
	if hostile == 0 {
		t.Fatal("no hostile payload round-tripped")
	}
	if !strings.Contains(readLine(t, path, 0), `"value":"AAH+/w==","value_encoding":"base64"`) {
		t.Fatalf("binary value not base64: %s", readLine(t, path, 0))
	}
	if !strings.Contains(readLine(t, path, 0), `"key":null`) || !strings.Contains(readLine(t, path, 1), `"value":null`) {
		t.Fatal("null key/value not null")
	}

	// Saving over an existing file fails clearly and keeps the dialog.
	r.Key("w", "enter", "ctrl+u")
	r.TypeText(path)
	r.Key("enter")
	r.MustShow("save failed", "already exists")
	r.Key("ctrl+u")
	r.TypeText(filepath.Join(dir, "no", "d.jsonl"))
	r.Key("enter")
	r.MustShow("save failed", "no such")
	r.Key("esc", "esc") // stop editing, close
	if r.v.Capturing() {
		t.Fatal("esc did not close the save dialog")
	}
}

func readLine(t *testing.T, path string, n int) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(string(b), "\n")[n]
}

func assertSameRecord(t *testing.T, got, want tail.Record) {
	t.Helper()
	if got.Topic != want.Topic || got.Partition != want.Partition || got.Offset != want.Offset ||
		!got.Timestamp.Equal(want.Timestamp) ||
		!bytes.Equal(got.Key, want.Key) || (got.Key == nil) != (want.Key == nil) ||
		!bytes.Equal(got.Value, want.Value) || (got.Value == nil) != (want.Value == nil) ||
		len(got.Headers) != len(want.Headers) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, want)
	}
	for i := range got.Headers {
		if got.Headers[i].Key != want.Headers[i].Key || !bytes.Equal(got.Headers[i].Value, want.Headers[i].Value) ||
			(got.Headers[i].Value == nil) != (want.Headers[i].Value == nil) {
			t.Fatalf("header %d: %+v, want %+v", i, got.Headers[i], want.Headers[i])
		}
	}
}

func TestTailJSONFormat(t *testing.T) {
	r := tail.Record{
		Topic: "T", Partition: 2, Offset: 99, Timestamp: time.Date(2026, 11, 30, 11, 0, 0, 123_000_000, time.FixedZone("CET", 3600)),
		Key: []byte(`k"\<&>`), Value: []byte("line\nnext\ttab\x1b[2J\u202e"), Headers: []tail.Header{{Key: "h", Value: []byte("v")}},
	}
	got := string(jsonl.Append(nil, &r))
	want := `{"topic":"T","partition":2,"offset":99,"timestamp":"2026-11-30T10:00:00.123Z","key":"k\"\\\u003c\u0026\u003e","value":"line\nnext\ttab\u001b[2J\u202e","headers":[{"key":"h","value":"v"}]}` + "\n"
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	empty := tail.Record{Topic: "T"}
	got = string(jsonl.Append(nil, &empty))
	if got != `{"topic":"T","partition":0,"offset":0,"timestamp":"0001-01-01T00:00:00Z","key":null,"value":null,"headers":[]}`+"\n" {
		t.Fatalf("empty: %s", got)
	}
	if back, err := jsonl.Parse([]byte(got)); err != nil || !back.Timestamp.IsZero() {
		t.Fatalf("zero timestamp round trip: %v %v", back.Timestamp, err)
	}
	if _, err := jsonl.Parse([]byte(`{"topic":"T","value":"!!","value_encoding":"base64"}`)); err == nil {
		t.Fatal("bad base64 accepted")
	}
	if _, err := jsonl.Parse([]byte(`{"topic":"T","value":"x","value_encoding":"hex"}`)); err == nil {
		t.Fatal("unknown encoding accepted")
	}
}

// marshalReference encodes a record the way `ilinkdash tail --format json`
// does: encoding/json over a struct, then the terminal-unsafe runes
// (DEL, C1, U+200B–U+200F, U+202A–U+202E, U+2066–U+2069, U+FEFF) as
// \uxxxx.
func marshalReference(r *tail.Record) string {
	type hdr struct {
		Key           string  `json:"key"`
		Value         *string `json:"value"`
		ValueEncoding string  `json:"value_encoding,omitempty"`
	}
	type rec struct {
		Topic         string  `json:"topic"`
		Partition     int32   `json:"partition"`
		Offset        int64   `json:"offset"`
		Timestamp     string  `json:"timestamp"`
		Key           *string `json:"key"`
		KeyEncoding   string  `json:"key_encoding,omitempty"`
		Value         *string `json:"value"`
		ValueEncoding string  `json:"value_encoding,omitempty"`
		Headers       []hdr   `json:"headers"`
	}
	enc := func(b []byte) (*string, string) {
		if b == nil {
			return nil, ""
		}
		if utf8.Valid(b) {
			s := string(b)
			return &s, ""
		}
		s := base64.StdEncoding.EncodeToString(b)
		return &s, "base64"
	}
	j := rec{Topic: r.Topic, Partition: r.Partition, Offset: r.Offset, Timestamp: r.Timestamp.UTC().Format(time.RFC3339Nano), Headers: []hdr{}}
	j.Key, j.KeyEncoding = enc(r.Key)
	j.Value, j.ValueEncoding = enc(r.Value)
	for _, h := range r.Headers {
		x := hdr{Key: h.Key}
		x.Value, x.ValueEncoding = enc(h.Value)
		j.Headers = append(j.Headers, x)
	}
	b, _ := json.Marshal(j)
	var out strings.Builder
	for _, c := range string(b) {
		if c == 0x7f || c >= 0x80 && c <= 0x9f || c >= 0x200b && c <= 0x200f || c >= 0x202a && c <= 0x202e || c >= 0x2066 && c <= 0x2069 || c == 0xfeff {
			fmt.Fprintf(&out, `\u%04x`, c)
		} else {
			out.WriteRune(c)
		}
	}
	return out.String() + "\n"
}

// TestTailJSONMatchesHeadlessFormat: for every input the headless tail's
// escaping covers, the saved lines are byte-identical to it.
func TestTailJSONMatchesHeadlessFormat(t *testing.T) {
	alphabet := []rune("aZ09 \"\\/<>&{}\n\r\t\b\f\x00\x01\x1b\x7f\u0080\u009b\u009f\u00e9\u200b\u200f\u202a\u202e\u2066\u2069\ufeff\u2028\u2029東🙂")
	rng := rand.New(rand.NewPCG(1, 2))
	str := func() string {
		n := rng.IntN(12)
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteRune(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	bin := func() []byte {
		switch rng.IntN(4) {
		case 0:
			return nil
		case 1:
			b := make([]byte, rng.IntN(9))
			for i := range b {
				b[i] = byte(rng.IntN(256))
			}
			return b
		}
		return []byte(str())
	}
	n := 3000
	if raceEnabled {
		n = 500
	}
	for i := 0; i < n; i++ {
		r := tail.Record{
			Topic: str(), Partition: int32(rng.IntN(100)), Offset: rng.Int64N(1 << 40),
			Timestamp: time.Unix(0, rng.Int64N(1<<62)), Key: bin(), Value: bin(),
		}
		for j := rng.IntN(3); j > 0; j-- {
			r.Headers = append(r.Headers, tail.Header{Key: str(), Value: bin()})
		}
		got, want := string(jsonl.Append(nil, &r)), marshalReference(&r)
		if got != want {
			t.Fatalf("record %+v\n got  %q\nwant %q", r, got, want)
		}
		back, err := jsonl.Parse([]byte(got))
		if err != nil {
			t.Fatal(err)
		}
		assertSameRecord(t, back, r)
	}
}

func TestTailJumpToOffsetAndTime(t *testing.T) {
	r := newTailRig(t, 0, fakes.TailerOptions{})
	s := r.open("ORDER.EVENT", 30)
	r.Key("o")
	r.MustShow("Jump to an offset or a time")
	r.Key("enter") // edit To
	r.TypeText("3@x")
	r.Key("enter")
	r.MustShow("write P@OFFSET")
	r.Key("ctrl+u")
	r.TypeText("3@1234")
	r.Key("enter")
	seeks := s.Seeks()
	if len(seeks) != 1 || seeks[0].Kind != position.Offset || seeks[0].Partition != 3 || seeks[0].Offset != 1234 {
		t.Fatalf("seeks %+v", seeks)
	}
	if b, _, _, _ := r.v.Counts(); b != 0 {
		t.Fatalf("buffer not cleared after the jump: %d", b)
	}
	if fl := viewtest.Took[common.FlashMsg](r.Rig); len(fl) != 1 || !strings.Contains(fl[0].Text, "offset 1,234 of partition 3") {
		t.Fatalf("flash %+v", fl)
	}
	r.emit(6)
	r.MustShow("1234") // partition 3 continues at 1234
	for _, c := range []struct {
		in    string
		check func(position.Position) bool
	}{
		{"earliest", func(s position.Position) bool { return s.Kind == position.Earliest && s.Partition == -1 }},
		{"latest", func(s position.Position) bool { return s.Kind == position.Latest }},
		{"500", func(s position.Position) bool {
			return s.Kind == position.Offset && s.Offset == 500 && s.Partition == -1
		}},
		{"-15m", func(s position.Position) bool {
			return s.Kind == position.Time && s.Time.Equal(r.Now.Add(-15*time.Minute))
		}},
		{"10:00", func(s position.Position) bool { return s.Kind == position.Time && s.Time.Equal(fakes.Epoch) }},
		{"2026-11-30T09:00:00Z", func(s position.Position) bool { return s.Time.Equal(fakes.Epoch.Add(-time.Hour)) }},
	} {
		r.Key("o", "enter")
		r.TypeText(c.in)
		r.Key("enter")
		all := s.Seeks()
		if last := all[len(all)-1]; !c.check(last) {
			t.Errorf("%q → %+v", c.in, last)
		}
	}
	// A failed seek keeps the dialog with the reason and the stream live.
	s.Close()
	r.Advance(300 * time.Millisecond)
	r.MustShow("the stream ended")
	r.Key("o")
	r.MustShow("not running")
	r.Key("esc")
}

func TestTailCopyValueOSC52(t *testing.T) {
	r := newTailRig(t, 0, fakes.TailerOptions{})
	s := r.open("ORDER.EVENT", 0)
	val := []byte("\x1b]52;c;ZXZpbA==\x07 raw value")
	s.EmitRecords(tail.Record{Topic: "ORDER.EVENT", Partition: 1, Offset: 77, Value: val},
		tail.Record{Topic: "ORDER.EVENT", Partition: 1, Offset: 78, Value: nil})
	r.Advance(300 * time.Millisecond)
	// c asks what to copy, the value first; enter copies it.
	r.Key("k", "c")
	r.MustShow("Copy from record P1@77", "‹ value (raw)")
	if n := len(viewtest.Took[common.FlashMsg](r.Rig)); n != 0 {
		t.Fatalf("c copied before enter (%d flashes)", n)
	}
	r.Key("enter")
	want := tea.SetClipboard(string(val))()
	found := false
	for _, m := range r.Out {
		if m == want {
			found = true
		}
	}
	if !found {
		t.Fatalf("no OSC 52 clipboard command among %#v", r.Out)
	}
	if fl := viewtest.Took[common.FlashMsg](r.Rig); len(fl) != 1 || !strings.Contains(fl[0].Text, "copied the raw value of P1@77 (26B)") {
		t.Fatalf("flash %+v", fl)
	}
	r.Out = nil
	r.Key("j", "y", "enter")
	r.warned("nothing to copy: the value of P1@78 is null")
	// esc closes the dialog and copies nothing.
	r.Key("k", "c")
	r.MustShow("Copy from record P1@77")
	r.Key("esc")
	if r.v.Dlg != nil {
		t.Fatal("esc left the copy dialog open")
	}
	for _, m := range r.Out {
		if m == want {
			t.Fatal("esc copied the value")
		}
	}
	if fl := viewtest.Took[common.FlashMsg](r.Rig); len(fl) != 0 {
		t.Fatalf("esc flashed %+v", fl)
	}
}

// Issue 23: c copies the key or the headers of a record as well as its
// value; header values go as bytes ("key: value" lines, as the queue
// detail copies a message's headers).
func TestTailCopyKeyAndHeaders(t *testing.T) {
	r := newTailRig(t, 0, fakes.TailerOptions{})
	s := r.open("ORDER.EVENT", 0)
	s.EmitRecords(
		tail.Record{Topic: "ORDER.EVENT", Partition: 3, Offset: 1234, Key: []byte("order-004093"), Value: []byte("v"),
			Headers: []tail.Header{{Key: "origin", Value: []byte("web")}, {Key: "trace", Value: []byte("t\x1b,1")}}},
		tail.Record{Topic: "ORDER.EVENT", Partition: 3, Offset: 1235, Key: nil, Value: []byte("v")},
		tail.Record{Topic: "ORDER.EVENT", Partition: 3, Offset: 1236, Key: bytes.Repeat([]byte("k"), 1<<20+1), Value: []byte("v")})
	r.Advance(300 * time.Millisecond)
	r.Key("k") // P3@1235
	copied := func(want, flash string) {
		t.Helper()
		msg := tea.SetClipboard(want)()
		found := false
		for _, o := range r.Out {
			found = found || o == msg
		}
		if !found {
			t.Fatalf("no OSC 52 copy of %q among %#v", want, r.Out)
		}
		if fl := viewtest.Took[common.FlashMsg](r.Rig); len(fl) != 1 || fl[0].Text != flash {
			t.Fatalf("flash %+v, want %q", fl, flash)
		}
		r.Out = nil
	}
	r.Key("k", "c")
	r.MustShow("Copy from record P3@1234", "‹ value (raw)")
	r.Key("right")
	r.MustShow("‹ key (raw)")
	r.Key("enter")
	copied("order-004093", "copied the key of P3@1234 (12B) to the clipboard (OSC 52)")
	r.Key("c", "right", "right", "enter")
	copied("origin: web\ntrace: t\x1b,1\n", "copied the 2 headers of P3@1234 (24B) to the clipboard (OSC 52)")
	// The record below has a null key and no headers: each says so.
	r.Key("j", "c", "right", "enter")
	r.warned("nothing to copy: the key of P3@1235 is null")
	r.Key("c", "left", "enter")
	r.warned("nothing to copy: P3@1235 has no headers")
	// Over what OSC 52 carries: refused, nothing copied.
	r.Key("j", "c", "right", "enter")
	if fl := viewtest.Took[common.FlashMsg](r.Rig); len(fl) != 1 || fl[0].Level != common.LevelError ||
		!strings.HasPrefix(fl[0].Text, "the key of P3@1236 is ") || !strings.Contains(fl[0].Text, "; OSC 52 copies at most ") {
		t.Fatalf("oversized key flash %+v", fl)
	}
	if len(r.Out) != 0 {
		t.Fatalf("an oversized key was copied: %d messages", len(r.Out))
	}
}

func TestTailStreamLifecycle(t *testing.T) {
	r := newTailRig(t, 0, fakes.TailerOptions{})
	s := r.open("ORDER.EVENT", 10)
	// x closes the stream; the buffer stays; r reopens (leaving the tab
	// closes nothing: tails_test.go).
	r.Key("x")
	if !s.Closed() || r.v.Running() {
		t.Fatal("x did not close the stream")
	}
	r.MustShow("closed · r reopens it", "10 total")
	r.Key("r")
	s2 := r.tl.Last()
	if s2 == s || s2.Closed() || s2.Spec().From.Kind != position.Latest {
		t.Fatal("r did not reopen")
	}
	r.emit(5)
	if b, total, _, _ := r.v.Counts(); b != 15 || total != 15 {
		t.Fatalf("reopen lost the buffer: %d/%d", b, total)
	}
	// x closes the tail.
	r.Key("x")
	if !s2.Closed() {
		t.Fatal("x did not close the stream")
	}
	r.MustShow("closed · r reopens it")
	// A failing stream shows its (sanitized) error.
	r.Key("r")
	s3 := r.tl.Last()
	s3.Fail(errors.New("MIMQE_NOT_AVAILABLE: coordinator gone \x1b[2J"))
	r.Advance(300 * time.Millisecond)
	r.MustShow("■ stopped: MIMQE_NOT_AVAILABLE: coordinator gone ␛[2J")
	// A failing start.
	r.tl.SetErr(errors.New("MIMQE_UNKNOWN_TOPIC: NOPE"))
	r.Run(r.v.Open("NOPE"))
	r.MustShow("stopped: MIMQE_UNKNOWN_TOPIC: NOPE")
	r.tl.SetErr(nil)
	// Shutdown closes a live stream.
	s4 := r.open("ORDER.EVENT", 1)
	r.v.Shutdown()
	if !s4.WaitClosed(2 * time.Second) {
		t.Fatal("Shutdown did not close the stream")
	}
}

// slowTailer returns streams even when the start was cancelled meanwhile
// (a StartTail that completed just as the user moved on).
type slowTailer struct{ *fakes.Tailer }

func (s slowTailer) StartTail(_ context.Context, spec tail.Spec) (tail.Stream, error) {
	return s.Tailer.StartTail(context.Background(), spec)
}

func TestTailSupersededStartIsClosed(t *testing.T) {
	tr := &tailRig{tl: fakes.NewTailer(fakes.TailerOptions{})}
	tr.Rig = viewtest.New(t, false, func(ctx *common.Context, _ *fakes.Source) common.View {
		tr.v = tail.New(ctx, slowTailer{tr.tl})
		return tr.v
	})
	r := tr
	first := r.v.Open("A") // not run yet: StartTail happens when the command runs
	r.Run(r.v.Open("B"))
	b := r.tl.Last()
	r.Run(first) // the late reply of A
	a := r.tl.Last()
	if a == b || !a.Closed() || b.Closed() {
		t.Fatalf("stale stream not closed (a closed %v, b closed %v)", a.Closed(), b.Closed())
	}
	if r.v.Target() != "B" {
		t.Fatalf("target %q", r.v.Target())
	}
}

func TestTailNewDialog(t *testing.T) {
	r := newTailRig(t, 0, fakes.TailerOptions{})
	r.Key("t")
	r.MustShow("Tail a topic or a pattern", "Group")
	r.Key("enter", "enter") // edit the topic, submit
	r.MustShow("give a topic name or a pattern")
	r.TypeText("ORDER.*")
	r.Key("tab", "ctrl+u")
	r.TypeText("soon")
	r.Key("enter")
	r.MustShow(`position "soon": want earliest, latest`)
	r.Key("ctrl+u")
	r.TypeText("earliest")
	r.Key("tab")
	r.TypeText("audit-replay")
	r.Key("enter")
	spec := r.tl.Last().Spec()
	if spec.Target != "ORDER.*" || spec.From.Kind != position.Earliest || spec.Group != "audit-replay" {
		t.Fatalf("spec %+v", spec)
	}
	r.emit(9) // a pattern shows the topic column
	r.MustShow("TOPIC", "ORDER.RETRY", "group audit-replay · from earliest")

	// Read-only: no group field (a named group commits offsets).
	ro := viewtest.New(t, true, func(ctx *common.Context, _ *fakes.Source) common.View {
		return tail.New(ctx, fakes.NewTailer(fakes.TailerOptions{}))
	})
	ro.Key("t")
	ro.MustShow("temporary group")
	ro.MustNotShow("Group  ")

	// From a time (the dashboard's clock is UTC here).
	r.Key("t", "tab", "enter", "ctrl+u")
	r.TypeText("2026-11-30 09:30")
	r.Key("enter")
	if got := r.tl.Last().Spec().From; got.Kind != position.Time || !got.Time.Equal(fakes.Epoch.Add(-30*time.Minute)) {
		t.Fatalf("from %+v", got)
	}
	r.MustShow("from 2026-11-30 09:30:00")
	// One partition cannot be a start: the form says what to do instead.
	r.Key("t", "tab", "enter", "ctrl+u")
	r.TypeText("3@10")
	r.Key("enter")
	r.MustShow("a tail starts every partition at the same place")
}

func TestTailUnavailable(t *testing.T) {
	r := viewtest.New(t, false, func(ctx *common.Context, _ *fakes.Source) common.View { return tail.New(ctx, nil) })
	r.MustShow("Tailing is not available")
	r.Key("t", "space", "/")
	r.MustShow("Tailing is not available")
	if r.V.Capturing() {
		t.Fatal("unavailable tail captures keys")
	}
}

func TestTailMouse(t *testing.T) {
	r := newTailRig(t, 0, fakes.TailerOptions{})
	r.open("ORDER.EVENT", 50)
	r.Send(tea.MouseWheelMsg{Button: tea.MouseWheelUp})
	r.MustShow("scrolled")
	// Rows start below the two status lines and the header.
	r.Send(tea.MouseClickMsg{Button: tea.MouseLeft, Y: 3})
	r.Send(tea.MouseClickMsg{Button: tea.MouseLeft, Y: 3})
	r.MustShow("[text]")
}

func TestTailStreamContextEndsStream(t *testing.T) {
	tl := fakes.NewTailer(fakes.TailerOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	s, err := tl.StartTail(ctx, tail.Spec{Target: "X"})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case _, ok := <-s.Records():
		if ok {
			t.Fatal("record after cancel")
		}
	case <-time.After(2 * time.Second):
		t.Fatal("cancelling the context did not end the stream")
	}
}
