package tab

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"ilinkdash/ilink/topicrules"
	"ilinkdash/ui/common"
)

// TopicSpec is what a create-topic dialog asks for: the topics tab's, and
// the publish tab's offer to create the topic a run found missing. Zero
// Replicas and a nil RetentionMs mean "the cluster's default"; retention
// topicrules.Forever (0) keeps records forever and RetentionBytes 0 is
// unlimited, the values the config edit, the CLI and the engine use.
type TopicSpec struct {
	Name           string
	Partitions     int
	Replicas       int
	RetentionMs    *int64 // nil = the cluster's default; 0 = keep forever
	RetentionBytes int64  // per partition; 0 = unlimited
}

// Props is the ALTER/CREATE TOPIC property text the spec sends: what the
// review shows is what is sent.
func (s TopicSpec) Props() string {
	var props []string
	if s.Partitions > 0 {
		props = append(props, "partitions="+strconv.Itoa(s.Partitions))
	}
	if s.Replicas > 0 {
		props = append(props, "replicas="+strconv.Itoa(s.Replicas))
	}
	if s.RetentionMs != nil {
		props = append(props, "retention.ms="+strconv.FormatInt(*s.RetentionMs, 10))
	}
	if s.RetentionBytes > 0 {
		props = append(props, "retention.bytes="+strconv.FormatInt(s.RetentionBytes, 10))
	}
	return strings.Join(props, ",")
}

// Check refuses, with the engine's own rules (ilink/topicrules) and
// before any review, what the engine would refuse; the error names the
// dialog's field. nodes is the cluster's node count from the poll (0:
// not known yet, the engine decides).
func (s TopicSpec) Check(nodes int) error {
	if err := topicrules.CheckName(s.Name, false); err != nil {
		return topicrules.InField(err, "Name")
	}
	if err := topicrules.CheckPartitions(int64(s.Partitions)); err != nil {
		return topicrules.InField(err, "Partitions")
	}
	if s.Replicas != 0 {
		if err := topicrules.CheckReplicas(int64(s.Replicas), nodes); err != nil {
			return topicrules.InField(err, "Replicas")
		}
	}
	if s.RetentionMs != nil {
		if err := topicrules.CheckRetentionMs(*s.RetentionMs); err != nil {
			return topicrules.InField(err, "Retention")
		}
	}
	if err := topicrules.CheckRetentionBytes(s.RetentionBytes); err != nil {
		return topicrules.InField(err, "Retention bytes")
	}
	return nil
}

// ParseOptInt reads an optional integer field: blank = nil.
func ParseOptInt(label, s string, lo, hi int) (*int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < lo || v > hi {
		return nil, fmt.Errorf("%s must be a whole number from %d to %d", label, lo, hi)
	}
	return &v, nil
}

// ParseSize reads a create dialog's partitions (required) and replicas
// (blank: the cluster's default) into s, and checks them against nodes
// (the cluster's node count; 0 = not known); the error names the field.
func (s *TopicSpec) ParseSize(partitions, replicas string, nodes int) error {
	p, err := strconv.ParseInt(strings.TrimSpace(partitions), 10, 32)
	if err != nil {
		return &topicrules.Error{Field: "Partitions", Msg: fmt.Sprintf("%q is not a whole number (1..%d)", strings.TrimSpace(partitions), topicrules.MaxPartitions)}
	}
	if err := topicrules.CheckPartitions(p); err != nil {
		return topicrules.InField(err, "Partitions")
	}
	s.Partitions = int(p)
	s.Replicas = 0
	if r := strings.TrimSpace(replicas); r != "" {
		n, err := strconv.ParseInt(r, 10, 32)
		if err != nil {
			return &topicrules.Error{Field: "Replicas", Msg: fmt.Sprintf("%q is not a whole number (blank: the cluster's default)", r)}
		}
		if err := topicrules.CheckReplicas(n, nodes); err != nil {
			return topicrules.InField(err, "Replicas")
		}
		s.Replicas = int(n)
	}
	return nil
}

// Review is a create dialog's review line: what enter again sends, in
// words and as the property text.
func (s TopicSpec) Review() string {
	parts := []string{common.Plural(s.Partitions, "partition")}
	if s.Replicas > 0 {
		parts = append(parts, common.Plural(s.Replicas, "replica"))
	} else {
		parts = append(parts, "replicas: cluster default")
	}
	switch {
	case s.RetentionMs == nil:
		parts = append(parts, "retention: cluster default")
	case *s.RetentionMs == topicrules.Forever:
		parts = append(parts, "kept forever")
	default:
		parts = append(parts, "retention "+common.Dur(time.Duration(*s.RetentionMs)*time.Millisecond))
	}
	if s.RetentionBytes > 0 {
		parts = append(parts, common.Bytes(s.RetentionBytes)+" per partition")
	}
	return "Create " + s.Name + ": " + strings.Join(parts, " · ") + ". Enter creates it; editing a field goes back. Sends " + s.Props() + "."
}
