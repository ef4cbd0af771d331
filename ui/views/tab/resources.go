package tab

import (
	"context"

	"ilinkdash/ui/common"
)

// Fetchers is the source call of each polled resource, indexed by
// common.ResID: the one declaration of what each polled list is read
// from, which the dashboard's poller, serve's shared one and the view
// tests' rig (viewtest.Rig.Poll) all take.
func Fetchers(src Sources) [common.NumRes]func(context.Context) (any, error) {
	return [common.NumRes]func(context.Context) (any, error){
		common.ResSummary:     func(c context.Context) (any, error) { return src.ClusterSummary(c) },
		common.ResStats:       func(c context.Context) (any, error) { return src.StatSeries(c, "") },
		common.ResTopics:      func(c context.Context) (any, error) { return src.ListTopics(c) },
		common.ResGroups:      func(c context.Context) (any, error) { return src.ListGroups(c) },
		common.ResQueues:      func(c context.Context) (any, error) { return src.ListQueues(c) },
		common.ResCluster:     func(c context.Context) (any, error) { return src.ClusterProperty(c) },
		common.ResReplication: func(c context.Context) (any, error) { return src.ReplicationStatus(c) },
		common.ResLeaders:     func(c context.Context) (any, error) { return src.ClusterLeadTable(c) },
	}
}
