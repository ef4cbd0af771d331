package components

import (
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"ilinkdash/ui/common"
)

// Column describes one table column over rows of type T.
type Column[T any] struct {
	Title string
	Width int  // preferred width in cells
	Min   int  // narrowest it shrinks to before being dropped (default Width)
	Flex  bool // takes the free space (the name column)
	// Max caps how wide a flex column grows (0 = no cap), so on a wide
	// terminal a name column does not push the numbers to the far edge;
	// space no column can take is left blank at the right.
	Max   int
	Right bool // right-aligned (numbers)
	// Drop orders columns for removal when the table is too narrow: 0 is
	// never dropped, higher numbers go first.
	Drop int
	// Text is the cell's display text. It must already be sanitized; it is
	// computed once per row when data arrives, never per frame.
	Text func(T) string
	// Cmp makes the column sortable.
	Cmp func(a, b T) int
	// Paint optionally styles the cell (not applied on the cursor row).
	Paint func(T, *common.Styles) common.Style
	// NoFilter leaves the column out of what the filter searches
	// (sparklines, numbers nobody types).
	NoFilter bool
	// SortKey is the shift+letter that sorts by this column ('I' for
	// IN/s); 0 picks the first letter of the title that no binding of the
	// KeyMap and no earlier column uses. Set only on sortable columns.
	SortKey rune
}

type colLayout struct {
	idx, width int
}

// Table is a virtualized, sortable, filterable table: cells, filter
// haystacks and the sorted, filtered order are computed when data, sort or
// filter change; View renders only the visible rows, so a frame costs the
// same for 20 rows as for 20,000.
type Table[T any] struct {
	ctx  *common.Context
	cols []Column[T]
	key  func(T) string

	items []T
	keys  []string
	cells [][]string
	hay   []string // lower-cased filter text per row; built on first use
	order []int    // filtered and sorted indexes into items

	sortCol int // -1: source order
	desc    bool
	// sortKeys[i] is column i's shift+letter (0: none).
	sortKeys []rune

	filter    string
	input     Input
	filtering bool

	cursor, offset int
	// moved is set by the first explicit cursor move (keys, wheel, click,
	// SetCursor). Until then the cursor stays on the top row whatever the
	// data, sort or filter do: rows that arrive sorted above the first
	// row do not push the cursor down.
	moved         bool
	width, height int
	layout        []colLayout
	gap, gapUsed  int

	// Empty is shown when there is no row (before the filter).
	Empty string
	// NoCursor draws no cursor row (the table is not the focused one of
	// several on a screen: the overview's nodes while its alerts are).
	NoCursor bool
}

// NewTable returns a table; key identifies a row across refreshes so the
// cursor stays on it.
func NewTable[T any](ctx *common.Context, key func(T) string, cols ...Column[T]) *Table[T] {
	t := &Table[T]{ctx: ctx, cols: cols, key: key, sortCol: -1, gap: 2, Empty: "nothing to show"}
	t.input = NewInput("/", "filter (!text excludes)")
	t.sortKeys = assignSortKeys(cols, ctx.Keys.Letters())
	return t
}

// assignSortKeys gives every sortable column its shift+letter: the one it
// names, else the first letter of its title that is neither taken (an
// earlier column, a binding in reserved) nor already shifted.
func assignSortKeys[T any](cols []Column[T], reserved map[rune]bool) []rune {
	out := make([]rune, len(cols))
	used := map[rune]bool{}
	for i, c := range cols {
		if c.Cmp != nil && c.SortKey != 0 {
			out[i], used[c.SortKey] = c.SortKey, true
		}
	}
	for i, c := range cols {
		if c.Cmp == nil || out[i] != 0 {
			continue
		}
		for _, r := range strings.ToUpper(c.Title) {
			if r >= 'A' && r <= 'Z' && !used[r] && !reserved[r] {
				out[i], used[r] = r, true
				break
			}
		}
	}
	return out
}

// SortKeys returns a help binding per column that has a sort letter, in
// column order: "N  sort by name (again reverses)".
func (t *Table[T]) SortKeys() []key.Binding {
	var out []key.Binding
	for i, r := range t.sortKeys {
		if r != 0 {
			out = append(out, key.NewBinding(key.WithKeys(string(r)), key.WithHelp(string(r), "sort by "+strings.ToLower(t.cols[i].Title))))
		}
	}
	return out
}

// SortLegend is the sort letters in one line: "sort: N name · I in/s".
func (t *Table[T]) SortLegend() string {
	var parts []string
	for _, b := range t.SortKeys() {
		parts = append(parts, b.Help().Key+" "+strings.TrimPrefix(b.Help().Desc, "sort by "))
	}
	if len(parts) == 0 {
		return ""
	}
	return "sort: " + strings.Join(parts, " · ")
}

// SortByKey sorts by the column whose letter is r; pressed again on the
// sorted column it reverses. A first press sorts numbers (right-aligned
// columns) largest first and text A to Z. It reports whether r is a letter
// of this table.
func (t *Table[T]) SortByKey(r rune) bool {
	for i, k := range t.sortKeys {
		if k != r || r == 0 {
			continue
		}
		if i == t.sortCol {
			t.ReverseSort()
		} else {
			t.SetSort(i, t.cols[i].Right)
		}
		return true
	}
	return false
}

// SetItems replaces the rows, keeping the cursor on the same row key once
// the user has moved it (before that, on the top row).
func (t *Table[T]) SetItems(items []T) {
	sel, hadSel := t.selectedKey()
	t.items = items
	n, nc := len(items), len(t.cols)
	t.keys = slices.Grow(t.keys[:0], n)[:n]
	t.cells = slices.Grow(t.cells[:0], n)[:n]
	t.hay = t.hay[:0] // rebuilt lazily, only when a filter is set
	backing := make([]string, n*nc)
	for i, it := range items {
		t.keys[i] = t.key(it)
		row := backing[i*nc : (i+1)*nc : (i+1)*nc]
		for c, col := range t.cols {
			row[c] = col.Text(it)
		}
		t.cells[i] = row
	}
	t.rebuild(sel, hadSel)
}

// haystacks builds the filter text of every row.
func (t *Table[T]) haystacks() {
	if len(t.hay) == len(t.items) {
		return
	}
	t.hay = slices.Grow(t.hay[:0], len(t.items))[:len(t.items)]
	var hb strings.Builder
	for i := range t.items {
		hb.Reset()
		for c, col := range t.cols {
			if col.NoFilter {
				continue
			}
			if hb.Len() > 0 {
				hb.WriteByte(' ')
			}
			hb.WriteString(t.cells[i][c])
		}
		t.hay[i] = strings.ToLower(hb.String())
	}
}

// Items returns the rows as last set.
func (t *Table[T]) Items() []T { return t.items }

func (t *Table[T]) selectedKey() (string, bool) {
	if t.cursor >= 0 && t.cursor < len(t.order) {
		return t.keys[t.order[t.cursor]], true
	}
	return "", false
}

// rebuild recomputes the filtered, sorted order and restores the cursor.
func (t *Table[T]) rebuild(sel string, hadSel bool) {
	t.order = t.order[:0]
	f, neg := strings.ToLower(t.filter), false
	if strings.HasPrefix(f, "!") {
		f, neg = f[1:], true
	}
	if f != "" {
		t.haystacks()
	}
	for i := range t.items {
		if f == "" || strings.Contains(t.hay[i], f) != neg {
			t.order = append(t.order, i)
		}
	}
	if t.sortCol >= 0 && t.sortCol < len(t.cols) && t.cols[t.sortCol].Cmp != nil {
		cmp := t.cols[t.sortCol].Cmp
		slices.SortFunc(t.order, func(a, b int) int { // total order: ties break on the key
			c := cmp(t.items[a], t.items[b])
			if c == 0 {
				c = strings.Compare(t.keys[a], t.keys[b])
			}
			if t.desc {
				return -c
			}
			return c
		})
	}
	if !t.moved {
		t.cursor = 0
	} else if hadSel {
		for i, idx := range t.order {
			if t.keys[idx] == sel {
				t.cursor = i
				t.clamp()
				return
			}
		}
	}
	t.clamp()
}

// SetSort sorts by column col (-1: source order).
func (t *Table[T]) SetSort(col int, desc bool) {
	sel, ok := t.selectedKey()
	relay := col != t.sortCol
	t.sortCol, t.desc = col, desc
	t.rebuild(sel, ok)
	if relay && t.layout != nil {
		t.relayout()
		t.clamp()
	}
}

// CycleSort moves the sort to the next sortable column.
func (t *Table[T]) CycleSort() {
	for i := 1; i <= len(t.cols); i++ {
		c := (t.sortCol + i) % len(t.cols)
		if c < 0 {
			c += len(t.cols)
		}
		if t.cols[c].Cmp != nil {
			t.SetSort(c, false)
			return
		}
	}
}

// ReverseSort flips the sort direction.
func (t *Table[T]) ReverseSort() { t.SetSort(t.sortCol, !t.desc) }

// SortInfo describes the sort for the status bar, e.g. "lag ↓".
func (t *Table[T]) SortInfo() string {
	if t.sortCol < 0 || t.sortCol >= len(t.cols) {
		return ""
	}
	arrow := "↑"
	if t.desc {
		arrow = "↓"
	}
	return strings.ToLower(t.cols[t.sortCol].Title) + " " + arrow
}

// SetFilter sets the filter text: a case-insensitive substring of any
// cell; a leading "!" keeps the rows that do not contain it.
func (t *Table[T]) SetFilter(f string) {
	sel, ok := t.selectedKey()
	t.filter = f
	t.rebuild(sel, ok)
}

// Filter returns the filter text.
func (t *Table[T]) Filter() string { return t.filter }

// Filtering reports whether the filter input has focus.
func (t *Table[T]) Filtering() bool { return t.filtering }

// StartFilter focuses the filter input.
func (t *Table[T]) StartFilter() tea.Cmd {
	t.filtering = true
	t.input.SetValue(t.filter)
	t.input.Focus()
	return nil
}

// ClearFilter removes the filter and leaves the input; it reports whether
// there was anything to clear.
func (t *Table[T]) ClearFilter() bool {
	had := t.filter != "" || t.filtering
	t.filtering = false
	t.input.Blur()
	if t.filter != "" {
		t.SetFilter("")
	}
	return had
}

// Len is the number of rows shown (after the filter); Total before it.
func (t *Table[T]) Len() int   { return len(t.order) }
func (t *Table[T]) Total() int { return len(t.items) }

// Selected returns the row under the cursor.
func (t *Table[T]) Selected() (T, bool) {
	var zero T
	if t.cursor < 0 || t.cursor >= len(t.order) {
		return zero, false
	}
	return t.items[t.order[t.cursor]], true
}

// Cursor is the cursor's index among the rows shown.
func (t *Table[T]) Cursor() int { return t.cursor }

// SetCursor moves the cursor (an explicit move: from now on the cursor
// follows its row across refreshes).
func (t *Table[T]) SetCursor(i int) {
	t.moved = true
	t.cursor = i
	t.clamp()
}

// SelectKey puts the cursor on the row whose key is k (an explicit move,
// as SetCursor) and reports whether such a row is shown.
func (t *Table[T]) SelectKey(k string) bool {
	for i, idx := range t.order {
		if t.keys[idx] == k {
			t.SetCursor(i)
			return true
		}
	}
	return false
}

// Position describes the cursor for the status bar: "12/340" (of 10000).
func (t *Table[T]) Position() string {
	if len(t.order) == 0 {
		if len(t.items) > 0 {
			return "0/" + strconv.Itoa(len(t.items))
		}
		return ""
	}
	s := strconv.Itoa(t.cursor+1) + "/" + strconv.Itoa(len(t.order))
	if len(t.order) != len(t.items) {
		s += " of " + strconv.Itoa(len(t.items))
	}
	return s
}

// SetSize sets the table's box, header and filter line included.
func (t *Table[T]) SetSize(w, h int) {
	w, h = max(w, 0), max(h, 0)
	if w == t.width && h == t.height && t.layout != nil {
		return
	}
	t.width, t.height = w, h
	t.input.SetWidth(max(1, w-20))
	t.relayout()
	t.clamp()
}

func (t *Table[T]) bodyRows() int {
	n := t.height - 1 // header
	if t.filtering || t.filter != "" {
		n--
	}
	return max(n, 0)
}

func (t *Table[T]) clamp() {
	if t.cursor >= len(t.order) {
		t.cursor = len(t.order) - 1
	}
	if t.cursor < 0 {
		t.cursor = 0
	}
	rows := t.bodyRows()
	if rows <= 0 {
		t.offset = t.cursor
		return
	}
	if t.cursor < t.offset {
		t.offset = t.cursor
	}
	if t.cursor >= t.offset+rows {
		t.offset = t.cursor - rows + 1
	}
	if maxOff := max(len(t.order)-rows, 0); t.offset > maxOff {
		t.offset = maxOff
	}
	if t.offset < 0 {
		t.offset = 0
	}
}

// relayout chooses visible columns and their widths for the current width.
func (t *Table[T]) relayout() {
	w := t.width
	gap := t.gap
	if w < 100 {
		gap = 1
	}
	vis := t.visibleCols(w, gap)
	widths := make([]int, len(vis))
	total := gap * max(len(vis)-1, 0)
	for j, i := range vis {
		widths[j] = t.colW(i)
		total += widths[j]
	}
	total = t.shrink(vis, widths, total, w)
	t.grow(vis, widths, total, w)
	t.layout = t.layout[:0]
	for j, i := range vis {
		t.layout = append(t.layout, colLayout{idx: i, width: widths[j]})
	}
	t.gapUsed = gap
}

// colW is column i's preferred width. The sorted column is as wide as its
// whole title and the sort mark, so a narrow one reads "PART↑", not
// "PA…↑".
func (t *Table[T]) colW(i int) int {
	if i == t.sortCol {
		return max(t.cols[i].Width, common.Width(t.cols[i].Title)+1)
	}
	return t.cols[i].Width
}

// minW is how narrow column i may get.
func (t *Table[T]) minW(i int) int {
	c := t.cols[i]
	m := c.Width
	if c.Min > 0 {
		m = c.Min
	}
	if i == t.sortCol {
		m = max(m, min(t.colW(i), common.Width(c.Title)+1))
	}
	return m
}

// visibleCols drops optional columns (highest Drop first) until the
// preferred widths fit w, so the important columns keep their preferred
// width rather than everything being squeezed.
func (t *Table[T]) visibleCols(w, gap int) []int {
	vis := make([]int, 0, len(t.cols))
	for i := range t.cols {
		vis = append(vis, i)
	}
	preferred := func() int {
		n := gap * max(len(vis)-1, 0)
		for _, i := range vis {
			n += t.colW(i)
		}
		return n
	}
	for preferred() > w {
		drop, best := -1, 0
		for j, i := range vis {
			if d := t.cols[i].Drop; d > 0 && d >= best {
				drop, best = j, d
			}
		}
		if drop < 0 {
			break
		}
		vis = slices.Delete(vis, drop, drop+1)
	}
	return vis
}

// shrink narrows widths (of the columns vis) until total fits w: flex
// columns first, then the others, down to their minimum; below every
// minimum, the widest columns. It returns the new total.
func (t *Table[T]) shrink(vis, widths []int, total, w int) int {
	for _, flexFirst := range []bool{true, false} {
		for j, i := range vis {
			if total <= w {
				break
			}
			c := t.cols[i]
			if c.Flex != flexFirst {
				continue
			}
			cut := min(widths[j]-t.minW(i), total-w)
			if cut > 0 {
				widths[j] -= cut
				total -= cut
			}
		}
	}
	for total > w {
		j := 0
		for k := range widths {
			if widths[k] > widths[j] {
				j = k
			}
		}
		if widths[j] <= 1 {
			break
		}
		widths[j]--
		total--
	}
	return total
}

// grow gives the free space to the flex columns, evenly, each up to its
// Max.
func (t *Table[T]) grow(vis, widths []int, total, w int) {
	for total < w {
		var open []int
		for j, i := range vis {
			if c := t.cols[i]; c.Flex && (c.Max == 0 || widths[j] < c.Max) {
				open = append(open, j)
			}
		}
		if len(open) == 0 {
			break
		}
		share := max((w-total)/len(open), 1)
		for _, j := range open {
			add := min(share, w-total)
			if c := t.cols[vis[j]]; c.Max > 0 {
				add = min(add, c.Max-widths[j])
			}
			widths[j] += add
			total += add
		}
	}
}

// Update handles navigation, filter input and mouse events. It reports
// whether the message was consumed.
func (t *Table[T]) Update(msg tea.Msg) (bool, tea.Cmd) {
	k := t.ctx.Keys
	switch msg := msg.(type) {
	case tea.PasteMsg:
		if t.filtering {
			t.input.Update(msg)
			t.SetFilter(t.input.Value())
			return true, nil
		}
	case tea.KeyPressMsg:
		if t.filtering {
			switch msg.String() {
			case "enter":
				t.filtering = false
				t.input.Blur()
				t.SetFilter(strings.TrimSpace(t.input.Value()))
				return true, nil
			case "esc":
				t.ClearFilter()
				return true, nil
			case "up", "down":
				// Let the cursor move while typing.
			default:
				t.input.Update(msg)
				t.SetFilter(t.input.Value())
				return true, nil
			}
		}
		rows := max(t.bodyRows(), 1)
		switch {
		case key.Matches(msg, k.Up):
			t.move(-1)
		case key.Matches(msg, k.Down):
			t.move(1)
		case key.Matches(msg, k.PageUp):
			t.move(-rows)
		case key.Matches(msg, k.PageDown):
			t.move(rows)
		case key.Matches(msg, k.HalfUp):
			t.move(-max(rows/2, 1))
		case key.Matches(msg, k.HalfDown):
			t.move(max(rows/2, 1))
		case key.Matches(msg, k.Top):
			t.moved = true
			t.cursor = 0
			t.clamp()
		case key.Matches(msg, k.Bottom):
			t.moved = true
			t.cursor = len(t.order) - 1
			t.clamp()
		case key.Matches(msg, k.Filter):
			return true, t.StartFilter()
		case key.Matches(msg, k.Sort):
			t.CycleSort()
		case key.Matches(msg, k.Reverse):
			t.ReverseSort()
		default:
			if r := []rune(msg.String()); len(r) == 1 && t.SortByKey(r[0]) {
				return true, nil
			}
			return false, nil
		}
		return true, nil
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			t.scroll(-3)
		case tea.MouseWheelDown:
			t.scroll(3)
		default:
			return false, nil
		}
		return true, nil
	}
	return false, nil
}

func (t *Table[T]) move(d int) {
	t.moved = true
	t.cursor += d
	t.clamp()
}

// scroll moves the viewport (and the cursor with it).
func (t *Table[T]) scroll(d int) {
	t.moved = true
	t.cursor += d
	t.offset += d
	t.clamp()
}

// Click moves the cursor to the row at line y of the table's box and
// reports whether a row was hit and whether it was already selected (a
// second click opens it).
func (t *Table[T]) Click(y int) (hit, again bool) {
	top := 1
	if t.filtering || t.filter != "" {
		top++
	}
	i := t.offset + y - top
	if y < top || i < 0 || i >= len(t.order) || y-top >= t.bodyRows() {
		return false, false
	}
	again = i == t.cursor
	t.moved = true
	t.cursor = i
	t.clamp()
	return true, again
}

// View renders the table into its box: header, optional filter line, rows.
func (t *Table[T]) View() string {
	return common.Frame(t.Lines(), t.width, t.height)
}

// Lines renders the table's lines (at most its height).
func (t *Table[T]) Lines() []string {
	if t.height <= 0 || t.width <= 0 {
		return nil
	}
	st := t.ctx.Styles
	lines := make([]string, 0, t.height)
	lines = append(lines, t.header(st))
	if t.filtering || t.filter != "" {
		lines = append(lines, t.filterLine(st))
	}
	rows := t.bodyRows()
	if len(t.order) == 0 {
		msg := t.Empty
		if len(t.items) > 0 {
			msg = "no row matches the filter"
		}
		if rows > 0 {
			lines = append(lines, st.Muted.Render(common.Trunc("  "+msg, t.width)))
		}
		return lines
	}
	var b strings.Builder
	for r := 0; r < rows && t.offset+r < len(t.order); r++ {
		pos := t.offset + r
		idx := t.order[pos]
		selected := pos == t.cursor
		b.Reset()
		for j, cl := range t.layout {
			if j > 0 {
				b.WriteString(spaces(t.gapUsed))
			}
			col := t.cols[cl.idx]
			text := t.cells[idx][cl.idx]
			if col.Right {
				text = common.FitRight(text, cl.width)
			} else {
				text = common.Fit(text, cl.width)
			}
			if !selected && col.Paint != nil {
				text = col.Paint(t.items[idx], st).Render(text)
			}
			b.WriteString(text)
		}
		line := b.String()
		if selected && !t.NoCursor {
			line = st.CursorRow(line, t.width)
		}
		lines = append(lines, line)
	}
	return lines
}

func (t *Table[T]) header(st *common.Styles) string {
	var b strings.Builder
	for j, cl := range t.layout {
		if j > 0 {
			b.WriteString(spaces(t.gapUsed))
		}
		col := t.cols[cl.idx]
		mark := ""
		if cl.idx == t.sortCol {
			mark = "↑"
			if t.desc {
				mark = "↓"
			}
		}
		title := common.Trunc(col.Title, max(cl.width-common.Width(mark), 0))
		pad := max(cl.width-common.Width(title)-common.Width(mark), 0)
		head := t.headTitle(st, title, t.sortKeys[cl.idx])
		if col.Right {
			b.WriteString(spaces(pad) + head + st.SortMark.Render(mark))
		} else {
			b.WriteString(head + st.SortMark.Render(mark) + spaces(pad))
		}
	}
	return b.String()
}

// headTitle renders a column title with its sort letter marked (the
// SortKey style: underlined), the first occurrence of it in the title.
func (t *Table[T]) headTitle(st *common.Styles, title string, r rune) string {
	i := strings.IndexRune(strings.ToUpper(title), r)
	if r == 0 || i < 0 || st.Textual() {
		return st.Header.Render(title)
	}
	n := len(string(r))
	return st.Header.Render(title[:i]) + st.SortKey.Render(title[i:i+n]) + st.Header.Render(title[i+n:])
}

func (t *Table[T]) filterLine(st *common.Styles) string {
	count := st.Muted.Render("  " + strconv.Itoa(len(t.order)) + "/" + strconv.Itoa(len(t.items)))
	if t.filtering {
		return t.input.View(st) + count
	}
	return st.Filter.Render("/"+common.Trunc(common.S(t.filter), max(t.width-20, 1))) + count
}

// spaces returns n spaces.
func spaces(n int) string {
	const s = "                                "
	if n <= len(s) {
		return s[:n]
	}
	return strings.Repeat(" ", n)
}
