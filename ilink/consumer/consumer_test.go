package consumer

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"ilinkdash/ilink"
	"ilinkdash/ilink/position"
	"ilinkdash/ilink/wire"
)

func TestMatchPattern(t *testing.T) {
	t.Parallel()
	cases := []struct {
		pattern, topic string
		want           bool
		spec           string
	}{
		// spec: T-13 — '*' also matches the separator '.'.
		{"ORDER.*", "ORDER.KR", true, "T-13"},
		{"ORDER.*", "ORDER.KR.SUB", true, "T-13"},
		{"*.EVENT", "ORDER.KR.EVENT", true, "T-13"},
		{"ORDER*", "ORDER.KR", true, "T-13"},
		// spec: T-14 — '.' is literal.
		{"ORDER.*", "ORDERING", false, "T-14"},
		{"ORDER.*", "ORDERXKR", false, "T-14"},
		{"A.B", "AXB", false, "T-14"},
		{"ORDER.*", "ORDER.", true, "T-14"},
		// spec: T-15 — '*' alone matches no SYSTEM. topic.
		{"*", "SYSTEM.GROUPS", false, "T-15"},
		{"*GROUPS", "SYSTEM.GROUPS", false, "T-15"},
		{"S*", "SYSTEM.GROUPS", false, "T-15"},
		{"*", "ORDER.EVENT", true, "T-15"},
		// spec: T-16 — a pattern starting with SYSTEM. matches SYSTEM. topics.
		{"SYSTEM.*", "SYSTEM.GROUPS", true, "T-16"},
		{"SYSTEM.G*", "SYSTEM.GROUPS", true, "T-16"},
		{"SYSTEM.*", "ORDER.EVENT", false, "T-16"},
		// glob, not regex
		{"ORDER.?R", "ORDER.KR", true, "glob"},
		{"ORDER.[K]R", "ORDER.KR", false, "glob"},
		{"ORDER.K+", "ORDER.KK", false, "glob"},
		{"", "", true, "glob"},
		{"*", "", true, "glob"},
		{"a*b*c", "axxbyyc", true, "glob"},
		{"a*b*c", "axxbyy", false, "glob"},
	}
	for _, tc := range cases {
		if got := MatchPattern(tc.pattern, tc.topic); got != tc.want {
			t.Errorf("%s: MatchPattern(%q, %q) = %v, want %v", tc.spec, tc.pattern, tc.topic, got, tc.want)
		}
	}
	if !IsPattern("ORDER.*") || IsPattern("ORDER.EVENT") {
		t.Error("IsPattern")
	}
}

func TestOptionsDefaults(t *testing.T) {
	t.Parallel()
	o, err := Options{}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	// spec: C-06 — auto-commit every 5 s by default.
	if o.AutoCommitInterval != 5*time.Second || NewOptions().AutoCommitInterval != 5*time.Second {
		t.Errorf("AutoCommitInterval default %v", o.AutoCommitInterval)
	}
	// spec: C-20 — Expiry 0 means 5 minutes; other values as given.
	if o.Expiry != 5*time.Minute {
		t.Errorf("Expiry default %v", o.Expiry)
	}
	o2, _ := Options{Expiry: 600000 * time.Millisecond}.withDefaults()
	if o2.Expiry != 10*time.Minute {
		t.Errorf("Expiry 600000ms became %v", o2.Expiry)
	}
	// spec: C-33, C-34 — the coordinator retry schedule's real defaults.
	if CoordinatorBackoffMin != 100*time.Millisecond || CoordinatorBackoffMax != time.Second || CoordinatorBudget != 10*time.Second || o.coordBudget != 10*time.Second {
		t.Error("coordinator retry defaults changed")
	}
	if !NewOptions().Durable || o.MaxBufferedBytes != 64<<20 || o.PatternRefresh != 10*time.Second {
		t.Error("defaults")
	}
	for _, bad := range []Options{
		{Start: StartTime},
		{Start: StartOffset, StartOffset: -1},
		{Commit: 7},
		{Expiry: -1},
		{Prefetch: -1},
		{ClientName: strings.Repeat("c", wire.MaxHelloString+1)}, // the engine would refuse its HELLO
	} {
		if _, err := bad.withDefaults(); !ilink.IsConfigError(err) {
			t.Errorf("%+v: %v, want a config error", bad, err)
		}
	}
}

func TestAssignReadsOnlyListedPartitions(t *testing.T) {
	t.Parallel()
	fc := engineWithT(t, 3, 3, 10)
	c := mustAssign(t, fc.addr(), "T", []int32{1}, testOptions(t, ""))
	recs := readN(t, c, 10, 5*time.Second)
	for i, r := range recs {
		// spec: C-55 — only the listed partition is read.
		if r.Partition != 1 || r.Offset != int64(i) || r.Topic != "T" {
			t.Fatalf("record %d: %s/%d@%d", i, r.Topic, r.Partition, r.Offset)
		}
		// spec: C-52 — offset, key, data and topic of each record.
		if string(r.Value) != fmt.Sprintf("T/1/%d", i) || string(r.Key) != string(keyFor(int64(i), 1, 3)) || len(r.Headers) != 1 {
			t.Fatalf("record %d: key %q value %q headers %v", i, r.Key, r.Value, r.Headers)
		}
	}
	if _, err := c.Read(context.Background(), 200*time.Millisecond); !ilink.IsNoMessage(err) {
		t.Fatalf("extra read: %v", err)
	}
	if got := c.Assignment(); len(got) != 1 || !slices.Equal(got[0].Partitions, []int32{1}) {
		t.Fatalf("Assignment %v", got)
	}
}

// StartFrom maps each position form onto its start mode and refuses a
// kind it does not know, leaving the options as they were.
func TestStartFromPositions(t *testing.T) {
	at := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		p    position.Position
		want StartMode
	}{
		{position.Position{Kind: position.Earliest, Partition: -1}, StartEarliest},
		{position.Position{Kind: position.Latest, Partition: -1}, StartLatest},
		{position.Position{Kind: position.Offset, Offset: 42, Partition: -1}, StartOffset},
		{position.Position{Kind: position.Time, Time: at, Partition: -1}, StartTime},
	} {
		o := NewOptions()
		if err := o.StartFrom(c.p); err != nil || o.Start != c.want {
			t.Errorf("%v: start %v (%v), want %v", c.p, o.Start, err, c.want)
		}
		if c.want == StartOffset && o.StartOffset != 42 || c.want == StartTime && !o.StartTime.Equal(at) {
			t.Errorf("%v: offset %d, time %v", c.p, o.StartOffset, o.StartTime)
		}
	}
	o := NewOptions()
	before := o.Start
	if err := o.StartFrom(position.Position{Kind: position.Time + 1}); err == nil || o.Start != before {
		t.Errorf("an unknown kind: %v, start %v (was %v)", err, o.Start, before)
	}
}
