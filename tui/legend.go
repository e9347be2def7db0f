package tui

import (
	"strings"

	"github.com/locksim/locksim/tui/layout"
)

// legendLines is the ? screen's legend: every mark of the timeline, generated
// from layout.Legend (the table the layout draws with) and drawn by the same
// cell renderer as the timeline, in the same colours; then the colours that are
// not marks (bars, badge, row marks).
func legendLines(s Styles) []string {
	const sampleW = 14
	lines := []string{s.Title.Render("Legend: what the timeline draws")}
	for _, e := range layout.Legend() {
		lines = append(lines, "  "+s.cell(e.Cell, 0, sampleW)+" "+e.Meaning)
	}
	var bars strings.Builder
	for _, b := range s.Bars {
		bars.WriteString(b.Render("┃"))
	}
	lines = append(lines,
		"  "+fit(" "+bars.String(), sampleW)+" belief bars take one colour per client",
		"  "+fit(s.Cursor.Render("▸")+" 2.103s", sampleW)+" the cursor's row",
		"  "+fit(s.Violation.Render("◆")+" "+s.Violation.Render("VIOLATION"), sampleW)+" a violation's row and sentence, in red",
		"  "+fit(s.Marker.Render(layout.CellNote.Glyph())+" 1.000s", sampleW)+" a narrated step or a note starts here",
		"  "+fit(s.Differs.Render("≠"), sampleW)+" compare: a row only one of the two runs has",
		s.Title.Render("The badge (first in the header)"),
		"  "+s.Badge.Render(" no violation so far ")+" nothing broken up to the cursor",
		"  "+s.BadgeBad.Render(" VIOLATED so far ")+" an invariant that decides the verdict is broken",
		"  "+s.BadgeWarn.Render(" beliefs overlap; data safe (fenced) ")+" lock-level invariants broken, the protected data is not",
		"  "+s.Mode.Render(" WALK ")+" a mode is on (WALK, PRESENT, QUIET, REVEAL)",
	)
	return lines
}
