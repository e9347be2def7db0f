package main

import (
	"os"
	"strings"
	"testing"

	"github.com/locksim/locksim/scenarios/proptest"
	"github.com/locksim/locksim/sim/fault"
)

// Property tests over the example's templates, with scenarios/proptest: rapid
// draws the faults (the explorer's fault space, through simtest.Rapid), the
// checker judges each run, rapid shrinks a failure, and the failure is written
// as a scenario file that `example-lock tui FILE` steps through.

// tutorial:begin property
// faults are what the session lock's validity timer must survive; a delay in
// the network is not among them (only fencing survives it: fenced.scn).
var faults = []fault.Kind{fault.Pause, fault.Crash, fault.RestartEmpty, fault.ClockJump, fault.Drift, fault.Partition, fault.Loss}

func config(template string) proptest.Config {
	return proptest.Config{Template: template, Kinds: Kinds(), Faults: faults,
		Invariants: []string{"resource-safe"}, Program: "go run ./cmd/example-lock"}
}

func TestPropertyValidityTimerKeepsTheResourceSafe(t *testing.T) {
	proptest.Check(t, config("scenarios/validity.scn"))
}

// The broken client (no validity timer) is found, and the failure names a
// scenario file that replays it. Set LOCKSIM_SHOW_FAILURE=1 to see the test
// fail as your CI would show it:
//
//	LOCKSIM_SHOW_FAILURE=1 go test ./cmd/example-lock -run TestPropertyBrokenClient
func TestPropertyBrokenClientIsFound(t *testing.T) {
	c := config("scenarios/broken.scn")
	c.Faults = []fault.Kind{fault.Pause} // the fault the broken client mishandles
	if os.Getenv("LOCKSIM_SHOW_FAILURE") != "" {
		proptest.Check(t, c)
		return
	}
	c.Dir = t.TempDir()
	f := proptest.Find(t, c) // fails unless the written file replays the violation
	for _, want := range []string{"breaks resource-safe", "scenario written to " + f.File, "step through it: go run ./cmd/example-lock tui " + f.File} {
		if !strings.Contains(f.Message, want) {
			t.Errorf("the failure message does not say %q:\n%s", want, f.Message)
		}
	}
}

// tutorial:end property
