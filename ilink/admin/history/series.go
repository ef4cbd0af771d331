package history

import (
	"strings"
	"time"

	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/admin/health"
)

// Kind is what a series measures.
type Kind uint8

// The kinds of series.
const (
	KindGroupLag   Kind = 1 + iota // a group's lag, records (health.GroupStatus.Lag)
	KindGroupRate                  // a group's commit rate, records/s (health.GroupStatus.Rate)
	KindTopicIn                    // a topic's records in per second
	KindTopicOut                   // a topic's records out per second
	KindQueueDepth                 // a queue's depth, messages
	KindClusterIn                  // the cluster's records in per second: the sum over its topics but SYSTEM.*
	KindClusterOut                 // the cluster's records out per second
	numKinds
)

// rate reports whether the kind is a rate (kept to 0.1/s, averaged
// when downsampled) rather than a count (kept exactly, its maximum taken).
func (k Kind) rate() bool {
	return k == KindGroupRate || k == KindTopicIn || k == KindTopicOut || k == KindClusterIn || k == KindClusterOut
}

// scale is what a value is multiplied by before it is stored as an
// integer.
func (k Kind) scale() float64 {
	if k.rate() {
		return 10
	}
	return 1
}

// Series names one series: a kind and the group, topic or queue it is of
// ("" for the cluster's).
type Series struct {
	Kind Kind
	Name string
}

// The series constructors.
func GroupLag(group string) Series   { return Series{KindGroupLag, group} }
func GroupRate(group string) Series  { return Series{KindGroupRate, group} }
func TopicIn(topic string) Series    { return Series{KindTopicIn, topic} }
func TopicOut(topic string) Series   { return Series{KindTopicOut, topic} }
func QueueDepth(queue string) Series { return Series{KindQueueDepth, queue} }
func ClusterIn() Series              { return Series{Kind: KindClusterIn} }
func ClusterOut() Series             { return Series{Kind: KindClusterOut} }

// key is the series' key in a chunk bucket: the kind's byte and the name.
func (s Series) key() string { return string(rune(s.Kind)) + s.Name }

// Sample is one observed value of a series.
type Sample struct {
	Series Series
	V      float64
}

// Point is one stored point: the start of its step and its value.
type Point struct {
	At time.Time
	V  float64
}

// GroupSamples are the lag and commit rate of every group whose lag or
// rate is known, as the health rules judged them (GroupSample).
func GroupSamples(dst []Sample, groups []health.GroupStatus) []Sample {
	for i := range groups {
		dst = GroupSample(dst, &groups[i])
	}
	return dst
}

// GroupSample is a group's lag and commit rate, each when known; a group
// missing from the latest list (Unlisted) has none: its status is the
// last one seen, not the group's now.
func GroupSample(dst []Sample, g *health.GroupStatus) []Sample {
	if !g.Unlisted.IsZero() {
		return dst
	}
	if g.Lag.Known() {
		dst = append(dst, Sample{GroupLag(g.Info.Name), float64(g.Lag.Records)})
	}
	if g.Rate >= 0 {
		dst = append(dst, Sample{GroupRate(g.Info.Name), g.Rate})
	}
	return dst
}

// TopicSamples are every topic's rates in and out, and the cluster's:
// their sums over the topics but the internal SYSTEM.* ones.
func TopicSamples(dst []Sample, topics []admin.TopicInfo) []Sample {
	var in, out float64
	for i := range topics {
		t := &topics[i]
		dst = append(dst, Sample{TopicIn(t.Name), t.RecordsInPerSec}, Sample{TopicOut(t.Name), t.RecordsOutPerSec})
		if !t.Internal && !strings.HasPrefix(t.Name, "SYSTEM.") {
			in += t.RecordsInPerSec
			out += t.RecordsOutPerSec
		}
	}
	return append(dst, Sample{ClusterIn(), in}, Sample{ClusterOut(), out})
}

// QueueSamples are every queue's depth.
func QueueSamples(dst []Sample, queues []admin.QueueInfo) []Sample {
	for i := range queues {
		dst = append(dst, Sample{QueueDepth(queues[i].Name), float64(queues[i].Depth)})
	}
	return dst
}
