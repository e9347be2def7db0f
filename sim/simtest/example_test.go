package simtest_test

import (
	"fmt"
	"time"

	"pgregory.net/rapid"

	"github.com/locksim/locksim/sim/fault"
	"github.com/locksim/locksim/sim/simtest"
)

// Rapid as the source of a fault schedule: rapid draws each choice, from the
// case's seed, so a search for a counterexample tries the same schedules on
// every run and names the seed of the first that fails. (A test would call
// Check or Find with its *testing.T; Search is what Find runs.)
func ExampleRapid() {
	sp := fault.Space{Menu: []fault.Kind{fault.Crash, fault.Pause}, Start: 100 * time.Millisecond, End: 5 * time.Second,
		Targets: func(fault.Kind) fault.Targets { return fault.Targets{Procs: []string{"c1", "c2"}} }}
	bug := func(t *rapid.T) {
		s := sp.Draw(simtest.Rapid(t))
		for _, f := range s {
			if f.Kind == fault.Pause && f.Proc == "c1" { // the "bug": c1 must never pause
				t.Fatalf("c1 paused: %s", s)
			}
		}
	}
	seed, msg, found := simtest.Search(1, 100, bug)
	fmt.Println("found:", found)
	again, _ := simtest.Replay(seed, bug)
	fmt.Println("its seed fails again:", again)
	_ = msg
	// Output:
	// found: true
	// its seed fails again: true
}
