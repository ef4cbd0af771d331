// Package consumer is iLink's consumer v2 (ilink-spec §3.6): a client that
// reads partitioned topics as a member of a consumer group (the
// subscription name is the group name) or from fixed partitions.
//
// The client holds the positions. Join, heartbeat and commit go to the
// group's coordinator, found with FIND COORDINATOR and found again, after
// waits of 100 ms doubling to 1 s for at most 10 s, when it moves or loads
// (NOT_COORDINATOR 4175, LOADING 4176). Fetches go to partition leaders:
// one fetch loop ("source") per leader node owns the cursors of the
// partitions that node leads and fetches ahead of the application, bounded
// per partition (Prefetch) and in bytes (MaxBufferedBytes). Batches are
// decoded into one slab of records per partition and fetch, so reading a
// record allocates nothing.
//
// Hidden from the application: coordinator moves and loading, partition
// leader moves (FOLLOWER_NODE, dead connections), out-of-range offsets and
// rebalances (4161) / generation mismatches (4178), which surface only on a
// manual commit as MIMQE_TOPIC_REBALANCED.
//
// Pattern subscriptions ("ORDER.*") use MatchPattern, are re-resolved every
// PatternRefresh and on RefreshNow, and leave topics that stop matching
// with MIMQ_TOPIC_LEAVE (3401), best-effort.
package consumer
