package components

import "ilinkdash/ui/common"

// Lift makes a column of the rows of a list (T, say admin.TopicInfo)
// a column of a view's own row type R that carries one: the list's
// declared columns (tab.List) are written once, over the list's type, and
// every view that shows the list takes them through get.
func Lift[R, T any](c Column[T], get func(R) T) Column[R] {
	out := Column[R]{
		Title: c.Title, Width: c.Width, Min: c.Min, Flex: c.Flex, Max: c.Max, Right: c.Right,
		Drop: c.Drop, NoFilter: c.NoFilter, SortKey: c.SortKey,
	}
	if text := c.Text; text != nil {
		out.Text = func(r R) string { return text(get(r)) }
	}
	if cmp := c.Cmp; cmp != nil {
		out.Cmp = func(a, b R) int { return cmp(get(a), get(b)) }
	}
	if paint := c.Paint; paint != nil {
		out.Paint = func(r R, st *common.Styles) common.Style { return paint(get(r), st) }
	}
	return out
}
