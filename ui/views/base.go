package views

import (
	"strings"

	"ilinkdash/ilink/admin"
	"ilinkdash/ui/common"
	"ilinkdash/ui/components"
	"ilinkdash/ui/views/tab"
)

// base is what every view embeds (tab.Base: the tail and publish tabs,
// in their own packages, embed it too).
type base = tab.Base

// ints formats a list of node numbers: "1,2,3".
func ints(xs []int) string {
	var b strings.Builder
	for i, x := range xs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(tab.Itoa(int64(x)))
	}
	if b.Len() == 0 {
		return "-"
	}
	return b.String()
}

// sectionTitle renders a section heading line.
func sectionTitle(st *common.Styles, s string) string { return st.Title.Render(s) }

// stateStyle colours a group state.
func stateStyle(st *common.Styles, s admin.GroupState) common.Style {
	switch s {
	case admin.GroupStable:
		return st.OK
	case admin.GroupPreparingRebalance, admin.GroupCompletingRebalance:
		return st.Info
	case admin.GroupDead:
		return st.Err
	}
	return st.Muted
}

// sparkline is components.Sparkline (kept here so row builders need no
// extra import).
func sparkline(vals []float64, w int) string { return components.Sparkline(vals, w) }

// titled puts a title before wrapped "label value" lines: on the first
// line when it fits, else on its own line. At most three lines.
func titled(title string, pairs []string, w int) []string {
	var out []string
	if len(pairs) > 0 && common.Width(title)+2+common.Width(pairs[0]) <= w {
		out = append(out, title+"  "+pairs[0])
		pairs = pairs[1:]
	} else {
		out = append(out, title)
	}
	out = append(out, pairs...)
	if len(out) > 3 {
		out = out[:3]
	}
	return out
}
