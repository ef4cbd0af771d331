package serve

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"ilinkdash/config"
	"ilinkdash/ilink/admin"
	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
	"ilinkdash/ui/internal/viewtest"
	"ilinkdash/ui/views/tab"
)

// A list resource declared once (viewtest.WidgetList) is read by every
// session through the shared cache with no code of its own in serve:
// two sessions' pollers (tab.Fetchers over their sessionSources, which
// read by ID) cost the fake one read per interval.
func TestDeclaredListSharedThroughServe(t *testing.T) {
	t.Parallel()
	src := fakes.NewDemo()
	widgets := viewtest.WidgetList()
	fakes.Store(src, widgets, viewtest.Widget{Name: "gear", Size: 4})
	p := newPolls(t.Context(), src, config.Refresh{}, widgets)
	now := time.Unix(1000, 0)
	p.now = func() time.Time { return now }
	c := &served{polls: p}
	var sessions [2]*sessionSources
	for i := range sessions {
		sessions[i] = &sessionSources{sess: &session{ctx: t.Context()}, c: c}
	}
	for i, ss := range sessions {
		fetch := tab.Fetchers(ss, widgets)
		v, err := fetch[viewtest.WidgetRes](t.Context())
		if got, _ := v.([]viewtest.Widget); err != nil || !slices.Equal(got, []viewtest.Widget{{Name: "gear", Size: 4}}) {
			t.Fatalf("session %d read the widgets as %v, %v", i, v, err)
		}
	}
	if n := src.Calls("ListWidgets"); n != 1 {
		t.Fatalf("two sessions within an interval cost the fake %d widget lists, want 1", n)
	}
	// One interval later the next asker reads again, once.
	now = now.Add(2 * time.Second)
	fakes.Store(src, widgets, viewtest.Widget{Name: "bolt", Size: 1})
	for _, ss := range sessions {
		if v, _ := ss.Polled(t.Context(), viewtest.WidgetRes); len(v.([]viewtest.Widget)) != 2 {
			t.Fatalf("after an interval the widgets read %v, want the stored bolt too", v)
		}
	}
	if n := src.Calls("ListWidgets"); n != 2 {
		t.Fatalf("%d widget lists after one interval, want 2", n)
	}
	// A resource nobody declared is an error naming it, not a panic.
	if _, err := sessions[0].Polled(t.Context(), viewtest.WidgetRes+1); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("no polled resource %d", viewtest.WidgetRes+1)) {
		t.Fatalf("an undeclared resource read as %v", err)
	}
	// The built-in lists still come through the same cache.
	if v, err := sessions[1].Polled(t.Context(), common.ResTopics); err != nil || len(v.([]admin.TopicInfo)) == 0 {
		t.Fatalf("the topic list through the cache: %v, %v", v, err)
	}
}
