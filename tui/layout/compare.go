package layout

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/locksim/locksim/sim"
)

// Comparison lines two runs up on true time, row against row, the way a
// side-by-side diff lines up two files: rows that show the same thing at the same
// time share a line; a row only one run has gets a line of its own, and that line
// is a difference. The usual pair is a lesson's fault and its control (the same
// scenario with one line changed), which agree up to the fault.
type Comparison struct {
	A, B  *Timeline
	lines []pairLine
	diffs []int // built on first use
}

// pairLine is one line: each side's row at or before it (-1 before its first
// row), and which sides have their own row on it.
type pairLine struct {
	a, b int32
	own  uint8 // ownA | ownB
}

const (
	ownA uint8 = 1 << iota
	ownB
)

// lookahead is how far down the other side a row is looked for among rows of the
// same true time, so that one extra row on one side does not unpair the rest.
const lookahead = 8

// Compare lines up a and b.
func Compare(a, b *Timeline) *Comparison {
	c := &Comparison{A: a, B: b}
	na, nb := a.Len(), b.Len()
	i, j := 0, 0
	emit := func(own uint8) {
		switch own {
		case ownA | ownB:
			i, j = i+1, j+1
		case ownA:
			i++
		case ownB:
			j++
		}
		c.lines = append(c.lines, pairLine{a: int32(i - 1), b: int32(j - 1), own: own})
	}
	for i < na || j < nb {
		switch {
		case j >= nb:
			emit(ownA)
		case i >= na:
			emit(ownB)
		case sameRow(a, i, b, j):
			emit(ownA | ownB)
		case a.RowTime(i) < b.RowTime(j):
			emit(ownA)
		case b.RowTime(j) < a.RowTime(i):
			emit(ownB)
		default: // the same time, different rows: is one an extra row before a match?
			if k := findAhead(b, j, a, i); k > j {
				for j < k {
					emit(ownB)
				}
			} else {
				emit(ownA)
			}
		}
	}
	return c
}

// findAhead looks for row i of x among the next rows of y from j that have the
// same true time; it returns that row, or -1.
func findAhead(y *Timeline, j int, x *Timeline, i int) int {
	at := x.RowTime(i)
	for k := j + 1; k < y.Len() && k <= j+lookahead && y.RowTime(k) == at; k++ {
		if sameRow(x, i, y, k) {
			return k
		}
	}
	return -1
}

// sameRow reports whether row i of x and row j of y show the same thing: the
// same event (by process names, message and note) with the same observations,
// or the same violation, at the same true time.
func sameRow(x *Timeline, i int, y *Timeline, j int) bool {
	if x.RowTime(i) != y.RowTime(j) {
		return false
	}
	ei, ej := x.RowEvent(i), y.RowEvent(j)
	if ei < 0 || ej < 0 {
		if ei >= 0 || ej >= 0 {
			return false
		}
		vx, vy := x.viols[-1-int(x.refs[i])], y.viols[-1-int(y.refs[j])]
		return vx.name == vy.name && vx.v.Detail == vy.v.Detail
	}
	tx, ty := x.t, y.t
	a, b := tx.Event(ei), ty.Event(ej)
	if a.Kind != b.Kind || a.Dur != b.Dur || tx.Name(a.Proc) != ty.Name(b.Proc) || tx.Name(a.Peer) != ty.Name(b.Peer) ||
		tx.Note(a) != ty.Note(b) || !sameMessage(tx.Msg(a), ty.Msg(b)) {
		return false
	}
	ox, oy := x.observations(ei), y.observations(ej)
	if len(ox) != len(oy) {
		return false
	}
	for k := range ox {
		if tx.ObsText(&ox[k]) != ty.ObsText(&oy[k]) {
			return false
		}
	}
	return true
}

// sameMessage compares two messages by their text form (their request ids pair
// replies within one run and say nothing across runs).
func sameMessage(a, b sim.Message) bool {
	a.ID, b.ID = 0, 0
	if a.Body == nil && b.Body == nil {
		return a == b
	}
	return a.String() == b.String()
}

// Len is the number of lines.
func (c *Comparison) Len() int { return len(c.lines) }

// Own returns each side's own row on line i, or -1 when that side has none there.
func (c *Comparison) Own(i int) (a, b int) {
	l := c.lines[i]
	a, b = -1, -1
	if l.own&ownA != 0 {
		a = int(l.a)
	}
	if l.own&ownB != 0 {
		b = int(l.b)
	}
	return a, b
}

// At returns each side's row at or before line i (-1 before that side's first):
// what each side shows when the cursor is on line i.
func (c *Comparison) At(i int) (a, b int) { return int(c.lines[i].a), int(c.lines[i].b) }

// Differs reports whether line i is a row only one run has.
func (c *Comparison) Differs(i int) bool { return c.lines[i].own != ownA|ownB }

// Time is line i's true time.
func (c *Comparison) Time(i int) sim.Time {
	a, b := c.Own(i)
	if a >= 0 {
		return c.A.RowTime(a)
	}
	return c.B.RowTime(b)
}

// Differences lists the first line of each run of differing lines: where `d`
// jumps to.
func (c *Comparison) Differences() []int {
	if c.diffs == nil {
		c.diffs = []int{}
		for i := range c.lines {
			if c.Differs(i) && (i == 0 || !c.Differs(i-1)) {
				c.diffs = append(c.diffs, i)
			}
		}
	}
	return c.diffs
}

// LineOf is the first line that shows row r of side A (or B), or a later one:
// where a cursor lands when it comes from a single-run view.
func (c *Comparison) LineOf(sideB bool, r int) int {
	i := sort.Search(len(c.lines), func(i int) bool {
		a, b := c.At(i)
		if sideB {
			return b >= r
		}
		return a >= r
	})
	return min(i, max(len(c.lines)-1, 0))
}

// Cells is side A's (or B's) cells on line i: its own row's, or, on a line only
// the other side has, the marks that run on across the gap (bars, pauses,
// downtime) and nothing else.
func (c *Comparison) Cells(sideB bool, i int) []Cell {
	tl, at := c.A, int(c.lines[i].a)
	own := c.lines[i].own&ownA != 0
	if sideB {
		tl, at, own = c.B, int(c.lines[i].b), c.lines[i].own&ownB != 0
	}
	if own {
		return tl.Row(at).Cells
	}
	return tl.Between(at)
}

// Between is the cells between row r and the next one: only the spans that run on
// across (r = -1: before the first row).
func (tl *Timeline) Between(r int) []Cell {
	cells := make([]Cell, len(tl.cols))
	for i, col := range tl.cols {
		if r >= 0 && r+1 < tl.Len() {
			cells[i].Spans = tl.gapAt(int(col.Proc), r) &^ SpanFolded
		}
	}
	return cells
}

// gapAt is the spans of column c in force after row r's event and before row
// r+1's: begun at or before r's, ended at or after r+1's. Each kind keeps its
// rows its own way (buildSpans): a belief is drawn down to the row that ends
// it (to is that row + 1); a pause and a downtime begin on the row after the
// one that starts them and stop before the one that ends them; a promise
// begins on its grant's row and stops before the first row at or after its end.
func (tl *Timeline) gapAt(c, r int) Span {
	var s Span
	for _, sr := range tl.spans[c] {
		first, last := sr.from, sr.to-1 // the rows of the events that begin and end it
		switch sr.span {
		case SpanPaused, SpanDown:
			first, last = sr.from-1, sr.to
		case SpanPromise:
			last = sr.to
		}
		if first <= r && last >= r+1 {
			s |= sr.span
		}
	}
	return s
}

// WriteText writes the comparison as `locksim run A --vs B` prints it: one line
// per line of the comparison, A's cells then B's, a ≠ before the lines only one
// run has, then those rows' sentences. With head > 0 a long comparison shows its
// first head and last tail lines and every difference.
func (c *Comparison) WriteText(w io.Writer, names [2]string, colW, head, tail int) error {
	bw := bufio.NewWriter(w)
	tw := max(c.A.timeW, c.B.timeW)
	side := func(tl *Timeline, name string) string {
		width := len(tl.cols) * colW
		h := pad(" "+name, width) + "\n"
		var b strings.Builder
		for _, col := range tl.cols {
			b.WriteString(pad(" "+col.Name, colW))
		}
		return h + b.String()
	}
	ha, hb := strings.Split(side(c.A, "A: "+names[0]), "\n"), strings.Split(side(c.B, "B: "+names[1]), "\n")
	for k := range 2 {
		t := "true time"
		if k == 1 {
			t = ""
		}
		fmt.Fprintf(bw, "  %-*s │%s │%s\n", tw, t, ha[k], strings.TrimRight(hb[k], " "))
	}
	skipped := 0
	for i := range c.Len() {
		if head > 0 && c.Len() > head+tail && i >= head && i < c.Len()-tail && !c.Differs(i) {
			skipped++
			continue
		}
		if skipped > 0 {
			fmt.Fprintf(bw, "  ... %d lines left out ...\n", skipped)
			skipped = 0
		}
		mark := " "
		if c.Differs(i) {
			mark = "≠"
		}
		var a, b strings.Builder
		for _, cell := range c.Cells(false, i) {
			a.WriteString(CellText(cell, colW))
		}
		for _, cell := range c.Cells(true, i) {
			b.WriteString(CellText(cell, colW))
		}
		fmt.Fprintf(bw, "%s %*s │%s │%s\n", mark, tw, c.Time(i), a.String(), strings.TrimRight(b.String(), " "))
	}
	if d := c.Differences(); len(d) == 0 {
		fmt.Fprintf(bw, "\nThe runs do not differ.\n")
	} else {
		fmt.Fprintf(bw, "\nRows only one run has (%d runs of differing lines, the first at %s):\n", len(d), c.Time(d[0]))
		for i := range c.Len() {
			if !c.Differs(i) {
				continue
			}
			a, b := c.Own(i)
			who, tl, r := "A", c.A, a
			if a < 0 {
				who, tl, r = "B", c.B, b
			}
			fmt.Fprintf(bw, "  %*s  %s  %s\n", tw, c.Time(i), who, tl.Row(r).Text)
		}
	}
	return bw.Flush()
}
