package explore

import (
	"slices"
	"time"
)

// Shrink makes a failing outcome's schedule smaller while it still breaks the
// same invariants: first fewer faults (delta debugging), then shorter and
// smaller ones (halving each duration and magnitude). It runs at most limit
// schedules and reports how many it ran.
func (c *Config) Shrink(o Outcome, limit int) (Outcome, int, error) {
	runs := 0
	same := func(s Schedule) (Outcome, bool, error) {
		if runs >= limit {
			return Outcome{}, false, nil
		}
		runs++
		t, err := c.Try(o.Seed, s)
		if err != nil {
			return t, false, err
		}
		return t, slices.Equal(t.Broken, o.Broken), nil
	}
	best := o
	// Delta debugging over the fault list: try dropping chunks, finer each round.
	for n := 2; len(best.Schedule) >= 1; {
		chunk := (len(best.Schedule) + n - 1) / n
		reduced := false
		for i := 0; i < len(best.Schedule); i += chunk {
			cand := slices.Concat(best.Schedule[:i], best.Schedule[min(i+chunk, len(best.Schedule)):])
			t, ok, err := same(cand)
			if err != nil {
				return best, runs, err
			}
			if ok {
				best, reduced = t, true
				n = max(n-1, 2)
				break
			}
		}
		if reduced {
			continue
		}
		if chunk == 1 {
			break
		}
		n = min(2*n, len(best.Schedule))
	}
	// Then each fault's size: halve its duration and its magnitude while it still
	// breaks the same invariants.
	halve := []func(*Fault) bool{
		func(f *Fault) bool {
			d := f.Dur.Milliseconds() / 2
			f.Dur = time.Duration(d) * time.Millisecond
			return d >= 1
		},
		func(f *Fault) bool { f.Mag /= 2; return f.Mag != 0 },
	}
	for i := range best.Schedule {
		for _, h := range halve {
			for {
				cand := slices.Clone(best.Schedule)
				if !h(&cand[i]) {
					break
				}
				t, ok, err := same(cand)
				if err != nil {
					return best, runs, err
				}
				if !ok {
					break
				}
				best = t
			}
		}
	}
	return best, runs, nil
}
