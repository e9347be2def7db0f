package explore

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/fault"
)

// Points says where an exhaustive check lets a fault fall. Where faults may
// fall decides what a check proves: a point stands for every instant it
// covers, and an instant no point covers is never tried.
type Points struct {
	// Mode is how points are placed.
	Mode PointsMode
	// At is, with PointsAt, the instants, ascending.
	At []time.Duration
}

// PointsMode is one of the ways to place faults.
type PointsMode string

const (
	// PointsEvents places a fault on process P at one instant in every gap
	// between two steps of P (for a link fault, of either end), found from the
	// run as the schedule's earlier faults left it. Two instants with no step
	// of P between them are the same to P: P cannot tell them apart, so one
	// point per gap covers every instant of it for an instant fault. (A fault
	// that lasts ends at the point plus a size from the menu.)
	PointsEvents PointsMode = "events"
	// PointsObservations places a fault on P only in the gaps that follow a
	// step of P that reported an observation (a vote, a grant, a belief):
	// coarser (a fault is never tried after a step that reports nothing, such
	// as a message forwarded or a retry) and faster.
	PointsObservations PointsMode = "observations"
	// PointsAt places faults only at the instants the user names.
	PointsAt PointsMode = "at"
)

// ParsePoints reads --points: events, observations, or at=T1,T2,...
func ParsePoints(s string) (Points, error) {
	switch s {
	case string(PointsEvents), "":
		return Points{Mode: PointsEvents}, nil
	case string(PointsObservations):
		return Points{Mode: PointsObservations}, nil
	}
	list, ok := strings.CutPrefix(s, "at=")
	if !ok {
		return Points{}, fmt.Errorf("--points %q: expected events, observations or at=T1,T2,... (like at=1s,2.5s)", s)
	}
	p := Points{Mode: PointsAt}
	for _, w := range strings.Split(list, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(w))
		if err != nil || d < 0 {
			return Points{}, fmt.Errorf("--points at=: %q is not a time like 1s or 250ms", w)
		}
		p.At = append(p.At, d)
	}
	slices.Sort(p.At)
	p.At = slices.Compact(p.At)
	return p, nil
}

// String is the points as --points writes them.
func (p Points) String() string {
	if p.Mode != PointsAt {
		return string(p.Mode)
	}
	s := make([]string, len(p.At))
	for i, d := range p.At {
		s[i] = fault.When(d)
	}
	return "at=" + strings.Join(s, ",")
}

// Finer reports whether p tries every schedule q tries, or more: event
// points cover observation points (every gap observations places a fault in
// is a gap of events); named instants cover a subset of themselves. Event
// points do not cover named instants: a fault that lasts, placed at another
// instant of the same gap, ends elsewhere.
func (p Points) Finer(q Points) bool {
	switch {
	case p.Mode == PointsEvents:
		return q.Mode != PointsAt
	case p.Mode == PointsAt && q.Mode == PointsAt:
		for _, d := range q.At {
			if !slices.Contains(p.At, d) {
				return false
			}
		}
		return true
	}
	return p.Mode == q.Mode
}

// runPoints is what one run says about where the next fault may fall: each
// process's step times, those of its steps that reported an observation, and
// the trace itself, for pending wall-clock deadlines and clock readings.
type runPoints struct {
	steps [][]sim.Time // by process: the distinct true times of its steps, ascending
	obs   [][]sim.Time // by process: the distinct times of its steps that reported an observation
	tr    *sim.Trace
}

// readPoints reads a run's step (and observation) times.
func readPoints(tr *sim.Trace, mode PointsMode) *runPoints {
	rp := &runPoints{steps: make([][]sim.Time, len(tr.Names)), obs: make([][]sim.Time, len(tr.Names)), tr: tr}
	if mode == PointsAt {
		return rp
	}
	for i := range tr.Len() {
		switch tr.KindOf(i) {
		case sim.EvSend, sim.EvDrop, sim.EvNote, sim.EvEnd, sim.EvPartition, sim.EvHeal, sim.EvLink:
			continue // a send is part of its sender's step; the rest are no step of one process
		}
		e := tr.Event(i)
		if e.Proc < 0 {
			continue
		}
		if s := rp.steps[e.Proc]; len(s) == 0 || s[len(s)-1] != e.At {
			rp.steps[e.Proc] = append(s, e.At)
		}
	}
	if mode == PointsObservations {
		for i := range tr.NumObs() {
			o := tr.Observation(i)
			if s := rp.obs[o.Proc]; o.Proc >= 0 && (len(s) == 0 || s[len(s)-1] != o.At) {
				rp.obs[o.Proc] = append(s, o.At)
			}
		}
	}
	return rp
}

// point is where a fault may fall: an instant in a gap between steps, and
// when that instant is the earliest the schedule allows (the last fault's
// time), the gap's next-roundest instant after it (-1: none), for a fault the
// check's order cannot put after the last one at the same instant.
type point struct {
	at, after sim.Time
	lo        sim.Time // the gap's first instant a fault may take (for one that would not fit at at)
}

// points is one point in each gap a fault on procs may fall in, from instant
// from on (from itself included), before the horizon: the roundest instant of
// the gap's last millisecond (Roundest), so that a written schedule reads
// "at 142ms". For a fault that happens at once (a clock jump, a crash that
// lasts) every instant of a gap is the same to the process; for one that
// lasts a size from the menu, the latest places its end furthest into what
// follows: a crash "just before p1 receives PRECOMMIT" that restarts 1 ms
// later loses exactly that message. With PointsObservations, only the gaps
// that begin with a step of procs that reported an observation.
func (rp *runPoints) points(p Points, procs []sim.ProcID, from, horizon sim.Time) []point {
	var out []point
	if p.Mode == PointsAt {
		for _, d := range p.At {
			if t := sim.Time(d); t >= from && t < horizon {
				out = append(out, point{t, -1, t})
			}
		}
		return out
	}
	var edges, observed []sim.Time // the instants that split the run into gaps
	for _, q := range procs {
		edges = append(edges, rp.steps[q]...)
		observed = append(observed, rp.obs[q]...)
	}
	if len(procs) > 1 {
		slices.Sort(edges)
		edges = slices.Compact(edges)
	}
	lo := sim.Time(0)            // every process steps at 0 (it starts)
	gap := func(a, b sim.Time) { // the open gap (a, b), from from on
		b = min(b, horizon) // with liveness a run goes on past the horizon: faults fall before it
		start := max(a+1, from)
		if start >= b || p.Mode == PointsObservations && !slices.Contains(observed, a) {
			return
		}
		late := b - sim.Time(time.Millisecond) // the gap's last millisecond
		pt := point{Roundest(max(start, late), b), -1, start}
		if pt.at == from && from+1 < b {
			pt.after = Roundest(max(from+1, late), b)
		}
		out = append(out, pt)
	}
	for _, e := range edges {
		if e >= horizon {
			break
		}
		if e > lo {
			gap(lo, e)
			lo = e
		}
	}
	gap(lo, horizon)
	return out
}

// grids are the steps Roundest tries, coarsest first.
var grids = [...]sim.Time{
	sim.Time(time.Second), sim.Time(100 * time.Millisecond), sim.Time(10 * time.Millisecond), sim.Time(time.Millisecond),
	sim.Time(100 * time.Microsecond), sim.Time(10 * time.Microsecond), sim.Time(time.Microsecond), 100, 10, 1,
}

// Roundest is the roundest instant in [lo, hi): the first multiple of the
// coarsest of 1s, 100ms, 10ms, 1ms, ... 1ns that falls in it. Every instant of
// a gap is the same to the processes whose steps bound it; the roundest one
// is the one a person reads best.
func Roundest(lo, hi sim.Time) sim.Time {
	for _, g := range grids {
		if t := (lo + g - 1) / g * g; t < hi {
			return t
		}
	}
	return lo
}

// jumpsPast is, for process p at instant at, the clock jumps just past each
// wall-clock deadline it had pending: the smallest jump of whole milliseconds
// that carries its wall clock beyond the deadline, where the jump changes
// what the process does.
func (rp *runPoints) jumpsPast(p sim.ProcID, at sim.Time) []int64 {
	var out []int64
	wall := rp.tr.ClockAt(p, at).Wall
	for _, d := range rp.tr.PendingWallDeadlines(p, at) {
		if d <= wall || d-wall > sim.MaxRunTime {
			continue
		}
		out = append(out, (d-wall).Milliseconds()+1)
	}
	return out
}
