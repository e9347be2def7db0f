package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// The clocks panel at 120x40 gives each process one line: its wall clock (and
// how far that is from true time), its monotonic clock. Before, a line such as
// "C    wall 16.000s (+15.000s) mono 1.000s" or "z1   wall 6.668666665s mono
// 6.668666665s" wrapped in the side column, and the table was unreadable. Every
// catalogue run, at its start, its first faults and violation, and its end.
func TestClocksPanelDoesNotWrap(t *testing.T) {
	t.Parallel()
	cat, _ := catalogueRuns(t)
	for _, s := range cat {
		a := runApp(t, s.ID, Options{})()
		screen(a, 120, 40)
		for _, k := range []string{"g", "f", "f", "f", "n", "G"} {
			drive(a, keyMsg(k))
			p := a.run.panels[panelClocks]
			text := ansi.Strip(a.run.clockText())
			if n, lines := len(wrapLines(text, p.inner(), "")), strings.Count(text, "\n")+1; n != lines {
				t.Fatalf("%s after %s: the clocks panel (%d wide) wraps %d lines into %d:\n%s", s.ID, k, p.inner(), lines, n, text)
			}
		}
	}
	s := screen(runApp(t, "redlock-clock-jump", Options{})(), 120, 40, "f", "f", "f")
	if !strings.Contains(s, "C    16.000s +15s  1.000s") {
		t.Errorf("after the jump on C, the clocks panel does not read C    16.000s +15s  1.000s:\n%s", s)
	}
}
