package fault_test

import (
	"fmt"
	"time"

	"github.com/locksim/locksim/sim/fault"
)

// A schedule is data: the same faults read as sentences (String), as the
// scenario language's lines (Text), and as the kernel's actions (Actions,
// Apply).
func ExampleSchedule() {
	s := fault.Schedule{
		{Kind: fault.Pause, Proc: "c1", At: 1500 * time.Millisecond, Dur: 3 * time.Second},
		{Kind: fault.Crash, Proc: "s", At: 2 * time.Second, Dur: 500 * time.Millisecond},
	}
	fmt.Println(s)
	fmt.Print(s.Text(fault.Cast{Names: []string{"s", "c1"}}, false))
	// Output:
	// c1 stops for 3s at 1.5s (a GC pause, a frozen VM); s crashes at 2s and restarts 500ms later with what it had written to disk
	// at 1.5s pause c1 for=3s
	// at 2s crash s
	// at 2.5s restart s
}

// Drawing a schedule from a seed (the explorer's way; a property test draws
// through rapid with simtest.Rapid instead): at most two pauses or crashes of
// c1 or c2, starting in the first 4 s and over by 5 s. The same seed gives the
// same schedule.
func ExampleSpace_Draw() {
	sp := fault.Space{Menu: []fault.Kind{fault.Pause, fault.Crash}, MaxFaults: 2, End: 5 * time.Second,
		Targets: func(fault.Kind) fault.Targets { return fault.Targets{Procs: []string{"c1", "c2"}} }}
	a, b := sp.Draw(fault.Seeded(7)), sp.Draw(fault.Seeded(7))
	fmt.Println(a)
	fmt.Println(a.String() == b.String())
	// Output:
	// c1 crashes at 1264ms and restarts 2517ms later with what it had written to disk
	// true
}
