package e2e

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"ilinkdash/ui/sanitize/sanitizetest"

	"ilinkdash/ilink/wire"
)

// briefPayloads are the attacks named in the dashboard issue, each with a
// distinctive body, on top of sanitizetest.Hostile (every class of
// terminal attack the sanitizer's unit tests use).
func briefPayloads() []sanitizetest.Payload {
	return []sanitizetest.Payload{
		{Name: "brief-osc52", Bytes: []byte("\x1b]52;c;aG9zdGlsZQ==\x07")},
		{Name: "brief-osc8", Bytes: []byte("\x1b]8;;http://x\x1b\\click\x1b]8;;\x1b\\")},
		{Name: "brief-osc0", Bytes: []byte("\x1b]0;title\x07")},
		{Name: "brief-csi", Bytes: []byte("\x1b[2J\x1b[6n\x1b[10;10H")},
		{Name: "brief-dcs", Bytes: []byte("\x1bPqHOSTILE-DCS-BODY\x1b\\")},
		{Name: "brief-apc", Bytes: []byte("\x1b_HOSTILE-APC-BODY\x1b\\")},
		{Name: "brief-c1", Bytes: []byte("raw\x9b6n\x9d0;t\x07 cp\u009b6n\u009d0;t\u009c")},
		{Name: "brief-bidi", Bytes: []byte("invoice\u202Efdp.exe\u202C \u2066iso\u2069")},
		// Valid JSON whose strings hold raw C1, bidi and DEL characters: the
		// pretty-printer passes them through, the sanitizer must not.
		{Name: "brief-json", Bytes: []byte("{\"file\":\"invoice\u202Efdp.exe\",\"c1\":\"\u009b2J\",\"iso\":\"\u2066x\u2069\",\"del\":\"\x7f\"}")},
		// Last: an OSC that is never terminated.
		{Name: "brief-osc-unterminated", Bytes: []byte("tail \x1b]0;never terminated")},
	}
}

// forbiddenRaw are byte strings that must never reach the terminal: the
// payloads' sequences (ESC-introduced), and the C1 and bidi characters.
// The program's own output uses only CSI sequences, OSC 2 (its title) and
// OSC 11 (the background query): none of these.
var forbiddenRaw = []string{
	"\x1b]52;", "\x1b]8;", "\x1b]0;", "\x1b]2;pwned", "\x1b[6n",
	"\x1bP", "\x1b_", "\x1b^", "\x1bX",
	"\u009b", "\u009d", "\u009c", "\u0085", "\u0090",
	"\u202a", "\u202b", "\u202c", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069", "\u200f", "\u061c",
	"\u200b", "\ufeff", "\U000e0041", "\u2028", "\u2029",
}

// TestTailHostilePayloadsRawOutput publishes every hostile payload as the
// key, the value and a header (name and value) of a record, tails them
// through the real consumer, opens each record's detail in text, JSON and
// hex, and then checks
//
//   - every frame the model produced: only SGR sequences; no other control,
//     no C1, no format character, valid UTF-8; and
//   - every byte the program wrote to the terminal: valid UTF-8 (so no raw
//     0x9b/0x9d), none of forbiddenRaw, and, sequence by sequence, only the
//     program's own kinds (CSI; OSC 2 with its own title; the OSC 11 query;
//     no DCS, APC, PM or SOS; no bare C0 other than CR, LF, BS, TAB).
//
// The displayed (inert) forms are checked too, so the test knows the
// payloads were drawn and not merely dropped.
func TestTailHostilePayloadsRawOutput(t *testing.T) {
	t.Parallel()
	const topic = "E2E.EVIL"
	e := engineWithTopic(t, topic, "partitions=1,replicas=2")
	payloads := append(sanitizetest.Hostile(), briefPayloads()...)
	q := adminQmgr(t, e)
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	for i, p := range payloads {
		hs := []wire.RecordHeader{{Key: "h-" + p.Name, Value: p.Bytes}, {Key: string(p.Bytes), Value: []byte("v")}}
		if _, err := q.Publish(ctx, topic, p.Bytes, p.Bytes, hs...); err != nil {
			// A header name the engine refuses (not UTF-8): keep the rest.
			t.Logf("payload %d %s: header name refused (%v); publishing without it", i, p.Name, err)
			if _, err := q.Publish(ctx, topic, p.Bytes, p.Bytes, hs[0]); err != nil {
				t.Fatalf("publish %s: %v", p.Name, err)
			}
		}
	}
	n := len(payloads)

	// Without the link probe: its query is CSI 6n, the very sequence a
	// payload must not get through.
	d := startDash(t, e, dashOpts{markFrames: true, noProbe: true})
	d.openTail(topic, "earliest")
	d.waitText(fmt.Sprintf("%d total", n))
	// The list rows already show the payloads (sanitized previews).
	d.waitText("␛]52;c;", "␛[2J", "\\u202e")

	// Every record's detail, in every format: g (oldest), enter (detail),
	// f cycles text → json → hex.
	d.keys("g", "enter")
	formats := []string{"[text]", "[json]", "[hex]"}
	shown := map[string]string{} // record/format → screen
	for i := 0; i < n; i++ {
		title := fmt.Sprintf("P0 @ %d · ", i)
		cur := -1
		s := d.waitFor(fmt.Sprintf("the detail of record %d", i), func(s string) bool {
			if !strings.Contains(s, title) {
				return false
			}
			for j, f := range formats {
				if strings.Contains(s, f) {
					cur = j
					return true
				}
			}
			return false
		})
		shown[fmt.Sprint(i, formats[cur])] = s
		d.written()
		for k := 1; k < len(formats); k++ {
			next := formats[(cur+k)%len(formats)]
			d.press("f")
			shown[fmt.Sprint(i, next)] = d.waitText(title, next)
			d.written()
		}
		d.press("down")
	}

	// The inert forms were drawn (spot checks on the brief's payloads).
	idx := func(name string) int {
		for i, p := range payloads {
			if p.Name == name {
				return i
			}
		}
		t.Fatalf("no payload %s", name)
		return -1
	}
	for _, c := range []struct {
		name, format string
		want         []string
	}{
		{"brief-osc0", "[text]", []string{"␛]0;title␇", "h-brief-osc0 = ␛]0;title␇"}},
		{"brief-osc0", "[hex]", []string{"1b 5d 30 3b 74 69 74 6c  65 07"}},
		{"brief-c1", "[text]", []string{`raw\x9b6n\x9d0;t␇ cp\u009b6n\u009d0;t\u009c`}},
		{"brief-bidi", "[text]", []string{`invoice\u202efdp.exe\u202c \u2066iso\u2069`}},
		{"brief-json", "[json]", []string{`"file": "invoice\u202efdp.exe",`, `"del": "␡"`}},
		{"brief-dcs", "[text]", []string{`␛PqHOSTILE-DCS-BODY␛\`}},
		{"brief-osc-unterminated", "[text]", []string{"tail ␛]0;never terminated"}},
	} {
		s := shown[fmt.Sprint(idx(c.name), c.format)]
		if !containsAll(s, c.want...) {
			t.Errorf("%s in %s: want %q in the detail:\n%s", c.name, c.format, c.want, s)
		}
	}

	// Every frame the model handed to the renderer.
	frames := d.fr.since(0)
	for _, f := range frames {
		if p := frameProblem(f.raw); p != "" {
			t.Errorf("frame %d: %s", f.seq, p)
			break
		}
	}

	// Every byte written to the terminal.
	raw := d.rawOutput()
	if len(raw) < 10_000 {
		t.Fatalf("only %d bytes of output", len(raw))
	}
	for _, bad := range forbiddenRaw {
		if i := bytes.Index(raw, []byte(bad)); i >= 0 {
			t.Errorf("raw output holds %q at %d: %q", bad, i, raw[max(0, i-40):min(len(raw), i+40)])
		}
	}
	if probs := outputProblems(raw); len(probs) > 0 {
		t.Errorf("raw output: %d problems, first ones:\n%s", len(probs), strings.Join(probs[:min(len(probs), 10)], "\n"))
	}
	t.Logf("%d records × 3 formats, %d frames checked, %d bytes of output checked", n, len(frames), len(raw))
}

// frameProblem checks a frame (View().Content): SGR is its only escape
// sequence, LF its only control; no C1, no format character, valid UTF-8.
func frameProblem(s string) string {
	if !utf8.ValidString(s) {
		return "invalid UTF-8"
	}
	for i := 0; i < len(s); {
		if s[i] == 0x1b {
			j := i + 1
			if j >= len(s) || s[j] != '[' {
				return fmt.Sprintf("ESC not starting CSI at %d: %q", i, around(s, i))
			}
			j++
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ';' || s[j] == ':') {
				j++
			}
			if j >= len(s) || s[j] != 'm' {
				return fmt.Sprintf("non-SGR sequence at %d: %q", i, around(s, i))
			}
			i = j + 1
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if p := runeProblem(r); p != "" && r != '\n' {
			return fmt.Sprintf("%s at %d: %q", p, i, around(s, i))
		}
		i += size
	}
	return ""
}

func runeProblem(r rune) string {
	switch {
	case r < 0x20 || r == 0x7f:
		return fmt.Sprintf("control %U", r)
	case r >= 0x80 && r <= 0x9f:
		return fmt.Sprintf("C1 control %U", r)
	case unicode.Is(unicode.Cf, r), r == 0x2028, r == 0x2029:
		return fmt.Sprintf("format character %U", r)
	}
	return ""
}

func around(s string, i int) string { return s[max(0, i-30):min(len(s), i+30)] }

// outputProblems scans the raw terminal output sequence by sequence and
// reports everything the program itself never writes.
func outputProblems(b []byte) []string {
	var probs []string
	bad := func(i int, format string, args ...any) {
		probs = append(probs, fmt.Sprintf("at %d: %s: %q", i, fmt.Sprintf(format, args...), b[max(0, i-30):min(len(b), i+40)]))
	}
	if !utf8.Valid(b) {
		probs = append(probs, "not valid UTF-8 (a raw C1 or other invalid byte)")
	}
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == 0x1b && i+1 < len(b) && b[i+1] == '[':
			j := i + 2
			for j < len(b) && b[j] >= 0x30 && b[j] <= 0x3f {
				j++
			}
			params := string(b[i+2 : j])
			for j < len(b) && b[j] >= 0x20 && b[j] <= 0x2f {
				j++
			}
			if j >= len(b) || b[j] < 0x40 || b[j] > 0x7e {
				bad(i, "malformed CSI")
				return probs
			}
			if b[j] == 'n' {
				bad(i, "device status request CSI %sn", params)
			}
			i = j + 1
		case c == 0x1b && i+1 < len(b) && b[i+1] == ']':
			j, end := i+2, -1
			for ; j < len(b); j++ {
				if b[j] == 0x07 {
					end = j + 1
					break
				}
				if b[j] == 0x1b && j+1 < len(b) && b[j+1] == '\\' {
					end = j + 2
					break
				}
			}
			if end < 0 {
				bad(i, "unterminated OSC")
				return probs
			}
			body := string(b[i+2 : j])
			switch {
			case body == "2;", strings.HasPrefix(body, "2;ilinkdash — "): // the program's title
			case body == "11;?": // the background colour query
			default:
				bad(i, "OSC %q", body)
			}
			i = end
		case c == 0x1b && i+1 < len(b) && strings.IndexByte("P_^X", b[i+1]) >= 0:
			bad(i, "string sequence ESC %c", b[i+1])
			i += 2
		case c == 0x1b:
			// ESC, intermediates, final (e.g. ESC 7 / ESC 8 / ESC M).
			j := i + 1
			for j < len(b) && b[j] >= 0x20 && b[j] <= 0x2f {
				j++
			}
			if j >= len(b) || b[j] < 0x30 || b[j] > 0x7e {
				bad(i, "malformed escape")
				return probs
			}
			i = j + 1
		case c < 0x20 || c == 0x7f:
			if c != '\r' && c != '\n' && c != '\b' && c != '\t' {
				bad(i, "control 0x%02x", c)
			}
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				bad(i, "invalid byte 0x%02x", c)
			} else if p := runeProblem(r); p != "" {
				bad(i, "%s", p)
			}
			i += size
		}
	}
	return probs
}
