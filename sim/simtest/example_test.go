package simtest_test

import (
	"flag"
	"fmt"
	"time"

	"pgregory.net/rapid"

	"github.com/locksim/locksim/sim/fault"
	"github.com/locksim/locksim/sim/simtest"
)

// Rapid as the source of a fault schedule: rapid draws each choice, so when
// the property fails it shrinks the schedule to the least that still fails:
// here one pause of c1, as short and as early as the space allows. (A test
// would call Check or Find with its *testing.T; the Recorder stands in for it.)
func ExampleRapid() {
	sp := fault.Space{Menu: []fault.Kind{fault.Crash, fault.Pause}, Start: 100 * time.Millisecond, End: 5 * time.Second,
		Targets: func(fault.Kind) fault.Targets { return fault.Targets{Procs: []string{"c1", "c2"}} }}
	flag.Set("rapid.nofailfile", "true") // an expected failure: no fail file (Find does this itself)
	var last fault.Schedule
	rec := &simtest.Recorder{TestName: "ExampleRapid"}
	rapid.Check(rec, func(t *rapid.T) {
		s := sp.Draw(simtest.Rapid(t))
		for _, f := range s {
			if f.Kind == fault.Pause && f.Proc == "c1" { // the "bug": c1 must never pause
				last = s
				t.Fatalf("c1 paused: %s", s)
			}
		}
	})
	fmt.Println("found:", rec.Found)
	fmt.Println("shrunk to:", last)
	// Output:
	// found: true
	// shrunk to: c1 stops for 1ms at 100ms (a GC pause, a frozen VM)
}
