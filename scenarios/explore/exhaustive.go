package explore

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/fault"
)

// The exhaustive check (locksim check): every fault schedule within a bound,
// run from the start (runs are deterministic and take microseconds), judged by
// the checker the random search uses, in an order that makes the first
// counterexample the shortest: by number of faults, then lexicographically by
// each fault's (time, kind, target, size). Where faults may fall is Points;
// their sizes, Menu. A schedule of k faults is one of k-1 faults (its prefix)
// and one more fault, placed at a point of the run as the prefix left it.

// Bound is what an exhaustive check covers: every schedule of up to MaxFaults
// faults of the config's menu of kinds, each of a size from Menu, each at one
// of Points.
type Bound struct {
	MaxFaults int    // every schedule of up to this many faults
	Menu      Menu   // each kind's sizes (nil: DefaultMenu)
	Points    Points // where faults may fall (zero: PointsEvents)
	// NoDeadlines leaves out the clock jumps sized just past each wall-clock
	// deadline pending at a point (they are tried by default: where a jump
	// carries a clock over a deadline is where it changes the outcome).
	NoDeadlines bool
	// Within, when set, keeps only the schedules it admits, and what extends
	// them (it must admit every prefix of what it admits): an exercise's
	// budget, its counts of each kind and the processes each may hit.
	Within func(fault.Schedule) bool
}

// Exhaustive is one exhaustive check: the template's run with no fault, and
// from it every one-fault schedule, in order. Each level k (schedules of
// exactly k faults) is split into jobs, one per one-fault schedule: job j of
// level k runs every schedule of k faults whose first fault is the j-th.
// Jobs are independent, so they run on any number of workers, and a level's
// result is its jobs' tallies added in job order, whatever ran them.
type Exhaustive struct {
	cfg       *Config
	seed      uint64
	bound     Bound
	kinds     []fault.Kind // the usable kinds, by name
	targets   map[fault.Kind]fault.Targets
	horizon   sim.Time
	base      Outcome       // the run with no fault
	roots     []fault.Fault // every one-fault schedule, in order
	shard, of int           // this check runs jobs j with j%of == shard-1
}

// Exhaustive prepares an exhaustive check of the config's template and menu
// of kinds within bound b, every run with seed: it runs the template once with
// no fault, to find where the first fault may fall. shard/of splits every
// level's jobs among several checks (1/1: all of them).
func (c *Config) Exhaustive(seed uint64, b Bound, shard, of int) (*Exhaustive, error) {
	if b.Menu == nil {
		b.Menu = DefaultMenu(c.Space.MaxDrift)
	}
	if b.Points.Mode == "" {
		b.Points.Mode = PointsEvents
	}
	if of < 1 || shard < 1 || shard > of {
		return nil, fmt.Errorf("explore: shard %d/%d", shard, of)
	}
	e := &Exhaustive{cfg: c, seed: seed, bound: b, targets: map[fault.Kind]fault.Targets{},
		horizon: sim.Time(c.Template.Horizon), shard: shard, of: of}
	sp := c.space()
	for _, k := range sp.Usable() {
		e.kinds = append(e.kinds, k)
		e.targets[k] = sp.Targets(k)
	}
	slices.Sort(e.kinds)
	var rp *runPoints
	base, err := c.try(seed, nil, func(tr *sim.Trace) {
		rp = readPoints(tr, e.bound.Points.Mode)
		e.roots = e.next(rp, nil)
	})
	if err != nil {
		return nil, err
	}
	e.base = base
	return e, nil
}

// Base is the run with no fault: level 0.
func (e *Exhaustive) Base() Outcome { return e.base }

// Roots is every one-fault schedule's fault, in order (all shards').
func (e *Exhaustive) Roots() []fault.Fault { return e.roots }

// Kinds is the kinds of fault the check places, by name.
func (e *Exhaustive) Kinds() []fault.Kind { return e.kinds }

// Bound is the check's bound, its defaults filled in.
func (e *Exhaustive) Bound() Bound { return e.bound }

// Seed is the seed every run of the check has.
func (e *Exhaustive) Seed() uint64 { return e.seed }

// Jobs is the number of this shard's jobs at level k (schedules of exactly k
// faults): one at level 0 (in every shard: a template that breaks with no
// fault breaks every shard's share), one per one-fault schedule of the shard
// above.
func (e *Exhaustive) Jobs(k int) int {
	if k == 0 {
		return 1
	}
	n := len(e.roots) - (e.shard - 1)
	if n <= 0 {
		return 0
	}
	return (n + e.of - 1) / e.of
}

// root is the index in Roots of this shard's job j.
func (e *Exhaustive) root(j int) int { return e.shard - 1 + j*e.of }

// ErrStopped is a job that Config.Stop ended early: its tally counts what it ran.
var ErrStopped = errors.New("explore: stopped before the job's end")

// Tally is what a job, a level or a whole check found.
type Tally struct {
	Schedules       int      // schedules run
	Counterexamples int      // of them, those that broke what the check judges
	First           *Outcome // the first counterexample, in the check's order
	Events          int      // the trace events of every schedule run (for the benchmarks)
}

// Add adds u, the tally of what comes after t in the check's order.
func (t *Tally) Add(u Tally) {
	t.Schedules += u.Schedules
	t.Counterexamples += u.Counterexamples
	t.Events += u.Events
	if t.First == nil {
		t.First = u.First
	}
}

func (t *Tally) count(o Outcome) {
	t.Schedules++
	t.Events += o.Events
	if o.Failed() {
		t.Counterexamples++
		if t.First == nil {
			t.First = &o
		}
	}
}

// Job runs job j of level k on w (a worker's copy of the check's config,
// Config.Worker) and tallies it: every schedule of exactly k faults whose
// first fault is the job's, in order.
func (e *Exhaustive) Job(w *Config, k, j int) (Tally, error) {
	var t Tally
	switch {
	case k == 0:
		t.count(e.base)
		return t, nil
	case j < 0 || j >= e.Jobs(k):
		return t, fmt.Errorf("explore: no job %d at level %d", j, k)
	case e.bound.Within != nil && !e.bound.Within(fault.Schedule{e.roots[e.root(j)]}):
		return t, nil // outside the bound: nothing of this job is run
	case k == 1:
		o, err := w.Try(e.seed, fault.Schedule{e.roots[e.root(j)]})
		t.count(o)
		return t, err
	}
	return t, e.below(w, fault.Schedule{e.roots[e.root(j)]}, k, &t)
}

// below runs every schedule of exactly k faults that begins with prefix, in
// order: it runs prefix to find where its next fault may fall, and for each
// next fault runs the longer schedule, or goes below it.
func (e *Exhaustive) below(w *Config, prefix fault.Schedule, k int, t *Tally) error {
	var nexts []fault.Fault
	if _, err := w.try(e.seed, prefix, func(tr *sim.Trace) {
		nexts = e.next(readPoints(tr, e.bound.Points.Mode), prefix)
	}); err != nil {
		return err
	}
	for _, f := range nexts {
		if w.Stop != nil && w.Stop() {
			return ErrStopped
		}
		s := append(slices.Clip(prefix), f)
		if e.bound.Within != nil && !e.bound.Within(s) {
			continue
		}
		if len(s) < k {
			if err := e.below(w, s, k, t); err != nil {
				return err
			}
			continue
		}
		o, err := w.Try(e.seed, s)
		if err != nil {
			return err
		}
		t.count(o)
	}
	return nil
}

// next lists, in order, every fault that can follow prefix: each kind, on
// each target, at each point of the run rp (as prefix left it) from the last
// fault's time on, of each size; after the last fault in the check's order,
// clashing with none of prefix, and over by the horizon.
func (e *Exhaustive) next(rp *runPoints, prefix fault.Schedule) []fault.Fault {
	var last *fault.Fault
	from := sim.Time(0)
	if len(prefix) > 0 {
		last = &prefix[len(prefix)-1]
		from = sim.Time(last.At)
	}
	names := e.cfg.Template.Cast().Names
	id := func(n string) sim.ProcID { return sim.ProcID(slices.Index(names, n)) }
	var out []fault.Fault
	horizon := time.Duration(e.horizon)
	// add adds f, at its point or, for one that lasts past the horizon there,
	// at the latest whole millisecond of its gap that lets it end by then:
	// every fault is over by the horizon, as explore's are.
	add := func(f fault.Fault, lo sim.Time) {
		if f.Dur != fault.Forever && f.At+f.Dur > horizon {
			latest := (horizon - f.Dur).Truncate(time.Millisecond)
			if latest < time.Duration(lo) || latest < 0 || last != nil && (latest < last.At ||
				latest == last.At && CompareFaults(fault.Fault{Kind: f.Kind, Proc: f.Proc, Peer: f.Peer, At: latest, Dur: f.Dur, Mag: f.Mag}, *last) <= 0) {
				return
			}
			f.At = latest
		}
		if f.At >= horizon || slices.ContainsFunc(prefix, f.Clashes) {
			return
		}
		out = append(out, f)
	}
	for _, k := range e.kinds {
		tg := e.targets[k]
		type target struct {
			proc, peer string
			procs      []sim.ProcID
		}
		var ts []target
		for _, p := range tg.Procs {
			ts = append(ts, target{proc: p, procs: []sim.ProcID{id(p)}})
		}
		for _, pr := range tg.Pairs {
			ts = append(ts, target{proc: pr[0], peer: pr[1], procs: []sim.ProcID{id(pr[0]), id(pr[1])}})
		}
		for _, tgt := range ts {
			for _, pt := range rp.points(e.bound.Points, tgt.procs, from, e.horizon) {
				for _, z := range e.sizes(k, rp, tgt.procs[0], pt.at) {
					f := fault.Fault{Kind: k, Proc: tgt.proc, Peer: tgt.peer, At: time.Duration(pt.at), Dur: z.Dur, Mag: z.Mag}
					if last == nil || f.At != last.At || CompareFaults(f, *last) > 0 {
						add(f, pt.lo)
					}
				}
				if last == nil || pt.at != from || pt.after < 0 {
					continue
				}
				// At the last fault's instant comes only what the order puts
				// after it; the rest falls at the gap's next instant.
				for _, z := range e.sizes(k, rp, tgt.procs[0], pt.after) {
					f := fault.Fault{Kind: k, Proc: tgt.proc, Peer: tgt.peer, At: last.At, Dur: z.Dur, Mag: z.Mag}
					if CompareFaults(f, *last) <= 0 {
						f.At = time.Duration(pt.after)
						add(f, pt.after)
					}
				}
			}
		}
	}
	slices.SortFunc(out, CompareFaults)
	return slices.CompactFunc(out, func(a, b fault.Fault) bool { return CompareFaults(a, b) == 0 })
}

// sizes is kind k's sizes at instant at on process p: the menu's, and for a
// clock jump, the jumps just past p's pending wall-clock deadlines.
func (e *Exhaustive) sizes(k fault.Kind, rp *runPoints, p sim.ProcID, at sim.Time) []Size {
	zs := e.bound.Menu.Sizes(k)
	if k != fault.ClockJump || e.bound.NoDeadlines {
		return zs
	}
	zs = slices.Clone(zs)
	for _, ms := range rp.jumpsPast(p, at) {
		zs = append(zs, Size{Mag: ms})
	}
	slices.SortFunc(zs, compareSize)
	return slices.Compact(zs)
}

// CompareFaults is the check's order of faults: by time, then kind, target
// (process, then peer) and size.
func CompareFaults(a, b fault.Fault) int {
	return cmp.Or(cmp.Compare(a.At, b.At), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Proc, b.Proc),
		cmp.Compare(a.Peer, b.Peer), compareSize(Size{a.Dur, a.Mag}, Size{b.Dur, b.Mag}))
}

// Estimate is how many schedules of exactly k faults this shard's level k
// holds, and whether that is exact. Level 0 and level 1 are exact; from level
// 2 on, the faults that may follow one depend on the run it leaves, so the
// count is estimated from the run with no fault: for each first fault, every
// choice of k-1 of the one-fault schedules after it.
func (e *Exhaustive) Estimate(k int) (n int, exact bool) {
	switch k {
	case 0:
		return e.Jobs(0), true
	case 1:
		return e.Jobs(1), true
	}
	total := 0.0
	for j := range e.Jobs(1) {
		total += binomial(len(e.roots)-1-e.root(j), k-1)
	}
	return int(min(total, 1e15)), false
}

func binomial(n, k int) float64 {
	if k < 0 || k > n {
		return 0
	}
	r := 1.0
	for i := range k {
		r = r * float64(n-i) / float64(i+1)
	}
	return r
}

// Result is what a check found, level by level.
type Result struct {
	Levels []Tally // Levels[k]: the schedules of exactly k faults run so far
	// Exhausted: every level up to the bound ran to its end, or the first
	// level with a counterexample did (no schedule of fewer faults breaks).
	Exhausted bool
}

// Schedules is the number of schedules run, at every level.
func (r *Result) Schedules() int {
	n := 0
	for _, t := range r.Levels {
		n += t.Schedules
	}
	return n
}

// Shortest is the first counterexample of the first level that has one, and
// how many that level has (nil, 0: none found).
func (r *Result) Shortest() (*Outcome, int) {
	for _, t := range r.Levels {
		if t.Counterexamples > 0 {
			return t.First, t.Counterexamples
		}
	}
	return nil, 0
}

// Stepper runs a check one job at a time on one worker, level by level, so
// that a caller can show progress and stop between jobs (the TUI, a budget).
// The command line runs the same jobs on many workers (Exhaustive.Job).
type Stepper struct {
	e *Exhaustive
	w *Config
	// Result is what the check has found so far.
	Result Result
	job    int // the next job of the level under way
}

// Stepper starts the check on worker w (Config.Worker).
func (e *Exhaustive) Stepper(w *Config) *Stepper {
	return &Stepper{e: e, w: w, Result: Result{Levels: []Tally{{}}}}
}

// Level is the level under way (or the last one run, once done).
func (s *Stepper) Level() int { return len(s.Result.Levels) - 1 }

// Done reports whether the check is over: the bound exhausted, or a level
// with a counterexample finished.
func (s *Stepper) Done() bool { return s.Result.Exhausted }

// JobsDone is how many of the level's jobs have run, of how many.
func (s *Stepper) JobsDone() (done, of int) { return s.job, s.e.Jobs(s.Level()) }

// Step runs the next job, and moves to the next level once a level is done.
func (s *Stepper) Step() error {
	if s.Done() {
		return nil
	}
	k := s.Level()
	if s.job < s.e.Jobs(k) {
		t, err := s.e.Job(s.w, k, s.job)
		if err != nil {
			return err
		}
		s.Result.Levels[k].Add(t)
		s.job++
	}
	if s.job >= s.e.Jobs(k) {
		s.e.LevelDone(&s.Result)
		s.job = 0
	}
	return nil
}

// LevelDone closes the last level of r: the check is over when it holds a
// counterexample (none with fewer faults exists) or it was the bound's last;
// otherwise the next level is opened.
func (e *Exhaustive) LevelDone(r *Result) {
	k := len(r.Levels) - 1
	if r.Levels[k].Counterexamples > 0 || k >= e.bound.MaxFaults {
		r.Exhausted = true
		return
	}
	r.Levels = append(r.Levels, Tally{})
}

// Run runs the whole check on worker w (Config.Worker), one job after another.
func (e *Exhaustive) Run(w *Config) (Result, error) {
	st := e.Stepper(w)
	for !st.Done() {
		if err := st.Step(); err != nil {
			return st.Result, err
		}
	}
	return st.Result, nil
}
