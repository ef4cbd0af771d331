package tab

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"ilinkdash/ui/common"
)

// TopicSpec is what a create-topic dialog asks for: the topics tab's, and
// the publish tab's offer to create the topic a run found missing. Zero
// Replicas and RetentionMs (and RetentionBytes) mean "the cluster's
// default".
type TopicSpec struct {
	Name           string
	Partitions     int
	Replicas       int
	RetentionMs    int64 // -1 = keep forever
	RetentionBytes int64
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
// (blank: the cluster's default) into s; the error is the dialog's text.
func (s *TopicSpec) ParseSize(partitions, replicas string) error {
	p, err := ParseOptInt("partitions", partitions, 1, 100000)
	if err != nil || p == nil {
		return fmt.Errorf("partitions must be a whole number from 1 to 100000")
	}
	s.Partitions = *p
	r, err := ParseOptInt("replicas", replicas, 1, 64)
	if err != nil {
		return err
	}
	if r != nil {
		s.Replicas = *r
	}
	return nil
}

// Review is a create dialog's review line: what enter again sends.
func (s TopicSpec) Review() string {
	parts := []string{common.Plural(s.Partitions, "partition")}
	if s.Replicas > 0 {
		parts = append(parts, common.Plural(s.Replicas, "replica"))
	} else {
		parts = append(parts, "replicas: cluster default")
	}
	switch {
	case s.RetentionMs < 0:
		parts = append(parts, "kept forever")
	case s.RetentionMs > 0:
		parts = append(parts, "retention "+common.Dur(time.Duration(s.RetentionMs)*time.Millisecond))
	default:
		parts = append(parts, "retention: cluster default")
	}
	if s.RetentionBytes > 0 {
		parts = append(parts, common.Bytes(s.RetentionBytes)+" per partition")
	}
	return "Create " + s.Name + ": " + strings.Join(parts, " · ") + ". Enter creates it; editing a field goes back."
}
