package scenarios

import (
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/tui/layout"
)

// Every catalogue scenario has a walk a teacher can use unedited (issue 16,
// docs/workshop.md): `locksim tui ID --walk` stops at least three times, and at
// every stop the narration on screen is about that stop. A narrated step, a
// note or a fault brings its own narration; a violation shows the narration of
// the beat that caused it, told no more than a second of true time before.
func TestCatalogueWalks(t *testing.T) {
	for _, s := range catalogue(t) {
		res := Run(s, RunOptions{})
		tl := layout.New(res.Trace, &res.Report)
		stops := tl.Stops()
		if len(stops) < 3 {
			t.Errorf("%s: its walk stops %d times; narrate its steps or add notes (note at TIME \"...\")", s.ID, len(stops))
		}
		for _, r := range stops {
			row := tl.Row(r)
			text, at := tl.Narration(r)
			switch {
			case text == "":
				t.Errorf("%s: the walk stops at %s (%s) with no narration", s.ID, row.At, row.Text)
			case row.Kind == layout.RowEvent && at != r:
				t.Errorf("%s: the walk stops at %s (%s) with the narration of an earlier step", s.ID, row.At, row.Text)
			case row.At-tl.RowTime(at) > sim.Time(time.Second):
				t.Errorf("%s: the walk stops at the violation at %s with narration from %s: %q", s.ID, row.At, tl.RowTime(at), text)
			}
		}
	}
}
