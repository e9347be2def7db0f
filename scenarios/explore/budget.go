package explore

import (
	"fmt"
	"slices"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim/fault"
)

// Budget is an exhaustive check over exactly an exercise's budget: its kinds
// of fault (the config's menu), their sizes (the bound's menu: the allow
// lines' own, or the default sizes where a line lists none), how many of each
// and on which processes (Bound.Within), at event points. No schedule it
// skips is within the budget, and none it runs is outside it, so "no
// counterexample" means no answer exists within the budget.
func Budget(ex *scenarios.Scenario) (*Config, Bound, error) {
	e := ex.Exercise
	if !ex.IsExercise() || e.Goal.Fix() || e.Goal.Kind == "stuck" {
		return nil, Bound{}, fmt.Errorf("%s: a budget is checked for an attack on safety (goal violate or goal unsafe)", ex.ID)
	}
	tpl, err := fromSource(ex.Registry(), ex.File, ex.Source, true)
	if err != nil {
		return nil, Bound{}, err
	}
	b := Bound{Menu: Menu{}, NoDeadlines: true, Points: Points{Mode: PointsEvents}}
	c := &Config{Template: tpl}
	for _, al := range e.Allows {
		if !slices.Contains(c.Space.Menu, al.Kind) {
			c.Space.Menu = append(c.Space.Menu, al.Kind)
		}
		for _, sz := range AllowSizes(al) {
			if !slices.Contains(b.Menu[al.Kind], sz) {
				b.Menu[al.Kind] = append(b.Menu[al.Kind], sz)
			}
		}
		b.MaxFaults += al.Count
	}
	if e.Goal.Kind == "violate" {
		c.Invariants = []string{e.Goal.Invariant}
	}
	b.Within = func(s fault.Schedule) bool {
		left := make([]int, len(e.Allows))
		for i, al := range e.Allows {
			left[i] = al.Count
		}
	next:
		for _, f := range s {
			for i, al := range e.Allows {
				if al.Kind == f.Kind && left[i] > 0 && slices.Contains(al.On, f.Proc) && f.Peer == "" && sized(al, f) {
					left[i]--
					continue next
				}
			}
			return false
		}
		return true
	}
	return c, b, nil
}

// AllowSizes is an allow line's sizes as a check's menu takes them: those it
// lists; a crash or power loss that lists none stays down. Grade, check
// --exercise and the TUI's i menu offer exactly these.
func AllowSizes(al scenarios.Allow) []Size {
	var sizes []Size
	for _, d := range al.Durs {
		sizes = append(sizes, Size{Dur: d})
	}
	for _, m := range al.Mags {
		sizes = append(sizes, Size{Mag: m})
	}
	if len(sizes) == 0 && (al.Kind == fault.Crash || al.Kind == fault.RestartEmpty) {
		sizes = []Size{{Dur: fault.Forever}} // no back=: it stays down
	}
	return sizes
}

// sized reports whether a fault's size is one its allow line lists.
func sized(al scenarios.Allow, f fault.Fault) bool {
	switch {
	case len(al.Durs) > 0:
		return slices.Contains(al.Durs, f.Dur)
	case len(al.Mags) > 0:
		return slices.Contains(al.Mags, f.Mag)
	}
	return true
}

// NoAnswer checks every schedule within the exercise's budget, in check's
// order: the tally's First is the shortest answer, or nil when none exists.
// stop, when set, ends it early (ErrStopped).
func NoAnswer(ex *scenarios.Scenario, stop func() bool) (Tally, error) {
	c, b, err := Budget(ex)
	if err != nil {
		return Tally{}, err
	}
	c.Stop = stop
	x, err := c.Exhaustive(ex.Seed, b, 1, 1)
	if err != nil {
		return Tally{}, err
	}
	w := c.Worker()
	var all Tally
	for k := 0; k <= b.MaxFaults; k++ {
		for j := range x.Jobs(k) {
			t, err := x.Job(w, k, j)
			all.Add(t)
			if err != nil {
				return all, err
			}
		}
		if all.First != nil {
			return all, nil // the shortest answer: no need to look at longer ones
		}
	}
	return all, nil
}
