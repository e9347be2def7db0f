package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/locksim/locksim/tui/layout"
)

// legendLines is the ? screen's legend: every mark of the timeline, generated
// from layout.Legend (the table the layout draws with) and drawn by the same
// cell renderer as the timeline, in the same colours; then the colours that are
// not marks (bars, badge, row marks). A meaning wider than w is wrapped under
// itself, at spaces, so that no line is cut mid-word at 80 columns.
func legendLines(s Styles, w int) []string {
	const sampleW = 14
	lines := []string{s.Title.Render("Legend: what the timeline draws")}
	entry := func(sample, meaning string) {
		pad := ansi.StringWidth(sample) + 1
		for i, l := range wrapLines(meaning, max(w-pad, 20), "") {
			if i == 0 {
				lines = append(lines, sample+" "+l)
			} else {
				lines = append(lines, strings.Repeat(" ", pad)+l)
			}
		}
	}
	for _, e := range layout.Legend() {
		entry("  "+s.cell(e.Cell, 0, sampleW), e.Meaning)
	}
	var bars strings.Builder
	for _, b := range s.Bars {
		bars.WriteString(b.Render("┃"))
	}
	entry("  "+fit(" "+bars.String(), sampleW), "belief bars take one colour per client")
	entry("  "+fit(s.Cursor.Render("▸")+" 2.103s", sampleW), "the cursor's row")
	entry("  "+fit(s.Violation.Render("◆")+" "+s.Violation.Render("VIOLATION"), sampleW), "a violation's row and sentence, in red")
	entry("  "+fit(s.Marker.Render(layout.CellNote.Glyph())+" 1.000s", sampleW), "a narrated step or a note starts here")
	entry("  "+fit(s.Differs.Render("≠"), sampleW), "compare: a row only one of the two runs has")
	lines = append(lines, s.Title.Render("The badge (first in the header)"))
	entry("  "+s.Badge.Render(" no violation so far "), "nothing broken up to the cursor")
	entry("  "+s.BadgeBad.Render(" VIOLATED so far "), "an invariant that decides the verdict is broken")
	entry("  "+s.BadgeWarn.Render(" beliefs overlap; data safe (fenced) "), "lock-level invariants broken, the protected data is not")
	entry("  "+s.Mode.Render(" WALK "), "a mode is on (WALK, PRESENT, QUIET, REVEAL)")
	return lines
}
