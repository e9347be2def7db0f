package layout_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/tui/layout"
)

func TestScratchWalks(t *testing.T) {
	cat, _ := scenarios.Catalogue()
	f, _ := os.Create("/tmp/walks.txt")
	defer f.Close()
	for _, s := range cat {
		if id := os.Getenv("ONLY"); id != "" && id != s.ID { continue }
		r := scenarios.Run(s, scenarios.RunOptions{})
		tl := layout.New(r.Trace, &r.Report)
		fmt.Fprintf(f, "=== %s (%s) %d rows, %d stops\n", s.ID, r.Report.Verdict, tl.Len(), len(tl.Stops()))
		for _, st := range tl.Stops() {
			text, at := tl.Narration(st)
			row := tl.Row(st)
			fresh := "  "
			if at == st { fresh = "* " }
			fmt.Fprintf(f, "  %s %-9s %.100s\n      %s%.150s\n", fresh, row.At, row.Text, "", text)
		}
	}
}
