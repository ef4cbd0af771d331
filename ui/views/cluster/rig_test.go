package cluster_test

import (
	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
	"ilinkdash/ui/views/cluster"
)

// The view under test, made the way viewtest.New wants it.

func clusterView(ctx *common.Context, s *fakes.Source) common.View { return cluster.New(ctx, s) }
