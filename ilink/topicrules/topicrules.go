// Package topicrules is the one statement of what a topic may be: its
// name, partitions, replicas, minSync, retention and sizes, and the one
// "forever" value. The engine refuses with it, and the admin client, the
// CLI and every dashboard form check with it before a preview, so a value
// a form accepts is a value the engine accepts, with the same words.
//
// Units (docs/CLI.md "Units"): sizes are binary, case-insensitive:
// B, k = KiB = 1,024, m = MiB = 2^20, g = GiB = 2^30, t = TiB = 2^40 bytes;
// KB, MB, GB and TB are refused as ambiguous. Durations are those of
// ilink/position (ms, s, m, h, d, w, combined: 1w2d); a bare number of a
// retention is milliseconds. Retention 0 is "forever" and retention bytes
// 0 "unlimited", everywhere: create, alter, the CLI and the engine.
//
// It imports only ilink/position, so the engine may import it
// (docs/DESIGN.md §1.3).
package topicrules

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"ilinkdash/ilink/position"
)

// Limits.
const (
	MaxNameLen    = 249
	SystemPrefix  = "SYSTEM."
	MaxPartitions = 1024
	// Forever is the retention that keeps records forever (retention.ms 0)
	// and the retention bytes that never trims (retention.bytes 0).
	Forever int64 = 0
	// MaxRetentionMs is the longest retention other than forever: 100
	// years (36500d), far below where a duration overflows.
	MaxRetentionMs int64 = 36500 * 24 * 3600 * 1000
	// MaxSize is the largest size (retention bytes, config bounds): 1 EiB.
	MaxSize int64 = 1 << 60
)

// Error is a refused value: Field is the input it names (a property key
// such as "replicas", or a form's label), Msg what is wrong with it.
type Error struct {
	Field string
	Msg   string
}

func (e *Error) Error() string { return e.Field + ": " + e.Msg }

func errf(field, format string, args ...any) *Error {
	return &Error{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// InField names err's field label instead (a form's "Replicas" for the
// property "replicas"); other errors are returned as they are.
func InField(err error, label string) error {
	if e, ok := err.(*Error); ok {
		return &Error{Field: label, Msg: e.Msg}
	}
	return err
}

// CheckName checks a topic name: 1..249 characters of A-Z a-z 0-9 . _ -;
// the SYSTEM. prefix is the engine's own (internal).
func CheckName(name string, internal bool) error {
	if name == "" {
		return errf("name", "empty; give the topic a name")
	}
	for i, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
		case r == utf8.RuneError && len(name) > i && name[i] >= 0x80:
			return errf("name", "byte 0x%02x at %d is not allowed (only A-Z a-z 0-9 . _ -)", name[i], i)
		default:
			return errf("name", "%q at %d is not allowed (only A-Z a-z 0-9 . _ -)", r, i)
		}
	}
	if len(name) > MaxNameLen { // every allowed character is one byte
		return errf("name", "%d characters; at most %d", len(name), MaxNameLen)
	}
	if !internal && strings.HasPrefix(name, SystemPrefix) {
		return errf("name", "the %s prefix is reserved for the engine", SystemPrefix)
	}
	return nil
}

// CheckPartitions checks a partition count: 1..MaxPartitions.
func CheckPartitions(n int64) error {
	if n < 1 || n > MaxPartitions {
		return errf("partitions", "%d out of range 1..%d", n, MaxPartitions)
	}
	return nil
}

// CheckReplicas checks a replica count against the cluster's data nodes
// (nodes <= 0: unknown, only the lower bound is checked).
func CheckReplicas(n int64, nodes int) error {
	switch {
	case n < 1:
		return errf("replicas", "%d; at least 1", n)
	case nodes > 0 && n > int64(nodes):
		unit := " nodes"
		if nodes == 1 {
			unit = " node"
		}
		return errf("replicas", "%d but the cluster has %d%s", n, nodes, unit)
	}
	return nil
}

// CheckMinSync checks minSync against the topic's replicas.
func CheckMinSync(m, replicas int64) error {
	if m < 1 || m > replicas {
		return errf("minSync", "%d out of range 1..%d (the topic's replicas)", m, replicas)
	}
	return nil
}

// CheckRetentionMs checks a retention in milliseconds: Forever (0) or
// 1..MaxRetentionMs.
func CheckRetentionMs(ms int64) error {
	switch {
	case ms < 0:
		return errf("retention.ms", "%d is negative (0 = keep forever)", ms)
	case ms > MaxRetentionMs:
		return errf("retention.ms", "%d is more than %d (36500d, 100 years); for no limit give forever", ms, MaxRetentionMs)
	}
	return nil
}

// CheckRetentionBytes checks a retention size: Forever (0 = unlimited) or
// 1..MaxSize.
func CheckRetentionBytes(n int64) error {
	switch {
	case n < 0:
		return errf("retention.bytes", "%d is negative (0 = unlimited)", n)
	case n > MaxSize:
		return errf("retention.bytes", "%d is more than %d (1 EiB); for no limit give unlimited", n, MaxSize)
	}
	return nil
}

// foreverWords are what an operator writes for Forever.
var foreverWords = map[string]bool{"forever": true, "∞": true, "inf": true, "infinite": true, "none": true, "unlimited": true, "0": true}

// ParseRetention reads a retention: forever (also ∞, none, 0) = Forever,
// a bare number of milliseconds, or a duration (7d, 12h, 1w2d) of at most
// 36500d. Blank is an error: a form's "cluster default" is its own.
func ParseRetention(s string) (int64, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	if v == "" {
		return 0, errf("retention.ms", "empty (give 7d, 12h, forever or milliseconds)")
	}
	if foreverWords[v] {
		return Forever, nil
	}
	if isDigits(v) {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, errf("retention.ms", "%s is more than %d (36500d, 100 years)", s, MaxRetentionMs)
		}
		return n, CheckRetentionMs(n)
	}
	// The bound is checked in floating point before the duration is
	// built, so 99999999d is refused instead of wrapping around.
	if ms, ok := durationMs(v); ok && ms > float64(MaxRetentionMs) {
		return 0, errf("retention.ms", "%s is more than 36500d (100 years); for no limit give forever", strings.TrimSpace(s))
	}
	d, err := position.ParseDuration(v)
	if err != nil {
		return 0, errf("retention.ms", "%q: want a duration (7d, 12h, 30m, 1w2d), milliseconds or forever", strings.TrimSpace(s))
	}
	if d < time.Millisecond {
		return 0, errf("retention.ms", "%s is shorter than 1ms (for no limit give forever)", strings.TrimSpace(s))
	}
	ms := d.Milliseconds()
	return ms, CheckRetentionMs(ms)
}

// durationMs adds up a duration's number-unit pairs in milliseconds, the
// way position.ParseDuration splits them; ok is false where it does not
// read as such pairs (ParseDuration then says why).
func durationMs(s string) (float64, bool) {
	unit := map[string]float64{"ms": 1, "s": 1e3, "m": 6e4, "h": 3.6e6, "d": 8.64e7, "w": 6.048e8}
	total := 0.0
	for rest := s; rest != ""; {
		i := 0
		for i < len(rest) && (rest[i] >= '0' && rest[i] <= '9' || rest[i] == '.') {
			i++
		}
		j := i
		for j < len(rest) && (rest[j] < '0' || rest[j] > '9') && rest[j] != '.' {
			j++
		}
		x, err := strconv.ParseFloat(rest[:i], 64)
		u, ok := unit[strings.TrimSpace(rest[i:j])]
		if err != nil || !ok {
			return 0, false
		}
		total += x * u
		rest = rest[j:]
	}
	return total, true
}

// sizeUnits are the units of ParseSize, binary multiples only; the keys
// are lower case (units are read without regard to case).
var sizeUnits = map[string]uint{
	"": 0, "b": 0,
	"k": 10, "kib": 10,
	"m": 20, "mib": 20,
	"g": 30, "gib": 30,
	"t": 40, "tib": 40,
}

// SizeForms is the short text of the size forms, for hints and errors.
const SizeForms = "bytes, or a whole number of k/KiB (1,024), m/MiB (2^20), g/GiB (2^30) or t/TiB (2^40)"

// ParseSize reads a byte count with the one unit rule: a whole number,
// optionally followed by B, k/KiB, m/MiB, g/GiB or t/TiB, all binary and
// without regard to case ("16MiB" = "16m" = 16,777,216). KB, MB, GB and
// TB are refused: they mean 1000s to some and 1024s to others.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	num, u := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	shift, ok := sizeUnits[u]
	switch {
	case num == "":
		return 0, fmt.Errorf("invalid size %q: want %s, e.g. 512MiB", s, SizeForms)
	case !ok && (u == "kb" || u == "mb" || u == "gb" || u == "tb"):
		bin := strings.ToUpper(u[:1]) + "iB"
		return 0, fmt.Errorf("invalid size %q: %s is ambiguous; sizes are binary, write %s%s or %s%s", s, strings.ToUpper(u), num, bin, num, u[:1])
	case !ok:
		return 0, fmt.Errorf("invalid size %q: unknown unit %q (want %s)", s, t[i:], SizeForms)
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n > MaxSize>>shift {
		return 0, fmt.Errorf("invalid size %q: more than 1 EiB (%d bytes)", s, MaxSize)
	}
	return n << shift, nil
}

// ParseRetentionBytes reads a retention size: unlimited (also none, 0) =
// Forever, or a size of ParseSize.
func ParseRetentionBytes(s string) (int64, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	if foreverWords[v] {
		return Forever, nil
	}
	n, err := ParseSize(s)
	if err != nil {
		return 0, &Error{Field: "retention.bytes", Msg: err.Error() + " or unlimited"}
	}
	return n, CheckRetentionBytes(n)
}

// FormatSize writes n in the largest binary unit that divides it
// ("16MiB", "1536B"), a form ParseSize reads back.
func FormatSize(n int64) string {
	for _, u := range []struct {
		s     string
		shift uint
	}{{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}} {
		if m := int64(1) << u.shift; n != 0 && n%m == 0 {
			return strconv.FormatInt(n/m, 10) + u.s
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}

// FormatRetention writes a retention as it is typed back: forever, the
// largest unit that divides it (7d, 14d, 12h, 30m, 45s), or milliseconds.
func FormatRetention(ms int64) string {
	if ms == Forever {
		return "forever"
	}
	for _, u := range []struct {
		s string
		m int64
	}{{"d", 8.64e7}, {"h", 3.6e6}, {"m", 6e4}, {"s", 1e3}} { // days, not weeks: the topic list says 7d
		if ms%u.m == 0 {
			return strconv.FormatInt(ms/u.m, 10) + u.s
		}
	}
	return strconv.FormatInt(ms, 10) + "ms"
}

// isDigits: s is one or more ASCII digits.
func isDigits(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }
