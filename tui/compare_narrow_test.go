package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/locksim/locksim/scenarios"
)

// Two runs compared stay readable on a projector (120x40) and a laptop
// (80x24): no cell under 10 characters, so cells shorten by their short words
// and never to "●acqu…"; each run's header whole, its id, verdict and badge
// (before, B's was cut to "no violation so…", and at 80x24 A's badge too); the
// cursor's line on screen. Two 7-process runs do not fit side by side at
// these sizes, so they stand one above the other on one time axis.
func TestCompareReadableWhenNarrow(t *testing.T) {
	t.Parallel()
	look := func(t *testing.T, a *App, s string, ids [2]string, where string) {
		t.Helper()
		lines := strings.Split(s, "\n")
		head := strings.Join(lines[:3], "\n")
		if strings.Contains(head, "…") || !strings.Contains(head, "A "+ids[0]+" ") || !strings.Contains(head, "B "+ids[1]+" ") {
			t.Errorf("%s: a header is cut:\n%s", where, head)
		}
		if w := a.cmp.cellW(); w < 10 {
			t.Errorf("%s: cells are %d wide, under 10:\n%s", where, w, s)
		}
		if !strings.Contains(s, "▸") {
			t.Errorf("%s: the cursor's line is not on screen:\n%s", where, s)
		}
	}
	t.Run("redlock-clock-jump --vs pair", func(t *testing.T) {
		t.Parallel()
		ids := [2]string{"redlock-clock-jump", "redlock-no-clock-jump"}
		for _, sz := range [][2]int{{120, 40}, {80, 24}} {
			a := compareApp(t, ids[0], ids[1])()
			for _, k := range []string{"g", "d", "d", "d", "d", "d", "d", "n", "n", "G"} {
				s := screen(a, sz[0], sz[1], k)
				where := fmt.Sprintf("%s at %dx%d after %s", ids[0], sz[0], sz[1], k)
				look(t, a, s, ids, where)
				grid := strings.Split(s, "\n")[3 : 3+a.cmp.tlH]
				for _, l := range grid {
					if strings.Contains(l, "…") {
						t.Errorf("%s: a cell is cut: %q", where, l)
					}
				}
			}
			if !a.cmp.stacked {
				t.Errorf("two 7-process runs at %dx%d stand side by side", sz[0], sz[1])
			}
		}
	})
	t.Run("every pair", func(t *testing.T) {
		t.Parallel()
		cat := catalogue(t)
		byID := map[string]*scenarios.Scenario{}
		for _, sc := range cat {
			byID[sc.ID] = sc
		}
		for _, sc := range cat {
			pair := byID[sc.CompareWith]
			if pair == nil {
				continue
			}
			ra, rb := result(t, sc.ID), result(t, pair.ID)
			for _, sz := range [][2]int{{120, 40}, {80, 24}} {
				a := NewApp(Options{Result: ra, Versus: rb, Dark: true})
				for _, k := range []string{"d", "G"} {
					look(t, a, screen(a, sz[0], sz[1], k), [2]string{sc.ID, pair.ID}, fmt.Sprintf("%s --vs pair at %dx%d after %s", sc.ID, sz[0], sz[1], k))
				}
			}
		}
	})
}
