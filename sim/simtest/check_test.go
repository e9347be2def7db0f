package simtest_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/locksim/locksim/sim/simtest"
)

// Issue 32: no test outcome depends on chance. The same seed draws the same
// case on every call, and different seeds draw different cases.
func TestASeedDrawsTheSameCaseEveryTime(t *testing.T) {
	draws := func(seed uint64) []int {
		var got []int
		simtest.Replay(seed, func(t *rapid.T) {
			for range 8 {
				got = append(got, rapid.IntRange(0, 1_000_000).Draw(t, "n"))
			}
		})
		return got
	}
	a, b, c := draws(7), draws(7), draws(8)
	if !slices.Equal(a, b) {
		t.Errorf("seed 7 drew %v, then %v", a, b)
	}
	if slices.Equal(a, c) {
		t.Errorf("seeds 7 and 8 drew the same case %v", a)
	}
}

// Replay tells a property's failure (Fatalf, Errorf, a panic) from a pass, and
// keeps the Fatalf message.
func TestReplayReportsFailuresAndPanics(t *testing.T) {
	for _, tc := range []struct {
		name   string
		prop   func(*rapid.T)
		failed bool
		msg    string
	}{
		{"pass", func(*rapid.T) {}, false, ""},
		{"fatal", func(t *rapid.T) { t.Fatalf("broken %d", 3) }, true, "broken 3"},
		{"error", func(t *rapid.T) { t.Errorf("broken") }, true, "the property failed"},
		{"panic", func(*rapid.T) { panic("boom") }, true, "panic: boom"},
	} {
		failed, msg := simtest.Replay(1, tc.prop)
		if failed != tc.failed || msg != tc.msg {
			t.Errorf("%s: failed %v %q, want %v %q", tc.name, failed, msg, tc.failed, tc.msg)
		}
	}
}

// Check runs Cases(rounds) cases, seeds 1 on, the same on every run.
func TestCheckRunsTheSameCasesEveryRun(t *testing.T) {
	run := func() []int {
		var got []int
		simtest.Check(t, 2, func(t *rapid.T) { got = append(got, rapid.IntRange(0, 1_000_000).Draw(t, "n")) })
		return got
	}
	a, b := run(), run()
	if len(a) != simtest.Cases(2) || !slices.Equal(a, b) {
		t.Errorf("ran %d then %d cases, want %d, the same: %v / %v", len(a), len(b), simtest.Cases(2), a, b)
	}
}

// FindRate counts the seed ranges where the search finds a counterexample: a
// property that always fails is found in every range, one that never fails in
// none, and one that fails once in a thousand cases in too few for Find.
func TestFindRateCountsTheRangesWhereTheSearchFinds(t *testing.T) {
	always := func(t *rapid.T) { t.Fatal("always") }
	never := func(t *rapid.T) { rapid.Int().Draw(t, "n") }
	rare := func(t *rapid.T) {
		// rapid leans to small and edge values: the draw seeds a PCG, so
		// that one case in a thousand fails, whatever value rapid favours.
		if rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "n"), 1)).IntN(1000) == 0 {
			t.Fatal("rare")
		}
	}
	if n := simtest.FindRate(t, 10, 50, always); n != 10 {
		t.Errorf("always: %d of 10", n)
	}
	if n := simtest.FindRate(t, 10, 50, never); n != 0 {
		t.Errorf("never: %d of 10", n)
	}
	if n := simtest.FindRate(t, simtest.FindRanges, simtest.FindRangeCases, rare); n >= simtest.FindRangesMin {
		t.Errorf("one in a thousand: found in %d of %d ranges, Find would accept it", n, simtest.FindRanges)
	}
	if seed, _, ok := simtest.Search(1, 20, always); !ok || seed != 1 {
		t.Errorf("the search of a property that always fails stops at seed %d (%v), want 1", seed, ok)
	}
}
