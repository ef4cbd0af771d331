package engine

import (
	"ilinkdash/ilink/topicrules"
	"ilinkdash/ilink/wire"
)

// ALTER TOPIC.
//
// A topic's alterable state is its layout (topicLayout, topics.go): the
// properties and the partition list, one immutable value behind an atomic
// pointer. AlterTopic builds the new layout under topicStore.mu, which
// serialises it with CreateTopic, DeleteTopic, FLUSH, epoch bumps, node
// loss and return and elections (so the running set, the topic epoch and
// the partition list it builds from cannot move under it), and publishes
// it with one atomic store. The hot paths never take topicStore.mu: they
// load the layout once and read it without a lock.
//
// What changes, and when:
//   - retention.ms, retention.bytes: at the next retention sweep (and the
//     byte bound also after the next append on each replica).
//   - minSync (1..replicas): at the next acks=all check. Waiters are woken so
//     a pending acks=all re-checks against the new value at once.
//   - partitions: may only grow. New partitions are placed like CreateTopic
//     places them (partition i on the nodes (i+k) mod N, led by its first
//     running replica), empty, at the topic's current epoch. METADATA reports
//     the new count at once; producers that already learned the count keep
//     using the old one (spec P-20). A new topic snapshot is published, so
//     group coordinators rebalance their members onto the new partitions.
//   - replicas: fixed at creation (the replica set of a partition is its
//     placement); giving the current value is accepted and changes nothing.
//
// SYSTEM. topics are refused: their layout is the engine's (SYSTEM.GROUPS
// shards the coordinators by partition).

// AlterTopic changes a topic's properties, with the key=value text of
// CreateTopic: "retention.ms=...,retention.bytes=...,minSync=...,
// partitions=N". It is all or nothing: any refusal leaves the topic as it
// was. Errors are *Error: MIMQE_UNKNOWN_TOPIC for an unknown topic,
// MIMQE_INVALID_ARGUMENT for a SYSTEM. topic, a bad or missing property, a
// partition count that does not grow ("partitions can only grow: 3 -> 2"),
// a minSync outside 1..replicas or a different replicas.
func (e *Engine) AlterTopic(name, props string) error {
	return e.topics.alter(name, props)
}

func (ts *topicStore) alter(name, props string) error {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.closed {
		return errClosed
	}
	t := ts.byName[name]
	if t == nil {
		return errUnknownTopic(name)
	}
	if t.internal {
		return errorf(wire.ErrInvalidArgument, "topic %s is internal: its layout is fixed", name)
	}
	old := t.layout()
	cfg, err := parseAlterProps(name, props, old.cfg)
	if err != nil {
		return err
	}
	if cfg == old.cfg {
		return nil
	}
	parts := old.parts
	grown := cfg.partitions > len(old.parts)
	if grown {
		parts = make([]*partition, len(old.parts), cfg.partitions)
		copy(parts, old.parts) // the old partitions keep their index
		// New partitions start at the topic's epoch; they inherit the
		// latest FLUSH epoch too, so a producer at an older epoch gets the
		// same refusal from every partition. Both are written under
		// topicStore.mu (bumpEpoch), which we hold.
		epoch := t.epoch.Load()
		p0 := old.parts[0]
		p0.mu.Lock()
		flushEpoch := p0.flushEpoch
		p0.mu.Unlock()
		running := ts.runningMask()
		now := ts.mono()
		for i := len(old.parts); i < cfg.partitions; i++ {
			p := ts.newPartitionLocked(t, i, cfg.replicas, epoch, running, now)
			p.flushEpoch = flushEpoch
			parts = append(parts, p)
		}
	}
	t.lay.Store(&topicLayout{cfg: cfg, parts: parts})
	if grown {
		// Same topic set, new snapshot: group coordinators compare
		// snapshots to notice that their assignment is stale.
		ts.snap.Store(&topicSnap{list: ts.snap.Load().list})
	}
	if cfg.minSync != old.cfg.minSync {
		// Pending acks=all produces re-check against the new minSync (a
		// lower one may settle them now); fetch waiters re-check and wait
		// again. The store above happens before these unlocks, so every
		// re-check sees the new layout.
		for _, p := range old.parts {
			p.mu.Lock()
			p.notifyLocked()
			p.mu.Unlock()
		}
	}
	ts.e.logf("engine: topic %s altered (%s -> %s)", name, old.cfg, cfg)
	return nil
}

// parseAlterProps applies props to cur, the topic's current properties.
func parseAlterProps(name, props string, cur topicConfig) (topicConfig, error) {
	cfg := cur
	given := 0
	err := eachTopicProp(props, &cfg, func(key, k string, n int64) error {
		given++
		switch key {
		case "partitions":
			if int(n) < cur.partitions {
				return errorf(wire.ErrInvalidArgument, "partitions can only grow: %d -> %d", cur.partitions, n)
			}
			cfg.partitions = int(n)
		case "replicas":
			if int(n) != cur.replicas {
				return errorf(wire.ErrInvalidArgument, "replicas cannot be altered: %s has replicas=%d (fixed at creation)", name, cur.replicas)
			}
		case "minsync":
			if err := topicrules.CheckMinSync(n, int64(cur.replicas)); err != nil {
				return invalid(err)
			}
			cfg.minSync = int(n)
		}
		return nil
	})
	if err != nil {
		return cur, err
	}
	if given == 0 {
		return cur, errorf(wire.ErrInvalidArgument, "no topic property to alter (alterable: partitions, minSync, retention.ms, retention.bytes)")
	}
	return cfg, nil
}
