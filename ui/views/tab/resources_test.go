package tab_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"ilinkdash/ilink/admin"
	"ilinkdash/ui/common"
	"ilinkdash/ui/internal/fakes"
	"ilinkdash/ui/views/tab"
)

// Every polled resource is declared once, in ID order, and its fetch
// gives the Data type tab's sources.go documents for it.
func TestEveryPolledResourceIsDeclared(t *testing.T) {
	want := map[common.ResID]any{
		common.ResSummary:     tab.ClusterSummary{},
		common.ResStats:       admin.StatSeries{},
		common.ResTopics:      []admin.TopicInfo(nil),
		common.ResGroups:      []admin.GroupInfo(nil),
		common.ResQueues:      []admin.QueueInfo(nil),
		common.ResCluster:     admin.ClusterProperty{},
		common.ResReplication: admin.ReplicationStatus{},
		common.ResLeaders:     admin.ClusterLeadTable{},
	}
	if len(tab.Polled) != int(common.NumRes) {
		t.Fatalf("%d declarations for %d resources", len(tab.Polled), common.NumRes)
	}
	src := fakes.NewDemo()
	fetch := tab.Fetchers(src)
	for id, r := range tab.Polled {
		if r.Res() != common.ResID(id) {
			t.Errorf("declaration %d is %v's, want the declarations in ResID order", id, r.Res())
		}
		v, err := fetch[id](context.Background())
		if err != nil || reflect.TypeOf(v) != reflect.TypeOf(want[common.ResID(id)]) {
			t.Errorf("%v fetched %T, %v; want a %T", common.ResID(id), v, err, want[common.ResID(id)])
		}
	}
}

// A view asking for a column its list does not declare fails at once,
// naming the list and the title.
func TestColumnNotDeclaredPanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), `no column "LAG"`) || !strings.Contains(r.(string), "topics") {
			t.Fatalf("recovered %v, want the list and the missing title named", r)
		}
	}()
	tab.Column(tab.TopicList, "LAG", func(i *admin.TopicInfo) *admin.TopicInfo { return i })
}
