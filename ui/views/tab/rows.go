package tab

import (
	"strings"

	"ilinkdash/ilink/admin"
	"ilinkdash/ui/common"
)

// Ints formats a list of node numbers: "1,2,3".
func Ints(xs []int) string {
	var b strings.Builder
	for i, x := range xs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(Itoa(int64(x)))
	}
	if b.Len() == 0 {
		return "-"
	}
	return b.String()
}

// SectionTitle renders a section heading line.
func SectionTitle(st *common.Styles, s string) string { return st.Title.Render(s) }

// GroupStateStyle colours a group state.
func GroupStateStyle(st *common.Styles, s admin.GroupState) common.Style {
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

// Titled puts a title before wrapped "label value" lines: on the first
// line when it fits, else on its own line. At most three lines.
func Titled(title string, pairs []string, w int) []string {
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

// PartLagText is a partition's lag in a table: "-" when unknown.
func PartLagText(l admin.PartLag) string {
	if l.Unknown {
		return "-"
	}
	return common.Thousands(l.Records)
}

// PartLagKey orders partition lags, unknown first.
func PartLagKey(l admin.PartLag) int64 {
	if l.Unknown {
		return -1
	}
	return l.Records
}
