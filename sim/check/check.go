package check

import (
	"fmt"
	"slices"
	"time"

	"github.com/locksim/locksim/sim"
)

// Kind says whether an invariant is about safety or liveness.
type Kind uint8

const (
	Safety   Kind = iota + 1 // something bad never happens: a violation is a moment
	Liveness                 // something good eventually happens: a violation is a deadline missed
)

// String is "safety" or "liveness".
func (k Kind) String() string {
	if k == Safety {
		return "safety"
	}
	return "liveness"
}

// Verdict is a run's one-word judgement.
type Verdict string

const (
	SAFE   Verdict = "SAFE"   // no invariant that decides the verdict was violated
	UNSAFE Verdict = "UNSAFE" // a safety invariant was violated (a resource one, when the run has a resource)
	STUCK  Verdict = "STUCK"  // safe, but a liveness invariant was violated: nobody made progress
)

// ParseVerdict reads a verdict's name.
func ParseVerdict(s string) (Verdict, bool) {
	switch v := Verdict(s); v {
	case SAFE, UNSAFE, STUCK:
		return v, true
	}
	return "", false
}

// Violation is one broken promise.
type Violation struct {
	At     sim.Time // true time it was revealed
	Event  int      // the trace event that revealed it, or -1 (a liveness deadline)
	Procs  []string // the processes involved, by name
	Detail string   // the sentence that explains it: who held what, when
}

// Result is one invariant's judgement. An invariant that does not apply to the run
// (no resource, no tokens, nobody crashed while holding) is not applicable, never
// "holds".
type Result struct {
	Name       string      // the invariant's name ("mutual-exclusion", docs/invariants.md)
	Kind       Kind        // safety or liveness
	Applicable bool        // the run gave the invariant something to judge
	Violations []Violation // every violation, in time order
	// Note says why an invariant is not applicable when the reason is worth
	// telling (a run that ended before the liveness bound could be judged).
	Note string
}

// Holds reports whether the invariant applied and was never violated.
func (r Result) Holds() bool { return r.Applicable && len(r.Violations) == 0 }

// Status is "holds", "violated" or "n/a".
func (r Result) Status() string {
	switch {
	case !r.Applicable:
		return "n/a"
	case len(r.Violations) > 0:
		return "violated"
	}
	return "holds"
}

// Metric is a named number whose name carries its unit.
type Metric struct {
	Name  string  // with its unit: "validity_ms", "watch_notifications"
	Value float64 // the metric's last value, or the counter's total
}

// Report is the checker's whole judgement of a run.
type Report struct {
	Results  []Result // one per invariant, in docs/invariants.md's order
	Verdict  Verdict  // the run's one word
	Resource bool     // a protected resource is declared (or saw operations): only resource invariants decide UNSAFE
	// Unreached names the declared protected resources that no operation
	// reached (lost, delayed past the end, never sent): the resource
	// invariants judged them all the same, and had nothing to refuse.
	Unreached []string
	Metrics   []Metric // what the protocols measured (ObsMetric, ObsCounter)
	// Notes qualify the verdict where it could mislead: a SAFE run in which the
	// legitimate holder's operations were all refused (safe, but it could not
	// work).
	Notes []string
}

// Result returns the named invariant's result.
func (r *Report) Result(name string) (Result, bool) {
	for _, x := range r.Results {
		if x.Name == name {
			return x, true
		}
	}
	return Result{}, false
}

// Metric returns the named metric.
func (r *Report) Metric(name string) (float64, bool) {
	for _, m := range r.Metrics {
		if m.Name == name {
			return m.Value, true
		}
	}
	return 0, false
}

// Options parameterise the judgement.
type Options struct {
	// Bound is the liveness bound: how long after a fault (or a holder's crash) the
	// lock must become acquirable again, or a contender must acquire it.
	Bound time.Duration
	// VerdictOnly leaves out the metrics and the notes, which decide nothing:
	// for a caller that reads only the verdict and the results (an exploration).
	VerdictOnly bool
	// Resources names the protected resources that are no process of their own
	// (a table in the lock's own database, `resource data in=db`), by the
	// process whose ObsResource reports are their operations. A process of
	// role sim.RoleResource is a protected resource without being named here.
	// A declared resource makes the resource invariants decide the verdict
	// even when no operation reached it.
	Resources map[sim.ProcID]string
}

// DefaultBound is the liveness bound where a scenario sets none.
const DefaultBound = 60 * time.Second

// invariant is one entry of the vocabulary.
type invariant struct {
	name     string
	kind     Kind
	resource bool // a resource invariant: decides UNSAFE when a resource is protected
	judge    func(f *facts) Result
}

// invariants is the checker's vocabulary, in report order.
var invariants = []invariant{
	{"mutex-belief", Safety, false, mutexBelief},
	{"grant-exclusive", Safety, false, grantExclusive},
	{"quorum-backed", Safety, false, quorumBacked},
	{"tokens-ordered", Safety, false, tokensOrdered},
	{"resource-safe", Safety, true, resourceSafe},
	{"fencing-monotonic", Safety, true, fencingMonotonic},
	{"all-or-nothing", Safety, true, allOrNothing},
	{"once-per-bucket", Safety, false, oncePerBucket},
	{"commit-agreement", Safety, false, commitAgreement},
	{"one-value-chosen", Safety, false, oneValueChosen},
	{"deadlock-free", Liveness, false, deadlockFree},
	{"progress", Liveness, false, progress},
	{"no-starvation", Liveness, false, noStarvation},
	{"every-period", Liveness, false, everyPeriod},
	{"nonblocking", Liveness, false, nonblocking},
	{"value-chosen", Liveness, false, valueChosen},
}

// LivenessNames lists the liveness invariants.
func LivenessNames() []string {
	var n []string
	for _, inv := range invariants {
		if inv.kind == Liveness {
			n = append(n, inv.name)
		}
	}
	return n
}

// Names lists every invariant name the checker knows, in report order.
func Names() []string {
	n := make([]string, len(invariants))
	for i, inv := range invariants {
		n[i] = inv.name
	}
	return n
}

// Known reports whether name is an invariant of the vocabulary.
func Known(name string) bool { return slices.Contains(Names(), name) }

// Check judges a trace.
func Check(t *sim.Trace, opt Options) Report {
	if opt.Bound <= 0 {
		opt.Bound = DefaultBound
	}
	f := newFacts(t, opt)
	rep := Report{Resource: f.resource, Unreached: f.unreached}
	for _, inv := range invariants {
		r := inv.judge(f)
		r.Name, r.Kind = inv.name, inv.kind
		rep.Results = append(rep.Results, r)
	}
	rep.Verdict = verdict(rep.Results, f.resource)
	if opt.VerdictOnly {
		return rep
	}
	rep.Metrics = metrics(f)
	if rep.Verdict == SAFE {
		rep.Notes = blockedHolders(f)
	}
	return rep
}

// ResourceNames lists the resource invariants: with a protected resource, only
// they decide UNSAFE.
func ResourceNames() []string {
	var n []string
	for _, inv := range invariants {
		if inv.resource {
			n = append(n, inv.name)
		}
	}
	return n
}

// verdict applies the rule of invariants.md: with a protected resource, only the
// resource invariants make a run UNSAFE (the lock-level ones are reported as facts);
// without one, any safety violation does; then any liveness violation makes it
// STUCK.
func verdict(rs []Result, resource bool) Verdict {
	stuck := false
	for i, r := range rs {
		if len(r.Violations) == 0 {
			continue
		}
		if invariants[i].kind == Liveness {
			stuck = true
			continue
		}
		if !resource || invariants[i].resource {
			return UNSAFE
		}
	}
	if stuck {
		return STUCK
	}
	return SAFE
}

// Deciding lists the violated results that decide the verdict: the safety ones
// that make it UNSAFE (with a protected resource, only the resource invariants),
// then the liveness ones that make it STUCK.
func (r *Report) Deciding() []Result {
	var safety, liveness []Result
	for i, res := range r.Results {
		switch {
		case len(res.Violations) == 0:
		case invariants[i].kind == Liveness:
			liveness = append(liveness, res)
		case !r.Resource || invariants[i].resource:
			safety = append(safety, res)
		}
	}
	return append(safety, liveness...)
}

func violation(at sim.Time, detail string, procs ...string) Violation {
	if procs == nil {
		procs = []string{}
	}
	return Violation{At: at, Event: -1, Procs: procs, Detail: detail}
}

// at marks the trace event that revealed a violation.
func (v Violation) at(event int) Violation { v.Event = event; return v }

// undecided marks a liveness result the run was too short to judge: it is not
// applicable, never "holds".
func undecided(r *Result, since sim.Time, f *facts) {
	undecidedBecause(r, sprintf("not judged: the run ended at %s, before the %s bound from %s ran out", f.end(),
		sim.FormatDuration(f.bound()), since))
}

// undecidedBecause marks a liveness result not applicable with its own reason.
func undecidedBecause(r *Result, note string) {
	if len(r.Violations) > 0 {
		return
	}
	r.Applicable = false
	r.Note = note
}

func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }
