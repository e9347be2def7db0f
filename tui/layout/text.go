package layout

import (
	"io"
	"strings"
	"unicode/utf8"
)

// ColumnWidth is the width of one process column in the plain-text rendering.
const ColumnWidth = 12

// CellText is a cell's plain text, exactly width runes wide: the belief bar (or the
// pause/down mark) in the first rune, then the glyph and label. A narrow column
// first drops the blank after the glyph, then takes the cell's Short word, and
// only then cuts with an ellipsis. The TUI colours the same text, so both show
// the same thing.
func CellText(c Cell, width int) string {
	var b strings.Builder
	switch {
	case c.Spans&SpanBelief != 0:
		b.WriteString("┃")
	case c.Spans&SpanPromise != 0:
		b.WriteString("│")
	case c.Spans&SpanDown != 0:
		b.WriteString("╎")
	default:
		b.WriteString(" ")
	}
	body := width - 1
	switch c.Kind {
	case CellEmpty:
		switch {
		case c.Spans&SpanPaused != 0:
			b.WriteString(choose(body, "⋮ paused", "⋮"))
		case c.Spans&SpanFolded != 0:
			b.WriteString("∙")
		}
	case CellWire:
		b.WriteString(strings.Repeat("─", body))
	case CellSend:
		l := choose(body, c.Label, c.Short)
		b.WriteString(l)
		if n := body - utf8.RuneCountInString(l) - 1; n >= 0 {
			b.WriteString(" " + strings.Repeat("─", n))
		}
	case CellSendLeft:
		l := choose(body, c.Label, c.Short)
		if n := body - utf8.RuneCountInString(l) - 1; n >= 0 {
			b.WriteString(strings.Repeat("─", n) + " ")
		}
		b.WriteString(l)
	case CellArrive:
		b.WriteString("─▷")
	case CellArriveLeft:
		b.WriteString(" ◁" + strings.Repeat("─", max(width-3, 0)))
	default:
		g := c.Kind.Glyph()
		if c.Label == "" {
			b.WriteString(g)
			break
		}
		alts := []string{g + " " + c.Label, g + c.Label}
		if c.Short != "" {
			alts = append(alts, g+" "+c.Short, g+c.Short)
		}
		b.WriteString(choose(body, alts...))
	}
	return pad(b.String(), width)
}

// choose returns the first of alts that fits in width runes, or the last one
// (which pad then cuts with an ellipsis).
func choose(width int, alts ...string) string {
	for _, a := range alts {
		if a != "" && utf8.RuneCountInString(a) <= width {
			return a
		}
	}
	for i := len(alts) - 1; i >= 0; i-- {
		if alts[i] != "" {
			return alts[i]
		}
	}
	return ""
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
