package common

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"ilinkdash/config"
)

func TestFormats(t *testing.T) {
	now0 := time.Date(2026, 1, 1, 0, 0, 10, 0, time.UTC)
	for in, want := range map[int64]string{-1: "-", 0: "0", 999: "999", 1000: "1.00k", 1234: "1.23k", 45_600: "45.6k", 999_499: "999k", 999_500: "1.00M", 12_345_678: "12.3M"} {
		if got := Count(in); got != want {
			t.Errorf("Count(%d) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[float64]string{0: "0", -3: "0", 0.26: "0.3", 9.94: "9.9", 12.4: "12", 1500: "1.50k"} {
		if got := Rate(in); got != want {
			t.Errorf("Rate(%v) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[int64]string{-1: "-", 0: "0", 999: "999", 1000: "1,000", 12_345_678: "12,345,678", -1234: "-1,234"} {
		if got := Thousands(in); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[time.Duration]string{0: "0s", 800 * time.Millisecond: "800ms", 45 * time.Second: "45s", 200 * time.Second: "3m20s", 2*time.Hour + 5*time.Minute: "2h5m", 7 * 24 * time.Hour: "7d", 36 * time.Hour: "1d12h"} {
		if got := Dur(in); got != want {
			t.Errorf("Dur(%v) = %q, want %q", in, got, want)
		}
	}
	// Rounded to the unit shown, never truncated.
	for in, want := range map[time.Duration]string{
		3990 * time.Millisecond:                        "4s",
		1750 * time.Millisecond:                        "2s",
		1499 * time.Millisecond:                        "1s",
		999_600 * time.Microsecond:                     "1s",
		1_400 * time.Microsecond:                       "1ms",
		59_500 * time.Millisecond:                      "1m",
		89_500 * time.Millisecond:                      "1m30s",
		59*time.Minute + 59_700*time.Millisecond:       "1h",
		2*time.Hour + 4*time.Minute + 31*time.Second:   "2h5m",
		23*time.Hour + 59*time.Minute + 45*time.Second: "1d",
		35*time.Hour + 59*time.Minute:                  "1d12h",
		-2500 * time.Millisecond:                       "3s",
	} {
		if got := Dur(in); got != want {
			t.Errorf("Dur(%v) = %q, want %q", in, got, want)
		}
	}
	if got := Ago(now0, now0.Add(-2900*time.Millisecond)); got != "3s ago" {
		t.Errorf("Ago(2.9s) = %q", got)
	}
	if got := Bytes(1 << 30); got != "1.0GiB" {
		t.Errorf("Bytes = %q", got)
	}
	now := time.Date(2026, 1, 1, 0, 0, 10, 0, time.UTC)
	if got := Ago(now, now.Add(-3*time.Second)); got != "3s ago" {
		t.Errorf("Ago = %q", got)
	}
	if Ago(now, time.Time{}) != "never" || Ago(now, now) != "now" {
		t.Error("Ago edge cases")
	}
}

func TestRing(t *testing.T) {
	r := NewRing(3)
	if r.Last() != 0 || r.Len() != 0 {
		t.Fatal("empty ring")
	}
	for i := 1; i <= 5; i++ {
		r.Push(float64(i))
	}
	if got := r.Values(nil, 0); len(got) != 3 || got[0] != 3 || got[2] != 5 {
		t.Fatalf("Values = %v", got)
	}
	if got := r.Values(nil, 2); len(got) != 2 || got[0] != 4 {
		t.Fatalf("Values(2) = %v", got)
	}
	if r.Last() != 5 || r.Cap() != 3 {
		t.Fatal("Last/Cap")
	}
}

func TestFrameClipsAndPads(t *testing.T) {
	st := NewStyles(DarkTheme(), FullColor)
	long := st.Err.Render(strings.Repeat("東", 30)) + "tail"
	out := Frame([]string{long, "short"}, 21, 4)
	lines := strings.Split(out, "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines", len(lines))
	}
	for _, l := range lines {
		if ansi.StringWidthWc(l) > 21 {
			t.Fatalf("line %q too wide", ansi.Strip(l))
		}
	}
	if Frame(nil, 0, 3) != "" || Frame(nil, 3, 0) != "" {
		t.Fatal("empty sizes")
	}
	if got := ClipStyled(st.OK.Render("abcdef"), 3); ansi.Strip(got) != "abc" {
		t.Fatalf("ClipStyled = %q", got)
	}
}

func TestStylesModes(t *testing.T) {
	plain := NewStyles(DarkTheme(), Plain)
	if plain.Selected.Render("x") != "x" || plain.Err.Render("x") != "x" {
		t.Fatal("plain styles emit sequences")
	}
	nc := NewStyles(DarkTheme(), NoColor)
	if s := nc.Selected.Render("x"); !strings.Contains(s, "\x1b[7m") {
		t.Fatalf("NO_COLOR selection is not reverse video: %q", s)
	}
	for _, s := range []Style{nc.Err, nc.Warn, nc.TabActive, nc.Header, nc.StatusErr} {
		if r := s.Render("x"); strings.Contains(r, "38;") || strings.Contains(r, "48;") {
			t.Fatalf("NO_COLOR style holds a colour: %q", r)
		}
	}
	light, dark := NewStyles(LightTheme(), FullColor), NewStyles(DarkTheme(), FullColor)
	if light.Text.Render("x") == dark.Text.Render("x") {
		t.Fatal("light and dark themes render the same")
	}
}

func TestContextDefaults(t *testing.T) {
	c := NewContext(config.DefaultContext(), true, nil)
	if c.Name != "demo" || !c.Demo || c.Styles == nil || c.Keys == nil {
		t.Fatalf("context %+v", c)
	}
	if c.Interval(ResCluster) != 5*time.Second || c.Interval(ResTopics) != 2*time.Second {
		t.Fatal("intervals")
	}
	ro := NewContext(config.Context{ReadOnly: true, Theme: config.ThemeLight}, false, nil)
	if ro.Dark || ro.Name != "default" {
		t.Fatal("light theme / default name")
	}
	for _, b := range ro.Keys.Mutating() {
		if b.Enabled() {
			t.Fatalf("read-only key %q enabled", b.Help().Key)
		}
	}
}

func TestPlural(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{Plural(0, "topic"), "0 topics"},
		{Plural(1, "topic"), "1 topic"},
		{Plural(2, "queue"), "2 queues"},
		{Plural(int64(12_000), "record"), "12,000 records"},
		{Plural(uint64(1), "alert"), "1 alert"},
		{PluralOf(1, "entry", "entries"), "1 entry"},
		{PluralOf(3, "entry", "entries"), "3 entries"},
		{Agree(1, "needs", "need"), "needs"},
		{Agree(4, "needs", "need"), "need"},
		{Agree(0, "needs", "need"), "need"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// Every polled resource has its row (a name and the refresh setting that
// paces it), each setting reaches the resources it paces, and an unset
// one falls back to its default.
func TestEveryResourceHasARow(t *testing.T) {
	names := map[string]bool{}
	for r := ResID(0); r < NumRes; r++ {
		if resources[r].name == "" || resources[r].every == nil || names[r.String()] {
			t.Fatalf("resource %d: row %+v (name missing, repeated, or no refresh setting)", r, resources[r])
		}
		names[r.String()] = true
	}
	if NumRes.String() != "resource?" {
		t.Fatalf("NumRes is %q", NumRes.String())
	}
	c := &Context{Config: config.Context{Refresh: config.Refresh{Overview: 1 * time.Second, Topics: 3 * time.Second,
		Groups: 4 * time.Second, Queues: 6 * time.Second, Cluster: 7 * time.Second}}}
	want := map[ResID]time.Duration{ResSummary: time.Second, ResStats: time.Second, ResTopics: 3 * time.Second,
		ResGroups: 4 * time.Second, ResQueues: 6 * time.Second, ResCluster: 7 * time.Second, ResLeaders: 7 * time.Second,
		ResReplication: config.DefaultRefresh().Replication}
	for r, d := range want {
		if got := c.Interval(r); got != d {
			t.Errorf("Interval(%v) = %v, want %v", r, got, d)
		}
	}
}
