package position

import (
	"strings"
	"testing"
	"time"
)

// match is a stand-in for the consumer's MatchPattern: a trailing '*'.
func match(pattern, topic string) bool {
	return strings.HasPrefix(topic, strings.TrimSuffix(pattern, "*"))
}

func TestParseTopicPartitionOffset(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]Position{
		"ORDER.KR:3@1234":    {Kind: Offset, Partition: 3, Offset: 1234, Topic: "ORDER.KR"},
		" ORDER.KR : 0 @ 7 ": {Kind: Offset, Partition: 0, Offset: 7, Topic: "ORDER.KR"},
		"a-b_c.9:12@0":       {Kind: Offset, Partition: 12, Offset: 0, Topic: "a-b_c.9"},
		"3@1234":             {Kind: Offset, Partition: 3, Offset: 1234},
	} {
		got, err := Parse(in, now)
		if err != nil {
			t.Errorf("Parse(%q): %v", in, err)
			continue
		}
		if got != want {
			t.Errorf("Parse(%q) = %+v, want %+v", in, got, want)
		}
		back, err := Parse(got.String(), now)
		if err != nil || back != got {
			t.Errorf("Parse(%q).String() = %q reads back as %+v, %v", in, got.String(), back, err)
		}
	}
	// A time is never taken for a topic: no time form holds an '@'.
	if p, err := Parse("10:30", now); err != nil || p.Kind != Time || p.Topic != "" {
		t.Errorf("Parse(10:30) = %+v, %v", p, err)
	}
	for in, wantErr := range map[string]string{
		"ORDER.*:3@1":   "TOPIC:P@OFFSET with one topic name",
		":3@1":          "TOPIC:P@OFFSET with one topic name",
		"OR DER:3@1":    "TOPIC:P@OFFSET with one topic name",
		"ORDER.KR:x@1":  "write TOPIC:P@OFFSET with whole numbers, e.g. ORDER.KR:3@1234",
		"ORDER.KR:3@-1": "write TOPIC:P@OFFSET with whole numbers",
		"ORDER.KR:3":    "ORDER.KR:3",
	} {
		_, err := Parse(in, now)
		if err == nil {
			t.Errorf("Parse(%q) accepted", in)
			continue
		}
		if !strings.Contains(err.Error(), wantErr) || !strings.Contains(err.Error(), in) {
			t.Errorf("Parse(%q) error %q; want it to name the input and say %q", in, err, wantErr)
		}
	}
	if got := (Position{Kind: Offset, Partition: 3, Offset: 1234, Topic: "ORDER.KR"}).Label(); got != "offset 1,234 of ORDER.KR partition 3" {
		t.Errorf("label %q", got)
	}
}

func TestCheckTarget(t *testing.T) {
	one := func(topic string) Position { return Position{Kind: Offset, Partition: 2, Offset: 5, Topic: topic} }
	all := Position{Kind: Offset, Partition: -1, Offset: 5}
	for _, c := range []struct {
		p       Position
		target  string
		wantErr string // "" = fits
	}{
		{all, "ORDER.*", ""},
		{Position{Kind: Latest, Partition: -1}, "ORDER.*", ""},
		{one("ORDER.KR"), "ORDER.*", ""},
		{one(""), "ORDER.EVENT", ""},
		{one("ORDER.EVENT"), "ORDER.EVENT", ""},
		{one(""), "ORDER.*", "write TOPIC:P@OFFSET, e.g. TOPIC:2@5"},
		{one("PAY.KR"), "ORDER.*", "topic PAY.KR does not match the pattern ORDER.*"},
		{one("PAY.KR"), "ORDER.EVENT", "names topic PAY.KR, not ORDER.EVENT (write 2@5, or ORDER.EVENT:2@5)"},
	} {
		err := c.p.CheckTarget(c.target, match)
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("%s on %s: %v", c.p, c.target, err)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("%s on %s: error %v, want %q", c.p, c.target, err, c.wantErr)
		}
	}
	if p := one("ORDER.KR"); !p.Applies("ORDER.KR", 2) || p.Applies("ORDER.US", 2) || p.Applies("ORDER.KR", 1) {
		t.Error("ORDER.KR:2@5 applies to the wrong partitions")
	}
	if p := one(""); !p.Applies("ORDER.KR", 2) || !p.Applies("ORDER.US", 2) || p.Applies("ORDER.KR", 1) {
		t.Error("2@5 applies to the wrong partitions")
	}
	if !all.Applies("X", 7) {
		t.Error("an offset in every partition does not apply to X/7")
	}
}
