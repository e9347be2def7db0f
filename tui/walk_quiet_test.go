package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// p or b in the middle of a walk folds the background traffic, and the
// cursor's row moves up the grid: the rows that led to it must stay on screen
// (before, the cursor's row went to the top and the walk hid everything below
// it, so only the header and that row were left). In every ZooKeeper, etcd and
// database run, after four stops: a screen of context above the cursor, and at
// least 10 rows.
func TestWalkKeepsContextWhenQuietFolds(t *testing.T) {
	t.Parallel()
	cat, _ := catalogueRuns(t)
	for _, s := range cat {
		if s.Protocol != "zookeeper" && s.Protocol != "etcd" && s.Protocol != "db" {
			continue
		}
		for _, k := range []string{"p", "b"} {
			a := runApp(t, s.ID, Options{Walk: true})()
			screen(a, 120, 40, "space", "space", "space", "space", k)
			grid := strings.Split(ansi.Strip(a.run.tl.View()), "\n")[1:] // the rows under the column header
			drawn := 0
			for _, l := range grid {
				if strings.TrimSpace(l) != "" {
					drawn++
				}
			}
			if want := min(a.run.Cursor()+1, len(grid)); drawn < want || drawn < min(10, want) {
				t.Errorf("%s, walk, 4 stops, then %s: %d rows drawn, want %d (cursor on row %d of %d shown):\n%s",
					s.ID, k, drawn, want, a.run.Cursor()+1, a.run.tl.Layout().Len(), strings.Join(grid, "\n"))
			}
		}
	}
}
