package admin

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"ilinkdash/ilink/position"
)

// Topic configuration changes: the CLI's `topic alter --set k=v` and the
// dashboard's config pane build them here, show the diff, and send the
// result with AlterTopic. The engine checks again; this side catches what
// is wrong before anything is sent and gives the operator a plan.

// AlterableTopicKeys are the keys ALTER TOPIC changes, in display order.
var AlterableTopicKeys = []string{"retention.ms", "retention.bytes", "minSync", "partitions"}

// TopicConfigChange is one property of a planned alteration.
type TopicConfigChange struct {
	Key      string // canonical key: retention.ms, retention.bytes, minSync, partitions
	Old, New int64
}

// Changed reports whether the value changes.
func (c TopicConfigChange) Changed() bool { return c.Old != c.New }

// Format renders a value of key for people: retention as a duration,
// bytes with a unit, 0 as forever / unlimited.
func FormatTopicValue(key string, v int64) string {
	switch key {
	case "retention.ms":
		if v == 0 {
			return "forever"
		}
		return strconv.FormatInt(v, 10) + " (" + shortDuration(time.Duration(v)*time.Millisecond) + ")"
	case "retention.bytes":
		if v == 0 {
			return "unlimited"
		}
		return strconv.FormatInt(v, 10) + " (" + byteSize(v) + ")"
	}
	return strconv.FormatInt(v, 10)
}

func shortDuration(d time.Duration) string {
	switch {
	case d%(7*24*time.Hour) == 0:
		return strconv.FormatInt(int64(d/(7*24*time.Hour)), 10) + "w"
	case d%(24*time.Hour) == 0:
		return strconv.FormatInt(int64(d/(24*time.Hour)), 10) + "d"
	case d%time.Hour == 0:
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	case d%time.Minute == 0:
		return strconv.FormatInt(int64(d/time.Minute), 10) + "m"
	}
	return d.String()
}

func byteSize(v int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	f, i := float64(v), 0
	for f >= 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	if f == float64(int64(f)) {
		return strconv.FormatInt(int64(f), 10) + " " + units[i]
	}
	return strconv.FormatFloat(f, 'f', 1, 64) + " " + units[i]
}

// canonicalTopicKey maps a key as typed to its canonical name.
func canonicalTopicKey(k string) (string, bool) {
	switch strings.ToLower(strings.TrimSpace(k)) {
	case "retention.ms", "retention", "retention-ms", "retentionms":
		return "retention.ms", true
	case "retention.bytes", "retention-bytes", "retentionbytes":
		return "retention.bytes", true
	case "minsync", "min-sync", "min.sync":
		return "minSync", true
	case "partitions":
		return "partitions", true
	case "replicas":
		return "replicas", true
	}
	return "", false
}

// parseTopicValue reads a value: an integer, or for retention.ms a
// duration (7d, 12h, 30m; "forever" = 0), for retention.bytes a size
// (512MiB, 1GB, 10k; "unlimited" = 0).
func parseTopicValue(key, v string) (int64, error) {
	s := strings.TrimSpace(v)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 {
			return 0, fmt.Errorf("%s=%s: must not be negative", key, v)
		}
		return n, nil
	}
	low := strings.ToLower(s)
	switch key {
	case "retention.ms":
		if low == "forever" || low == "none" {
			return 0, nil
		}
		if d, err := position.ParseDuration(low); err == nil && d > 0 {
			return d.Milliseconds(), nil
		}
		return 0, fmt.Errorf("%s=%q: want milliseconds, a duration (7d, 12h, 30m) or forever", key, v)
	case "retention.bytes":
		if low == "unlimited" || low == "none" {
			return 0, nil
		}
		if n, ok := parseSize(low); ok {
			return n, nil
		}
		return 0, fmt.Errorf("%s=%q: want bytes, a size (512MiB, 1GB, 10k) or unlimited", key, v)
	}
	return 0, fmt.Errorf("%s=%q: want a whole number", key, v)
}

func parseSize(s string) (int64, bool) {
	units := []struct {
		suffix string
		mult   int64
	}{{"tib", 1 << 40}, {"gib", 1 << 30}, {"mib", 1 << 20}, {"kib", 1 << 10},
		{"tb", 1e12}, {"gb", 1e9}, {"mb", 1e6}, {"kb", 1e3}, {"t", 1 << 40}, {"g", 1 << 30}, {"m", 1 << 20}, {"k", 1 << 10}, {"b", 1}}
	for _, u := range units {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
			if err != nil || f < 0 || f*float64(u.mult) > 1<<62 {
				return 0, false
			}
			return int64(f * float64(u.mult)), true
		}
	}
	return 0, false
}

// PlanTopicAlter reads sets ("retention.ms=7d", "partitions=6", ...)
// against the topic's current configuration and returns the ALTER TOPIC
// properties text and one change per alterable key that was given, in
// AlterableTopicKeys order. It refuses what the engine would refuse:
// unknown keys, a key given twice, shrinking partitions, minSync outside
// 1..replicas, a different replicas. A plan where nothing changes is no
// error (changes all unchanged).
func PlanTopicAlter(cur TopicInfo, sets []string) (props string, changes []TopicConfigChange, err error) {
	if len(sets) == 0 {
		return "", nil, fmt.Errorf("nothing to change: give key=value, keys %s", strings.Join(AlterableTopicKeys, ", "))
	}
	given := map[string]int64{}
	for _, kv := range sets {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return "", nil, fmt.Errorf("%q: want key=value (keys %s)", kv, strings.Join(AlterableTopicKeys, ", "))
		}
		key, known := canonicalTopicKey(k)
		if !known {
			return "", nil, fmt.Errorf("unknown topic property %q (alterable: %s; replicas is fixed at creation)", strings.TrimSpace(k), strings.Join(AlterableTopicKeys, ", "))
		}
		if _, dup := given[key]; dup {
			return "", nil, fmt.Errorf("%s given twice", key)
		}
		n, err := parseTopicValue(key, v)
		if err != nil {
			return "", nil, err
		}
		given[key] = n
	}
	if r, ok := given["replicas"]; ok && int(r) != cur.Replicas {
		return "", nil, fmt.Errorf("replicas cannot be altered: %s has replicas=%d (fixed at creation)", cur.Name, cur.Replicas)
	}
	if p, ok := given["partitions"]; ok && int(p) < cur.Partitions {
		return "", nil, fmt.Errorf("partitions can only grow: %d -> %d", cur.Partitions, p)
	}
	if m, ok := given["minSync"]; ok && (m < 1 || int(m) > cur.Replicas) {
		return "", nil, fmt.Errorf("minSync %d out of range 1..%d (replicas of %s)", m, cur.Replicas, cur.Name)
	}
	old := map[string]int64{"retention.ms": cur.RetentionMs, "retention.bytes": cur.RetentionBytes,
		"minSync": int64(cur.MinSync), "partitions": int64(cur.Partitions)}
	var kvs []string
	for _, key := range AlterableTopicKeys {
		n, ok := given[key]
		if !ok {
			continue
		}
		changes = append(changes, TopicConfigChange{Key: key, Old: old[key], New: n})
		kvs = append(kvs, key+"="+strconv.FormatInt(n, 10))
	}
	if len(kvs) == 0 { // only replicas=<same>
		kvs = []string{"replicas=" + strconv.Itoa(cur.Replicas)}
	}
	return strings.Join(kvs, ","), changes, nil
}

// FormatTopicInput renders a value as an operator would type it back:
// retention as 7d / 12h / forever, bytes as 512MiB / unlimited, the rest
// as numbers. PlanTopicAlter reads every form it writes.
func FormatTopicInput(key string, v int64) string {
	switch key {
	case "retention.ms":
		if v == 0 {
			return "forever"
		}
		if v%60_000 == 0 {
			return shortDuration(time.Duration(v) * time.Millisecond)
		}
	case "retention.bytes":
		if v == 0 {
			return "unlimited"
		}
		for _, u := range []struct {
			s string
			m int64
		}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
			if v%u.m == 0 {
				return strconv.FormatInt(v/u.m, 10) + u.s
			}
		}
	}
	return strconv.FormatInt(v, 10)
}
