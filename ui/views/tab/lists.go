package tab

import (
	"cmp"
	"strings"

	"ilinkdash/ilink/admin"
	"ilinkdash/ui/common"
	"ilinkdash/ui/components"
)

// The polled lists (docs/DESIGN.md §5.2 "Declaring a list resource").
// A column here shows a plain field of the list's type; a column that
// depends on the view (a sparkline, a health word, a cached text) is the
// view's own.

// TopicList is the topic list (common.ResTopics).
var TopicList = List[admin.TopicInfo]{
	ID:    common.ResTopics,
	Fetch: Sources.ListTopics,
	Key:   func(t admin.TopicInfo) string { return t.Name },
	Columns: []components.Column[*admin.TopicInfo]{
		nameColumn(24, 12, 48, func(t *admin.TopicInfo) string { return t.Name }),
		{Title: "PART", Width: 4, Right: true, Drop: 2,
			Text: func(t *admin.TopicInfo) string { return Itoa(int64(t.Partitions)) },
			Cmp:  func(a, b *admin.TopicInfo) int { return cmp.Compare(a.Partitions, b.Partitions) }},
		{Title: "REPL", Width: 4, Right: true, Drop: 6,
			Text: func(t *admin.TopicInfo) string { return Itoa(int64(t.MinSync)) + "/" + Itoa(int64(t.Replicas)) },
			Cmp:  func(a, b *admin.TopicInfo) int { return cmp.Compare(a.Replicas, b.Replicas) }},
		{Title: "IN-SYNC", Width: 9,
			Text: inSyncText,
			Cmp: func(a, b *admin.TopicInfo) int {
				return cmp.Compare(a.Offline*1000000+a.UnderReplicated, b.Offline*1000000+b.UnderReplicated)
			},
			Paint: func(t *admin.TopicInfo, st *common.Styles) common.Style {
				switch {
				case t.Offline > 0:
					return st.Err
				case t.UnderReplicated > 0:
					return st.Warn
				}
				return st.OK
			}},
		{Title: "END OFFSETS", Width: 11, Min: 7, Right: true, Drop: 3,
			Text: func(t *admin.TopicInfo) string { return common.Count(t.EndOffsetSum) },
			Cmp:  func(a, b *admin.TopicInfo) int { return cmp.Compare(a.EndOffsetSum, b.EndOffsetSum) }},
		{Title: "IN/s", Width: 6, Right: true, Drop: 1, SortKey: 'I',
			Text: func(t *admin.TopicInfo) string { return common.Rate(t.RecordsInPerSec) },
			Cmp:  func(a, b *admin.TopicInfo) int { return cmp.Compare(a.RecordsInPerSec, b.RecordsInPerSec) }},
		{Title: "OUT/s", Width: 6, Right: true, Drop: 4, SortKey: 'O',
			Text: func(t *admin.TopicInfo) string { return common.Rate(t.RecordsOutPerSec) },
			Cmp:  func(a, b *admin.TopicInfo) int { return cmp.Compare(a.RecordsOutPerSec, b.RecordsOutPerSec) }},
	},
}

// inSyncText is a topic's in-sync column: its offline or under-replicated
// partitions, else "ok".
func inSyncText(t *admin.TopicInfo) string {
	switch {
	case t.Offline > 0:
		return Itoa(int64(t.Offline)) + " offline"
	case t.UnderReplicated > 0:
		return Itoa(int64(t.UnderReplicated)) + " under"
	}
	return "ok"
}

// GroupList is the consumer group list (common.ResGroups).
var GroupList = List[admin.GroupInfo]{
	ID:    common.ResGroups,
	Fetch: Sources.ListGroups,
	Key:   func(g admin.GroupInfo) string { return g.Name },
	Columns: []components.Column[*admin.GroupInfo]{
		nameColumn(20, 10, 40, func(g *admin.GroupInfo) string { return g.Name }),
		{Title: "STATE", Width: 11, Min: 6, Drop: 5,
			Text:  func(g *admin.GroupInfo) string { return common.S(string(g.State)) },
			Cmp:   func(a, b *admin.GroupInfo) int { return strings.Compare(string(a.State), string(b.State)) },
			Paint: func(g *admin.GroupInfo, st *common.Styles) common.Style { return GroupStateStyle(st, g.State) }},
		{Title: "MEMBERS", Width: 7, Right: true, Drop: 3,
			Text: func(g *admin.GroupInfo) string { return Itoa(int64(g.Members)) },
			Cmp:  func(a, b *admin.GroupInfo) int { return cmp.Compare(a.Members, b.Members) }},
	},
}

// QueueList is the queue list (common.ResQueues).
var QueueList = List[admin.QueueInfo]{
	ID:    common.ResQueues,
	Fetch: Sources.ListQueues,
	Key:   func(q admin.QueueInfo) string { return q.Name },
	Columns: []components.Column[*admin.QueueInfo]{
		nameColumn(22, 10, 48, func(q *admin.QueueInfo) string { return q.Name }),
		{Title: "DEPTH", Width: 8, Right: true,
			Text: func(q *admin.QueueInfo) string { return common.Count(q.Depth) },
			Cmp:  func(a, b *admin.QueueInfo) int { return cmp.Compare(a.Depth, b.Depth) },
			Paint: func(q *admin.QueueInfo, st *common.Styles) common.Style {
				if q.Property.MaxDepth > 0 && q.Depth*10 >= q.Property.MaxDepth*9 {
					return st.Err // 90% full
				}
				return common.Style{}
			}},
		{Title: "IN-FLIGHT", Width: 9, Min: 6, Right: true, Drop: 4,
			Text: func(q *admin.QueueInfo) string { return common.Count(q.InFlight) },
			Cmp:  func(a, b *admin.QueueInfo) int { return cmp.Compare(a.InFlight, b.InFlight) }},
		{Title: "PUT/s", Width: 6, Right: true, Drop: 2,
			Text: func(q *admin.QueueInfo) string { return common.Rate(q.PutRate) },
			Cmp:  func(a, b *admin.QueueInfo) int { return cmp.Compare(a.PutRate, b.PutRate) }},
		{Title: "GET/s", Width: 6, Right: true, Drop: 3,
			Text: func(q *admin.QueueInfo) string { return common.Rate(q.GetRate) },
			Cmp:  func(a, b *admin.QueueInfo) int { return cmp.Compare(a.GetRate, b.GetRate) }},
	},
}

// nameColumn is a list's NAME column: the flexible one, sorted by the
// name. Its text is sanitized here; a view that keeps the sanitized name
// per row sets its own Text.
func nameColumn[T any](width, minW, maxW int, name func(T) string) components.Column[T] {
	return components.Column[T]{Title: "NAME", Width: width, Min: minW, Flex: true, Max: maxW,
		Text: func(t T) string { return common.S(name(t)) },
		Cmp:  func(a, b T) int { return strings.Compare(name(a), name(b)) }}
}
