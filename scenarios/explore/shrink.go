package explore

import (
	"slices"

	"github.com/locksim/locksim/sim/fault"
)

// Shrink makes a failing outcome's schedule smaller while it still breaks the
// same invariants (fault.Shrink). It runs at most limit schedules and reports
// how many it ran.
func (c *Config) Shrink(o Outcome, limit int) (Outcome, int, error) {
	return c.shrinkWith(fault.Shrink, o, limit)
}

// shrinkWith shrinks o's schedule with shrink, each candidate run with o's
// seed and kept when it breaks the same invariants and its faults are over by
// the horizon (a rounded fault may end past the heal phase), within limit runs.
func (c *Config) shrinkWith(shrink func(fault.Schedule, func(fault.Schedule) (bool, error)) (fault.Schedule, error), o Outcome, limit int) (Outcome, int, error) {
	runs, best := 0, o
	_, err := shrink(o.Schedule, func(s fault.Schedule) (bool, error) {
		if runs >= limit || !c.fits(s) {
			return false, nil
		}
		runs++
		t, err := c.Try(o.Seed, s)
		if err != nil || !slices.Equal(t.Broken, o.Broken) {
			return false, err
		}
		best = t
		return true, nil
	})
	return best, runs, err
}

// fits reports whether every fault of s is over by the template's horizon, as
// every drawn fault is (the heal phase's promise).
func (c *Config) fits(s fault.Schedule) bool {
	for _, f := range s {
		if f.At >= c.Template.Horizon || (f.Dur != fault.Forever && f.At+f.Dur > c.Template.Horizon) {
			return false
		}
	}
	return true
}

// ShrinkSizes makes the sizes of a check's counterexample smaller while it
// still breaks the same invariants (fault.ShrinkMagnitudes): its faults and
// their times stay, since the check already found the fewest and earliest.
// It runs at most limit schedules and reports how many it ran.
func (c *Config) ShrinkSizes(o Outcome, limit int) (Outcome, int, error) {
	return c.shrinkWith(fault.ShrinkMagnitudes, o, limit)
}
