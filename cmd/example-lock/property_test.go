package main

import (
	"os"
	"strings"
	"testing"

	"github.com/locksim/locksim/scenarios/proptest"
	"github.com/locksim/locksim/sim/fault"
)

// Property tests over the example's templates, with scenarios/proptest: every
// fault schedule within a bound, in the order `example-lock check` runs them
// (no chance involved), each run judged by the checker; a failure is written
// as a scenario file that `example-lock tui FILE` steps through.

// tutorial:begin property
// faults are what the session lock's validity timer must survive; a delay in
// the network is not among them (only fencing survives it: fenced.scn).
var faults = []fault.Kind{fault.Pause, fault.Crash, fault.RestartEmpty, fault.ClockJump, fault.Drift, fault.Partition, fault.Loss}

func config(template string) proptest.Config {
	return proptest.Config{Template: template, Kinds: Kinds(), Faults: faults,
		Invariants: []string{"resource-safe"}, Program: "go run ./cmd/example-lock"}
}

// Every schedule of one fault (1,187 of them: each kind, on each process, in
// each gap between its steps, of each size) keeps the resource safe.
func TestPropertyValidityTimerKeepsTheResourceSafe(t *testing.T) {
	proptest.Exhaustive(t, config("scenarios/validity.scn"))
}

// The broken client (no validity timer) is found: the search tries every
// one-fault schedule, shortest and earliest first, so it finds the same
// counterexample on every run. The failure names a scenario file that replays
// it. Set LOCKSIM_SHOW_FAILURE=1 to see the test fail as your CI would show it:
//
//	LOCKSIM_SHOW_FAILURE=1 go test ./cmd/example-lock -run TestPropertyBrokenClient
func TestPropertyBrokenClientIsFound(t *testing.T) {
	c := config("scenarios/broken.scn")
	c.Faults = []fault.Kind{fault.Pause} // the fault the broken client mishandles
	if os.Getenv("LOCKSIM_SHOW_FAILURE") != "" {
		proptest.Exhaustive(t, c)
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
