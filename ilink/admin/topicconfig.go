package admin

import (
	"fmt"
	"strconv"
	"strings"

	"ilinkdash/ilink/topicrules"
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

// FormatTopicValue renders a value of key for people, in the form the
// inputs accept (the one form: FormatTopicInput): retention "7d", bytes
// "32MiB", 0 as forever / unlimited.
func FormatTopicValue(key string, v int64) string { return FormatTopicInput(key, v) }

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

// parseTopicValue reads a value with the one rule of every form and the
// engine (ilink/topicrules): retention.ms a duration (7d, 12h, 1w2d), a
// bare number of milliseconds or forever (0); retention.bytes a binary
// size (512MiB, 512m, 10k = 10,240) or unlimited (0); partitions and
// minSync whole numbers. The error names the key.
func parseTopicValue(key, v string) (int64, error) {
	switch key {
	case "retention.ms":
		return topicrules.ParseRetention(v)
	case "retention.bytes":
		return topicrules.ParseRetentionBytes(v)
	}
	s := strings.TrimSpace(v)
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, &topicrules.Error{Field: key, Msg: fmt.Sprintf("%q: want a whole number", s)}
	}
	if key == "partitions" {
		return n, topicrules.CheckPartitions(n)
	}
	return n, nil
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
	if m, ok := given["minSync"]; ok {
		if err := topicrules.CheckMinSync(m, int64(cur.Replicas)); err != nil {
			return "", nil, err
		}
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
		return topicrules.FormatRetention(v)
	case "retention.bytes":
		if v == topicrules.Forever {
			return "unlimited"
		}
		return topicrules.FormatSize(v)
	}
	return strconv.FormatInt(v, 10)
}
