package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/locksim/locksim/tui/layout"
)

// Detail is the selected row's whole text, wrapped, under the timeline: the event,
// what its step reported, the violation's sentence. A cell may abbreviate; the
// detail never does.
type Detail struct {
	com   *Common
	label string // what the row belongs to (a compare side), or ""
	row   layout.Row
	empty string // said when there is no row
	w, h  int
}

// NewDetail makes an empty detail line.
func NewDetail(com *Common) Detail { return Detail{com: com} }

// SetRow shows a row; label names its run when two are shown.
func (d *Detail) SetRow(row layout.Row, label string) { d.row, d.label, d.empty = row, label, "" }

// SetEmpty shows a sentence instead of a row (a compare side before its first row).
func (d *Detail) SetEmpty(label, text string) { d.row, d.label, d.empty = layout.Row{}, label, text }

// SetSize sets the detail's size.
func (d *Detail) SetSize(w, h int) { d.w, d.h = w, h }

// lines is the wrapped text at width w.
func (d Detail) lines(w int) []string {
	s := d.com.Styles
	head := d.label
	if d.empty != "" || len(d.row.Lines) == 0 {
		return wrapLines(head+s.Dim.Render(d.empty), w, "")
	}
	head += d.row.At.String() + "  "
	indent := strings.Repeat(" ", ansi.StringWidth(head))
	var out []string
	for i, l := range d.row.Lines {
		if d.row.Kind == layout.RowViolation {
			l = s.Violation.Render(l)
		}
		if i == 0 {
			out = append(out, wrapLines(s.Title.Render(head)+l, w, indent)...)
		} else {
			out = append(out, wrapLines(indent+l, w, indent)...)
		}
	}
	return out
}

// Needed is how many lines show the whole text at width w.
func (d Detail) Needed(w int) int { return len(d.lines(w)) }

// View draws the detail at its size; what does not fit ends in an ellipsis.
func (d Detail) View() string {
	ls := d.lines(d.w)
	if len(ls) > d.h && d.h > 0 {
		ls = ls[:d.h]
		ls[d.h-1] = ansi.Truncate(ls[d.h-1], d.w-1, "") + "…"
	}
	return box(ls, d.w, d.h)
}
