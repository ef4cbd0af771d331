package topics_test

import (
	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
	"ilinkdash/ui/internal/viewtest"
	"ilinkdash/ui/views/topics"
)

// The view under test, made the way viewtest.New wants it.

func topicsView(ctx *common.Context, s *fakes.Source) common.View { return topics.New(ctx, s) }

// took returns and forgets the messages of type T the view emitted.
func took[T any](r *viewtest.Rig) []T { return viewtest.Took[T](r) }
