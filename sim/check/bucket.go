package check

import (
	"slices"
	"strings"
	"time"

	"github.com/locksim/locksim/sim"
)

// oncePerBucket: a periodic job starts at most once per TRUE-time bucket. A
// time-bucket lock (lostinsoba, "Distributed locks: NoSQL": ZADD GT CH with score
// floor(ts / period)) promises one run per period, not mutual exclusion: each
// worker computes the bucket from its own clock, so a clock that runs ahead
// claims the next bucket early, and the job runs twice in one true period. The
// bucket of a start is floor(true start time / period), with the period the
// start reports; starts with different periods are judged apart. A start with
// no period is a one-shot job's (a state-transition lock's job: claimed from
// new, run, marked done): its bucket is the whole run, so it starts at most
// once. Applicable when some job start is reported.
//
// A run counts once it was not cut short by its worker going down: a start
// whose worker crashed (or lost power, or was shut down) while it still ran the
// job, before its run ended, did not run the job, and a later start of the same
// job and bucket is the recovery of that run, not a second one. lostinsoba's
// state-transition lock with a timeout status set by another worker exists for
// that: a reaper frees a crashed worker's job so that someone runs it. A
// worker that finished (its run ended) and went down afterwards did run it.
func oncePerBucket(f *facts) Result {
	cut := crashedRuns(f)
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
	claimed := map[claim]sim.Time{} // when each worker last read its clock to claim
	var r Result
	f.walk(func(o *sim.Observation) {
		if o.Kind == sim.ObsAttempt {
			claimed[claim{o.Client, o.Lock}] = o.At
		}
		if o.Kind != sim.ObsJobStart {
			return
		}
		r.Applicable = true
		if cut[o] {
			return // its worker went down mid-run: not a run, neither first nor second
		}
		// A start is dated when the worker read its clock to claim the bucket,
		// not when the answer came back: a claim at 0:59:59.999 whose answer
		// arrives after the hour is the previous hour's run.
		at := o.At
		if t, ok := claimed[claim{o.Client, o.Lock}]; ok {
			at = t
		}
		k := key{o.Lock, o.Window, 0}
		if o.Window > 0 {
			k.bucket = floorDiv(int64(at), int64(o.Window))
		}
		s, seen := first[k]
		if !seen {
			first[k] = start{o.Client, at}
			return
		}
		if o.Window <= 0 { // a one-shot job: its bucket is the whole run
			r.Violations = append(r.Violations, violation(o.At,
				sprintf("%s starts job %s, which %s already started at %s: a job that runs once ran again",
					f.name(o.Client), o.Lock, f.name(s.client), s.at),
				f.name(s.client), f.name(o.Client)).at(o.Event))
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

// crashedRuns returns the job starts whose run its worker did not finish
// because it went down: the worker's belief in the job, begun with the start,
// was still open when the worker crashed, lost power or shut down.
func crashedRuns(f *facts) map[*sim.Observation]bool {
	running := map[claim]*sim.Observation{}
	cut := map[*sim.Observation]bool{}
	f.walk(func(o *sim.Observation) {
		c := claim{o.Client, o.Lock}
		switch o.Kind {
		case sim.ObsJobStart:
			running[c] = o
		case sim.ObsBeliefEnd:
			delete(running, c)
		}
	}, func(p procEvent) {
		if !p.down() {
			return
		}
		for _, c := range sortedClaims(running) {
			if c.client == p.proc {
				cut[running[c]] = true
				delete(running, c)
			}
		}
	})
	return cut
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

// periodKey is one true-time bucket of a periodic job.
type periodKey struct {
	job    string
	period time.Duration
	bucket int64
}

// periodMiss is a bucket in which a live worker tried to claim the job and
// nobody started it.
type periodMiss struct {
	key    periodKey
	client sim.ProcID // the first worker that tried
	at     sim.Time   // when it tried
	why    string     // how its attempt ended
}

// periodMisses reads the once-per-period locks' attempts and starts, both dated by
// the claim (the worker's reading of its clock), and returns the buckets that saw
// an attempt and no start, and the first attempt in a bucket the run ended too
// early to judge (short.client is NoProc when there is none). An attempt counts
// when its worker stayed up until it learned how it went.
func periodMisses(f *facts) (misses []periodMiss, short periodMiss, applicable bool) {
	type pending struct {
		key periodKey
		at  sim.Time
	}
	attempted := map[periodKey]*periodMiss{}
	var order []periodKey
	started := map[periodKey]bool{}
	open := map[claim]pending{}
	commit := func(c claim, why string) {
		p, ok := open[c]
		if !ok {
			return
		}
		delete(open, c)
		if attempted[p.key] == nil {
			attempted[p.key] = &periodMiss{key: p.key, client: c.client, at: p.at, why: why}
			order = append(order, p.key)
		}
	}
	f.walk(func(o *sim.Observation) {
		c := claim{o.Client, o.Lock}
		switch o.Kind {
		case sim.ObsAttempt:
			if o.Window > 0 {
				applicable = true
				open[c] = pending{periodKey{o.Lock, o.Window, floorDiv(int64(o.At), int64(o.Window))}, o.At}
			}
		case sim.ObsAttemptFailed:
			if _, ok := open[c]; ok { // the sentence only for a claim it commits
				commit(c, "its claim failed: "+strings.TrimSuffix(strings.TrimSuffix(o.Reason, ", "+sim.ReasonNoRetry), ", "+sim.ReasonRetry))
			}
		case sim.ObsGiveUp:
			commit(c, "it gave up")
		case sim.ObsJobStart:
			if p, ok := open[c]; ok {
				started[p.key] = true
			}
			commit(c, "")
		}
	}, func(p procEvent) {
		if !p.down() {
			return
		}
		for c := range open {
			if c.client == p.proc {
				delete(open, c) // it went down before it knew: not a live worker's attempt
			}
		}
	})
	for _, c := range sortedClaims(open) { // still waiting for an answer at the end
		commit(c, "no answer before the run ended")
	}
	short.client = sim.NoProc
	for _, k := range order {
		if started[k] {
			continue
		}
		if end := sim.Time((k.bucket + 1) * int64(k.period)); end > f.end() {
			if short.client == sim.NoProc || attempted[k].at < short.at {
				short = *attempted[k]
			}
			continue
		}
		misses = append(misses, *attempted[k])
	}
	return misses, short, applicable
}

// claim is a worker's claim on a periodic job.
type claim struct {
	client sim.ProcID
	job    string
}

// sortedClaims visits claims in a fixed order.
func sortedClaims[V any](m map[claim]V) []claim {
	out := make([]claim, 0, len(m))
	for c := range m {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b claim) int {
		if a.client != b.client {
			return int(a.client - b.client)
		}
		return strings.Compare(a.job, b.job)
	})
	return out
}

// everyPeriod: every true-time bucket in which some live worker tried to claim a
// once-per-period job sees at least one start. A time-bucket lock promises one
// run per period; a bucket nobody could claim (a clock far ahead raised the
// stored score past it) is a run that never happened. Judged at each bucket's
// end.
func everyPeriod(f *facts) Result {
	misses, short, applicable := periodMisses(f)
	r := Result{Applicable: applicable}
	for _, m := range misses {
		from, to := m.key.span()
		why := ""
		if m.why != "" {
			why = " (" + m.why + ")"
		}
		r.Violations = append(r.Violations, violation(to,
			sprintf("%s tried to claim job %s at %s, in the true-time bucket [%s, %s), and nobody started it in that period%s",
				f.name(m.client), m.key.job, m.at, from, to, why), f.name(m.client)))
	}
	if short.client != sim.NoProc && applicable {
		from, to := short.key.span()
		undecidedBecause(&r, sprintf("not judged: the run ended at %s, before the bucket [%s, %s) in which %s tried at %s had ended",
			f.end(), from, to, f.name(short.client), short.at))
	}
	return r
}

// span is the bucket's true-time interval [from, to).
func (k periodKey) span() (from, to sim.Time) {
	from = sim.Time(k.bucket * int64(k.period))
	return from, from.Add(k.period)
}
