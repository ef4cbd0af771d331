package ui

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"ilinkdash/ui/sanitize/sanitizetest"

	"ilinkdash/ui/views/tail"

	tea "charm.land/bubbletea/v2"

	"ilinkdash/config"
	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
)

// assertInert fails when a frame holds anything a terminal could act on
// besides SGR styling: an ESC that does not start an SGR sequence (or any
// ESC when sgr is false), a C0 control other than LF, DEL, a C1 control
// (raw byte or code point), invalid UTF-8, or a Unicode format character
// (bidi embeddings, overrides and isolates, zero-width characters, tags).
func assertInert(t *testing.T, frame string, sgr bool, what string) {
	t.Helper()
	if !utf8.ValidString(frame) {
		t.Fatalf("%s: frame is not valid UTF-8 (a raw C1 or invalid byte got through)", what)
	}
	if sgr {
		assertOnlySGR(t, frame)
		// Drop the SGR sequences, then check the text.
		var b strings.Builder
		for i := 0; i < len(frame); i++ {
			if frame[i] == 0x1b {
				j := i + 2
				for j < len(frame) && frame[j] != 'm' {
					j++
				}
				i = j
				continue
			}
			b.WriteByte(frame[i])
		}
		frame = b.String()
	}
	for i, r := range frame {
		switch {
		case r == '\n':
		case r < 0x20 || r == 0x7f:
			t.Fatalf("%s: control %U at %d: %q", what, r, i, around(frame, i))
		case r >= 0x80 && r <= 0x9f:
			t.Fatalf("%s: C1 control %U at %d: %q", what, r, i, around(frame, i))
		case unicode.Is(unicode.Cf, r), r == 0x2028, r == 0x2029:
			t.Fatalf("%s: format character %U at %d: %q", what, r, i, around(frame, i))
		}
	}
}

func around(s string, i int) string {
	return s[max(0, i-30):min(len(s), i+30)]
}

// TestTailHostilePayloadsRenderInert feeds every hostile payload through a
// tail — as topic, key, value, header name and header value — and checks
// every frame (list, detail in text, JSON and hex, filter, status bar,
// with and without colours) for anything a terminal would act on.
func TestTailHostilePayloadsRenderInert(t *testing.T) {
	for _, mode := range []common.ColorMode{common.Plain, common.FullColor, common.NoColor} {
		h := newHarness(t, 120, 40)
		h.setMode(mode)
		h.command("tail EVIL.*")
		s := h.tailer.Last()
		payloads := sanitizetest.Hostile()
		for i, p := range payloads {
			s.EmitRecords(tail.Record{
				Topic: "EVIL." + string(p.Bytes), Partition: int32(i), Offset: int64(i),
				Timestamp: fakes.Epoch, Key: p.Bytes, Value: p.Bytes,
				Headers: []tail.Header{{Key: string(p.Bytes), Value: p.Bytes}},
			})
		}
		// And the fake's own mix of hostile and ordinary records.
		h.advance(300 * time.Millisecond)
		sgr := mode != common.Plain
		sizes := [][2]int{{120, 40}, {80, 24}, {40, 12}}
		check := func(what string) {
			t.Helper()
			for _, size := range sizes {
				h.send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
				frame := h.m.View().Content
				assertFrame(t, frame, size[0], size[1])
				assertInert(t, frame, sgr, what)
			}
			h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
		}
		check("list")
		// The payloads are there, shown as inert glyphs.
		h.mustShow("␛]52;c;", "␛[2J", "\\x9b2J", "\\u202e", "␛P+q544e")
		h.key("g")
		// Every detail format of every payload, wide and narrow (NO_COLOR
		// styles like full colour: the list above covers it).
		sizes = [][2]int{{120, 40}, {40, 12}}
		if mode == common.NoColor {
			continue
		}
		for i := range payloads {
			h.key("enter")
			check("text detail of " + payloads[i].Name)
			h.key("f")
			check("json detail of " + payloads[i].Name)
			h.key("f")
			check("hex detail of " + payloads[i].Name)
			h.key("f", "esc", "j")
		}
		h.key("/")
		h.typeText("v:\x1b[2J")
		check("filter")
		h.key("esc")
		// Errors from the stream are payloads too.
		s.Fail(errStr("MIMQE_NOT_AVAILABLE \x1b]52;c;ZXZpbA==\x07\u202e\x9b"))
		h.advance(300 * time.Millisecond)
		check("stream error")
		h.mustShow("stopped: MIMQE_NOT_AVAILABLE ␛]52;c;ZXZpbA==␇\\u202e")
	}
}

type errStr string

func (e errStr) Error() string { return string(e) }

func TestTailFromTopicsAndLeavingKeepsStream(t *testing.T) {
	h := newHarness(t, 120, 40)
	h.warm(1)
	h.key("2", "j", "j", "t")
	if h.m.active != common.ViewTail || h.m.tail.Target() != "ORDER.EVENT" {
		t.Fatalf("t on a topic: active %v target %q", h.m.active, h.m.tail.Target())
	}
	s := h.tailer.Last()
	s.Emit(20)
	h.advance(300 * time.Millisecond)
	h.mustShow("Tail ORDER.EVENT", "20 total", "ORDER.EVENT · ")
	// Leaving the tab keeps the tail running: the tab bar says so, and
	// records keep coming in.
	h.key("2")
	if s.Closed() {
		t.Fatal("leaving the tab closed the stream")
	}
	h.mustShow(" 6 Tail ● ")
	s.Emit(5)
	h.advance(300 * time.Millisecond)
	h.key("6")
	h.mustShow("● live", "25 total")
	// A second :tail keeps the first; x closes the one shown.
	h.command("tail PAYMENT.*")
	s2 := h.tailer.Last()
	if s.Closed() || s2 == s || h.m.tail.Target() != "PAYMENT.*" {
		t.Fatal(":tail replaced the running tail")
	}
	h.mustShow("0 total", "tail 2 of 2")
	h.key("x")
	if !s2.Closed() || s.Closed() {
		t.Fatal("x did not close only the tail shown")
	}
	h.key("[")
	h.mustShow("Tail ORDER.EVENT", "25 total")
	// Quitting closes every stream.
	h.key("q")
	if !s.WaitClosed(2*time.Second) || !h.quit {
		t.Fatal("quit did not close the stream")
	}
}

func TestTailKeysWorkAfterTyping(t *testing.T) {
	// The filter captures keys: q, digits and ? are text there.
	h := newHarness(t, 120, 40)
	h.command("tail ORDER.EVENT")
	h.tailer.Last().Emit(5)
	h.advance(300 * time.Millisecond)
	h.key("/")
	h.typeText("q2?")
	if h.quit || h.m.active != common.ViewTail {
		t.Fatal("keys escaped the tail filter")
	}
	h.mustShow("/q2?")
	h.key("esc", "?")
	h.mustShow("Keys — Tail", "Tail filter (/)", "k:TEXT", "key contains", "h:NAME=TEXT", "re:EXPR", "pause / resume", "copy value, key, hdrs")
}

func TestPublishFromTopicRowAndReadOnly(t *testing.T) {
	h := newHarness(t, 120, 40)
	h.warm(1)
	h.key("2", "j", "j", "p")
	// The form opens navigating (not capturing: global keys still work).
	if h.m.active != common.ViewPublish || h.m.publish.Target() != "ORDER.EVENT" || h.m.publish.Capturing() {
		t.Fatal("p on a topic did not open the prefilled form, navigating")
	}
	h.key("enter") // edit the key
	h.typeText("k-{{seq}}")
	h.key("enter", "enter") // review, confirm
	h.pub.Last().Step(1)
	h.advance(250 * time.Millisecond)
	h.mustShow("Results", "✓ done", "1/1 acknowledged")
	// Publishing keeps running when the tab is left.
	h.key("e", "down", "down", "down", "down", "enter", "ctrl+u")
	h.typeText("10")
	h.key("enter", "enter")
	run := h.pub.Last()
	h.key("2")
	run.Step(10)
	h.advance(250 * time.Millisecond)
	if p := h.m.publish.Progress(); !p.Done || p.Acked != 10 {
		t.Fatalf("progress while away: %+v", p)
	}
	h.mustShow("published 10 records")

	ro := newHarness(t, 120, 40, readOnly())
	ro.key("2", "j", "j", "p")
	if ro.m.active == common.ViewPublish {
		t.Fatal("p opened publish read-only")
	}
	ro.mustNotShow("7 Publish")
}

// streamSources is a Sources that is also a Tailer and a Publisher.
type streamSources struct {
	*fakes.Source
	*fakes.Tailer
	*fakes.Publisher
}

func TestSwitchContextClosesTailAndUsesNewStreams(t *testing.T) {
	h := newHarness(t, 120, 40)
	next := streamSources{fakes.NewDemo(), fakes.NewTailer(fakes.TailerOptions{}), &fakes.Publisher{Manual: true}}
	h.m.switcher = func(ctx context.Context, name string) (Sources, config.Context, error) {
		c := config.DefaultContext()
		c.Name = name
		return next, c, nil
	}
	h.command("tail ORDER.EVENT")
	old := h.tailer.Last()
	h.command("ctx prod")
	if !old.WaitClosed(2 * time.Second) {
		t.Fatal(":ctx did not close the old tail")
	}
	h.command("tail AUDIT.LOG")
	if next.Tailer.Last() == nil || h.tailer.Last() != old {
		t.Fatal("after :ctx the tail does not use the new context's tailer")
	}
}

func TestStreamsAbsentExplain(t *testing.T) {
	h := newHarness(t, 80, 24, noStreams())
	h.command("tail X")
	h.mustShow("Tailing is not available")
	h.key("7")
	h.mustShow("Publishing is not available")
}
