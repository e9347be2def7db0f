package fault

import (
	"slices"
	"time"
)

// Shrink makes a failing schedule smaller while it still fails the same way:
// first fewer faults (delta debugging over the list, in finer chunks each
// round), then shorter and smaller ones (halving each duration and magnitude),
// then rounder ones: each time, duration and millisecond magnitude moved to the nearest whole second,
// tenth or hundredth of a second where the failure survives it, so that a
// person reads "at 1.4s" rather than "at 1374ms".
// still runs a candidate and reports whether it fails as s did; it keeps its
// own budget (answering false once spent). An error from still stops the
// shrinking with the smallest schedule found so far.
func Shrink(s Schedule, still func(Schedule) (bool, error)) (Schedule, error) {
	best, err := removeFaults(s, still)
	if err != nil {
		return best, err
	}
	return shrinkFields(best, still, true)
}

// ShrinkMagnitudes is Shrink's second half alone: each fault's duration and
// magnitude halved and rounded while the schedule still fails, its faults and
// their times kept. An exhaustive check uses it: its first counterexample has
// the fewest faults and the earliest times already, and only its magnitudes,
// taken from a menu, can be smaller.
func ShrinkMagnitudes(s Schedule, still func(Schedule) (bool, error)) (Schedule, error) {
	return shrinkFields(s, still, false)
}

// removeFaults is delta debugging over the list of faults.
func removeFaults(s Schedule, still func(Schedule) (bool, error)) (Schedule, error) {
	best := s
	for n := 2; len(best) >= 1; {
		chunk := (len(best) + n - 1) / n
		reduced := false
		for i := 0; i < len(best); i += chunk {
			cand := slices.Concat(best[:i], best[min(i+chunk, len(best)):])
			ok, err := still(cand)
			if err != nil {
				return best, err
			}
			if ok {
				best, reduced = cand, true
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
		n = min(2*n, len(best))
	}
	return best, nil
}

// shrinkFields halves each fault's duration and magnitude, then rounds them
// (and with times, each fault's time) to whole seconds, tenths or hundredths,
// keeping every change that still fails.
func shrinkFields(best Schedule, still func(Schedule) (bool, error), times bool) (Schedule, error) {
	halve := []func(*Fault) bool{
		func(f *Fault) bool {
			d := f.Dur.Milliseconds() / 2
			f.Dur = time.Duration(d) * time.Millisecond
			return d >= 1
		},
		func(f *Fault) bool { f.Mag /= 2; return f.Mag != 0 },
	}
	for i := range best {
		for _, h := range halve {
			for {
				cand := slices.Clone(best)
				if !h(&cand[i]) {
					break
				}
				ok, err := still(cand)
				if err != nil {
					return best, err
				}
				if !ok {
					break
				}
				best = cand
			}
		}
	}
	// Milliseconds of each time, duration and (for a delay or a clock jump)
	// magnitude, with how to read and set them.
	type field struct {
		get func(*Fault) int64
		set func(*Fault, int64)
	}
	fields := []field{
		{func(f *Fault) int64 { return f.Dur.Milliseconds() }, func(f *Fault, v int64) { f.Dur = time.Duration(v) * time.Millisecond }},
		{func(f *Fault) int64 {
			if f.Kind == Delay || f.Kind == ClockJump {
				return f.Mag
			}
			return 0
		}, func(f *Fault, v int64) { f.Mag = v }},
	}
	if times {
		fields = append([]field{{func(f *Fault) int64 { return f.At.Milliseconds() }, func(f *Fault, v int64) { f.At = time.Duration(v) * time.Millisecond }}}, fields...)
	}
	for i := range best {
		for _, fd := range fields {
			for _, grid := range []int64{1000, 100, 10} {
				cand := slices.Clone(best)
				v := fd.get(&cand[i])
				r := roundTo(v, grid)
				if !times { // sizes only shrink: toward zero, never up to a larger round one
					r = v / grid * grid
				}
				if v == 0 || (v < 0 && cand[i].Kind != ClockJump) || r == v || r == 0 {
					continue // nothing to round (or Forever), already round, or gone
				}
				fd.set(&cand[i], r)
				ok, err := still(cand)
				if err != nil {
					return best, err
				}
				if ok {
					best = cand
					break
				}
			}
		}
	}
	return best, nil
}

// roundTo is v to the nearest multiple of grid, halves away from zero.
func roundTo(v, grid int64) int64 {
	if v < 0 {
		return -roundTo(-v, grid)
	}
	return (v + grid/2) / grid * grid
}
