package check

import (
	"time"

	"github.com/locksim/locksim/sim"
)

// oncePerBucket: a periodic job starts at most once per TRUE-time bucket. A
// time-bucket lock (lostinsoba, "Distributed locks: NoSQL": ZADD GT CH with score
// floor(ts / period)) promises one run per period, not mutual exclusion: each
// worker computes the bucket from its own clock, so a clock that runs ahead
// claims the next bucket early, and the job runs twice in one true period. The
// bucket of a start is floor(true start time / period), with the period the
// start reports; starts with different periods are judged apart. Applicable when
// some job start is reported.
func oncePerBucket(f *facts) Result {
	type key struct {
		job    string
		period time.Duration
		bucket int64
	}
	type start struct {
		client sim.ProcID
		at     sim.Time
	}
	first := map[key]start{}
	var r Result
	f.walk(func(o *sim.Observation) {
		if o.Kind != sim.ObsJobStart || o.Window <= 0 {
			return
		}
		r.Applicable = true
		k := key{o.Lock, o.Window, floorDiv(int64(o.At), int64(o.Window))}
		s, seen := first[k]
		if !seen {
			first[k] = start{o.Client, o.At}
			return
		}
		from := sim.Time(k.bucket * int64(o.Window))
		r.Violations = append(r.Violations, violation(o.At,
			sprintf("%s starts job %s at %s, in the true-time bucket [%s, %s) where %s already started it at %s",
				f.name(o.Client), o.Lock, o.At, from, from.Add(o.Window), f.name(s.client), s.at),
			f.name(s.client), f.name(o.Client)).at(o.Event))
	}, func(procEvent) {})
	return r
}

// floorDiv is a / b rounded down (b > 0), so that times before 0 fall in
// negative buckets.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}
