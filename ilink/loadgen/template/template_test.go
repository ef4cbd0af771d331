package template

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

func expand(t *testing.T, e *Expander, s string, seq int64) string {
	t.Helper()
	tm, err := Parse("value", s)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return string(e.Append(nil, tm, seq))
}

func TestExpand(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 0, 0, 123456789, time.FixedZone("CET", 3600))
	e := NewSeededExpander(1, func() time.Time { return now })
	for _, c := range []struct{ in, want string }{
		{"plain text", "plain text"},
		{"", ""},
		{"order-{{seq}}", "order-41"},
		{"{{ seq }}/{{SEQ}}", "41/41"},
		{`{"at":"{{now}}"}`, `{"at":"2026-11-30T09:00:00.123456789Z"}`},
		{"a}}b{", "a}}b{"},
		{"{x}", "{x}"},
	} {
		if got := expand(t, e, c.in, 41); got != c.want {
			t.Errorf("%q → %q, want %q", c.in, got, c.want)
		}
	}
	uuid := regexp.MustCompile(`^id-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := map[string]bool{}
	for i := 0; i < 100; i++ {
		u := expand(t, e, "id-{{uuid}}", int64(i))
		if !uuid.MatchString(u) {
			t.Fatalf("uuid %q", u)
		}
		if seen[u] {
			t.Fatalf("uuid %q repeated", u)
		}
		seen[u] = true
	}
	alnum := regexp.MustCompile(`^x[0-9A-Za-z]{8}y[0-9A-Za-z]{1}$`)
	for i := 0; i < 50; i++ {
		if r := expand(t, e, "x{{rand 8}}y{{ rand 1 }}", 0); !alnum.MatchString(r) {
			t.Fatalf("rand %q", r)
		}
	}
	if r := expand(t, e, "{{rand 1048576}}", 0); len(r) != MaxRand {
		t.Fatalf("rand max: %d bytes", len(r))
	}
	// Deterministic with the same seed.
	a := expand(t, NewSeededExpander(7, nil), "{{uuid}}{{rand 5}}", 0)
	b := expand(t, NewSeededExpander(7, nil), "{{uuid}}{{rand 5}}", 0)
	if a != b {
		t.Fatal("seeded expanders differ")
	}
	// Appends to dst.
	tm, _ := Parse("key", "k{{seq}}")
	if got := string(e.Append([]byte("pre-"), tm, 3)); got != "pre-k3" {
		t.Fatalf("Append: %q", got)
	}
}

func TestStaticAndLiteral(t *testing.T) {
	tm, _ := Parse("value", "no placeholder")
	if !tm.Static() || string(tm.Literal()) != "no placeholder" {
		t.Fatal("static template")
	}
	tm, _ = Parse("value", "{{seq}}")
	if tm.Static() {
		t.Fatal("{{seq}} is not static")
	}
	bin := []byte{0, 0xff, '{', '{', 'x'}
	if l := Literal(bin); !l.Static() || string(NewExpander().Append(nil, l, 9)) != string(bin) {
		t.Fatal("Literal does not keep the bytes")
	}
}

func TestBadTemplates(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"k-{{rand x}}", `key: {{rand x}} at column 3: its N must be a whole number from 1 to 1048576, not "x"`},
		{"{{rand 0}}", "N must be a whole number from 1 to 1048576"},
		{"{{rand 1048577}}", "N must be a whole number"},
		{"{{rand}}", "write {{rand N}}"},
		{"{{rand 1 2}}", "write {{rand N}}"},
		{"{{foo}}", `unknown placeholder "foo" (use {{seq}}, {{now}}, {{uuid}} or {{rand N}})`},
		{"{{}}", "empty placeholder"},
		{"{{ }}", "empty placeholder"},
		{"ab{{seq", `key: unterminated "{{seq" at column 3`},
		{"{{seq 1}}", "{{seq}} takes no argument"},
		{"ok {{seq}} then {{nope}}", "at column 17"},
	} {
		_, err := Parse("key", c.in)
		if err == nil {
			t.Errorf("%q: no error", c.in)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %q, want it to contain %q", c.in, err, c.want)
		}
	}
}

// MaxLen bounds every expansion: the longest seq, a time with all nine
// nanosecond digits, a UUID and {{rand N}}'s N, around literal text.
func TestMaxLen(t *testing.T) {
	now := time.Date(9999, 12, 31, 23, 59, 59, 123456789, time.UTC)
	e := NewSeededExpander(3, func() time.Time { return now })
	for _, c := range []struct {
		in   string
		want int
	}{
		{"", 0},
		{"plain", 5},
		{"{{seq}}", 20},
		{"at {{now}}", 3 + 30},
		{"{{uuid}}-{{rand 7}}", 36 + 1 + 7},
		{"{{rand 1048576}}{{rand 1048576}}", 2 << 20},
	} {
		tm, err := Parse("value", c.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := tm.MaxLen(); got != c.want {
			t.Errorf("MaxLen(%q) = %d, want %d", c.in, got, c.want)
		}
		for _, seq := range []int64{0, 1 << 62, 9223372036854775807} {
			if n := len(e.Append(nil, tm, seq)); n > tm.MaxLen() {
				t.Errorf("%q at seq %d expanded to %d bytes, over MaxLen %d", c.in, seq, n, tm.MaxLen())
			}
		}
	}
	if n := len(e.Append(nil, Literal([]byte("binary\x00")), 0)); n != Literal([]byte("binary\x00")).MaxLen() {
		t.Errorf("a literal's MaxLen is not its length %d", n)
	}
}
