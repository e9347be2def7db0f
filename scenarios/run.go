package scenarios

import (
	"fmt"
	"strconv"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/check"
)

// RunOptions change how a scenario runs without changing the scenario.
type RunOptions struct {
	Seed      *uint64 // overrides the scenario's seed
	Snapshots bool    // record each process's state after every step (for the TUI)
	// Program is the command that replays the run in ReproduceCommand:
	// "locksim" when empty; a program of its own that registers its kinds
	// ("example-lock").
	Program string
	// CheckerOnly records only what the checker reads (sim.Config.CheckerOnly):
	// the same run and report, without the messages' contents.
	CheckerOnly bool
	// Reuse lends the run the memory of traces recycled before (sim.Reuse): for
	// a caller that runs many scenarios one after another on one goroutine.
	Reuse *sim.Reuse
	// VerdictOnly judges the run without its metrics and notes
	// (check.Options.VerdictOnly), unless the scenario expects something: its
	// expectations may read them.
	VerdictOnly bool
	// WallTimers keeps the log of the processes' wall-clock timers
	// (sim.Config.WallTimers), for a check that sizes clock jumps by them.
	WallTimers bool
}

// Result is a finished run: the trace, the checker's report, and each expectation
// compared with it.
type Result struct {
	Scenario     *Scenario      // the scenario that ran
	Seed         uint64         // the seed it ran with
	Trace        *sim.Trace     // everything that happened
	Report       check.Report   // the checker's judgement
	Expectations []ExpectResult // each expect line, judged
	Program      string         // the command that replays it (RunOptions.Program)
}

// ExpectResult is one expectation and whether the run met it.
type ExpectResult struct {
	Expect
	Met bool   // the run met it
	Got string // what the run showed, when it differs
}

// OK reports whether every expectation was met.
func (r *Result) OK() bool {
	for _, e := range r.Expectations {
		if !e.Met {
			return false
		}
	}
	return true
}

// Build wires the scenario into a fresh world with the given seed.
func (s *Scenario) Build(seed uint64, snapshots bool) *sim.World {
	return s.build(sim.Config{Seed: seed, Limits: s.Limits, Snapshots: snapshots})
}

func (s *Scenario) build(cfg sim.Config) *sim.World {
	w := sim.NewWorld(cfg)
	for _, d := range s.procs {
		w.AddProcess(d.name, d.kind.Role, d.clock, d.build)
	}
	net := w.Network()
	net.SetDefault(s.net)
	for _, l := range s.links {
		net.SetLink(l.from, l.to, l.link)
	}
	for _, st := range s.steps {
		if st.when != nil {
			a := st.action
			w.When(*st.when, st.after, a)
			continue
		}
		w.Schedule(sim.Time(st.at), st.action)
	}
	if s.Until > 0 {
		w.Schedule(sim.Time(s.Until), sim.Action{Kind: sim.ActStop, Proc: sim.NoProc, Label: "run until=" + sim.FormatDuration(s.Until)})
	}
	return w
}

// Run runs the scenario, judges it and compares the judgement with its expectations.
func Run(s *Scenario, opt RunOptions) *Result { return RunWith(s, opt, nil) }

// RunWith is Run with more scheduled on the world before it runs, after the
// scenario's own steps: an exploration's faults (fault.Schedule.Apply), which
// make the same run as the same faults written into the scenario's text.
func RunWith(s *Scenario, opt RunOptions, more func(*sim.World)) *Result {
	seed := s.Seed
	if opt.Seed != nil {
		seed = *opt.Seed
	}
	w := s.build(sim.Config{Seed: seed, Limits: s.Limits, Snapshots: opt.Snapshots, CheckerOnly: opt.CheckerOnly, Reuse: opt.Reuse,
		WallTimers: opt.WallTimers})
	if more != nil {
		more(w)
	}
	tr := w.Run()
	if s.WhatIf != nil {
		s.retell(tr)
	}
	res := &Result{Scenario: s, Seed: seed, Trace: tr, Report: check.Check(tr, check.Options{Bound: s.Bound, VerdictOnly: opt.VerdictOnly && len(s.Expects) == 0, Resources: s.txnResources()}), Program: opt.Program}
	for _, e := range s.Expects {
		res.Expectations = append(res.Expectations, s.judge(e, &res.Report))
	}
	return res
}

func (s *Scenario) judge(e Expect, rep *check.Report) ExpectResult {
	er := ExpectResult{Expect: e}
	switch e.Kind {
	case ExpectVerdict:
		er.Met = string(rep.Verdict) == e.Name
		er.Got = "verdict " + string(rep.Verdict)
	case ExpectViolated, ExpectHolds, ExpectNA:
		r, _ := rep.Result(e.Name)
		want := map[ExpectKind]string{ExpectViolated: "violated", ExpectHolds: "holds", ExpectNA: "n/a"}[e.Kind]
		er.Met = r.Status() == want
		er.Got = e.Name + " " + r.Status()
	case ExpectMetric:
		v, ok := rep.Metric(e.Name)
		er.Met = ok && v == e.Value
		er.Got = "no metric " + e.Name
		if ok {
			er.Got = e.Name + " = " + strconv.FormatFloat(v, 'f', -1, 64)
		}
	default:
		panic(fmt.Sprintf("scenarios: unknown expectation kind %d", e.Kind))
	}
	return er
}
