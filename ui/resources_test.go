package ui

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"ilinkdash/config"
	"ilinkdash/ui/common"
	"ilinkdash/ui/components"
	"ilinkdash/ui/internal/fakes"
	"ilinkdash/ui/internal/viewtest"
	"ilinkdash/ui/views/tab"
)

// A list resource declared once (viewtest.WidgetList, in no package of
// the dashboard) is polled by the real poller from the fake's plain-data
// store, its failures reported like any list's, and shown by a table
// built from its declared key and columns.
func TestDeclaredListReachesThePoller(t *testing.T) {
	src := fakes.NewDemo()
	widgets := viewtest.WidgetList()
	fakes.Store(src, widgets, viewtest.Widget{Name: "gear", Size: 3}, viewtest.Widget{Name: "bolt", Size: 1200})
	fakes.Store(src, widgets, viewtest.Widget{Name: "gear", Size: 4}) // same key: replaced

	ctx := NewContext(config.DefaultContext(), false, nil)
	want := func(id common.ResID) bool { return id == viewtest.WidgetRes }
	p := newPoller(ctx, tab.Fetchers(src, widgets), want)
	if len(p.res) != int(viewtest.WidgetRes)+1 {
		t.Fatalf("the poller keeps %d resources, want the %d built-in and the widgets", len(p.res), common.NumRes)
	}
	if p.res[common.ResTopics].fetch == nil {
		t.Fatal("the built-in declarations were lost beside the test's")
	}
	cmd := p.fetch(viewtest.WidgetRes)
	out, next := p.onResult(exec(t, cmd))
	d, ok := out.(common.DataMsg)
	if !ok || d.Res != viewtest.WidgetRes {
		t.Fatalf("the widgets' reply fanned out as %#v, want their DataMsg", out)
	}
	got, _ := d.Data.([]viewtest.Widget)
	if !slices.Equal(got, []viewtest.Widget{{Name: "bolt", Size: 1200}, {Name: "gear", Size: 4}}) {
		t.Fatalf("polled widgets %v, want bolt and the replaced gear, in key order", got)
	}
	if next == nil || !p.res[viewtest.WidgetRes].armed {
		t.Fatal("the next poll of the widgets was not armed")
	}

	// The fake's injected failure reaches the poller as the list's error.
	src.Fail("ListWidgets", errors.New("MIMQE_NOT_AUTHORIZED (widgets)"))
	p.res[viewtest.WidgetRes].armed = false
	out, _ = p.onResult(exec(t, p.fetch(viewtest.WidgetRes)))
	if e, ok := out.(common.PollErrMsg); !ok || e.Res != viewtest.WidgetRes || !strings.Contains(e.Err.Error(), "widgets") {
		t.Fatalf("a failing widget list fanned out as %#v, want its PollErrMsg", out)
	}
	if n := src.Calls("ListWidgets"); n != 2 {
		t.Fatalf("the fake saw %d widget lists, want 2", n)
	}

	// A view's table from the declaration alone: its key and columns,
	// lifted to the view's row type.
	type row struct{ w viewtest.Widget }
	get := func(r *row) *viewtest.Widget { return &r.w }
	tbl := components.NewTable(ctx, tab.RowKey(widgets, get),
		tab.Column(widgets, "NAME", get), tab.Column(widgets, "SIZE", get))
	tbl.SetItems([]*row{{got[0]}, {got[1]}})
	tbl.SetSize(40, 4)
	tbl.SetSort(1, true)
	view := tbl.View()
	if i, j := strings.Index(view, "bolt"), strings.Index(view, "gear"); i < 0 || j < 0 || i > j || !strings.Contains(view, "1.20k") {
		t.Fatalf("the declared columns sorted by SIZE, descending, show:\n%s", view)
	}
	if !tbl.SelectKey("gear") {
		t.Fatal("the declared key does not find the gear row")
	}
	if r, _ := tbl.Selected(); r.w.Name != "gear" {
		t.Fatalf("selecting key gear selected %v", r.w)
	}
}
