package check

import (
	"slices"
	"strings"

	"github.com/locksim/locksim/sim"
)

// deadlockFree: after a holder crashes or vanishes, the lock becomes acquirable
// again without manual help within the bound: its grant is withdrawn (it expires,
// say) or the service grants the lock to someone else. A holder is a client whose
// grant is still held at the service when it goes down, or a client that is
// already down when the service grants it the lock (the reply goes nowhere).
func deadlockFree(f *facts) Result {
	var r Result
	type orphan struct {
		g    *grantRec
		at   sim.Time
		kind string
	}
	var orphans []orphan
	for _, g := range f.grants {
		if f.downAt(g.client, g.idx) {
			orphans = append(orphans, orphan{g, g.at, "was already down when it was granted"})
		}
		for _, p := range f.procs {
			if p.proc == g.client && p.down() && g.heldAt(p.idx) {
				orphans = append(orphans, orphan{g, p.at, "went down (" + p.kind.String() + ") at " + p.at.String()})
			}
		}
	}
	var short []sim.Time // holders the run ended too soon after to judge
	for _, o := range orphans {
		r.Applicable = true
		// While the granting node itself is down, the lock is stuck by that outage,
		// not by the holder: the bound starts when the node is back.
		from, ok := f.backUp(o.g.proc, o.at)
		if !ok {
			continue // the node never came back: an outage, judged by progress
		}
		deadline := from.Add(f.bound())
		if o.g.withdrawn <= deadline || f.regranted(o.g, o.at, deadline) {
			continue
		}
		if deadline >= f.end() {
			short = append(short, o.at)
			continue
		}
		r.Violations = append(r.Violations, violation(deadline,
			sprintf("%s %s holding %s at %s, and %s was still not acquirable %s later",
				f.name(o.g.client), o.kind, o.g.lock, f.name(o.g.proc), o.g.lock, sim.FormatDuration(f.bound())),
			f.name(o.g.client)))
	}
	if len(short) > 0 && len(r.Violations) == 0 {
		undecided(&r, short[0], f)
	}
	return r
}

// backUp returns when process p is running again at or after t: t itself if it
// is up then, else its next restart (false if it never restarts).
func (f *facts) backUp(p sim.ProcID, t sim.Time) (sim.Time, bool) {
	down := false
	for _, e := range f.procs {
		if e.proc != p {
			continue
		}
		if e.at > t {
			if !down {
				return t, true
			}
			if !e.down() {
				return e.at, true
			}
			continue
		}
		down = e.down()
	}
	return t, !down
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
// bound. Each lock is judged on its own, stretch by stretch: a stretch starts when,
// after the last fault, a client is trying and nobody believes it holds the lock;
// it ends when someone acquires it, or when every waiting client has given up
// (then nobody wants it). A stretch longer than the bound violates progress.
func progress(f *facts) Result {
	type lockState struct {
		trying, believing map[sim.ProcID]bool
		start             sim.Time            // the open stretch's start, or Never
		waiting           map[sim.ProcID]bool // who waited during it
		reported          bool
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
	var r Result
	var short []sim.Time
	report := func(l string, s *lockState) {
		deadline := s.start.Add(f.bound())
		s.reported = true
		waiting := make([]string, 0, len(s.waiting))
		for c := range s.waiting {
			waiting = append(waiting, f.name(c))
		}
		slices.Sort(waiting)
		r.Violations = append(r.Violations, violation(deadline,
			sprintf("%s %s trying to acquire %s from %s on, with no fault after %s, and nobody acquired it within %s",
				listNames(waiting), verbWas(len(waiting)), l, s.start, lastFaultText(f.lastFault),
				sim.FormatDuration(f.bound())), waiting...))
	}
	// expire reports open stretches whose bound ran out strictly before t.
	expire := func(t sim.Time) {
		for _, l := range order {
			if s := locks[l]; s.start != sim.Never && !s.reported && s.start.Add(f.bound()) < t {
				report(l, s)
			}
		}
	}
	// settle opens or closes the lock's stretch after a change at t; asking is
	// the client that has just started trying, or NoProc. Who waited is kept as
	// a set, added to as clients start trying, so that thousands of clients
	// asking at one instant cost linear time, not cubic (issue 32).
	settle := func(s *lockState, t sim.Time, asking sim.ProcID) {
		if t < f.lastFault {
			return
		}
		switch {
		case len(s.believing) > 0 || len(s.trying) == 0:
			s.start, s.waiting, s.reported = sim.Never, nil, false
		case s.start == sim.Never:
			s.start = max(t, f.lastFault, 0)
			s.waiting = make(map[sim.ProcID]bool, len(s.trying))
			for c := range s.trying {
				s.waiting[c] = true
			}
		case asking != sim.NoProc && s.trying[asking]:
			s.waiting[asking] = true
		}
	}
	settledAtFault := false
	atFault := func(t sim.Time) {
		if !settledAtFault && t > f.lastFault {
			settledAtFault = true
			for _, l := range order {
				settle(locks[l], f.lastFault, sim.NoProc)
			}
		}
	}
	f.walk(func(o *sim.Observation) {
		switch o.Kind {
		case sim.ObsAttempt, sim.ObsGiveUp, sim.ObsBeliefStart, sim.ObsBeliefEnd:
		default:
			return
		}
		atFault(o.At)
		expire(o.At)
		s := get(o.Lock)
		switch o.Kind {
		case sim.ObsAttempt:
			r.Applicable = true
			s.trying[o.Client] = true
		case sim.ObsGiveUp:
			delete(s.trying, o.Client)
		case sim.ObsBeliefStart:
			delete(s.trying, o.Client)
			s.believing[o.Client] = true
		case sim.ObsBeliefEnd:
			delete(s.believing, o.Client)
		}
		asking := sim.NoProc
		if o.Kind == sim.ObsAttempt {
			asking = o.Client
		}
		settle(s, o.At, asking)
	}, func(p procEvent) {
		atFault(p.at)
		expire(p.at)
		if !p.down() {
			return
		}
		for _, l := range order {
			s := locks[l]
			delete(s.trying, p.proc)
			delete(s.believing, p.proc)
			settle(s, p.at, sim.NoProc)
		}
	})
	atFault(f.end() + 1)
	expire(f.end()) // a bound that runs out exactly at the end is not judged
	for _, l := range order {
		if s := locks[l]; s.start != sim.Never && !s.reported {
			short = append(short, s.start)
		}
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
