package queues_test

import (
	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
	"ilinkdash/ui/views/queues"
)

// The view under test, made the way viewtest.New wants it.

func queuesView(ctx *common.Context, s *fakes.Source) common.View { return queues.New(ctx, s) }
