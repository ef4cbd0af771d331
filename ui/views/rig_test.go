package views_test

import (
	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
	"ilinkdash/ui/internal/viewtest"
	"ilinkdash/ui/views"
)

// The views under test, made the way viewtest.New wants them.

func topicsView(ctx *common.Context, s *fakes.Source) common.View { return views.NewTopics(ctx, s) }
func groupsView(ctx *common.Context, s *fakes.Source) common.View {
	return views.NewGroups(ctx, s, nil)
}
func clusterView(ctx *common.Context, s *fakes.Source) common.View { return views.NewCluster(ctx, s) }
func queuesView(ctx *common.Context, s *fakes.Source) common.View  { return views.NewQueues(ctx, s) }
func overviewView(ctx *common.Context, _ *fakes.Source) common.View {
	return views.NewOverview(ctx, nil)
}

// took returns and forgets the messages of type T the view emitted.
func took[T any](r *viewtest.Rig) []T { return viewtest.Took[T](r) }
