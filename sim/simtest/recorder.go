// Package simtest is the support the built-in protocols' property tests use,
// and yours can: Rapid makes rapid the source of a fault schedule (fault.Space
// draws through it); Draw and DrawPause draw a lock workload with faults
// (Case), which Apply schedules in a sim.World you built; Check runs a
// property over fixed cases, each drawn from a seed of its own (Replay);
// Find requires that the search finds a counterexample, for a design the
// literature calls unsafe, and FindRate measures how reliably it does.
//
// These work on a world you assemble in Go, below the scenario language. To
// test a scenario template and have a failure written as a scenario file that
// `locksim tui` replays, use scenarios/proptest, which draws through the same
// Rapid and fault.Space.
//
// No flag is read or set: how many cases run is ShortCases per round, or
// LongCases under -tags long (Long).
//
// May import: sim, sim/fault, the standard library and pgregory.net/rapid.
package simtest

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"
)

// Find requires that the search FINDS a counterexample to prop, for a
// configuration the literature calls unsafe, and returns its message. The
// search has no chance in it: it tries the cases of seeds 1, 2, ... up to
// FindCases in order (Replay's cases) and stops at the first that fails, so
// the same test finds the same case on every run, and the log names its seed.
//
// That the counterexample is no accident of one lucky seed, Find shows too:
// the search must also find it in at least FindRangesMin of FindRanges other
// seed ranges of FindRangeCases cases each (FindRate; fixed ranges, so the
// rate is the same on every run). A change that makes the counterexample rare
// fails the test, though seed 1 may still happen to hit it.
func Find(t *testing.T, prop func(*rapid.T)) string {
	t.Helper()
	seed, msg, ok := Search(1, FindCases, prop)
	if !ok {
		t.Fatalf("no case of seeds 1-%d breaks the property, where the literature says a counterexample exists", FindCases)
	}
	t.Logf("found at case seed %d (the search tries seeds 1-%d in order): %s", seed, FindCases, msg)
	if hits := FindRate(t, FindRanges, FindRangeCases, prop); hits < FindRangesMin {
		t.Errorf("the search found the counterexample in %d of %d seed ranges of %d cases, want at least %d: it has become rare",
			hits, FindRanges, FindRangeCases, FindRangesMin)
	}
	return msg
}

// The rate Find requires: the counterexample is found in at least
// FindRangesMin of FindRanges seed ranges of FindRangeCases cases each.
const (
	FindRanges     = 10
	FindRangeCases = 50
	FindRangesMin  = 8
)

// FindCases is how many cases Find tries before it gives up. A search stops
// at its first finding, so a generous budget costs a passing run nothing.
const FindCases = 1000

// Search tries the cases of seeds from, from+1, ... (n of them) in order and
// returns the first that fails prop, and its message.
func Search(from uint64, n int, prop func(*rapid.T)) (seed uint64, msg string, found bool) {
	for i := range uint64(n) {
		if failed, msg := Replay(from+i, prop); failed {
			return from + i, msg, true
		}
	}
	return 0, "", false
}

// RangeStride separates FindRate's seed ranges from each other and from
// Find's seeds 1-FindCases.
const RangeStride = 1_000_000

// FindRate measures how reliably the search finds a counterexample from
// seeds other than Find's: it searches ranges seed ranges of n cases each,
// range r (1, 2, ...) starting at seed r×RangeStride+1, and returns in how
// many of them a case fails prop. The ranges are fixed, so the rate is the
// same on every run; a test requires it to be at least the rate its comment
// documents, so that a change which makes the counterexample rare (Find
// still finding it at one lucky seed) fails the test.
func FindRate(t *testing.T, ranges, n int, prop func(*rapid.T)) int {
	t.Helper()
	hits := 0
	for r := range ranges {
		from := uint64(r+1)*RangeStride + 1
		if seed, _, ok := Search(from, n, prop); ok {
			hits++
			t.Logf("seed range %d-%d: found at seed %d (case %d)", from, from+uint64(n)-1, seed, seed-from+1)
		} else {
			t.Logf("seed range %d-%d: not found", from, from+uint64(n)-1)
		}
	}
	t.Logf("found in %d of %d seed ranges of %d cases", hits, ranges, n)
	return hits
}

// Recorder stands in for *testing.T (it satisfies rapid.TB) so that code
// which calls rapid.Check itself can require that rapid FINDS a counterexample
// instead of failing when it does. (rapid.Check draws its seeds at random and
// saves fail files unless told by flags; the built-in tests use Find and
// Check, whose cases are fixed.)
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
