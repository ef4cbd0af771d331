package groups_test

import (
	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
	"ilinkdash/ui/views/groups"
)

// The view under test, made the way viewtest.New wants it.

func groupsView(ctx *common.Context, s *fakes.Source) common.View {
	return groups.New(ctx, s, nil)
}
