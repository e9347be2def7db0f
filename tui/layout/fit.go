package layout

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/locksim/locksim/sim"
)

// MinColumnWidth is the narrowest a process column gets when the timeline is
// fitted into a width: the bar, the glyph, a blank and two runes of label.
const MinColumnWidth = 5

// minSentence is the least room a fitted row keeps for its sentence; below it,
// rows are cut at the width instead of wrapped.
const minSentence = 24

// FitColumnWidth is the column width with which the plain-text timeline fits
// into width runes, keeping room for the sentences: ColumnWidth when it fits,
// narrower down to MinColumnWidth (CellText shortens the labels), and
// ColumnWidth for width 0 (unlimited).
func (tl *Timeline) FitColumnWidth(width int) int {
	if width <= 0 || len(tl.cols) == 0 {
		return ColumnWidth
	}
	room := width - (tl.timeW + 1) - 2 - minSentence
	return min(max(room/len(tl.cols), MinColumnWidth), ColumnWidth)
}

// WriteFitted is WriteElided fitted into width runes (0: unlimited): the columns
// shrink to FitColumnWidth, and a row's sentence wraps under the sentence column
// with the row's bars continued beside it, so no line is longer than width. When
// even the narrowest columns leave no room for a sentence, lines are cut at the
// width (the event log above has every word).
func (tl *Timeline) WriteFitted(w io.Writer, head, tail, width int) error {
	colW := tl.FitColumnWidth(width)
	prefix := tl.timeW + 1 + len(tl.cols)*colW + 2
	room := width - prefix
	fit := func(s string) string {
		if width > 0 && len([]rune(s)) > width {
			return pad(s, width)
		}
		return s
	}
	bw := bufio.NewWriter(w)
	bw.WriteString(fit(tl.Header(colW)) + "\n")
	skipped := 0
	for r := 0; r < tl.Len(); r++ {
		if head > 0 && tl.Len() > head+tail && r >= head && r < tl.Len()-tail && tl.refs[r] >= 0 {
			skipped++
			continue
		}
		if skipped > 0 {
			fmt.Fprintf(bw, "%s\n", fit(fmt.Sprintf("          ... %d rows left out ...", skipped)))
			skipped = 0
		}
		line := tl.RowText(r, colW)
		if width <= 0 || room < minSentence {
			bw.WriteString(fit(line) + "\n")
			continue
		}
		runes := []rune(line)
		parts := sim.Wrap(string(runes[prefix:]), room)
		if len(parts) == 0 {
			parts = []string{""}
		}
		for i, part := range parts {
			if i > 0 {
				bw.WriteString(tl.continuation(r, colW))
			} else {
				bw.WriteString(string(runes[:prefix]))
			}
			bw.WriteString(pad(part, min(len([]rune(part)), room)) + "\n")
		}
	}
	return bw.Flush()
}

// continuation is the start of a wrapped row's next line: no time, and each
// column's bar (or pause, or downtime) as it runs through the row.
func (tl *Timeline) continuation(r, colW int) string {
	var b strings.Builder
	b.WriteString(strings.Repeat(" ", tl.timeW+1))
	for c := range tl.cols {
		b.WriteString(CellText(Cell{Spans: tl.spanAt(c, r)}, colW))
	}
	return b.String() + "  "
}
