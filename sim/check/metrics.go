package check

import (
	"maps"
	"math"
	"slices"

	"github.com/locksim/locksim/sim"
)

// metrics collects the run's named numbers: what protocols reported (ObsMetric sets,
// ObsCounter adds) and what the checker measures itself:
//   - acquisitions: how many times a client came to believe it holds a lock;
//   - unavailable_ms: how long some lock was unavailable, that is wanted (a client
//     is trying), used by nobody (no client believes it holds it), and yet not
//     acquirable for that client (the service still holds a grant of it to
//     another client: a crashed holder's key, a stale lock; a client's own
//     earlier keys do not count); windows that overlap count once;
//   - stale_accepted: writes the protected resource accepted under a superseded
//     grant (resource-safe's recency clause): the lost updates;
//   - missed_buckets: true-time buckets of a once-per-period job that a live
//     worker tried to claim and nobody started (every-period);
//   - unavailable_max_ms: the longest such window;
//   - wait_p50_ms, wait_p99_ms: how long clients waited for the lock, from the
//     start of an acquisition to the belief that it holds (blocked in a FOR
//     UPDATE, queued behind a predecessor, or retrying), over the acquisitions
//     that succeeded (nearest-rank percentiles);
//   - failed_attempts: attempts that failed (a retry or a give-up);
//   - throughput_per_s: acquisitions per second of true time, from the first
//     attempt to the last acquisition or release (with two acquisitions or more).
//
// A lock that is free while a client waits out its retry delay is not unavailable.
func metrics(f *facts) []Metric {
	vals := map[string]float64{}
	acquisitions, anyAttempt := 0, false
	// Per lock, the stretches in which each client was kept waiting: it was
	// trying and nobody believed they held the lock. Only other clients' grants
	// can make such a stretch unavailability: a client in its own way (its
	// earlier keys, left by a failed Redlock round) is retrying, not blocked.
	type lockState struct {
		trying, believing map[sim.ProcID]bool
		since             map[sim.ProcID]sim.Time // open waiting stretches
		windows           map[sim.ProcID][]span
		free              bool // nobody believed they held the lock at the last update
	}
	// outcomes: per client, when it learned how an attempt went (trace order), so
	// a grant counts as blocking others only once its reply could have arrived.
	outcomes := map[sim.ProcID][]outcome{}
	attempts := map[sim.ProcID][]int{} // per client, the trace index of each acquisition's start
	locks := map[string]*lockState{}
	started := map[sim.ProcID]sim.Time{} // when each client's current acquisition began
	var waits []sim.Time
	failed := 0
	first, last := sim.Never, sim.Time(0)
	get := func(l string) *lockState {
		s := locks[l]
		if s == nil {
			s = &lockState{trying: map[sim.ProcID]bool{}, believing: map[sim.ProcID]bool{},
				since: map[sim.ProcID]sim.Time{}, windows: map[sim.ProcID][]span{}, free: true}
			locks[l] = s
		}
		return s
	}
	closeWindow := func(s *lockState, c sim.ProcID, at sim.Time) {
		if since, ok := s.since[c]; ok {
			s.windows[c] = append(s.windows[c], span{since, at})
			delete(s.since, c)
		}
	}
	// update keeps since[c] open exactly while c is trying and nobody believes
	// they hold the lock, after a change to client c (or NoProc) at at. It
	// touches only c unless the lock just became held or free, so thousands of
	// clients asking at one instant cost linear time (issue 32). Each client's
	// stretch closes on its own: the order they are visited in changes nothing.
	update := func(s *lockState, at sim.Time, c sim.ProcID) {
		if c != sim.NoProc && !s.trying[c] {
			closeWindow(s, c, at)
		}
		free := len(s.believing) == 0
		switch {
		case !free:
			for c := range s.since { // order-free: each client's window closes on its own list
				closeWindow(s, c, at)
			}
		case !s.free:
			for c := range s.trying {
				s.since[c] = at
			}
		case c != sim.NoProc && s.trying[c]:
			if _, ok := s.since[c]; !ok {
				s.since[c] = at
			}
		}
		s.free = free
	}
	f.walk(func(o *sim.Observation) {
		switch o.Kind {
		case sim.ObsAttemptFailed, sim.ObsBeliefStart, sim.ObsGiveUp:
			outcomes[o.Client] = append(outcomes[o.Client], outcome{o.Event, o.At})
		}
		switch o.Kind {
		case sim.ObsMetric:
			vals[o.Name] = float64(o.Value)
		case sim.ObsCounter:
			vals[o.Name] += float64(o.Value)
		case sim.ObsAttempt:
			attempts[o.Client] = append(attempts[o.Client], o.Event)
			anyAttempt = true
			first = min(first, o.At)
			if _, ok := started[o.Client]; !ok {
				started[o.Client] = o.At
			}
			s := get(o.Lock)
			s.trying[o.Client] = true
			update(s, o.At, o.Client)
		case sim.ObsAttemptFailed:
			failed++
		case sim.ObsGiveUp:
			delete(started, o.Client)
			s := get(o.Lock)
			delete(s.trying, o.Client)
			update(s, o.At, o.Client)
		case sim.ObsBeliefStart:
			acquisitions++
			last = max(last, o.At)
			if t, ok := started[o.Client]; ok {
				waits = append(waits, o.At-t)
				delete(started, o.Client)
			}
			s := get(o.Lock)
			delete(s.trying, o.Client)
			s.believing[o.Client] = true
			update(s, o.At, o.Client)
		case sim.ObsBeliefEnd:
			last = max(last, o.At)
			s := get(o.Lock)
			delete(s.believing, o.Client)
			update(s, o.At, o.Client)
		}
	}, func(p procEvent) {
		if !p.down() {
			return
		}
		outcomes[p.proc] = append(outcomes[p.proc], outcome{p.idx, p.at})
		delete(started, p.proc)
		for _, l := range sortedKeys(locks) {
			s := locks[l]
			delete(s.trying, p.proc)
			delete(s.believing, p.proc)
			update(s, p.at, p.proc)
		}
	})
	var unavailable []span
	for _, l := range sortedKeys(locks) {
		s := locks[l]
		for _, c := range sortedProcs(s.since) {
			s.windows[c] = append(s.windows[c], span{s.since[c], f.end()})
		}
		// A grant blocks others while it is held, from the moment its client
		// learned the outcome of its attempt (before that, the reply is on its way).
		var held []span
		var owners []sim.ProcID
		for _, g := range f.grants {
			if g.lock != l {
				continue
			}
			from := g.at
			os := outcomes[g.client]
			if i, _ := slices.BinarySearchFunc(os, g.idx, func(o outcome, idx int) int { return o.idx - idx }); g.resurrected {
				// no reply is on its way: it blocks from the moment it is back
			} else if i < len(os) {
				from = os[i].at
			} else if concluded(os[:i], attempts[g.client], g.idx) {
				// granted after its client had stopped waiting for it (a SET that
				// arrived after a Redlock round gave up on that node): nobody will
				// use it, and it blocks from the start
			} else if !f.downAt(g.client, g.idx) {
				from = f.end() // the reply never arrived within the run
			}
			held = append(held, span{from, min(g.withdrawn, f.end())})
			owners = append(owners, g.client)
		}
		for _, c := range sortedProcs(s.windows) {
			var others []span
			for i, h := range held {
				if owners[i] != c {
					others = append(others, h)
				}
			}
			unavailable = append(unavailable, intersect(merge(s.windows[c]), merge(others))...)
		}
	}
	if anyAttempt {
		total, longest := sim.Time(0), sim.Time(0)
		for _, w := range merge(unavailable) {
			total += w.to - w.from
			longest = max(longest, w.to-w.from)
		}
		vals["acquisitions"] = float64(acquisitions)
		vals["unavailable_ms"] = total.Ms()
		vals["unavailable_max_ms"] = longest.Ms()
		vals["failed_attempts"] = float64(failed)
	}
	if f.operated {
		vals["stale_accepted"] = float64(staleAccepted(f))
	}
	if misses, _, ok := periodMisses(f); ok {
		vals["missed_buckets"] = float64(len(misses))
	}
	if len(waits) > 0 {
		slices.Sort(waits)
		vals["wait_p50_ms"] = math.Round(percentile(waits, 50).Ms()*1000) / 1000 // to the microsecond
		vals["wait_p99_ms"] = math.Round(percentile(waits, 99).Ms()*1000) / 1000
		if acquisitions >= 2 && last > first { // one acquisition is no rate
			vals["throughput_per_s"] = significant(float64(acquisitions)/((last-first).Ms()/1000), 3)
		}
	}
	out := make([]Metric, 0, len(vals))
	for _, n := range sortedKeys(vals) {
		out = append(out, Metric{n, vals[n]})
	}
	return out
}

// concluded reports whether a client's acquisition had ended (it failed, gave
// up, or came to hold the lock) before trace event idx: its last outcome before
// idx comes after the start of its last acquisition before idx.
func concluded(before []outcome, attempts []int, idx int) bool {
	if len(before) == 0 {
		return false
	}
	last := -1
	for _, a := range attempts {
		if a < idx {
			last = a
		}
	}
	return before[len(before)-1].idx > last
}

// outcome is when a client learned how an attempt went: a failure, a give-up, a
// belief that it holds the lock, or its crash (trace index and time).
type outcome struct {
	idx int
	at  sim.Time
}

// span is a true-time interval [from, to).
type span struct{ from, to sim.Time }

// merge sorts spans and joins those that overlap or touch.
func merge(ss []span) []span {
	ss = slices.Clone(ss)
	slices.SortFunc(ss, func(a, b span) int { return int(a.from - b.from) })
	var out []span
	for _, s := range ss {
		if s.to <= s.from {
			continue
		}
		if n := len(out); n > 0 && s.from <= out[n-1].to {
			out[n-1].to = max(out[n-1].to, s.to)
			continue
		}
		out = append(out, s)
	}
	return out
}

// intersect returns the overlap of two merged span lists.
func intersect(a, b []span) []span {
	var out []span
	for i, j := 0, 0; i < len(a) && j < len(b); {
		from, to := max(a[i].from, b[j].from), min(a[i].to, b[j].to)
		if from < to {
			out = append(out, span{from, to})
		}
		if a[i].to < b[j].to {
			i++
		} else {
			j++
		}
	}
	return out
}

// sortedProcs visits a map keyed by process in a fixed order.
func sortedProcs[V any](m map[sim.ProcID]V) []sim.ProcID { return slices.Sorted(maps.Keys(m)) }

// sortedKeys visits a map in a fixed order: never range over a map to decide
// anything.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// percentile is the nearest-rank q-th percentile of sorted durations.
func percentile(sorted []sim.Time, q int) sim.Time {
	i := (q*len(sorted)+99)/100 - 1
	return sorted[max(i, 0)]
}

// significant rounds x > 0 to n significant digits (0.000556, 9.69, 1230).
func significant(x float64, n int) float64 {
	p := math.Pow(10, float64(n-1)-math.Floor(math.Log10(x)))
	return math.Round(x*p) / p
}
