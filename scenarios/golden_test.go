package scenarios_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim/simtest"
	"github.com/locksim/locksim/tui/export"
)

// update rewrites the golden files instead of comparing with them:
//
//	go test ./scenarios -run TestGolden -update
var update = flag.Bool("update", false, "rewrite testdata/golden/*.txt from the current output")

// goldenDir is the module's testdata/golden.
const goldenDir = "../testdata/golden"

// TestGolden compares each catalogue scenario's `locksim run` text output (the
// run, rendered by tui/export as the command line composes them) with its
// golden file, so that any change in behaviour shows up as a readable diff.
func TestGolden(t *testing.T) {
	t.Parallel()
	for _, res := range scenarios.CatalogueRuns(t) {
		s := res.Scenario
		t.Run(s.ID, func(t *testing.T) {
			var b bytes.Buffer
			if err := export.WriteText(&b, res, export.TextOptions{}); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(goldenDir, s.ID+".txt")
			if *update {
				if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (create it with: go test ./scenarios -run TestGolden -update)", err)
			}
			if got := b.String(); got != string(want) {
				t.Errorf("output differs from %s; first difference:\n%s\nif the change is intended: go test ./scenarios -run TestGolden -update",
					path, simtest.FirstDiff(string(want), got))
			}
		})
	}
	if !*update && !testing.Short() { // -short judges a sample of the catalogue
		files, _ := filepath.Glob(filepath.Join(goldenDir, "*.txt"))
		if len(files) != len(scenarios.CatalogueRuns(t)) {
			t.Errorf("%d golden files for %d scenarios: remove the stale ones", len(files), len(scenarios.CatalogueRuns(t)))
		}
	}
}
