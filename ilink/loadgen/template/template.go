// Package template expands the publish form's templated keys, values and
// header values:
//
//	{{seq}}     the record's sequence number in the run, from 0
//	{{now}}     the time the record is built, RFC 3339 with nanoseconds (UTC)
//	{{uuid}}    a random version 4 UUID
//	{{rand N}}  N random alphanumerics [0-9A-Za-z], 1 ≤ N ≤ 1,048,576
//
// Spaces inside the braces are allowed ({{ rand 8 }}). "{{" always opens a
// placeholder; anything unknown, unterminated or malformed is an error
// naming the placeholder and its position, reported before anything is
// sent. Text without "{{" is sent as is, byte for byte.
package template

import (
	"crypto/rand"
	"fmt"
	mrand "math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// MaxRand bounds {{rand N}}.
const MaxRand = 1 << 20

type kind uint8

const (
	kLit kind = iota
	kSeq
	kNow
	kUUID
	kRand
)

type part struct {
	kind kind
	lit  []byte
	n    int
}

// Template is a parsed template.
type Template struct {
	parts  []part
	static bool
}

// Parse parses a template. what names the field in errors ("key", "value").
func Parse(what, s string) (*Template, error) {
	t := &Template{static: true}
	rest, pos := s, 0
	for {
		i := strings.Index(rest, "{{")
		if i < 0 {
			if rest != "" {
				t.parts = append(t.parts, part{kind: kLit, lit: []byte(rest)})
			}
			break
		}
		if i > 0 {
			t.parts = append(t.parts, part{kind: kLit, lit: []byte(rest[:i])})
		}
		j := strings.Index(rest[i+2:], "}}")
		col := pos + i + 1
		if j < 0 {
			return nil, fmt.Errorf("%s: unterminated %q at column %d (close it with }})", what, clip(rest[i:]), col)
		}
		raw := rest[i : i+2+j+2]
		body := strings.Fields(rest[i+2 : i+2+j])
		p, err := placeholder(body)
		if err != nil {
			return nil, fmt.Errorf("%s: %s at column %d: %v", what, raw, col, err)
		}
		t.parts = append(t.parts, p)
		t.static = false
		adv := i + 2 + j + 2
		rest, pos = rest[adv:], pos+adv
	}
	return t, nil
}

func clip(s string) string {
	if len(s) > 20 {
		return s[:20] + "…"
	}
	return s
}

func placeholder(f []string) (part, error) {
	const use = "use {{seq}}, {{now}}, {{uuid}} or {{rand N}}"
	if len(f) == 0 {
		return part{}, fmt.Errorf("empty placeholder (%s)", use)
	}
	switch strings.ToLower(f[0]) {
	case "seq", "now", "uuid":
		if len(f) != 1 {
			return part{}, fmt.Errorf("{{%s}} takes no argument", f[0])
		}
		return part{kind: map[string]kind{"seq": kSeq, "now": kNow, "uuid": kUUID}[strings.ToLower(f[0])]}, nil
	case "rand":
		if len(f) != 2 {
			return part{}, fmt.Errorf("write {{rand N}} with N from 1 to %d", MaxRand)
		}
		n, err := strconv.Atoi(f[1])
		if err != nil || n < 1 || n > MaxRand {
			return part{}, fmt.Errorf("its N must be a whole number from 1 to %d, not %q", MaxRand, f[1])
		}
		return part{kind: kRand, n: n}, nil
	}
	return part{}, fmt.Errorf("unknown placeholder %q (%s)", f[0], use)
}

// Literal is a template that is b, byte for byte (a binary file).
func Literal(b []byte) *Template {
	return &Template{static: true, parts: []part{{kind: kLit, lit: b}}}
}

// Static reports that the template has no placeholder: every record gets
// the same bytes.
func (t *Template) Static() bool { return t.static }

// Most bytes of one expansion of each placeholder: {{seq}} (an int64),
// {{now}} (RFC 3339 with nanoseconds, UTC, years to 9999) and {{uuid}}.
const (
	maxSeqLen  = 20
	maxNowLen  = len("2006-01-02T15:04:05.999999999Z")
	maxUUIDLen = 36
)

// MaxLen is the most bytes one expansion of t can take: what a value
// bound (the producer's record cap) is checked against before a run.
func (t *Template) MaxLen() int {
	n := 0
	for _, p := range t.parts {
		switch p.kind {
		case kLit:
			n += len(p.lit)
		case kSeq:
			n += maxSeqLen
		case kNow:
			n += maxNowLen
		case kUUID:
			n += maxUUIDLen
		case kRand:
			n += p.n
		}
	}
	return n
}

// Literal returns the bytes of a static template.
func (t *Template) Literal() []byte {
	var out []byte
	for _, p := range t.parts {
		out = append(out, p.lit...)
	}
	return out
}

// Expander expands templates for one run. It is not safe for concurrent
// use (one run builds its records in one goroutine).
type Expander struct {
	// Now is the clock ({{now}}); time.Now when nil.
	Now func() time.Time
	rnd *mrand.Rand
}

// NewExpander returns an expander with a randomly seeded generator.
func NewExpander() *Expander {
	var seed [32]byte
	_, _ = rand.Read(seed[:])
	return &Expander{rnd: mrand.New(mrand.NewChaCha8(seed))}
}

// NewSeededExpander returns a deterministic expander (tests).
func NewSeededExpander(seed uint64, now func() time.Time) *Expander {
	var s [32]byte
	for i := 0; i < 8; i++ {
		s[i] = byte(seed >> (8 * i))
	}
	return &Expander{rnd: mrand.New(mrand.NewChaCha8(s)), Now: now}
}

const alnum = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// Append appends t expanded for record seq to dst.
func (e *Expander) Append(dst []byte, t *Template, seq int64) []byte {
	for _, p := range t.parts {
		switch p.kind {
		case kLit:
			dst = append(dst, p.lit...)
		case kSeq:
			dst = strconv.AppendInt(dst, seq, 10)
		case kNow:
			now := time.Now
			if e.Now != nil {
				now = e.Now
			}
			dst = now().UTC().AppendFormat(dst, time.RFC3339Nano)
		case kUUID:
			dst = e.appendUUID(dst)
		case kRand:
			for i := 0; i < p.n; i++ {
				dst = append(dst, alnum[e.rnd.IntN(len(alnum))])
			}
		}
	}
	return dst
}

func (e *Expander) appendUUID(dst []byte) []byte {
	var b [16]byte
	lo, hi := e.rnd.Uint64(), e.rnd.Uint64()
	for i := 0; i < 8; i++ {
		b[i] = byte(lo >> (8 * i))
		b[8+i] = byte(hi >> (8 * i))
	}
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	const hexd = "0123456789abcdef"
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			dst = append(dst, '-')
		}
		dst = append(dst, hexd[c>>4], hexd[c&0xf])
	}
	return dst
}
