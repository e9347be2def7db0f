package fault

import (
	"slices"
	"time"
)

// Shrink makes a failing schedule smaller while it still fails the same way:
// first fewer faults (delta debugging over the list, in finer chunks each
// round), then shorter and smaller ones (halving each duration and magnitude).
// still runs a candidate and reports whether it fails as s did; it keeps its
// own budget (answering false once spent). An error from still stops the
// shrinking with the smallest schedule found so far.
func Shrink(s Schedule, still func(Schedule) (bool, error)) (Schedule, error) {
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
	return best, nil
}
