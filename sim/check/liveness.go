package check

import (
	"github.com/locksim/locksim/sim"
)

// deadlockFree: after a holder crashes or vanishes, the lock becomes acquirable
// again without manual help within the bound: its grant is withdrawn (it expires,
// say) or the service grants the lock to someone else. A holder is a client with an
// open grant or an open belief when it goes down.
func deadlockFree(f *facts) Result {
	var r Result
	type held struct {
		grants  map[string]bool // lock -> granted and not withdrawn
		beliefs map[string]bool
	}
	holders := map[sim.ProcID]*held{}
	get := func(p sim.ProcID) *held {
		h := holders[p]
		if h == nil {
			h = &held{grants: map[string]bool{}, beliefs: map[string]bool{}}
			holders[p] = h
		}
		return h
	}
	type orphan struct {
		client sim.ProcID
		lock   string
		at     sim.Time
		kind   sim.EventKind
		freed  bool
	}
	var orphans []*orphan
	var short []sim.Time // holders' crashes the run ended too soon after to judge
	f.walk(func(o *sim.Observation) {
		switch o.Kind {
		case sim.ObsGrant:
			for _, or := range orphans {
				if or.lock == o.Lock && or.client != o.Client && !or.freed && o.At <= or.at.Add(f.bound()) {
					or.freed = true
				}
			}
			get(o.Client).grants[o.Lock] = true
		case sim.ObsGrantEnd:
			for _, or := range orphans {
				if or.lock == o.Lock && or.client == o.Client && !or.freed && o.At <= or.at.Add(f.bound()) {
					or.freed = true
				}
			}
			delete(get(o.Client).grants, o.Lock)
		case sim.ObsBeliefStart:
			get(o.Client).beliefs[o.Lock] = true
		case sim.ObsBeliefEnd:
			delete(get(o.Client).beliefs, o.Lock)
		}
	}, func(d downFact) {
		h := holders[d.proc]
		if h == nil {
			return
		}
		locks := map[string]bool{}
		for l := range h.grants {
			locks[l] = true
		}
		for l := range h.beliefs {
			locks[l] = true
		}
		for _, l := range sortedKeys(locks) {
			r.Applicable = true
			orphans = append(orphans, &orphan{client: d.proc, lock: l, at: d.at, kind: d.kind})
		}
		h.beliefs = map[string]bool{}
	})
	for _, or := range orphans {
		deadline := or.at.Add(f.bound())
		if or.freed {
			continue
		}
		if deadline > f.end() {
			short = append(short, or.at)
			continue
		}
		r.Violations = append(r.Violations, violation(deadline,
			sprintf("%s went down (%s) at %s holding %s, and %s was still not acquirable %s later",
				f.name(or.client), or.kind, or.at, or.lock, or.lock, sim.FormatDuration(f.bound())),
			f.name(or.client)))
	}
	if len(short) > 0 {
		undecided(&r, short[0], f)
	}
	return r
}

// progress: once faults stop, some contender acquires the lock within the bound.
// The bound starts at the later of the last fault and the first moment a client is
// trying after it; a lock already held then counts as progress.
func progress(f *facts) Result {
	var r Result
	trying := map[sim.ProcID]bool{}
	believing := map[sim.ProcID]bool{}
	start := sim.Never // when the bound starts counting
	done, evaluated := false, false
	// settle looks at the state once everything up to the last fault has happened.
	settle := func(at sim.Time) {
		switch {
		case done || start != sim.Never:
		case len(believing) > 0:
			done = true
		case len(trying) > 0:
			start = max(at, 0)
		}
	}
	before := func(at sim.Time) {
		if !evaluated && at > f.lastFault {
			evaluated = true
			settle(f.lastFault)
		}
	}
	f.walk(func(o *sim.Observation) {
		before(o.At)
		switch o.Kind {
		case sim.ObsAttempt:
			r.Applicable = true
			trying[o.Client] = true
		case sim.ObsGiveUp:
			delete(trying, o.Client)
		case sim.ObsBeliefStart:
			delete(trying, o.Client)
			believing[o.Client] = true
			if start != sim.Never && o.At <= start.Add(f.bound()) {
				done = true
			}
		case sim.ObsBeliefEnd:
			delete(believing, o.Client)
		}
		if evaluated {
			settle(o.At)
		}
	}, func(d downFact) {
		before(d.at)
		delete(trying, d.proc)
		delete(believing, d.proc)
	})
	if !evaluated {
		settle(max(f.lastFault, 0))
	}
	if !r.Applicable || done || start == sim.Never {
		return r
	}
	if deadline := start.Add(f.bound()); deadline > f.end() {
		undecided(&r, start, f)
	} else {
		r.Violations = append(r.Violations, violation(deadline,
			sprintf("a client was trying to acquire the lock from %s on, with no fault after %s, and nobody acquired it within %s",
				start, lastFaultText(f.lastFault), sim.FormatDuration(f.bound()))))
	}
	return r
}

func lastFaultText(t sim.Time) string {
	if t == noFault {
		return "the start"
	}
	return t.String()
}
