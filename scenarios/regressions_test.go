package scenarios

import (
	"path/filepath"
	"testing"
)

// TestRegressions runs every scenario in testdata/regressions: each once gave a
// wrong verdict, and its expectations are what the fixed model must show.
func TestRegressions(t *testing.T) {
	files, err := filepath.Glob("../testdata/regressions/*" + Ext)
	if err != nil || len(files) == 0 {
		t.Fatalf("no regression scenarios found (%v)", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			s, err := Load(f)
			if err != nil {
				t.Fatal(err)
			}
			r := Run(s, RunOptions{})
			for _, e := range r.Expectations {
				if !e.Met {
					t.Errorf("%s: expect %s (got %s); reproduce: locksim run %s", f, e.Text, e.Got, f)
				}
			}
		})
	}
}
