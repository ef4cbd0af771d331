package tab

import (
	"context"
	"fmt"

	"ilinkdash/ilink/admin"
	"ilinkdash/ui/common"
	"ilinkdash/ui/components"
)

// Resource is a polled resource's declaration as the pollers take it:
// its ID and how it is read from a Sources. Read declares a value, List
// a list (lists.go).
type Resource interface {
	Res() common.ResID
	read(src Sources, ctx context.Context) (any, error)
}

// Read declares a polled resource that is one value (the summary, the
// cluster definition…).
type Read[T any] struct {
	ID    common.ResID
	Fetch func(Sources, context.Context) (T, error)
}

func (r Read[T]) Res() common.ResID { return r.ID }
func (r Read[T]) read(src Sources, ctx context.Context) (any, error) {
	return r.Fetch(src, ctx)
}

// List declares a polled list once: the dashboard's poller, serve's
// shared cache, the view tests' rig and the fakes' list store
// (fakes.Store) take it from here, and the views its key and its
// columns. Data of its common.DataMsg is a []T.
type List[T any] struct {
	ID    common.ResID
	Fetch func(Sources, context.Context) ([]T, error)
	// Key names an item uniquely in the list: the table's row key, the
	// fakes' store key.
	Key func(T) string
	// Columns are the columns that show a plain field of T (sanitized
	// text), over *T: a cell or a comparison copies no item. A view lifts
	// the ones it shows (Column) and adds its own.
	Columns []components.Column[*T]
}

func (l List[T]) Res() common.ResID { return l.ID }
func (l List[T]) read(src Sources, ctx context.Context) (any, error) {
	return l.Fetch(src, ctx)
}

// Column is the declared column titled title, lifted to a view's row
// type R through get. A title the list does not declare is a
// programming error: it panics at the view's construction.
func Column[R, T any](l List[T], title string, get func(R) *T) components.Column[R] {
	for _, c := range l.Columns {
		if c.Title == title {
			return components.Lift(c, get)
		}
	}
	panic(fmt.Sprintf("tab: list %v declares no column %q", l.ID, title))
}

// RowKey is the list's key lifted to a view's row type R (the table's
// key function).
func RowKey[R, T any](l List[T], get func(R) *T) func(R) string {
	key := l.Key
	return func(r R) string { return key(*get(r)) }
}

// Polled is every polled resource's declaration, in common.ResID order.
var Polled = []Resource{
	Read[ClusterSummary]{ID: common.ResSummary, Fetch: Sources.ClusterSummary},
	Read[admin.StatSeries]{ID: common.ResStats, Fetch: func(s Sources, c context.Context) (admin.StatSeries, error) {
		return s.StatSeries(c, "") // the whole queue manager's
	}},
	TopicList,
	GroupList,
	QueueList,
	Read[admin.ClusterProperty]{ID: common.ResCluster, Fetch: Sources.ClusterProperty},
	Read[admin.ReplicationStatus]{ID: common.ResReplication, Fetch: Sources.ReplicationStatus},
	Read[admin.ClusterLeadTable]{ID: common.ResLeaders, Fetch: Sources.ClusterLeadTable},
}

// PolledSource is a Sources that reads every polled resource itself,
// by ID: serve's session sources, which read them through the server's
// shared cache. Fetchers then asks it instead of each declaration's
// Fetch, so a declaration needs no code there.
type PolledSource interface {
	Polled(ctx context.Context, id common.ResID) (any, error)
}

// Fetchers is the source call of each polled resource, indexed by
// common.ResID: the declarations of Polled and extra (resources a test
// declares), read from src. The dashboard's poller, serve's shared one
// and the view tests' rig (viewtest.Rig.Poll) all take it.
func Fetchers(src Sources, extra ...Resource) []func(context.Context) (any, error) {
	all := append(Polled[:len(Polled):len(Polled)], extra...)
	n := 0
	for _, r := range all {
		n = max(n, int(r.Res())+1)
	}
	out := make([]func(context.Context) (any, error), n)
	ps, shared := src.(PolledSource)
	for _, r := range all {
		if shared {
			id := r.Res()
			out[id] = func(c context.Context) (any, error) { return ps.Polled(c, id) }
			continue
		}
		out[r.Res()] = func(c context.Context) (any, error) { return r.read(src, c) }
	}
	return out
}
