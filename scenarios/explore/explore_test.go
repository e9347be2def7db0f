package explore_test

import (
	"testing"

	"github.com/locksim/locksim/scenarios/explore"
)

func TestSmoke(t *testing.T) {
	tpl, err := explore.Preset("redlock")
	if err != nil {
		t.Fatal(err)
	}
	c := &explore.Config{Template: tpl, Space: explore.Space{Menu: []explore.Kind{explore.RestartEmpty}}}
	for seed := uint64(1); seed < 300; seed++ {
		o, err := c.Explore(seed)
		if err != nil {
			t.Fatal(err)
		}
		if o.Failed() {
			s, runs, err := c.Shrink(o, 200)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("seed %d: %v -> %d faults (%d runs)\n%s", seed, o.Broken, len(s.Schedule), runs, c.Scenario(s, explore.Found{Command: "x", Runs: int(seed), Original: len(o.Schedule), ShrinkRuns: runs}, "found.scn"))
			return
		}
	}
	t.Fatal("nothing found")
}
