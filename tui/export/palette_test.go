package export

import (
	"testing"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/tui/layout"
)

// TestEveryMarkHasAColour: every kind of cell the layout can draw as a mark
// (its legend lists them all) has a colour here, so a kind added to the layout
// (issue 16 added notes, votes and decisions) does not fall back to grey unseen.
func TestEveryMarkHasAColour(t *testing.T) {
	for _, e := range layout.Legend() {
		if k := e.Cell.Kind; drawnCell(k) {
			if _, ok := kindColours[k]; !ok {
				t.Errorf("the %s mark (%s) has no colour in kindColours", k.Glyph(), k.Meaning())
			}
		}
	}
}

// TestTheLegendSpeaksTheLayoutsWords: an exported legend says what each mark
// and span means in the words of the layout's table, the one the terminal UI's
// legend is generated from, so the two cannot drift apart.
func TestTheLegendSpeaksTheLayoutsWords(t *testing.T) {
	meaning := map[string]bool{}
	for _, e := range layout.Legend() {
		meaning[e.Meaning] = true
	}
	s, err := scenarios.Load("zk-leader-failover") // crashes, bars, downtime and, quiet, folded pings
	if err != nil {
		t.Fatal(err)
	}
	d := newDrawing(scenarios.Run(s, scenarios.RunOptions{}), Options{Full: true, Quiet: true})
	marks := 0
	for _, e := range legend(d) {
		if e.kind == "arrow" {
			continue // the drawing's own: the text layout has no arrow from send to delivery
		}
		marks++
		if !meaning[e.meaning] {
			t.Errorf("the legend's %q (%s) is not the layout's wording", e.meaning, e.glyph)
		}
	}
	if marks < 6 {
		t.Errorf("only %d entries checked", marks)
	}
}
