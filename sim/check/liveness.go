package check

import (
	"slices"
	"strings"

	"github.com/locksim/locksim/sim"
)

// deadlockFree: after a holder crashes or vanishes, the lock becomes acquirable
// again without manual help within the bound: its grant is withdrawn (it expires,
// say) or the service grants the lock to someone else. A holder is a client whose
// grant is still held at the service when it goes down; a client whose grant had
// already ended leaves nothing behind.
func deadlockFree(f *facts) Result {
	var r Result
	var short []sim.Time // holders' crashes the run ended too soon after to judge
	f.walk(func(*sim.Observation) {}, func(p procEvent) {
		if !p.down() {
			return
		}
		for _, g := range f.grants {
			if g.client != p.proc || !g.heldAt(p.at) {
				continue
			}
			r.Applicable = true
			deadline := p.at.Add(f.bound())
			if g.withdrawn <= deadline || f.regranted(g, p.at, deadline) {
				continue
			}
			if deadline > f.end() {
				short = append(short, p.at)
				continue
			}
			r.Violations = append(r.Violations, violation(deadline,
				sprintf("%s went down (%s) at %s holding %s at %s, and %s was still not acquirable %s later",
					f.name(p.proc), p.kind, p.at, g.lock, f.name(g.proc), g.lock, sim.FormatDuration(f.bound())),
				f.name(p.proc)))
		}
	})
	if len(short) > 0 && len(r.Violations) == 0 {
		undecided(&r, short[0], f)
	}
	return r
}

// regranted reports whether the service granted g's lock to another client in
// [from, to].
func (f *facts) regranted(g *grantRec, from, to sim.Time) bool {
	for _, h := range f.grants {
		if h.service == g.service && h.lock == g.lock && h.client != g.client && h.at >= from && h.at <= to {
			return true
		}
	}
	return false
}

// progress: once faults stop, some contender acquires each wanted lock within the
// bound. Each lock is judged on its own: the bound starts at the later of the last
// fault and the first moment a client is trying to acquire that lock; a lock
// already held then counts as progress.
func progress(f *facts) Result {
	type lockState struct {
		trying, believing map[sim.ProcID]bool
		start             sim.Time // when the bound starts counting
		waiting           []string // who was trying then
		done              bool
	}
	locks := map[string]*lockState{}
	var order []string
	get := func(l string) *lockState {
		s := locks[l]
		if s == nil {
			s = &lockState{trying: map[sim.ProcID]bool{}, believing: map[sim.ProcID]bool{}, start: sim.Never}
			locks[l] = s
			order = append(order, l)
		}
		return s
	}
	// settle looks at a lock once everything up to the last fault has happened.
	settle := func(s *lockState, at sim.Time) {
		switch {
		case s.done || s.start != sim.Never:
		case len(s.believing) > 0:
			s.done = true
		case len(s.trying) > 0:
			s.start = max(at, 0)
			for c := range s.trying {
				s.waiting = append(s.waiting, f.name(c))
			}
			slices.Sort(s.waiting)
		}
	}
	evaluated := false
	before := func(at sim.Time) {
		if !evaluated && at > f.lastFault {
			evaluated = true
			for _, l := range order {
				settle(locks[l], f.lastFault)
			}
		}
	}
	var r Result
	f.walk(func(o *sim.Observation) {
		before(o.At)
		switch o.Kind {
		case sim.ObsAttempt, sim.ObsGiveUp, sim.ObsBeliefStart, sim.ObsBeliefEnd:
		default:
			return
		}
		s := get(o.Lock)
		switch o.Kind {
		case sim.ObsAttempt:
			r.Applicable = true
			s.trying[o.Client] = true
			if s.start != sim.Never && !s.done && o.At <= s.start.Add(f.bound()) && !slices.Contains(s.waiting, f.name(o.Client)) {
				s.waiting = append(s.waiting, f.name(o.Client))
				slices.Sort(s.waiting)
			}
		case sim.ObsGiveUp:
			delete(s.trying, o.Client)
		case sim.ObsBeliefStart:
			delete(s.trying, o.Client)
			s.believing[o.Client] = true
			if s.start != sim.Never && o.At <= s.start.Add(f.bound()) {
				s.done = true
			}
		case sim.ObsBeliefEnd:
			delete(s.believing, o.Client)
		}
		if evaluated {
			settle(s, o.At)
		}
	}, func(p procEvent) {
		before(p.at)
		if !p.down() {
			return
		}
		for _, l := range order {
			delete(locks[l].trying, p.proc)
			delete(locks[l].believing, p.proc)
		}
	})
	if !evaluated {
		for _, l := range order {
			settle(locks[l], max(f.lastFault, 0))
		}
	}
	var short []sim.Time
	for _, l := range order {
		s := locks[l]
		if s.done || s.start == sim.Never {
			continue
		}
		deadline := s.start.Add(f.bound())
		if deadline > f.end() {
			short = append(short, s.start)
			continue
		}
		r.Violations = append(r.Violations, violation(deadline,
			sprintf("%s %s trying to acquire %s from %s on, with no fault after %s, and nobody acquired it within %s",
				listNames(s.waiting), verbWas(len(s.waiting)), l, s.start, lastFaultText(f.lastFault),
				sim.FormatDuration(f.bound())), s.waiting...))
	}
	if len(short) > 0 && len(r.Violations) == 0 && r.Applicable {
		undecided(&r, short[0], f)
	}
	return r
}

// listNames joins names as a sentence does: "c1", "c1 and c2", "c1, c2 and c3".
func listNames(ns []string) string {
	if len(ns) <= 1 {
		return strings.Join(ns, "")
	}
	return strings.Join(ns[:len(ns)-1], ", ") + " and " + ns[len(ns)-1]
}

func verbWas(n int) string {
	if n == 1 {
		return "was"
	}
	return "were"
}

func lastFaultText(t sim.Time) string {
	if t == noFault {
		return "the start"
	}
	return t.String()
}
