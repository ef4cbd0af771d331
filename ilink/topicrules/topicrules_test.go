package topicrules

import (
	"strings"
	"testing"
)

func TestCheckNameCharsetLengthPrefix(t *testing.T) {
	for _, ok := range []string{"ORDER.EVENT", "a", "A-b_c.9", strings.Repeat("x", MaxNameLen)} {
		if err := CheckName(ok, false); err != nil {
			t.Errorf("CheckName(%q) = %v", ok, err)
		}
	}
	if err := CheckName("SYSTEM.GROUPS", true); err != nil {
		t.Errorf("internal SYSTEM.GROUPS refused: %v", err)
	}
	for in, want := range map[string]string{
		"":                             "name: empty",
		"主题.测试":                        `name: '主' at 0 is not allowed (only A-Z a-z 0-9 . _ -)`,
		"A B":                          `name: ' ' at 1 is not allowed`,
		"a\xffb":                       "name: byte 0xff at 1 is not allowed",
		strings.Repeat("x", 300):       "name: 300 characters; at most 249",
		strings.Repeat("x", 250):       "name: 250 characters; at most 249",
		"SYSTEM.MINE":                  "name: the SYSTEM. prefix is reserved",
		"ORDER,EVENT":                  `name: ',' at 5`,
		strings.Repeat("主", 100) + "x": "name: '主' at 0",
	} {
		err := CheckName(in, false)
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("CheckName(%.20q) = %v, want %q…", in, err, want)
		}
	}
}

func TestReplicasAgainstNodes(t *testing.T) {
	if err := CheckReplicas(3, 3); err != nil {
		t.Fatal(err)
	}
	if err := CheckReplicas(9, 0); err != nil { // nodes unknown: the engine decides
		t.Fatal(err)
	}
	err := InField(CheckReplicas(5, 3), "Replicas")
	if err == nil || err.Error() != "Replicas: 5 but the cluster has 3 nodes" {
		t.Fatalf("got %v", err)
	}
	if err := CheckReplicas(0, 3); err == nil || !strings.HasPrefix(err.Error(), "replicas: 0") {
		t.Fatalf("replicas 0: %v", err)
	}
	if err := CheckMinSync(3, 2); err == nil || err.Error() != "minSync: 3 out of range 1..2 (the topic's replicas)" {
		t.Fatalf("minSync: %v", err)
	}
	if err := CheckPartitions(1025); err == nil || err.Error() != "partitions: 1025 out of range 1..1024" {
		t.Fatalf("partitions: %v", err)
	}
}

func TestParseRetentionBoundAndForever(t *testing.T) {
	checkParse(t, "ParseRetention", ParseRetention, map[string]int64{
		"7d": 7 * 86_400_000, "36h": 36 * 3_600_000, "1w2d": 9 * 86_400_000, "90s": 90_000,
		"forever": Forever, "FOREVER": Forever, "0": Forever, "∞": Forever, "none": Forever,
		"604800000": 604_800_000, "36500d": MaxRetentionMs, "500ms": 500,
	}, map[string]string{
		"99999999d":            "retention.ms: 99999999d is more than 36500d",
		"99999999d99999999d1h": "is more than 36500d",
		"36501d":               "is more than 36500d",
		"99999999999999999999": "is more than",
		"3155760000001":        "is more than",
		"7x":                   `retention.ms: "7x": want a duration`,
		"":                     "retention.ms: empty",
		"-5m":                  "want a duration",
	})
}

// One unit rule: 10k is 10,240 bytes and 1m is 2^20 wherever a size is
// read; the decimal spellings are refused, not read another way.
func TestParseSizeOneBinaryRule(t *testing.T) {
	checkParse(t, "ParseSize", ParseSize, map[string]int64{
		"10k": 10_240, "10K": 10_240, "10KiB": 10_240, "10 kib": 10_240,
		"1m": 1 << 20, "1MiB": 1 << 20, "1g": 1 << 30, "1GiB": 1 << 30, "2t": 2 << 40,
		"1024": 1024, "1024B": 1024, "0": 0,
	}, map[string]string{
		"1GB":                 "GB is ambiguous; sizes are binary, write 1GiB or 1g",
		"500MB":               "MB is ambiguous",
		"1.5g":                "unknown unit",
		"10x":                 "unknown unit",
		"":                    "want bytes",
		"-1k":                 "want bytes",
		"2000PB":              "want bytes",
		"9999999999999999999": "more than 1 EiB",
		"2000000000g":         "more than",
	})
	checkReadsBack(t, "FormatSize", FormatSize, ParseSize, []int64{0, 1, 1536, 10_240, 1 << 20, 3 << 30, 5 << 40, MaxSize})
}

func TestParseRetentionBytes(t *testing.T) {
	if n, err := ParseRetentionBytes("unlimited"); err != nil || n != Forever {
		t.Fatalf("unlimited: %d %v", n, err)
	}
	if n, err := ParseRetentionBytes("1g"); err != nil || n != 1<<30 {
		t.Fatalf("1g: %d %v", n, err)
	}
	if _, err := ParseRetentionBytes("1GB"); err == nil || !strings.HasPrefix(err.Error(), "retention.bytes: ") {
		t.Fatalf("1GB: %v", err)
	}
}

func TestFormatRetentionReadsBack(t *testing.T) {
	checkReadsBack(t, "FormatRetention", FormatRetention, ParseRetention, []int64{Forever, 500, 90_000, 3_600_000, 7 * 86_400_000, 14 * 86_400_000, MaxRetentionMs})
}

// checkParse checks that parse (named name) reads each good input as its
// value and refuses each bad one with an error containing the text given.
func checkParse(t *testing.T, name string, parse func(string) (int64, error), good map[string]int64, bad map[string]string) {
	t.Helper()
	for in, want := range good {
		got, err := parse(in)
		if err != nil || got != want {
			t.Errorf("%s(%q) = %d, %v; want %d", name, in, got, err, want)
		}
	}
	for in, want := range bad {
		_, err := parse(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s(%q) = %v, want …%q…", name, in, err, want)
		}
	}
}

// checkReadsBack checks that parse reads what format (named name) writes
// for each value back to that value.
func checkReadsBack(t *testing.T, name string, format func(int64) string, parse func(string) (int64, error), values []int64) {
	t.Helper()
	for _, v := range values {
		s := format(v)
		back, err := parse(s)
		if err != nil || back != v {
			t.Errorf("%s(%d) = %q, read back %d, %v", name, v, s, back, err)
		}
	}
}
