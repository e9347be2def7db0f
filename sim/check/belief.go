package check

import "github.com/locksim/locksim/sim"

// mutexBelief: at no true instant do two clients each believe they hold the same
// lock. A belief runs from the client's conclusion that it holds the lock to its
// conclusion that it does not, or to its crash; a paused client still believes.
func mutexBelief(f *facts) Result {
	type belief struct {
		client sim.ProcID
		since  sim.Time
	}
	open := map[string][]belief{} // lock -> open beliefs, in start order
	var r Result
	f.walk(func(o *sim.Observation) {
		switch o.Kind {
		case sim.ObsAttempt, sim.ObsBeliefStart:
			r.Applicable = true
		}
		switch o.Kind {
		case sim.ObsBeliefStart:
			for _, b := range open[o.Lock] {
				if b.client == o.Client {
					continue
				}
				r.Violations = append(r.Violations, violation(o.At,
					sprintf("%s believes it holds %s while %s still believes it does (since %s)",
						f.name(o.Client), o.Lock, f.name(b.client), b.since),
					f.name(b.client), f.name(o.Client)).at(o.Event))
			}
			open[o.Lock] = append(open[o.Lock], belief{o.Client, o.At})
		case sim.ObsBeliefEnd:
			bs := open[o.Lock]
			for i, b := range bs {
				if b.client == o.Client {
					open[o.Lock] = append(bs[:i], bs[i+1:]...)
					break
				}
			}
		}
	}, func(d procEvent) {
		if !d.down() {
			return
		}
		for l, bs := range open {
			kept := bs[:0]
			for _, b := range bs {
				if b.client != d.proc {
					kept = append(kept, b)
				}
			}
			open[l] = kept
		}
	})
	return r
}
