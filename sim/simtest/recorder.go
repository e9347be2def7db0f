// Package simtest is the support the built-in protocols' property tests use,
// and yours can: Rapid makes rapid the source of a fault schedule (fault.Space
// draws through it, so rapid shrinks every fault); Draw and DrawPause draw a
// lock workload with faults (Case), which Apply schedules in a sim.World you
// built; Check runs a property over rounds of rapid checks; Find requires that
// rapid finds a counterexample, for a design the literature calls unsafe.
//
// These work on a world you assemble in Go, below the scenario language. To
// test a scenario template and have a failure written as a scenario file that
// `locksim tui` replays, use scenarios/proptest, which draws through the same
// Rapid and fault.Space.
//
// May import: sim, sim/fault, the standard library and pgregory.net/rapid.
package simtest

import (
	"flag"
	"fmt"
	"strconv"
	"testing"

	"pgregory.net/rapid"
)

// Find requires that rapid FINDS a counterexample to prop, for a configuration the
// literature calls unsafe, and returns rapid's shrunk report of it. An expected
// counterexample is not saved as a fail file (-rapid.nofailfile, for the call's
// duration; these tests do not run in parallel). A search stops at its first
// finding, so it may look at up to findChecks cases without costing a passing run
// anything: the test must not fail for want of trying. Under -short rapid runs a
// fifth of the cases it is asked for, so Find asks for them in up to five rounds
// (each with a seed of its own): 200 cases found a counterexample the literature
// promises only 55-80% of the time (TestPropertyWriteAfterReplyFindsTwoValues,
// -count 20), which made `go test -short` fail by chance.
func Find(t *testing.T, prop func(*rapid.T)) string {
	t.Helper()
	if f := flag.Lookup("rapid.nofailfile"); f != nil {
		old := f.Value.String()
		flag.Set("rapid.nofailfile", "true")
		defer flag.Set("rapid.nofailfile", old)
	}
	if f := flag.Lookup("rapid.checks"); f != nil {
		old := f.Value.String()
		if n, err := strconv.Atoi(old); err == nil && n < findChecks {
			flag.Set("rapid.checks", strconv.Itoa(findChecks))
			defer flag.Set("rapid.checks", old)
		}
	}
	rec := &Recorder{TestName: t.Name()}
	rounds := 1
	if testing.Short() {
		rounds = 5
	}
	for i := 0; i < rounds && !rec.Found; i++ {
		rapid.Check(rec, prop)
	}
	if !rec.Found {
		t.Fatal("random schedules found no counterexample where the literature says there is one")
	}
	t.Logf("found and shrunk: %s", rec.Message)
	return rec.Message
}

// findChecks is the least number of cases Find lets rapid try.
const findChecks = 1000

// Recorder stands in for *testing.T (it satisfies rapid.TB) so that a property
// test can require that rapid FINDS a counterexample instead of failing when it
// does.
type Recorder struct {
	TestName string // what Name returns: the test it stands in for
	Found    bool   // the property failed: rapid found a counterexample
	Message  string // the counterexample rapid reported, shrunk
}

// Helper does nothing: a Recorder prints no lines.
func (r *Recorder) Helper() {}

// Name is TestName.
func (r *Recorder) Name() string { return r.TestName }

// Logf drops the line: only the failure is kept.
func (r *Recorder) Logf(string, ...any) {}

// Log drops the line: only the failure is kept.
func (r *Recorder) Log(...any) {}

// Skipf does nothing: a search is never skipped.
func (r *Recorder) Skipf(string, ...any) {}

// Skip does nothing: a search is never skipped.
func (r *Recorder) Skip(...any) {}

// SkipNow does nothing: a search is never skipped.
func (r *Recorder) SkipNow() {}

// Errorf records a counterexample and its message.
func (r *Recorder) Errorf(f string, a ...any) { r.fail(fmt.Sprintf(f, a...)) }

// Error records a counterexample and its message.
func (r *Recorder) Error(a ...any) { r.fail(fmt.Sprint(a...)) }

// Fatalf records a counterexample and its message.
func (r *Recorder) Fatalf(f string, a ...any) { r.fail(fmt.Sprintf(f, a...)) }

// Fatal records a counterexample and its message.
func (r *Recorder) Fatal(a ...any) { r.fail(fmt.Sprint(a...)) }

// FailNow records a counterexample.
func (r *Recorder) FailNow() { r.Found = true }

// Fail records a counterexample.
func (r *Recorder) Fail() { r.Found = true }

// Failed reports whether a counterexample was found.
func (r *Recorder) Failed() bool { return r.Found }

func (r *Recorder) fail(msg string) { r.Found, r.Message = true, msg }
