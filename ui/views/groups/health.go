package groups

import (
	"ilinkdash/ilink/admin"
	"ilinkdash/ilink/admin/health"
	"ilinkdash/ui/common"
	"ilinkdash/ui/views/tab"
)

// The health words and the alerts are the health package's (one set of
// rules for the dashboard and `ilinkdash check`, docs/HEALTH.md); this
// file only gives them colours and text.

// healthStyle colours a health word.
func healthStyle(st *common.Styles, w health.Word) common.Style {
	switch w {
	case health.OK:
		return st.OK
	case health.Lagging, health.Rewound:
		return st.Warn
	case health.Stalled, health.Stopped, health.Dead:
		return st.Err
	case health.Rebalancing, health.Active:
		return st.Info
	}
	return st.Muted
}

// lagText is a group's or a partition's lag in a table: "-" when unknown,
// never -1.
func lagText(t admin.LagTotal) string {
	if !t.Known() {
		return "-"
	}
	return common.Count(t.Records)
}

// offsetText is an offset in a detail table: "-" when unknown.
func offsetText(n int64) string {
	if n < 0 {
		return "-"
	}
	return tab.Itoa(n)
}
