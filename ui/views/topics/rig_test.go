package topics_test

import (
	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
	"ilinkdash/ui/views/topics"
)

// The view under test, made the way viewtest.New wants it.

func topicsView(ctx *common.Context, s *fakes.Source) common.View { return topics.New(ctx, s) }
