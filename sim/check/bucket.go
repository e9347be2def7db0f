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
	type claim struct {
		client sim.ProcID
		job    string
	}
	claimed := map[claim]sim.Time{} // when each worker last read its clock to claim
	var r Result
	f.walk(func(o *sim.Observation) {
		if o.Kind == sim.ObsAttempt {
			claimed[claim{o.Client, o.Lock}] = o.At
		}
		if o.Kind != sim.ObsJobStart || o.Window <= 0 {
			return
		}
		r.Applicable = true
		// A start is dated when the worker read its clock to claim the bucket,
		// not when the answer came back: a claim at 0:59:59.999 whose answer
		// arrives after the hour is the previous hour's run.
		at := o.At
		if t, ok := claimed[claim{o.Client, o.Lock}]; ok {
			at = t
		}
		k := key{o.Lock, o.Window, floorDiv(int64(at), int64(o.Window))}
		s, seen := first[k]
		if !seen {
			first[k] = start{o.Client, at}
			return
		}
		from := sim.Time(k.bucket * int64(o.Window))
		r.Violations = append(r.Violations, violation(o.At,
			sprintf("%s starts job %s (claimed at %s), in the true-time bucket [%s, %s) where %s already claimed and started it at %s",
				f.name(o.Client), o.Lock, at, from, from.Add(o.Window), f.name(s.client), s.at),
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
