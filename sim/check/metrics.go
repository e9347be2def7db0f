package check

import (
	"slices"

	"github.com/locksim/locksim/sim"
)

// metrics collects the run's named numbers: what protocols reported (ObsMetric sets,
// ObsCounter adds) and what the checker measures itself: how long the lock could not
// be acquired while someone wanted it (unavailable_ms, and the longest such window),
// and how many acquisitions there were.
func metrics(f *facts) []Metric {
	vals := map[string]float64{}
	var acquisitions int
	anyAttempt := false
	// Per lock: who is trying, who believes, and since when nobody held it while
	// someone tried.
	type lockState struct {
		trying, believing map[sim.ProcID]bool
		since             sim.Time
		waiting           bool
	}
	locks := map[string]*lockState{}
	var total, longest sim.Time
	get := func(l string) *lockState {
		s := locks[l]
		if s == nil {
			s = &lockState{trying: map[sim.ProcID]bool{}, believing: map[sim.ProcID]bool{}}
			locks[l] = s
		}
		return s
	}
	update := func(s *lockState, at sim.Time) {
		waiting := len(s.trying) > 0 && len(s.believing) == 0
		switch {
		case waiting && !s.waiting:
			s.since = at
		case !waiting && s.waiting:
			total += at - s.since
			longest = max(longest, at-s.since)
		}
		s.waiting = waiting
	}
	f.walk(func(o *sim.Observation) {
		switch o.Kind {
		case sim.ObsMetric:
			vals[o.Name] = float64(o.Value)
		case sim.ObsCounter:
			vals[o.Name] += float64(o.Value)
		case sim.ObsAttempt:
			anyAttempt = true
			s := get(o.Lock)
			s.trying[o.Client] = true
			update(s, o.At)
		case sim.ObsGiveUp:
			s := get(o.Lock)
			delete(s.trying, o.Client)
			update(s, o.At)
		case sim.ObsBeliefStart:
			acquisitions++
			s := get(o.Lock)
			delete(s.trying, o.Client)
			s.believing[o.Client] = true
			update(s, o.At)
		case sim.ObsBeliefEnd:
			s := get(o.Lock)
			delete(s.believing, o.Client)
			update(s, o.At)
		}
	}, func(d downFact) {
		for _, l := range sortedKeys(locks) {
			s := locks[l]
			delete(s.trying, d.proc)
			delete(s.believing, d.proc)
			update(s, d.at)
		}
	})
	for _, l := range sortedKeys(locks) {
		if s := locks[l]; s.waiting {
			total += f.end() - s.since
			longest = max(longest, f.end()-s.since)
		}
	}
	if anyAttempt {
		vals["acquisitions"] = float64(acquisitions)
		vals["unavailable_ms"] = total.Ms()
		vals["unavailable_max_ms"] = longest.Ms()
	}
	out := make([]Metric, 0, len(vals))
	for _, n := range sortedKeys(vals) {
		out = append(out, Metric{n, vals[n]})
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
