package explore

import (
	"slices"

	"github.com/locksim/locksim/sim/fault"
)

// Shrink makes a failing outcome's schedule smaller while it still breaks the
// same invariants (fault.Shrink). It runs at most limit schedules and reports
// how many it ran.
func (c *Config) Shrink(o Outcome, limit int) (Outcome, int, error) {
	runs, best := 0, o
	_, err := fault.Shrink(o.Schedule, func(s fault.Schedule) (bool, error) {
		if runs >= limit {
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
