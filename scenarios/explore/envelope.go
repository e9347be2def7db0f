package explore

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/fault"
)

// An envelope is the largest size of one kind of fault on one process that
// keeps the invariants wherever the fault falls: "safe while c1's pauses stay
// under 0.118 s". It is found by search over sizes at every point of the run
// with no fault (the check's points): at each point the smallest size that
// breaks, by bisection to the resolution, and the envelope is the least of
// them. Bisection assumes that a larger fault at one point breaks whatever a
// smaller one there breaks, as a longer pause or a longer outage does in every
// lock the catalogue models; docs/check.md says so.

// EnvelopeKinds are the kinds an envelope can be found for: those whose size
// is one duration (how long), and clock jumps (how far forward).
var envelopeKinds = []fault.Kind{fault.Pause, fault.Crash, fault.RestartEmpty, fault.Partition, fault.Loss, fault.ClockJump}

// EnvelopeKinds lists the kinds an envelope can be found for.
func EnvelopeKinds() []fault.Kind { return slices.Clone(envelopeKinds) }

// Envelope is what an envelope search found.
type Envelope struct {
	// Kind is the kind of fault sized.
	Kind fault.Kind
	// Proc is the process it hits.
	Proc string
	// Resolution is how fine the sizes were found.
	Resolution time.Duration
	// Breaks is the smallest size found to break the invariants (at Breaking's
	// point); zero when no size up to the longest that fits breaks at any point.
	Breaks time.Duration
	// Breaking is the run of that size at that point.
	Breaking *Outcome
	// Points is how many points were tried.
	Points int
	// Runs is how many runs the search took.
	Runs int
	// Longest is the largest size tried.
	Longest time.Duration
}

// Sentence says the envelope as a person reads it.
func (v *Envelope) Sentence() string {
	what := map[fault.Kind]string{fault.Pause: "pauses", fault.Crash: "crashes (down time)", fault.RestartEmpty: "power losses (down time)",
		fault.Partition: "partitions", fault.Loss: "lossy spells", fault.ClockJump: "forward clock jumps"}[v.Kind]
	if v.Breaking == nil {
		return fmt.Sprintf("no %s of %s up to %s breaks the invariants at any of %d points", what, v.Proc, secs(v.Longest), v.Points)
	}
	return fmt.Sprintf("safe while %s's %s stay under %s: %s breaks %s", v.Proc, what, secs(v.Breaks),
		v.Breaking.Schedule[0].String(), joinAnd(v.Breaking.Broken))
}

func secs(d time.Duration) string {
	return fmt.Sprintf("%.3f s", d.Seconds())
}

func joinAnd(s []string) string {
	switch len(s) {
	case 0:
		return "nothing"
	case 1:
		return s[0]
	}
	return fmt.Sprintf("%s and %s", s[0], s[1])
}

// ErrNoRoom is an envelope search with nowhere to put the fault: no point
// before the horizon, or none with room for a size of the resolution.
var ErrNoRoom = errors.New("no point leaves room for the fault")

// Envelope finds the envelope of kind k on process proc to resolution res, on
// worker w (Config.Worker). A link fault (loss) is tried on every link proc is
// an end of.
func (e *Exhaustive) Envelope(w *Config, k fault.Kind, proc string, res time.Duration) (*Envelope, error) {
	if !slices.Contains(envelopeKinds, k) {
		return nil, fmt.Errorf("--envelope %s:%s: an envelope is found for %s", k, proc, fault.KindList(envelopeKinds, ", "))
	}
	tg := e.targets[k]
	type target struct{ proc, peer string }
	var targets []target
	if slices.Contains(tg.Procs, proc) {
		targets = append(targets, target{proc: proc})
	}
	for _, p := range tg.Pairs {
		if p[0] == proc || p[1] == proc {
			targets = append(targets, target{p[0], p[1]})
		}
	}
	if !slices.Contains(e.kinds, k) || len(targets) == 0 {
		return nil, fmt.Errorf("--envelope %s:%s: %s is not something a %s fault can hit in %s", k, proc, proc, k, e.cfg.Template.Name)
	}
	// A jump is sized in whole milliseconds.
	if k == fault.ClockJump {
		res = max(res.Round(time.Millisecond), time.Millisecond)
	}
	names := e.cfg.Template.Cast().Names
	idOf := func(n string) sim.ProcID { return sim.ProcID(slices.Index(names, n)) }
	var rp *runPoints
	if _, err := w.try(e.seed, nil, func(tr *sim.Trace) { rp = readPoints(tr, e.bound.Points.Mode) }); err != nil {
		return nil, err
	}
	v := &Envelope{Kind: k, Proc: proc, Resolution: res}
	breaks := func(f fault.Fault) (*Outcome, error) {
		v.Runs++
		o, err := w.Try(e.seed, fault.Schedule{f})
		if err != nil || !o.Failed() {
			return nil, err
		}
		return &o, nil
	}
	tried := false
	for _, tgt := range targets {
		procs := []sim.ProcID{idOf(tgt.proc)}
		if tgt.peer != "" {
			procs = append(procs, idOf(tgt.peer))
		}
		at := func(p sim.Time, size time.Duration) fault.Fault {
			f := fault.Fault{Kind: k, Proc: tgt.proc, Peer: tgt.peer, At: time.Duration(p), Dur: size}
			switch k {
			case fault.ClockJump:
				f.Dur, f.Mag = 0, size.Milliseconds()
			case fault.Loss:
				f.Mag = 1000
			}
			return f
		}
		pts := rp.points(e.bound.Points, procs, 0, e.horizon)
		v.Points += len(pts)
		for _, p := range pts {
			longest := time.Duration(e.horizon) - time.Duration(p.at) // over by the horizon
			if k == fault.ClockJump {
				longest = sim.MaxRunTime
			}
			longest = longest / res * res
			if longest < res {
				continue
			}
			tried = true
			v.Longest = max(v.Longest, longest)
			hi := longest
			if v.Breaking != nil {
				hi = min(hi, v.Breaks-res) // only a smaller size improves the envelope
			}
			if hi < res {
				continue
			}
			o, err := breaks(at(p.at, hi))
			if err != nil {
				return nil, err
			}
			if o == nil {
				continue // not even the largest size that could improve breaks here
			}
			// Bisect (0, hi]: lo holds, hi breaks.
			lo, best := time.Duration(0), o
			for hi-lo > res {
				mid := lo + (hi-lo)/2/res*res
				if mid <= lo {
					mid = lo + res
				}
				m, err := breaks(at(p.at, mid))
				if err != nil {
					return nil, err
				}
				if m != nil {
					hi, best = mid, m
				} else {
					lo = mid
				}
			}
			v.Breaks, v.Breaking = hi, best
		}
	}
	if !tried {
		return nil, fmt.Errorf("--envelope %s:%s: %w (%d points before the horizon %s, resolution %s)", k, proc, ErrNoRoom, v.Points, time.Duration(e.horizon), res)
	}
	return v, nil
}
