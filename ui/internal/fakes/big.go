package fakes

import (
	"fmt"

	"ilinkdash/ilink/admin"
)

// Big returns n topics and m groups shaped like a large production
// cluster (benchmarks and load tests of the views).
func Big(n, m int) ([]admin.TopicInfo, []admin.GroupInfo) {
	topics := make([]admin.TopicInfo, n)
	for i := range topics {
		topics[i] = admin.TopicInfo{
			Name:             fmt.Sprintf("domain%02d.service%03d.events.v%d", i%37, i%997, i%3+1),
			Partitions:       1 + i%24,
			Replicas:         3,
			MinSync:          2,
			RetentionMs:      int64(1+i%14) * 86_400_000,
			UnderReplicated:  boolInt(i%211 == 0),
			EndOffsetSum:     int64(i) * 7919,
			RecordsInPerSec:  float64(i%500) * 1.5,
			RecordsOutPerSec: float64(i%450) * 1.4,
		}
		topics[i].Name = fmt.Sprintf("%s.%05d", topics[i].Name, i)
	}
	groups := make([]admin.GroupInfo, m)
	states := []admin.GroupState{admin.GroupStable, admin.GroupStable, admin.GroupStable, admin.GroupEmpty, admin.GroupPreparingRebalance}
	for i := range groups {
		groups[i] = admin.GroupInfo{
			Name:    fmt.Sprintf("consumer-%04d-of-service%03d", i, i%997),
			State:   states[i%len(states)],
			Members: i % 7,
			Topics:  []string{topics[i%n].Name, topics[(i*7)%n].Name},
			Durable: true,
		}
		// Two partitions per topic: one committed, one without a commit on
		// every fifth group; the lag is i%97 × 113 in all.
		lag := int64(i%97) * 113
		for j, tn := range groups[i].Topics {
			c, part := int64(1000), lag/2
			if i%5 == 0 {
				c = -1
			}
			if j == 1 {
				part = lag - lag/2
			}
			groups[i].Partitions = append(groups[i].Partitions,
				admin.PartitionOffsets{Topic: tn, Partition: 0, Committed: 1000, LogStart: 0, End: 1000 + part},
				admin.PartitionOffsets{Topic: tn, Partition: 1, Committed: c, LogStart: 1000, End: 1000})
		}
	}
	return topics, groups
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
