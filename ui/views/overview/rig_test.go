package overview_test

import (
	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
	"ilinkdash/ui/views/overview"
)

// The view under test, made the way viewtest.New wants it.

func overviewView(ctx *common.Context, _ *fakes.Source) common.View {
	return overview.New(ctx, nil)
}
