// Command render turns a terminal screen captured with
// `tmux capture-pane -e -p -N` (text with SGR colour sequences) into a PNG,
// on an exact cell grid.
//
// It exists because freeze v0.2.2's ANSI mode, tried first, misdraws the
// dashboard: it ignores SGR 39/49 (so colours bleed into the text after a
// styled span), bold, faint and reverse video, and it places backgrounds on a
// 1/1.68 em grid while the glyphs advance 0.6 em, so backgrounds drift about
// one cell off the text by column 120. Here every cell is drawn at its own
// position: backgrounds, block elements (sparklines) and box drawing are
// filled as rectangles, everything else is drawn with JetBrains Mono (the
// font freeze embeds, SIL OFL 1.1, imported from freeze's font package).
//
//	render -cols 120 -rows 40 -o out.png screen.ansi
//	render -cursor 12,3 ...   draws a block cursor at column 12, row 3 (0-based)
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	freezefont "github.com/charmbracelet/freeze/font"
	"github.com/mattn/go-runewidth"
	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

type style struct {
	fg, bg                    color.RGBA
	fgSet, bgSet              bool
	bold, faint, italic       bool
	underline, strike, invert bool
	hidden                    bool
}

type cell struct {
	r     rune
	extra []rune // combining marks
	st    style
	wide  bool // first half of a double-width rune
	cont  bool // second half of a double-width rune
}

type screen struct {
	cols, rows int
	cells      [][]cell
}

func newScreen(cols, rows int) *screen {
	s := &screen{cols: cols, rows: rows, cells: make([][]cell, rows)}
	for y := range s.cells {
		s.cells[y] = make([]cell, cols)
		for x := range s.cells[y] {
			s.cells[y][x].r = ' '
		}
	}
	return s
}

// parse reads capture-pane output: one line per row, SGR sequences only
// (other escape sequences are skipped).
func parse(data []byte, cols, rows int) *screen {
	s := newScreen(cols, rows)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	var st style // tmux starts every line of -e output from the previous state
	for y, line := range lines {
		if y >= rows {
			break
		}
		x := 0
		for i := 0; i < len(line); {
			if line[i] == 0x1b {
				n, params, final := scanEscape(line[i:])
				if final == 'm' {
					applySGR(&st, params)
				}
				i += n
				continue
			}
			r, size := decodeRune(line[i:])
			i += size
			if r == '\r' {
				continue
			}
			if r == '\t' {
				for x < cols && (x == 0 || x%8 != 0) {
					x++
				}
				continue
			}
			w := runewidth.RuneWidth(r)
			if w == 0 {
				if x > 0 && r >= 0x20 {
					c := &s.cells[y][x-1]
					if c.cont && x > 1 {
						c = &s.cells[y][x-2]
					}
					c.extra = append(c.extra, r)
				}
				continue
			}
			if x+w > cols {
				break
			}
			s.cells[y][x] = cell{r: r, st: st, wide: w == 2}
			if w == 2 {
				s.cells[y][x+1] = cell{r: ' ', st: st, cont: true}
			}
			x += w
		}
	}
	return s
}

func decodeRune(s string) (rune, int) { return utf8.DecodeRuneInString(s) }

// scanEscape returns the length of the escape sequence at the start of s, and
// for a CSI sequence its parameters and final byte.
func scanEscape(s string) (int, string, byte) {
	if len(s) < 2 {
		return len(s), "", 0
	}
	switch s[1] {
	case '[':
		for j := 2; j < len(s); j++ {
			if s[j] >= 0x40 && s[j] <= 0x7e {
				return j + 1, s[2:j], s[j]
			}
		}
		return len(s), "", 0
	case ']', 'P', '_', '^', 'X': // OSC, DCS, APC, PM, SOS: up to ST or BEL
		for j := 2; j < len(s); j++ {
			if s[j] == 0x07 {
				return j + 1, "", 0
			}
			if s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\' {
				return j + 2, "", 0
			}
		}
		return len(s), "", 0
	}
	return 2, "", 0
}

func applySGR(st *style, params string) {
	if params == "" {
		*st = style{}
		return
	}
	// Accept both ; and : separated sub-parameters (38:2::r:g:b).
	fields := strings.FieldsFunc(params, func(r rune) bool { return r == ';' })
	var ps [][]int
	for _, f := range fields {
		var sub []int
		for _, p := range strings.Split(f, ":") {
			n, _ := strconv.Atoi(p)
			sub = append(sub, n)
		}
		ps = append(ps, sub)
	}
	extColor := func(i int) (color.RGBA, int, bool) {
		// colon form: all in ps[i]
		if len(ps[i]) > 1 {
			sub := ps[i]
			switch {
			case len(sub) >= 3 && sub[1] == 5:
				return xterm256(sub[2]), 0, true
			case len(sub) >= 5 && sub[1] == 2:
				rgb := sub[len(sub)-3:]
				return color.RGBA{uint8(rgb[0]), uint8(rgb[1]), uint8(rgb[2]), 255}, 0, true
			}
			return color.RGBA{}, 0, false
		}
		if i+1 < len(ps) && ps[i+1][0] == 5 && i+2 < len(ps) {
			return xterm256(ps[i+2][0]), 2, true
		}
		if i+1 < len(ps) && ps[i+1][0] == 2 && i+4 < len(ps) {
			return color.RGBA{uint8(ps[i+2][0]), uint8(ps[i+3][0]), uint8(ps[i+4][0]), 255}, 4, true
		}
		return color.RGBA{}, 0, false
	}
	for i := 0; i < len(ps); i++ {
		switch p := ps[i][0]; {
		case p == 0:
			*st = style{}
		case p == 1:
			st.bold = true
		case p == 2:
			st.faint = true
		case p == 3:
			st.italic = true
		case p == 4:
			st.underline = true
		case p == 7:
			st.invert = true
		case p == 8:
			st.hidden = true
		case p == 9:
			st.strike = true
		case p == 22:
			st.bold, st.faint = false, false
		case p == 23:
			st.italic = false
		case p == 24:
			st.underline = false
		case p == 27:
			st.invert = false
		case p == 28:
			st.hidden = false
		case p == 29:
			st.strike = false
		case p >= 30 && p <= 37:
			st.fg, st.fgSet = xterm256(p-30), true
		case p == 38:
			c, skip, ok := extColor(i)
			if ok {
				st.fg, st.fgSet = c, true
			}
			i += skip
		case p == 39:
			st.fgSet = false
		case p >= 40 && p <= 47:
			st.bg, st.bgSet = xterm256(p-40), true
		case p == 48:
			c, skip, ok := extColor(i)
			if ok {
				st.bg, st.bgSet = c, true
			}
			i += skip
		case p == 49:
			st.bgSet = false
		case p >= 90 && p <= 97:
			st.fg, st.fgSet = xterm256(p-90+8), true
		case p >= 100 && p <= 107:
			st.bg, st.bgSet = xterm256(p-100+8), true
		}
	}
}

// ansi16 is a neutral palette for the 16 basic colours (only used when the
// program was run without true colour).
var ansi16 = [16]color.RGBA{
	{0x3b, 0x42, 0x52, 255}, {0xbf, 0x61, 0x6a, 255}, {0xa3, 0xbe, 0x8c, 255}, {0xeb, 0xcb, 0x8b, 255},
	{0x81, 0xa1, 0xc1, 255}, {0xb4, 0x8e, 0xad, 255}, {0x88, 0xc0, 0xd0, 255}, {0xe5, 0xe9, 0xf0, 255},
	{0x4c, 0x56, 0x6a, 255}, {0xbf, 0x61, 0x6a, 255}, {0xa3, 0xbe, 0x8c, 255}, {0xeb, 0xcb, 0x8b, 255},
	{0x81, 0xa1, 0xc1, 255}, {0xb4, 0x8e, 0xad, 255}, {0x8f, 0xbc, 0xbb, 255}, {0xec, 0xef, 0xf4, 255},
}

func xterm256(n int) color.RGBA {
	switch {
	case n < 0:
		n = 0
	case n < 16:
		return ansi16[n]
	case n < 232:
		n -= 16
		lv := func(v int) uint8 {
			if v == 0 {
				return 0
			}
			return uint8(55 + 40*v)
		}
		return color.RGBA{lv(n / 36), lv(n / 6 % 6), lv(n % 6), 255}
	case n < 256:
		v := uint8(8 + 10*(n-232))
		return color.RGBA{v, v, v, 255}
	}
	return color.RGBA{255, 255, 255, 255}
}

func blend(a, b color.RGBA, t float64) color.RGBA {
	m := func(x, y uint8) uint8 { return uint8(math.Round(float64(x)*(1-t) + float64(y)*t)) }
	return color.RGBA{m(a.R, b.R), m(a.G, b.G), m(a.B, b.B), 255}
}

type renderer struct {
	face         font.Face
	cw, ch       int // cell size in pixels
	ascent       int
	pad          int
	defFg, defBg color.RGBA
	boldOffset   fixed.Int26_6
}

func (rd *renderer) colors(st style) (fg, bg color.RGBA) {
	fg, bg = rd.defFg, rd.defBg
	if st.fgSet {
		fg = st.fg
	}
	if st.bgSet {
		bg = st.bg
	}
	if st.invert {
		fg, bg = bg, fg
	}
	if st.faint {
		fg = blend(fg, bg, 0.45)
	}
	return fg, bg
}

func (rd *renderer) render(s *screen, cursor image.Point, showCursor bool) *image.RGBA {
	w := s.cols*rd.cw + 2*rd.pad
	h := s.rows*rd.ch + 2*rd.pad
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), &image.Uniform{rd.defBg}, image.Point{}, draw.Src)
	// backgrounds first, so wide glyphs and overhangs are not cut by the next cell
	for y := 0; y < s.rows; y++ {
		for x := 0; x < s.cols; x++ {
			c := s.cells[y][x]
			_, bg := rd.colors(c.st)
			if showCursor && cursor.X == x && cursor.Y == y {
				bg = rd.defFg
			}
			draw.Draw(img, rd.cellRect(x, y, 1), &image.Uniform{bg}, image.Point{}, draw.Src)
		}
	}
	for y := 0; y < s.rows; y++ {
		for x := 0; x < s.cols; x++ {
			c := s.cells[y][x]
			if c.cont {
				continue
			}
			fg, _ := rd.colors(c.st)
			if showCursor && cursor.X == x && cursor.Y == y {
				fg = rd.defBg
			}
			if !c.st.hidden && c.r != ' ' {
				width := 1
				if c.wide {
					width = 2
				}
				if !rd.drawSpecial(img, x, y, c.r, fg) {
					rd.drawGlyph(img, x, y, width, c.r, fg, c.st.bold)
				}
				for _, r := range c.extra {
					rd.drawGlyph(img, x, y, width, r, fg, c.st.bold)
				}
			}
			if c.st.underline {
				r := rd.cellRect(x, y, 1)
				uy := r.Min.Y + rd.ascent + max(1, rd.ch/12)
				draw.Draw(img, image.Rect(r.Min.X, uy, r.Max.X, uy+max(1, rd.ch/20)), &image.Uniform{fg}, image.Point{}, draw.Src)
			}
			if c.st.strike {
				r := rd.cellRect(x, y, 1)
				sy := r.Min.Y + rd.ch/2
				draw.Draw(img, image.Rect(r.Min.X, sy, r.Max.X, sy+max(1, rd.ch/20)), &image.Uniform{fg}, image.Point{}, draw.Src)
			}
		}
	}
	return img
}

func (rd *renderer) cellRect(x, y, n int) image.Rectangle {
	x0 := rd.pad + x*rd.cw
	y0 := rd.pad + y*rd.ch
	return image.Rect(x0, y0, x0+n*rd.cw, y0+rd.ch)
}

func (rd *renderer) drawGlyph(img *image.RGBA, x, y, width int, r rune, fg color.RGBA, bold bool) {
	cr := rd.cellRect(x, y, width)
	adv, ok := rd.face.GlyphAdvance(r)
	if !ok {
		adv, _ = rd.face.GlyphAdvance('?')
		if !rd.hasGlyph(r) {
			r = '\uFFFD'
			if !rd.hasGlyph(r) {
				r = '?'
			}
		}
	}
	// centre the glyph in its cell(s)
	dx := fixed.I(cr.Dx())/2 - adv/2
	dot := fixed.Point26_6{X: fixed.I(cr.Min.X) + dx, Y: fixed.I(cr.Min.Y + rd.ascent)}
	d := &font.Drawer{Dst: img, Src: &image.Uniform{fg}, Face: rd.face, Dot: dot}
	d.DrawString(string(r))
	if bold {
		d.Dot = fixed.Point26_6{X: dot.X + rd.boldOffset, Y: dot.Y}
		d.DrawString(string(r))
	}
}

func (rd *renderer) hasGlyph(r rune) bool {
	_, ok := rd.face.GlyphAdvance(r)
	return ok
}

// drawSpecial fills block elements and box-drawing lines as rectangles, so
// sparklines, bars and dialog frames join across cells whatever the font's
// metrics and the line height.
func (rd *renderer) drawSpecial(img *image.RGBA, x, y int, r rune, fg color.RGBA) bool {
	cr := rd.cellRect(x, y, 1)
	W, H := cr.Dx(), cr.Dy()
	fill := func(x0, y0, x1, y1 int, c color.RGBA) {
		draw.Draw(img, image.Rect(cr.Min.X+x0, cr.Min.Y+y0, cr.Min.X+x1, cr.Min.Y+y1), &image.Uniform{c}, image.Point{}, draw.Src)
	}
	bg := img.RGBAAt(cr.Min.X, cr.Min.Y)
	switch {
	case r >= 0x2581 && r <= 0x2588: // ▁..█ lower eighths
		n := int(r - 0x2580)
		top := H - int(math.Round(float64(H*n)/8))
		fill(0, top, W, H, fg)
		return true
	case r == 0x2580: // ▀
		fill(0, 0, W, H/2, fg)
		return true
	case r >= 0x2589 && r <= 0x258F: // ▉..▏ left eighths
		n := 8 - int(r-0x2588)
		fill(0, 0, int(math.Round(float64(W*n)/8)), H, fg)
		return true
	case r == 0x2590: // ▐
		fill(W/2, 0, W, H, fg)
		return true
	case r >= 0x2591 && r <= 0x2593: // ░▒▓
		t := []float64{0.25, 0.5, 0.75}[r-0x2591]
		fill(0, 0, W, H, blend(bg, fg, t))
		return true
	case r == 0x2594: // ▔
		fill(0, 0, W, max(1, H/8), fg)
		return true
	case r == 0x2595: // ▕
		fill(W-max(1, W/8), 0, W, H, fg)
		return true
	case r > 0x2800 && r <= 0x28FF: // braille: a dot in each of 2×4 sub-cells whose bit is set
		bits := [4][2]rune{{0x01, 0x08}, {0x02, 0x10}, {0x04, 0x20}, {0x40, 0x80}}
		d := max(2, W*2/5)
		for row := range 4 {
			for col := range 2 {
				if (r-0x2800)&bits[row][col] != 0 {
					cx, cy := W*(2*col+1)/4, H*(2*row+1)/8
					fill(cx-d/2, cy-d/2, cx-d/2+d, cy-d/2+d, fg)
				}
			}
		}
		return true
	case r >= 0x2596 && r <= 0x259F: // quadrants
		q := map[rune][4]bool{ // UL, UR, LL, LR
			0x2596: {false, false, true, false}, 0x2597: {false, false, false, true},
			0x2598: {true, false, false, false}, 0x2599: {true, false, true, true},
			0x259A: {true, false, false, true}, 0x259B: {true, true, true, false},
			0x259C: {true, true, false, true}, 0x259D: {false, true, false, false},
			0x259E: {false, true, true, false}, 0x259F: {false, true, true, true},
		}[r]
		if q[0] {
			fill(0, 0, W/2, H/2, fg)
		}
		if q[1] {
			fill(W/2, 0, W, H/2, fg)
		}
		if q[2] {
			fill(0, H/2, W/2, H, fg)
		}
		if q[3] {
			fill(W/2, H/2, W, H, fg)
		}
		return true
	}
	// box drawing: which arms (up, right, down, left) and their weight (1 light, 2 heavy)
	arms, ok := boxArms[r]
	if !ok {
		return false
	}
	lw := max(1, int(math.Round(float64(W)/9)))
	cx := W/2 - lw/2
	cy := H/2 - lw/2
	for i, a := range arms {
		if a == 0 {
			continue
		}
		t := lw * a
		ox := W/2 - t/2
		oy := H/2 - t/2
		switch i {
		case 0: // up
			fill(ox, 0, ox+t, cy+lw, fg)
		case 1: // right
			fill(cx, oy, W, oy+t, fg)
		case 2: // down
			fill(ox, cy, ox+t, H, fg)
		case 3: // left
			fill(0, oy, cx+lw, oy+t, fg)
		}
	}
	return true
}

var boxArms = map[rune][4]int{
	'─': {0, 1, 0, 1}, '━': {0, 2, 0, 2}, '│': {1, 0, 1, 0}, '┃': {2, 0, 2, 0},
	'┌': {0, 1, 1, 0}, '┐': {0, 0, 1, 1}, '└': {1, 1, 0, 0}, '┘': {1, 0, 0, 1},
	'╭': {0, 1, 1, 0}, '╮': {0, 0, 1, 1}, '╰': {1, 1, 0, 0}, '╯': {1, 0, 0, 1},
	'┏': {0, 2, 2, 0}, '┓': {0, 0, 2, 2}, '┗': {2, 2, 0, 0}, '┛': {2, 0, 0, 2},
	'├': {1, 1, 1, 0}, '┤': {1, 0, 1, 1}, '┬': {0, 1, 1, 1}, '┴': {1, 1, 0, 1}, '┼': {1, 1, 1, 1},
	'╴': {0, 0, 0, 1}, '╵': {1, 0, 0, 0}, '╶': {0, 1, 0, 0}, '╷': {0, 0, 1, 0},
}

func parseHex(s string) (color.RGBA, error) {
	s = strings.TrimPrefix(s, "#")
	if len(s) != 6 {
		return color.RGBA{}, fmt.Errorf("colour %q: want #rrggbb", s)
	}
	v, err := strconv.ParseUint(s, 16, 32)
	if err != nil {
		return color.RGBA{}, fmt.Errorf("colour %q: %w", s, err)
	}
	return color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 255}, nil
}

func main() {
	cols := flag.Int("cols", 120, "screen width in cells")
	rows := flag.Int("rows", 40, "screen height in cells")
	out := flag.String("o", "", "output PNG (required)")
	size := flag.Float64("font-size", 16, "font size in pixels")
	lineHeight := flag.Float64("line-height", 1.25, "row height relative to the font size")
	pad := flag.Int("pad", 16, "padding around the screen in pixels")
	fgHex := flag.String("fg", "#d8dee9", "default foreground")
	bgHex := flag.String("bg", "#1b1f27", "default background")
	cursorAt := flag.String("cursor", "", "draw a block cursor at COL,ROW (0-based)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: render [flags] -o OUT.png [SCREEN.ansi | -]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *out == "" || flag.NArg() > 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*cols, *rows, *out, *size, *lineHeight, *pad, *fgHex, *bgHex, *cursorAt, flag.Arg(0)); err != nil {
		fmt.Fprintln(os.Stderr, "render:", err)
		os.Exit(1)
	}
}

func run(cols, rows int, out string, size, lineHeight float64, pad int, fgHex, bgHex, cursorAt, in string) error {
	var data []byte
	var err error
	if in == "" || in == "-" {
		data, err = io.ReadAll(bufio.NewReader(os.Stdin))
	} else {
		data, err = os.ReadFile(in)
	}
	if err != nil {
		return err
	}
	fg, err := parseHex(fgHex)
	if err != nil {
		return err
	}
	bg, err := parseHex(bgHex)
	if err != nil {
		return err
	}
	var cur image.Point
	showCursor := false
	if cursorAt != "" {
		if _, err := fmt.Sscanf(cursorAt, "%d,%d", &cur.X, &cur.Y); err != nil {
			return fmt.Errorf("-cursor %q: want COL,ROW", cursorAt)
		}
		showCursor = true
	}

	f, err := opentype.Parse(freezefont.JetBrainsMonoNLTTF)
	if err != nil {
		return fmt.Errorf("font: %w", err)
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		return fmt.Errorf("font: %w", err)
	}
	defer face.Close()
	m := face.Metrics()
	adv, _ := face.GlyphAdvance('M')
	cw := (adv + 63).Floor() // round up: glyphs are centred in their cell
	ch := int(math.Round(size * lineHeight))
	glyphH := (m.Ascent + m.Descent).Round()
	ascent := (ch-glyphH)/2 + m.Ascent.Round()
	rd := &renderer{
		face: face, cw: cw, ch: ch, ascent: ascent, pad: pad,
		defFg: fg, defBg: bg,
		boldOffset: fixed.Int26_6(math.Max(32, size*64/22)),
	}
	img := rd.render(parse(data, cols, rows), cur, showCursor)

	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&buf, paletted(img)); err != nil {
		return err
	}
	return os.WriteFile(out, buf.Bytes(), 0o644)
}

// paletted returns img as an 8-bit paletted image when it has at most 256
// colours (smaller files), else img itself.
func paletted(img *image.RGBA) image.Image {
	seen := map[color.RGBA]uint8{}
	var pal color.Palette
	b := img.Bounds()
	for i := 0; i < len(img.Pix); i += 4 {
		c := color.RGBA{img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3]}
		if _, ok := seen[c]; !ok {
			if len(pal) == 256 {
				return img
			}
			seen[c] = uint8(len(pal))
			pal = append(pal, c)
		}
	}
	p := image.NewPaletted(b, pal)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			i := img.PixOffset(x, y)
			p.Pix[p.PixOffset(x, y)] = seen[color.RGBA{img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3]}]
		}
	}
	return p
}
