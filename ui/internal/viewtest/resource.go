package viewtest

import (
	"cmp"
	"context"

	"ilinkdash/ui/common"
	"ilinkdash/ui/components"
	"ilinkdash/ui/internal/fakes"
	"ilinkdash/ui/views/tab"
)

// Widget is the item of WidgetList, a list resource only tests declare.
type Widget struct {
	Name string
	Size int64
}

// WidgetRes is WidgetList's ID: the first past the dashboard's own.
const WidgetRes = common.NumRes

// WidgetList declares a list resource the way a new one is declared
// (docs/DESIGN.md §5.2 "Declaring a list resource"), nowhere but here:
// the tests of the poller, serve's cache and the rig poll it through
// tab.Fetchers(src, WidgetList()). The fake keeps it in its plain-data
// store (fakes.Store) and lists it as "ListWidgets".
func WidgetList() tab.List[Widget] {
	var l tab.List[Widget]
	l = tab.List[Widget]{
		ID: WidgetRes,
		Fetch: func(src tab.Sources, ctx context.Context) ([]Widget, error) {
			return fakes.Stored(src.(*fakes.Source), ctx, "ListWidgets", l)
		},
		Key: func(w Widget) string { return w.Name },
		Columns: []components.Column[*Widget]{
			{Title: "NAME", Width: 12, Flex: true, Text: func(w *Widget) string { return common.S(w.Name) },
				Cmp: func(a, b *Widget) int { return cmp.Compare(a.Name, b.Name) }},
			{Title: "SIZE", Width: 8, Right: true, Text: func(w *Widget) string { return common.Count(w.Size) },
				Cmp: func(a, b *Widget) int { return cmp.Compare(a.Size, b.Size) }},
		},
	}
	return l
}
