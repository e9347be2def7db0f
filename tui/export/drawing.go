package export

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/tui/layout"
)

// Options shape an export.
type Options struct {
	// Full keeps every row of a long run (SVG, Mermaid); without it they cut
	// where `locksim run` cuts its text. The HTML always has every row.
	Full bool
	// ByRow spaces the rows evenly (SVG, HTML) instead of by true time.
	ByRow bool
}

// The drawing's measures, in SVG user units (pixels at 1:1). An 8-process run is
// about 1600 wide, so drawn 1920 pixels wide on a projector its smallest text is
// over 14 pixels.
const (
	fontSize  = 15  // labels, sentences
	smallFont = 14  // times, roles, legend
	charW     = 9.0 // the advance of a monospace character at fontSize (0.6 em)
	rowGap    = 26  // the least distance between two rows
	lineH     = 19  // a wrapped sentence's line
	colW      = 190 // one process
	gutter    = 110 // true time, left of the first process
	margin    = 24
	minText   = 760 // the least width for sentences (violations, the legend)
	chunkRows = 64  // rows per chunk of the HTML viewer
)

// item is one drawn row, top to bottom: a timeline row, or the band that says
// how many rows a long run left out.
type item struct {
	row     int // the timeline row; -1 for the cut band
	skipped int // the cut band: how many rows it stands for
	top, h  float64
	lines   []string // a violation row's sentence, wrapped
}

// anchor is the height at which the row's marks and arrows sit.
func (it *item) anchor() float64 { return it.top + rowGap/2 }

// arrow is a message from its send to its delivery or drop.
type arrow struct {
	from, to int // items; from is -1 when the send was cut away (it starts at the cut band)
	cut      int // the cut band's item, for a send cut away
	c0, c1   int // columns
	label    string
	dropped  bool
}

// bar is a span down one column over items [from, to].
type bar struct {
	from, to int
	span     layout.Span
}

// drawing is the geometry of one run's timeline, computed once and written as a
// standalone SVG or as the HTML viewer's chunks.
type drawing struct {
	res    *scenarios.Result
	tl     *layout.Timeline
	items  []item
	arrows []arrow
	bars   [][]bar // per column
	used   map[layout.CellKind]bool
	width  float64 // the whole image
	height float64 // the body (rows)
}

func newDrawing(res *scenarios.Result, opt Options) *drawing {
	tl := layout.New(res.Trace, &res.Report)
	n := len(tl.Columns())
	d := &drawing{res: res, tl: tl, bars: make([][]bar, n), used: map[layout.CellKind]bool{}}
	d.width = gutter + max(float64(n*colW), minText) + margin
	textChars := int((d.width - gutter - margin - 16) / float64(charW))
	for _, it := range shownRows(tl, opt.Full) {
		it.h = rowGap
		if it.row < 0 {
			it.h = rowGap * 1.5
		} else {
			if tl.RowEvent(it.row) < 0 {
				it.lines = wrap("◆ "+strings.TrimPrefix(tl.Row(it.row).Text, "VIOLATION "), textChars)
				it.h = rowGap + float64(len(it.lines))*lineH + 4
			}
		}
		d.items = append(d.items, it)
	}
	d.place(opt.ByRow)
	d.collect()
	return d
}

// shownRows lists the rows an export draws, top to bottom: every row, or, for a
// long run without full, the rows `locksim run` shows (the first CutHead and last
// CutTail, and every violation row between), with a cut item where rows are left
// out.
func shownRows(tl *layout.Timeline, full bool) []item {
	head, tail := scenarios.CutHead, scenarios.CutTail
	if full {
		head = 0
	}
	var out []item
	skipped := 0
	for r := 0; r < tl.Len(); r++ {
		if head > 0 && tl.Len() > head+tail && r >= head && r < tl.Len()-tail && tl.RowEvent(r) >= 0 {
			skipped++
			continue
		}
		if skipped > 0 {
			out = append(out, item{row: -1, skipped: skipped})
			skipped = 0
		}
		out = append(out, item{row: r})
	}
	return out
}

// place sets each item's top: rows follow each other at least rowGap apart, and
// by true time also as far apart as the time between them, at a scale that gives
// time about half the height the rows take.
func (d *drawing) place(byRow bool) {
	perSec := 0.0
	if end := d.res.Trace.End; !byRow && end > 0 {
		perSec = min(float64(len(d.items))*rowGap*0.5/(float64(end)/1e9), 400)
	}
	y := 8.0
	last := sim.Time(-1)
	for i := range d.items {
		it := &d.items[i]
		if it.row >= 0 {
			at := d.tl.RowTime(it.row)
			if last >= 0 && perSec > 0 {
				y += perSec * float64(at-last) / 1e9
			}
			last = at
		} else {
			last = -1 // time across the cut is not drawn
		}
		it.top = y
		y += it.h
	}
	d.height = y + 8
}

// collect finds the arrows, the spans and the kinds of mark drawn.
func (d *drawing) collect() {
	t := d.res.Trace
	sends := map[uint64]int{} // a message's id -> the item of its send, or -1 when cut away
	lastCut := -1
	n := len(d.tl.Columns())
	open := make([]map[layout.Span]int, n)
	for c := range open {
		open[c] = map[layout.Span]int{}
	}
	spans := []layout.Span{layout.SpanBelief, layout.SpanPaused, layout.SpanDown}
	track := func(i int, cells []layout.Cell) {
		for c, cell := range cells {
			for _, s := range spans {
				from, on := open[c][s]
				switch {
				case cell.Spans&s != 0 && !on:
					open[c][s] = i
				case cell.Spans&s == 0 && on:
					d.bars[c] = append(d.bars[c], bar{from, i - 1, s})
					delete(open[c], s)
				}
			}
		}
	}
	for i := range d.items {
		it := &d.items[i]
		if it.row < 0 {
			lastCut = i
			// The band carries on the spans of the rows it stands for.
			track(i, d.tl.Row(d.items[i-1].row+1).Cells)
			continue
		}
		row := d.tl.Row(it.row)
		track(i, row.Cells)
		for _, c := range row.Cells {
			if drawnCell(c.Kind) {
				d.used[c.Kind] = true
			}
		}
		if row.Kind != layout.RowEvent {
			continue
		}
		e := t.Event(row.Event)
		switch e.Kind {
		case sim.EvSend:
			sends[e.MsgID] = i
		case sim.EvDeliver, sim.EvDrop:
			from, ok := sends[e.MsgID]
			if !ok { // sent in the rows cut away
				from = -1
			}
			d.arrows = append(d.arrows, arrow{from: from, to: i, cut: lastCut, c0: int(e.Peer), c1: int(e.Proc),
				label: t.Msg(e).Op, dropped: e.Kind == sim.EvDrop})
		}
	}
	for c := range open {
		for _, s := range spans {
			if from, on := open[c][s]; on {
				d.bars[c] = append(d.bars[c], bar{from, len(d.items) - 1, s})
			}
		}
	}
}

// drawnCell reports whether a cell kind is drawn as a mark: messages are drawn
// as arrows instead.
func drawnCell(k layout.CellKind) bool {
	switch k {
	case layout.CellEmpty, layout.CellSend, layout.CellSendLeft, layout.CellWire, layout.CellArrive,
		layout.CellArriveLeft, layout.CellDeliver:
		return false
	}
	return true
}

// x is column c's lifeline.
func (d *drawing) x(c int) float64 { return gutter + float64(c)*colW + colW/2 - 40 }

// chunks groups the items in chunks of chunkRows.
func (d *drawing) chunks() int { return (len(d.items) + chunkRows - 1) / chunkRows }

// chunkIndex lists, per chunk, the arrows and bars written in it: with only, in
// the chunk where each starts (a standalone SVG writes every chunk once);
// without, in every chunk it crosses (the viewer shows a few chunks at a time).
type chunkIndex struct {
	arrows [][]int    // indexes into drawing.arrows
	bars   [][][2]int // column, index into drawing.bars[column]
}

func (d *drawing) index(only bool) chunkIndex {
	n := d.chunks()
	ci := chunkIndex{make([][]int, n), make([][][2]int, n)}
	chunks := func(from, to int) (int, int) {
		if only {
			return from / chunkRows, from / chunkRows
		}
		return from / chunkRows, to / chunkRows
	}
	for i, a := range d.arrows {
		from := a.from
		if from < 0 {
			from = a.cut
		}
		lo, hi := chunks(from, a.to)
		for k := lo; k <= hi; k++ {
			ci.arrows[k] = append(ci.arrows[k], i)
		}
	}
	for c, bars := range d.bars {
		for j, br := range bars {
			lo, hi := chunks(br.from, br.to)
			for k := lo; k <= hi; k++ {
				ci.bars[k] = append(ci.bars[k], [2]int{c, j})
			}
		}
	}
	return ci
}

// writeChunk writes chunk k's marks: violation bands, then bars, arrows, and
// the rows' marks and labels, so that marks sit on top. A bar crossing chunks
// is written in the viewer's chunks as the piece in each, so that chunks shown
// side by side join up.
func (d *drawing) writeChunk(b *strings.Builder, k int, ci chunkIndex, only bool) {
	lo, hi := k*chunkRows, min((k+1)*chunkRows, len(d.items))-1
	for i := lo; i <= hi; i++ {
		if it := &d.items[i]; it.row >= 0 && it.lines != nil {
			fmt.Fprintf(b, `<rect class="band" x="%d" y="%s" width="%s" height="%s"/>`, gutter-4, num(it.top+2), num(d.width-gutter-margin+8),
				num(it.h-4))
		}
	}
	// Belief bars first; a pause or downtime is a narrower stripe on top, so a
	// paused client that still believes shows both.
	for _, beliefs := range []bool{true, false} {
		for _, cb := range ci.bars[k] {
			c, br := cb[0], d.bars[cb[0]][cb[1]]
			if (br.span == layout.SpanBelief) != beliefs {
				continue
			}
			top, bottom := d.items[br.from].top, d.items[br.to].top+d.items[br.to].h
			if !only {
				top, bottom = max(top, d.items[lo].top), min(bottom, d.items[hi].top+d.items[hi].h)
			}
			w, class := 10.0, fmt.Sprintf("bar c%d", c%len(barColours))
			switch br.span {
			case layout.SpanPaused:
				w, class = 4, "paused"
			case layout.SpanDown:
				w, class = 4, "down"
			}
			fmt.Fprintf(b, `<rect class="%s" x="%s" y="%s" width="%s" height="%s"/>`, class, num(d.x(c)-w/2), num(top), num(w), num(bottom-top))
		}
	}
	for _, a := range ci.arrows[k] {
		d.writeArrow(b, d.arrows[a])
	}
	for i := lo; i <= hi; i++ {
		d.writeItem(b, i)
	}
}

func (d *drawing) writeArrow(b *strings.Builder, a arrow) {
	// The head arrives just above the receiver's mark, clear of its label.
	x0, x1 := d.x(a.c0), d.x(a.c1)
	y1 := d.items[a.to].anchor() - 7
	var y0 float64
	if a.from >= 0 {
		y0 = d.items[a.from].anchor()
	} else {
		y0 = d.items[a.cut].top + d.items[a.cut].h
	}
	// Stop short of the lifeline, where the receiver's mark sits.
	dir := 1.0
	if x1 < x0 {
		dir = -1
	}
	if x1 != x0 {
		x0 += dir * 6
		x1 -= dir * 8
	}
	class := "msg"
	if a.dropped {
		class = "lost"
	}
	fmt.Fprintf(b, `<line class="%s" x1="%s" y1="%s" x2="%s" y2="%s"/>`, class, num(x0), num(y0), num(x1), num(y1))
	if a.from < 0 || a.label == "" {
		return
	}
	anchor, lx := "start", x0+4
	if dir < 0 {
		anchor, lx = "end", x0-4
	}
	fmt.Fprintf(b, `<text class="op" x="%s" y="%s" text-anchor="%s">%s</text>`, num(lx), num(y0-5), anchor, esc(cut(a.label, 14)))
}

// writeItem writes a row's time, its marks and labels, and a violation's sentence.
func (d *drawing) writeItem(b *strings.Builder, i int) {
	it := &d.items[i]
	if it.row < 0 {
		mid := it.top + it.h/2
		fmt.Fprintf(b, `<line class="cut" x1="%d" y1="%s" x2="%s" y2="%s"/>`, gutter-4, num(mid), num(d.width-margin), num(mid))
		fmt.Fprintf(b, `<text class="time" x="%s" y="%s" text-anchor="middle">⋯ %d rows left out (--full shows them) ⋯</text>`,
			num((gutter+d.width-margin)/2), num(mid-4), it.skipped)
		return
	}
	row := d.tl.Row(it.row)
	y := it.anchor()
	if i == 0 || d.items[i-1].row < 0 || d.tl.RowTime(d.items[i-1].row) != row.At {
		fmt.Fprintf(b, `<text class="time" x="%d" y="%s">%s</text>`, gutter-12, num(y+5), row.At)
	}
	room := int(math.Floor((colW - 30) / charW))
	for c, cell := range row.Cells {
		if !drawnCell(cell.Kind) {
			continue
		}
		fmt.Fprintf(b, `<text class="mark k%d" x="%s" y="%s">%s</text>`, cell.Kind, num(d.x(c)), num(y+5), esc(glyph(cell.Kind)))
		if cell.Label != "" && cell.Kind != layout.CellDrop {
			fmt.Fprintf(b, `<text class="k%d" x="%s" y="%s">%s</text>`, cell.Kind, num(d.x(c)+12), num(y+5), esc(cut(cell.Label, room)))
		}
	}
	for j, l := range it.lines {
		fmt.Fprintf(b, `<text class="said" x="%d" y="%s">%s</text>`, gutter+4, num(it.top+rowGap+float64(j)*lineH+10), esc(l))
	}
}

// writeColumns writes the column headers: name and role over each lifeline.
func (d *drawing) writeColumns(b *strings.Builder, y float64) {
	for c, col := range d.tl.Columns() {
		fmt.Fprintf(b, `<text class="name" x="%s" y="%s">%s</text>`, num(d.x(c)), num(y+18), esc(col.Name))
		fmt.Fprintf(b, `<text class="role" x="%s" y="%s">%s</text>`, num(d.x(c)), num(y+36), esc(col.Role))
	}
}

// columnsHeight is the height of the column headers.
const columnsHeight = 46

// writeLifelines writes each process's line down the body.
func (d *drawing) writeLifelines(b *strings.Builder) {
	for c := range d.tl.Columns() {
		fmt.Fprintf(b, `<line class="life" x1="%s" y1="0" x2="%s" y2="%s"/>`, num(d.x(c)), num(d.x(c)), num(d.height))
	}
}

// defs are the arrowhead marker and the style every mark is drawn with: one
// class per kind of mark, so that a row costs few bytes, and a white halo
// around text so that a line passing under a label leaves it readable.
func defs() string {
	var b strings.Builder
	b.WriteString(`<defs><marker id="head" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">`)
	b.WriteString(`<path d="M0,0 L10,5 L0,10 z" fill="` + colourMessage + `"/></marker><style>`)
	fmt.Fprintf(&b, "text{font-size:%dpx;paint-order:stroke;stroke:#fff;stroke-width:3px;stroke-linejoin:round}", fontSize)
	fmt.Fprintf(&b, ".time{font-size:%dpx;fill:%s;text-anchor:end}.op{font-size:%dpx;fill:%s}", smallFont, colourTime, smallFont, colourMessage)
	fmt.Fprintf(&b, ".mark{font-size:%dpx;text-anchor:middle;font-weight:bold}.said{fill:%s;stroke:%s}", fontSize+2, colourViolation, colourBand)
	fmt.Fprintf(&b, ".name{font-size:%dpx;font-weight:bold;text-anchor:middle}.role{font-size:%dpx;fill:%s;text-anchor:middle}", fontSize+2, smallFont, colourTime)
	fmt.Fprintf(&b, ".life{stroke:%s}.cut{stroke:%s;stroke-dasharray:2 6}.band{fill:%s}.paused{fill:%s}.down{fill:%s}", colourLifeline, colourTime, colourBand, colourPaused, colourDown)
	fmt.Fprintf(&b, ".msg{stroke:%s;stroke-width:1.5px;marker-end:url(#head)}.lost{stroke:%s;stroke-width:1.5px;stroke-dasharray:6 4}", colourMessage, colourViolation)
	for i, c := range barColours {
		fmt.Fprintf(&b, ".c%d{fill:%s}", i, c)
	}
	for _, k := range slices.Sorted(maps.Keys(kindColours)) {
		fmt.Fprintf(&b, ".k%d{fill:%s}", k, kindColours[k])
	}
	b.WriteString("</style></defs>")
	return b.String()
}

// num writes a coordinate with at most one decimal: small files, stable goldens.
func num(f float64) string {
	s := fmt.Sprintf("%.1f", f)
	return strings.TrimSuffix(s, ".0")
}

var escaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")

// esc escapes text for XML.
func esc(s string) string { return escaper.Replace(s) }

// cut shortens s to n runes, with an ellipsis when it had more.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:max(n-1, 0)]) + "…"
}

// wrap breaks text into lines of at most n runes (a longer word is cut).
func wrap(text string, n int) []string {
	lines := sim.Wrap(text, n)
	for i, l := range lines {
		lines[i] = cut(l, n)
	}
	return lines
}
