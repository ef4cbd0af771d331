// Package position reads where to start or seek in a partitioned log, the
// way operators write it, for every command and dialog that asks: `tail
// --from`, `group seek --to`, and the dashboard's tail jump and seek. One
// parser, so that a form accepted in one place is accepted in all.
//
// TOPIC:P@OFFSET names one partition of one topic, for commands that read
// a pattern (ORDER.* covers ORDER.KR and ORDER.US, each with its own
// partition 3); on a single topic it must name that topic. Topic names
// hold no ':' or '@' (they are [A-Za-z0-9._-]), so the form is never
// ambiguous, and no time form holds an '@'. CheckTarget says whether a
// position fits what a command reads.
//
// Forms (case-insensitive words):
//
//	earliest | beginning | start | oldest     the log start of each partition
//	latest | end | now                        the end of each partition
//	1234                                      an offset in every partition
//	3@1234                                    an offset of one partition
//	ORDER.KR:3@1234                           an offset of one partition of one topic
//	2026-11-30T10:00:00Z                      an RFC 3339 time
//	2026-11-30 10:00[:05] | 2026-11-30        a local date and time
//	10:00 | 10:00:05                          today, local time
//	-5m | 5m ago | 90s | -2h | -1d | -1w2d    relative to now
package position

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"ilinkdash/ilink/numfmt"
)

// Kind says which of the forms a Position is.
type Kind int

// The kinds of position.
const (
	Latest Kind = iota
	Earliest
	Offset
	Time
)

func (k Kind) String() string {
	switch k {
	case Latest:
		return "latest"
	case Earliest:
		return "earliest"
	case Offset:
		return "offset"
	case Time:
		return "time"
	}
	return "kind?"
}

// Position is a parsed position.
type Position struct {
	Kind Kind
	// Partition is the one partition of a P@OFFSET form; -1 for every
	// partition.
	Partition int32
	Offset    int64     // Kind Offset
	Time      time.Time // Kind Time
	// Topic is the one topic of a TOPIC:P@OFFSET form; "" when the form
	// names none (the command's own topic, or every topic it reads).
	Topic string
}

// OnePartition reports whether p names one partition (P@OFFSET or
// TOPIC:P@OFFSET).
func (p Position) OnePartition() bool { return p.Kind == Offset && p.Partition >= 0 }

// Forms is the short list of accepted forms, for error texts and help.
const Forms = "earliest, latest, an offset (1234), P@OFFSET (3@1234), TOPIC:P@OFFSET (ORDER.KR:3@1234), a time (2026-11-30T10:00:00Z, 2026-11-30 10:00, 10:00) or a relative time (-5m, 2h ago)"

// Parse reads s; now anchors HH:MM and relative forms (its location is
// the local zone of the forms without one).
func Parse(s string, now time.Time) (Position, error) {
	v := strings.TrimSpace(s)
	p := Position{Partition: -1}
	switch strings.ToLower(v) {
	case "":
		return p, errors.New("empty position: want " + Forms)
	case "earliest", "beginning", "start", "oldest":
		p.Kind = Earliest
		return p, nil
	case "latest", "end", "now":
		p.Kind = Latest
		return p, nil
	}
	if part, off, ok := strings.Cut(v, "@"); ok {
		topic, hasTopic := "", false
		if i := strings.LastIndexByte(part, ':'); i >= 0 {
			topic, part, hasTopic = strings.TrimSpace(part[:i]), part[i+1:], true
			if !validTopic(topic) {
				return p, fmt.Errorf("position %q: write TOPIC:P@OFFSET with one topic name ([A-Za-z0-9._-], no * or ?), e.g. ORDER.KR:3@1234", s)
			}
		}
		pn, err1 := strconv.ParseInt(strings.TrimSpace(part), 10, 32)
		on, err2 := strconv.ParseInt(strings.TrimSpace(off), 10, 64)
		if err1 != nil || err2 != nil || pn < 0 || on < 0 {
			if hasTopic {
				return p, fmt.Errorf("position %q: write TOPIC:P@OFFSET with whole numbers, e.g. %s:3@1234", s, topic)
			}
			return p, fmt.Errorf("position %q: write P@OFFSET with whole numbers, e.g. 3@1234", s)
		}
		p.Kind, p.Partition, p.Offset, p.Topic = Offset, int32(pn), on, topic
		return p, nil
	}
	if isDigits(v) {
		on, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return p, fmt.Errorf("position %q: offset too large", s)
		}
		p.Kind, p.Offset = Offset, on
		return p, nil
	}
	if strings.HasPrefix(v, "-") && isDigits(v[1:]) {
		return p, fmt.Errorf("position %q: offsets are not negative (for a relative time give a unit: -5m)", s)
	}
	t, err := ParseTime(v, now)
	if err != nil {
		return p, fmt.Errorf("position %q: want %s", s, Forms)
	}
	p.Kind, p.Time = Time, t
	return p, nil
}

// ParseTime reads the time forms of Parse alone.
func ParseTime(s string, now time.Time) (time.Time, error) {
	v := strings.TrimSpace(s)
	if v == "" {
		return time.Time{}, errors.New("empty time: want 2026-11-30T10:00:00Z, 2026-11-30 10:00, 10:00, -15m or 15m ago")
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t, nil
	}
	loc := now.Location()
	for _, layout := range []string{"2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, v, loc); err == nil {
			return t, nil
		}
	}
	for _, layout := range []string{"15:04:05", "15:04"} {
		if t, err := time.ParseInLocation(layout, v, loc); err == nil {
			y, m, d := now.Date()
			return time.Date(y, m, d, t.Hour(), t.Minute(), t.Second(), 0, loc), nil
		}
	}
	rel := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(strings.TrimSuffix(strings.ToLower(v), "ago")), "-"))
	if d, err := ParseDuration(rel); err == nil && d > 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("cannot read time %q: use 2026-11-30T10:00:00Z, 2026-11-30 10:00, 10:00, -15m or 15m ago", s)
}

// ParseDuration is time.ParseDuration plus d (days) and w (weeks), with
// units in any combination: 7d, 36h, 1w2d, 1h30m, 500ms.
func ParseDuration(s string) (time.Duration, error) {
	v := strings.TrimSpace(strings.ToLower(s))
	if v == "" {
		return 0, errors.New("empty duration (e.g. 7d, 12h, 30m)")
	}
	var total time.Duration
	for rest := v; rest != ""; {
		i := 0
		for i < len(rest) && (rest[i] >= '0' && rest[i] <= '9' || rest[i] == '.') {
			i++
		}
		if i == 0 {
			return 0, fmt.Errorf("bad duration %q (e.g. 7d, 12h, 30m)", s)
		}
		j := i
		for j < len(rest) && (rest[j] < '0' || rest[j] > '9') && rest[j] != '.' {
			j++
		}
		num, unit := rest[:i], strings.TrimSpace(rest[i:j])
		rest = rest[j:]
		x, err := strconv.ParseFloat(num, 64)
		if err != nil {
			return 0, fmt.Errorf("bad duration %q (e.g. 7d, 12h, 30m)", s)
		}
		u, ok := units[unit]
		if !ok {
			return 0, fmt.Errorf("bad duration unit %q in %q (use ms, s, m, h, d, w)", unit, s)
		}
		total += time.Duration(x * float64(u))
	}
	return total, nil
}

var units = map[string]time.Duration{
	"ms": time.Millisecond, "s": time.Second, "m": time.Minute, "h": time.Hour,
	"d": 24 * time.Hour, "w": 7 * 24 * time.Hour,
}

// String is the canonical text of p, which Parse reads back to p:
// earliest, latest, 1234, 3@1234, ORDER.KR:3@1234 or an RFC 3339 time in
// UTC.
func (p Position) String() string {
	switch p.Kind {
	case Earliest:
		return "earliest"
	case Offset:
		if p.Partition >= 0 {
			at := strconv.Itoa(int(p.Partition)) + "@" + strconv.FormatInt(p.Offset, 10)
			if p.Topic != "" {
				return p.Topic + ":" + at
			}
			return at
		}
		return strconv.FormatInt(p.Offset, 10)
	case Time:
		return p.Time.UTC().Format(time.RFC3339Nano)
	}
	return "latest"
}

// Label describes p for people: "earliest", "offset 1,234 of partition
// 3", "offset 1,234 of ORDER.KR partition 3", "2026-11-30 10:00:00" (in
// the local zone).
func (p Position) Label() string {
	switch p.Kind {
	case Earliest:
		return "earliest"
	case Offset:
		if p.Partition >= 0 {
			of := "partition "
			if p.Topic != "" {
				of = p.Topic + " partition "
			}
			return "offset " + numfmt.Thousands(p.Offset) + " of " + of + strconv.Itoa(int(p.Partition))
		}
		return "offset " + numfmt.Thousands(p.Offset)
	case Time:
		return p.Time.Local().Format("2006-01-02 15:04:05")
	}
	return "latest"
}

// CheckTarget says whether p fits a command that reads target, a topic
// or a pattern (match reports whether a topic matches a pattern: the
// consumer's MatchPattern). On a pattern, a one-partition position must
// name its topic (TOPIC:P@OFFSET), one that matches; on a topic, a named
// topic must be that topic. The error names the form to use.
func (p Position) CheckTarget(target string, match func(pattern, topic string) bool) error {
	if !p.OnePartition() {
		return nil
	}
	pattern := strings.ContainsAny(target, "*?")
	switch {
	case pattern && p.Topic == "":
		return fmt.Errorf("position %s names a partition of no topic, and %s is a pattern: write TOPIC:P@OFFSET, e.g. TOPIC:%d@%d with a topic that matches it", p, target, p.Partition, p.Offset)
	case pattern && !match(target, p.Topic):
		return fmt.Errorf("position %s: topic %s does not match the pattern %s", p, p.Topic, target)
	case !pattern && p.Topic != "" && p.Topic != target:
		return fmt.Errorf("position %s names topic %s, not %s (write %d@%d, or %s:%d@%d)", p, p.Topic, target, p.Partition, p.Offset, target, p.Partition, p.Offset)
	}
	return nil
}

// Applies reports whether p concerns partition part of topic: every
// partition for the forms without one, else the one named (of any topic
// when p names none).
func (p Position) Applies(topic string, part int32) bool {
	if !p.OnePartition() {
		return true
	}
	return p.Partition == part && (p.Topic == "" || p.Topic == topic)
}

// validTopic: a topic name, as the engine takes them.
func validTopic(s string) bool {
	if s == "" || len(s) > 249 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// isDigits: s is one or more ASCII digits.
func isDigits(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }
