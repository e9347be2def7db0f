package layout

import (
	"io"
	"strings"
	"unicode/utf8"
)

// ColumnWidth is the width of one process column in the plain-text rendering.
const ColumnWidth = 12

// CellText is a cell's plain text, exactly width runes wide: the belief bar (or the
// pause/down mark) in the first rune, then the glyph and label. The TUI colours the
// same text, so both show the same thing.
func CellText(c Cell, width int) string {
	var b strings.Builder
	switch {
	case c.Spans&SpanBelief != 0:
		b.WriteString("┃")
	case c.Spans&SpanDown != 0:
		b.WriteString("╎")
	default:
		b.WriteString(" ")
	}
	switch c.Kind {
	case CellEmpty:
		if c.Spans&SpanPaused != 0 {
			b.WriteString("⋮ paused")
		}
	case CellWire:
		b.WriteString(strings.Repeat("─", width-1))
	case CellSend:
		b.WriteString(c.Label + " ")
		if n := width - 1 - utf8.RuneCountInString(c.Label) - 1; n > 0 {
			b.WriteString(strings.Repeat("─", n))
		}
	case CellSendLeft:
		if n := width - 1 - utf8.RuneCountInString(c.Label) - 1; n > 0 {
			b.WriteString(strings.Repeat("─", n))
		}
		b.WriteString(" " + c.Label)
	case CellArrive:
		b.WriteString("─▷")
	case CellArriveLeft:
		b.WriteString(" ◁" + strings.Repeat("─", width-3))
	default:
		b.WriteString(c.Kind.Glyph())
		if c.Label != "" {
			b.WriteString(" " + c.Label)
		}
	}
	return pad(b.String(), width)
}

// pad cuts or fills s to exactly width runes.
func pad(s string, width int) string {
	n := utf8.RuneCountInString(s)
	if n > width {
		r := []rune(s)
		return string(r[:width-1]) + "…"
	}
	return s + strings.Repeat(" ", width-n)
}

// Header is the column header line of the plain-text rendering.
func (tl *Timeline) Header(width int) string {
	var b strings.Builder
	b.WriteString(pad("true time", tl.timeW) + " ")
	for _, c := range tl.cols {
		b.WriteString(pad(" "+c.Name, width))
	}
	return strings.TrimRight(b.String(), " ")
}

// RowText is row r in plain text: time, cells, then the row's sentence.
func (tl *Timeline) RowText(r, width int) string {
	row := tl.Row(r)
	var b strings.Builder
	at := row.At.String()
	w := tl.timeW
	if row.Kind == RowViolation {
		b.WriteString(pad("◆"+strings.Repeat(" ", max(0, w-1-len(at)))+at, w) + " ")
	} else {
		b.WriteString(strings.Repeat(" ", max(0, w-len(at))) + at + " ")
	}
	for _, c := range row.Cells {
		b.WriteString(CellText(c, width))
	}
	b.WriteString("  " + row.Text)
	return b.String()
}

// WriteText renders the whole timeline as plain text.
func (tl *Timeline) WriteText(w io.Writer) error { return tl.WriteElided(w, 0, 0) }

// WriteElided renders the timeline as `locksim run` prints it: with head > 0 a
// long timeline shows its first head and last tail rows, every violation row, and
// says how many rows it left out.
func (tl *Timeline) WriteElided(w io.Writer, head, tail int) error {
	return tl.WriteFitted(w, head, tail, 0)
}

// String is the plain-text rendering.
func (tl *Timeline) String() string {
	var b strings.Builder
	tl.WriteText(&b)
	return b.String()
}
