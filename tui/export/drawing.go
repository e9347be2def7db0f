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
	// Quiet folds background traffic (heartbeats, pings, keepalives, as the
	// protocols declare it) into a faint tick, as the terminal UI's quiet view
	// does (SVG, Mermaid). The HTML has both views and starts in the quiet one.
	Quiet bool
	// Window cuts the export to the rows whose true time is in [From, To]
	// (`--from`, `--to`; nil: every row): a slide of one moment of a long run.
	Window *Window
	// Walk opens the HTML viewer in its walk: one stop of the story at a time,
	// the rows below the cursor hidden, the verdict at the end.
	Walk bool
}

// Window is a stretch of true time, both ends included.
type Window struct{ From, To sim.Time }

// says is what a drawing of the window says of it, under its title.
func (w *Window) says() string {
	if w.To == sim.Never {
		return fmt.Sprintf("only the rows from %s on (%s)", w.From, w)
	}
	return fmt.Sprintf("only the rows from %s to %s (%s)", w.From, w.To, w)
}

// String is the window as the flags that ask for it.
func (w *Window) String() string {
	s := "--from " + w.From.String()
	if w.To != sim.Never {
		s += " --to " + w.To.String()
	}
	return s
}

// The drawing's measures, in SVG user units (pixels at 1:1). An 8-process run is
// about 1600 wide, so drawn 1920 pixels wide on a projector its smallest text is
// over 14 pixels; two 7-process runs side by side are about 2000 wide.
const (
	fontSize    = 15  // labels, sentences
	smallFont   = 14  // times, roles, legend
	charW       = 9.0 // the advance of a monospace character at fontSize (0.6 em)
	rowGap      = 26  // the least distance between two rows
	lineH       = 19  // a wrapped sentence's line
	colW        = 190 // one process
	compareColW = 124 // one process of a comparison, where two runs share the width (two 7-process runs: 1906)
	gutter      = 110 // true time, left of the first process
	laneGap     = 36  // between the two runs of a comparison: where ≠ marks a difference
	margin      = 24
	minText     = 760 // the least width for sentences (violations, the legend)
	promiseW    = 6   // a service's promise bar, left of its lifeline
	promiseGap  = 9   // between the promise bar and the lifeline
	chunkRows   = 64  // rows per chunk of the HTML viewer
)

// A drawing is one run's timeline, or two runs lined up on one true-time axis
// (layout.Compare), side by side. Each run is a lane; the rows of all lanes
// share lines, so that a line is one moment across the drawing.

// line is one row of the drawing across its lanes, or the band that says how
// many were left out of a long run.
type line struct {
	at      sim.Time // true time; -1 for the cut band
	skipped int      // the cut band: how many lines it stands for
	says    string   // the cut band's own words (a slide's: the rows before or after it)
	differs bool     // a comparison's line that only one run has
	top, h  float64
}

// anchor is the height at which the line's marks and arrows sit.
func (l *line) anchor() float64 { return l.top + rowGap/2 }

// item is what one lane shows on one line.
type item struct {
	row   int           // the lane's own row on this line, or -1
	spans []layout.Cell // without a row of its own: the marks that run on across (bars, pauses, downtime)
	said  []string      // a violation's sentence or a note's text, wrapped
	note  bool          // said is a note's text
}

// arrow is a message from its send to its delivery or drop, in lines.
type arrow struct {
	from, to int // lines; from is -1 when the send was cut away (it starts at the cut band)
	cut      int // the cut band's line, for a send cut away
	c0, c1   int // columns
	label    string
	dropped  bool
}

// bar is a span down one column over lines [from, to].
type bar struct {
	from, to int
	span     layout.Span
}

// lane is one run's part of a drawing.
type lane struct {
	res    *scenarios.Result
	tl     *layout.Timeline // its layout, or a quiet view of it
	name   string           // "A" or "B" in a comparison; "" alone
	items  []item           // one per line
	arrows []arrow
	bars   [][]bar // per column
	left   float64 // where its first column starts
	colW   float64
	width  float64
	// asked is the row of a question being asked (a slide's question): if
	// it is a note, the note's text is the answer, and is not said (-1: none).
	asked int
}

// x is column c's lifeline: left of the column's middle, so that its marks'
// labels have room on the right (less so in a slide's narrow columns).
func (ln *lane) x(c int) float64 {
	return ln.left + float64(c)*ln.colW + ln.colW/2 - min(40, max(ln.colW/2-20, 0))
}

// drawing is the geometry of a timeline, computed once and written as a
// standalone SVG or as the HTML viewer's chunks.
type drawing struct {
	lanes  []*lane
	lines  []line
	cmp    *layout.Comparison // two runs lined up; nil for one
	used   map[layout.CellKind]bool
	folded bool    // a quiet view folded background traffic into a row
	width  float64 // the whole image
	height float64 // the body (lines)
	// narrated marks the rows where a narration starts, as the terminal UI does
	// (the HTML viewer, which shows the narration beside the drawing).
	narrated bool
	// window: the drawing is of a stretch of the run (nil: all of it), so
	// time is scaled to the stretch its lines span, not to the whole run.
	window *Window
	// budget is the most height the lines may take (0: as much as they need):
	// a slide gives time only the room the rows leave.
	budget float64
}

// timeline lays out a run, in its quiet view when asked, cut to a window of
// true time when given one (the window last: Cut keeps the spans of the whole).
func timeline(res *scenarios.Result, quiet bool, w *Window) *layout.Timeline {
	tl := layout.New(res.Trace, &res.Report)
	if quiet {
		tl = tl.Filter(layout.Filter{Quiet: true})
	}
	if w != nil {
		tl = tl.Window(w.From, w.To)
	}
	return tl
}

// newDrawing draws one run.
func newDrawing(res *scenarios.Result, opt Options) *drawing {
	return drawRun(res, timeline(res, opt.Quiet, opt.Window), opt)
}

func drawRun(res *scenarios.Result, tl *layout.Timeline, opt Options) *drawing {
	d := &drawing{window: opt.Window}
	d.addLane(res, tl, "", colW)
	d.addRows(shown(tl.Len(), opt.Full, func(r int) bool { return tl.RowEvent(r) < 0 }))
	d.finish(opt.ByRow)
	return d
}

// addRows gives the drawing of one run a line per row that list shows, and a
// cut band for each stretch it leaves out.
func (d *drawing) addRows(list []shownLine) {
	ln := d.lanes[0]
	for _, s := range list {
		if s.skipped > 0 {
			d.lines = append(d.lines, line{at: -1, skipped: s.skipped})
			ln.items = append(ln.items, item{row: -1, spans: ln.tl.Row(s.i).Cells})
			continue
		}
		d.lines = append(d.lines, line{at: ln.tl.RowTime(s.i)})
		ln.items = append(ln.items, ln.item(s.i))
	}
}

// compare lines two runs up as the terminal UI's compare does, in their quiet
// views when asked, each cut to the window when given one.
func compare(a, b *scenarios.Result, quiet bool, w *Window) *layout.Comparison {
	return layout.Compare(timeline(a, quiet, w), timeline(b, quiet, w))
}

// newCompareDrawing draws two runs side by side on one true-time axis.
func newCompareDrawing(a, b *scenarios.Result, opt Options) *drawing {
	return drawCompare(a, b, compare(a, b, opt.Quiet, opt.Window), opt)
}

// drawCompare draws a comparison: a line per line of it; a long one keeps its
// first and last lines, its violations and its differences (compareKeep).
func drawCompare(a, b *scenarios.Result, c *layout.Comparison, opt Options) *drawing {
	d := &drawing{cmp: c, window: opt.Window}
	d.addLane(a, c.A, "A", compareColW)
	d.addLane(b, c.B, "B", compareColW)
	for _, s := range shown(c.Len(), opt.Full, compareKeep(c)) {
		if s.skipped > 0 {
			d.lines = append(d.lines, line{at: -1, skipped: s.skipped})
		} else {
			d.lines = append(d.lines, line{at: c.Time(s.i), differs: c.Differs(s.i)})
		}
		ra, rb := c.Own(s.i)
		for k, r := range []int{ra, rb} {
			ln := d.lanes[k]
			if s.skipped == 0 && r >= 0 {
				ln.items = append(ln.items, ln.item(r))
			} else {
				ln.items = append(ln.items, item{row: -1, spans: c.Cells(k == 1, s.i)})
			}
		}
	}
	d.finish(opt.ByRow)
	return d
}

// compareKeep says which lines in the middle of a long comparison stay when it
// is cut: every violation, and the differences up to CutHead of them (two runs
// that part for good, Paxos's dueling proposers with and without backoff,
// differ on nearly every line after the first difference).
func compareKeep(c *layout.Comparison) func(int) bool {
	diffs := CutHead
	return func(i int) bool {
		ra, rb := c.Own(i)
		if ra >= 0 && c.A.RowEvent(ra) < 0 || rb >= 0 && c.B.RowEvent(rb) < 0 {
			return true
		}
		if c.Differs(i) && diffs > 0 {
			diffs--
			return true
		}
		return false
	}
}

// addLane adds a run's lane right of the others.
func (d *drawing) addLane(res *scenarios.Result, tl *layout.Timeline, name string, cw float64) *lane {
	ln := &lane{res: res, tl: tl, name: name, colW: cw, left: gutter, asked: -1}
	if n := len(d.lanes); n > 0 {
		ln.left = d.lanes[n-1].left + d.lanes[n-1].width + laneGap
	}
	ln.width = float64(len(tl.Columns())) * cw
	if name == "" {
		ln.width = max(ln.width, minText)
	}
	ln.bars = make([][]bar, len(tl.Columns()))
	d.lanes = append(d.lanes, ln)
	d.width = ln.left + ln.width + margin
	return ln
}

// item is row r as the lane shows it: a violation's sentence and a note's text
// are written out under the row.
func (ln *lane) item(r int) item {
	it := item{row: r}
	chars := int((ln.width - 16) / charW)
	ev := ln.tl.RowEvent(r)
	if ev < 0 {
		it.said = wrap("◆ "+strings.TrimPrefix(ln.tl.Row(r).Text, "VIOLATION "), chars)
	} else if t := ln.res.Trace; t.Event(ev).Kind == sim.EvNote && r != ln.asked {
		if text := scenarios.NoteText(t, t.Event(ev)); text != "" {
			it.said, it.note = wrap(layout.CellNote.Glyph()+" "+text, chars), true
		}
	}
	return it
}

// shownLine is a line shown (i), or a cut band standing for the skipped lines
// from i on.
type shownLine struct{ i, skipped int }

// shown lists the lines of n an export draws, top to bottom: every line, or,
// for a long run without full, those `locksim run` shows: the first CutHead and
// last CutTail, and those between that keep says must stay, with a cut band
// where lines are left out.
func shown(n int, full bool, keep func(int) bool) []shownLine {
	head, tail := CutHead, CutTail
	cut := !full && n > head+tail
	var out []shownLine
	first, skipped := 0, 0
	for i := range n {
		if cut && i >= head && i < n-tail && !keep(i) {
			if skipped == 0 {
				first = i
			}
			skipped++
			continue
		}
		if skipped > 0 {
			out = append(out, shownLine{first, skipped})
			skipped = 0
		}
		out = append(out, shownLine{i, 0})
	}
	return out
}

// finish gives each line its height (the tallest of its lanes' items), places
// the lines, and finds each lane's arrows, spans and marks.
func (d *drawing) finish(byRow bool) {
	d.used = map[layout.CellKind]bool{}
	for i := range d.lines {
		l := &d.lines[i]
		l.h = rowGap
		if l.at < 0 {
			l.h = rowGap * 1.5
		}
		for _, ln := range d.lanes {
			if said := ln.items[i].said; said != nil {
				l.h = max(l.h, rowGap+float64(len(said))*lineH+4)
			}
		}
	}
	d.place(byRow)
	for _, ln := range d.lanes {
		d.collect(ln)
	}
}

// place sets each line's top: lines follow each other at least rowGap apart, and
// by true time also as far apart as the time between them, at a scale that gives
// time about half the height the lines take.
func (d *drawing) place(byRow bool) {
	start, end := sim.Time(0), sim.Time(0)
	for _, ln := range d.lanes {
		end = max(end, ln.res.Trace.End)
	}
	if d.window != nil || d.budget > 0 { // a stretch of the run: the time its lines span
		start, end = sim.Never, 0
		for _, l := range d.lines {
			if l.at >= 0 {
				start, end = min(start, l.at), max(end, l.at)
			}
		}
	}
	perSec := 0.0
	if span := float64(end-start) / 1e9; !byRow && span > 0 {
		perSec = min(float64(len(d.lines))*rowGap*0.5/span, 400)
		if d.budget > 0 {
			rows := 16.0
			for _, l := range d.lines {
				rows += l.h
			}
			perSec = min(perSec, max(d.budget-rows, 0)/span)
		}
	}
	y := 8.0
	last := sim.Time(-1)
	for i := range d.lines {
		l := &d.lines[i]
		if l.at >= 0 {
			if last >= 0 && perSec > 0 {
				y += perSec * float64(l.at-last) / 1e9
			}
			last = l.at
		} else {
			last = -1 // time across the cut is not drawn
		}
		l.top = y
		y += l.h
	}
	d.height = y + 8
}

// cells is what lane ln shows on line i.
func (ln *lane) cells(i int) []layout.Cell {
	if it := &ln.items[i]; it.row >= 0 {
		return ln.tl.Row(it.row).Cells
	}
	return ln.items[i].spans
}

// collect finds a lane's arrows, its spans and the kinds of mark drawn.
func (d *drawing) collect(ln *lane) {
	t := ln.res.Trace
	sends := map[uint64]int{} // a message's id -> the line of its send
	lastCut := -1
	n := len(ln.tl.Columns())
	open := make([]map[layout.Span]int, n)
	for c := range open {
		open[c] = map[layout.Span]int{}
	}
	spans := []layout.Span{layout.SpanBelief, layout.SpanPromise, layout.SpanPaused, layout.SpanDown}
	for i := range d.lines {
		if d.lines[i].at < 0 {
			lastCut = i
		}
		row := layout.Row{Event: -1}
		cells := ln.items[i].spans
		if r := ln.items[i].row; r >= 0 {
			row = ln.tl.Row(r)
			cells = row.Cells
		}
		for c, cell := range cells {
			for _, s := range spans {
				from, on := open[c][s]
				switch {
				case cell.Spans&s != 0 && !on:
					open[c][s] = i
				case cell.Spans&s == 0 && on:
					ln.bars[c] = append(ln.bars[c], bar{from, i - 1, s})
					delete(open[c], s)
				}
			}
			if drawnCell(cell.Kind) {
				d.used[cell.Kind] = true
			}
			d.folded = d.folded || cell.Spans&layout.SpanFolded != 0
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
			if !ok { // sent in the lines cut away (or folded by quiet)
				from = -1
			}
			ln.arrows = append(ln.arrows, arrow{from: from, to: i, cut: lastCut, c0: ln.tl.Column(e.Peer), c1: ln.tl.Column(e.Proc),
				label: t.Msg(e).Op, dropped: e.Kind == sim.EvDrop})
		}
	}
	for c := range open {
		for _, s := range spans {
			if from, on := open[c][s]; on {
				ln.bars[c] = append(ln.bars[c], bar{from, len(d.lines) - 1, s})
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

// chunks groups the lines in chunks of chunkRows.
func (d *drawing) chunks() int { return (len(d.lines) + chunkRows - 1) / chunkRows }

// chunkIndex lists, per chunk, a lane's arrows and bars written in it: with
// only, in the chunk where each starts (a standalone SVG writes every chunk
// once); without, in every chunk it crosses (the viewer shows a few chunks at a
// time).
type chunkIndex struct {
	arrows [][]int    // indexes into lane.arrows
	bars   [][][2]int // column, index into lane.bars[column]
}

func (d *drawing) index(only bool) []chunkIndex {
	n := d.chunks()
	chunks := func(from, to int) (int, int) {
		if only {
			return from / chunkRows, from / chunkRows
		}
		return from / chunkRows, to / chunkRows
	}
	var out []chunkIndex
	for _, ln := range d.lanes {
		ci := chunkIndex{make([][]int, n), make([][][2]int, n)}
		for i, a := range ln.arrows {
			from := a.from
			if from < 0 {
				from = a.cut
			}
			if from < 0 { // folded away before any cut: the arrow starts at its head
				from = a.to
			}
			lo, hi := chunks(from, a.to)
			for k := lo; k <= hi; k++ {
				ci.arrows[k] = append(ci.arrows[k], i)
			}
		}
		for c, bars := range ln.bars {
			for j, br := range bars {
				lo, hi := chunks(br.from, br.to)
				for k := lo; k <= hi; k++ {
					ci.bars[k] = append(ci.bars[k], [2]int{c, j})
				}
			}
		}
		out = append(out, ci)
	}
	return out
}

// writeChunk writes chunk k's marks: the bands behind violations, notes and
// differences, then bars, arrows, and the lines' times, marks and labels, so
// that marks sit on top. A bar crossing chunks is written in the viewer's
// chunks as the piece in each, so that chunks shown side by side join up.
func (d *drawing) writeChunk(b *strings.Builder, k int, ci []chunkIndex, only bool) {
	lo, hi := k*chunkRows, min((k+1)*chunkRows, len(d.lines))-1
	for i := lo; i <= hi; i++ {
		l := &d.lines[i]
		for _, ln := range d.lanes {
			it := &ln.items[i]
			class := ""
			switch {
			case it.row < 0:
			case it.said != nil && it.note:
				class = "nband"
			case it.said != nil:
				class = "band"
			case l.differs:
				class = "diff"
			}
			if class != "" {
				fmt.Fprintf(b, `<rect class="%s" x="%s" y="%s" width="%s" height="%s"/>`, class, num(ln.left-4), num(l.top+2), num(ln.width+8), num(l.h-4))
			}
		}
	}
	// Belief bars first; a pause or downtime is a narrower stripe on top, so a
	// paused client that still believes shows both. A service's promise is an
	// outlined bar of its own left of the lifeline, clear of the marks on it
	// and of a belief bar in the same column (a Redlock client promises
	// itself the quorum it won).
	for _, pass := range []layout.Span{layout.SpanBelief, layout.SpanPromise, layout.SpanPaused | layout.SpanDown} {
		for n, ln := range d.lanes {
			for _, cb := range ci[n].bars[k] {
				c, br := cb[0], ln.bars[cb[0]][cb[1]]
				if br.span&pass == 0 {
					continue
				}
				top, bottom := d.lines[br.from].top, d.lines[br.to].top+d.lines[br.to].h
				if !only {
					top, bottom = max(top, d.lines[lo].top), min(bottom, d.lines[hi].top+d.lines[hi].h)
				}
				x, w, class := ln.x(c)-5, 10.0, fmt.Sprintf("bar c%d", int(ln.tl.Columns()[c].Proc)%len(barColours))
				switch br.span {
				case layout.SpanPromise:
					x, w, class = ln.x(c)-promiseGap-promiseW, promiseW, "promise"
				case layout.SpanPaused:
					x, w, class = ln.x(c)-2, 4, "paused"
				case layout.SpanDown:
					x, w, class = ln.x(c)-2, 4, "down"
				}
				fmt.Fprintf(b, `<rect class="%s" x="%s" y="%s" width="%s" height="%s"/>`, class, num(x), num(top), num(w), num(bottom-top))
			}
		}
	}
	for n, ln := range d.lanes {
		for _, a := range ci[n].arrows[k] {
			d.writeArrow(b, ln, ln.arrows[a])
		}
	}
	for i := lo; i <= hi; i++ {
		d.writeLine(b, i)
	}
}

func (d *drawing) writeArrow(b *strings.Builder, ln *lane, a arrow) {
	// The head arrives just above the receiver's mark, clear of its label.
	x0, x1 := ln.x(a.c0), ln.x(a.c1)
	y1 := d.lines[a.to].anchor() - 7
	var y0 float64
	switch {
	case a.from >= 0:
		y0 = d.lines[a.from].anchor()
	case a.cut >= 0:
		y0 = d.lines[a.cut].top + d.lines[a.cut].h
	default: // its send was folded away: a stub into the delivery
		y0 = d.lines[a.to].top - 4
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
	fmt.Fprintf(b, `<text class="op" x="%s" y="%s" text-anchor="%s">%s</text>`, num(lx), num(y0-5), anchor, esc(cut(a.label, int(ln.colW-50)/10)))
}

// writeLine writes line i: its time, the ≠ of a difference, each lane's marks
// and labels, and the sentences said under it.
func (d *drawing) writeLine(b *strings.Builder, i int) {
	l := &d.lines[i]
	if l.at < 0 {
		mid := l.top + l.h/2
		fmt.Fprintf(b, `<line class="cut" x1="%d" y1="%s" x2="%s" y2="%s"/>`, gutter-4, num(mid), num(d.width-margin), num(mid))
		what := fmt.Sprintf("%d %s left out (--full shows them)", l.skipped, map[bool]string{false: "rows", true: "lines"}[d.cmp != nil])
		if l.says != "" {
			what = l.says
		}
		fmt.Fprintf(b, `<text class="time" x="%s" y="%s" text-anchor="middle">⋯ %s ⋯</text>`, num((gutter+d.width-margin)/2), num(mid-4), esc(what))
		return
	}
	y := l.anchor()
	if i == 0 || d.lines[i-1].at != l.at {
		fmt.Fprintf(b, `<text class="time" x="%d" y="%s">%s</text>`, gutter-12, num(y+5), l.at)
	}
	if l.differs {
		fmt.Fprintf(b, `<text class="differs" x="%s" y="%s">≠</text>`, num(d.lanes[len(d.lanes)-1].left-laneGap/2), num(y+5))
	}
	for _, ln := range d.lanes {
		it := &ln.items[i]
		cells := ln.cells(i)
		if d.narrated && it.row >= 0 {
			if _, at := ln.tl.Narration(it.row); at == it.row {
				fmt.Fprintf(b, `<text class="narr" x="%s" y="%s">%s</text>`, num(ln.left-6), num(y+5), layout.CellNote.Glyph())
			}
		}
		room := int(math.Floor((ln.colW - 30) / charW))
		for c, cell := range cells {
			if cell.Kind == layout.CellEmpty && cell.Spans&layout.SpanFolded != 0 {
				fmt.Fprintf(b, `<text class="fold" x="%s" y="%s">∙</text>`, num(ln.x(c)), num(y+5))
			}
			if !drawnCell(cell.Kind) {
				continue
			}
			fmt.Fprintf(b, `<text class="mark k%d" x="%s" y="%s">%s</text>`, cell.Kind, num(ln.x(c)), num(y+5), esc(glyph(cell.Kind)))
			// A lost message's label is on its arrow; a note's text is said under the row.
			if label := cellLabel(cell, room); label != "" && cell.Kind != layout.CellDrop && !(cell.Kind == layout.CellNote && it.note) {
				fmt.Fprintf(b, `<text class="k%d" x="%s" y="%s">%s</text>`, cell.Kind, num(ln.x(c)+12), num(y+5), esc(label))
			}
		}
		class := "said"
		if it.note {
			class = "nsaid"
		}
		for j, s := range it.said {
			fmt.Fprintf(b, `<text class="%s" x="%s" y="%s">%s</text>`, class, num(ln.left+4), num(l.top+rowGap+float64(j)*lineH+10), esc(s))
		}
	}
}

// cellLabel is a cell's word in room characters: its label, else its short
// word, else the label cut (the layout's order, layout.CellText).
func cellLabel(c layout.Cell, room int) string {
	if len([]rune(c.Label)) > room && c.Short != "" && len([]rune(c.Short)) <= room {
		return c.Short
	}
	return cut(c.Label, room)
}

// headHeight is the height of the column headers: a comparison names its runs
// above them.
func (d *drawing) headHeight() float64 {
	if d.cmp != nil {
		return columnsHeight + 24
	}
	return columnsHeight
}

// writeColumns writes the column headers: each run's name and verdict in a
// comparison, then the name and role over each lifeline.
func (d *drawing) writeColumns(b *strings.Builder, y float64) {
	if d.cmp != nil {
		for _, ln := range d.lanes {
			r := ln.res
			fmt.Fprintf(b, `<text class="lane" x="%s" y="%s" fill="%s">%s</text>`, num(ln.left), num(y+16), verdictColour(string(r.Report.Verdict)),
				esc(cut(ln.name+"  "+r.Scenario.ID+"  "+string(r.Report.Verdict), int(ln.width/charW))))
		}
		y += 24
	}
	for _, ln := range d.lanes {
		for c, col := range ln.tl.Columns() {
			fmt.Fprintf(b, `<text class="name" x="%s" y="%s">%s</text>`, num(ln.x(c)), num(y+18), esc(col.Name))
			fmt.Fprintf(b, `<text class="role" x="%s" y="%s">%s</text>`, num(ln.x(c)), num(y+36), esc(cut(col.Role, int((ln.colW-8)/(charW*smallFont/fontSize)))))
		}
	}
}

// columnsHeight is the height of the column headers of one run.
const columnsHeight = 46

// writeLifelines writes each process's line down the body, and the line
// between the two runs of a comparison.
func (d *drawing) writeLifelines(b *strings.Builder) {
	for n, ln := range d.lanes {
		if n > 0 {
			x := ln.left - laneGap/2
			fmt.Fprintf(b, `<line class="sep" x1="%s" y1="0" x2="%s" y2="%s"/>`, num(x), num(x), num(d.height))
		}
		for c := range ln.tl.Columns() {
			fmt.Fprintf(b, `<line class="life" x1="%s" y1="0" x2="%s" y2="%s"/>`, num(ln.x(c)), num(ln.x(c)), num(d.height))
		}
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
	fmt.Fprintf(&b, ".mark{font-size:%dpx;text-anchor:middle;font-weight:bold}.said{fill:%s;stroke:%s}.nsaid{fill:%s;stroke:%s}",
		fontSize+2, colourViolation, colourBand, colourNote, colourNoteBand)
	fmt.Fprintf(&b, ".name{font-size:%dpx;font-weight:bold;text-anchor:middle}.role{font-size:%dpx;fill:%s;text-anchor:middle}.lane{font-size:%dpx;font-weight:bold}",
		fontSize+2, smallFont, colourTime, fontSize+2)
	fmt.Fprintf(&b, ".life{stroke:%s}.sep{stroke:%s;stroke-width:2px}.cut{stroke:%s;stroke-dasharray:2 6}.band{fill:%s}.nband{fill:%s}.diff{fill:%s}.paused{fill:%s}.down{fill:%s}.promise{fill:%s;stroke:%s;stroke-width:1.5px}",
		colourLifeline, colourLifeline, colourTime, colourBand, colourNoteBand, colourDiffBand, colourPaused, colourDown, colourPromiseFill, colourPromise)
	fmt.Fprintf(&b, ".differs{font-size:%dpx;font-weight:bold;text-anchor:middle;fill:%s}.narr{text-anchor:middle;font-weight:bold;fill:%s}.fold{text-anchor:middle;font-weight:bold;fill:%s}",
		fontSize+2, colourDiffers, colourNote, colourFolded)
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
