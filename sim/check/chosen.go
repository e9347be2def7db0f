package check

import (
	"maps"
	"slices"
	"strings"

	"github.com/locksim/locksim/sim"
)

// Consensus (single-decree Paxos). Source: Leslie Lamport, "Paxos Made Simple"
// (2001): a value is chosen when a majority of acceptors have accepted it under
// one proposal number; safety is that only a single value is chosen.

// chosenValue is a value a majority accepted under one proposal number.
type chosenValue struct {
	value     string
	n         int64
	by        []string
	at        sim.Time
	event     int
	acceptors int
}

// chosenValues reads every ObsAccepted (and whether any value was proposed or
// accepted) and returns, per decree, each value in
// the order it became chosen (the first proposal number that chose it).
func chosenValues(f *facts) (map[string][]chosenValue, bool) {
	type ballot struct {
		decree string
		n      int64
		value  string
	}
	accepted := map[ballot]map[sim.ProcID]bool{}
	acceptors := len(f.ofRole(sim.RoleAcceptor))
	chosen := map[string][]chosenValue{}
	seen := false
	f.walk(func(o *sim.Observation) {
		if o.Kind == sim.ObsBegin && o.Grant != "" {
			seen = true // a proposal: the question of what is chosen arises
		}
		if o.Kind != sim.ObsAccepted {
			return
		}
		seen = true
		b := ballot{o.Lock, o.Token, o.Grant}
		if accepted[b] == nil {
			accepted[b] = map[sim.ProcID]bool{}
		}
		accepted[b][o.Proc] = true
		if len(accepted[b]) != acceptors/2+1 {
			return // not a majority yet, or already counted
		}
		for _, c := range chosen[o.Lock] {
			if c.value == o.Grant {
				return
			}
		}
		var by []string
		for _, p := range slices.Sorted(maps.Keys(accepted[b])) {
			by = append(by, f.name(p))
		}
		chosen[o.Lock] = append(chosen[o.Lock], chosenValue{o.Grant, o.Token, by, o.At, o.Event, acceptors})
	}, func(procEvent) {})
	return chosen, seen
}

// oneValueChosen: at most one value is ever chosen for a decree.
func oneValueChosen(f *facts) Result {
	chosen, seen := chosenValues(f)
	r := Result{Applicable: seen}
	for _, decree := range sortedKeys(chosen) {
		cs := chosen[decree]
		for _, c := range cs[min(1, len(cs)):] {
			first := cs[0]
			r.Violations = append(r.Violations, violation(c.at,
				sprintf("%s is chosen for %s under proposal %d (accepted by %s of %d acceptors), but %s was chosen at %s under proposal %d (accepted by %s)",
					c.value, decree, c.n, strings.Join(c.by, ", "), c.acceptors, first.value, first.at, first.n, strings.Join(first.by, ", ")),
				slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(first.by), c.by...))))...).at(c.event))
		}
	}
	return r
}

// valueChosen: a value is chosen within the bound from the first proposal.
func valueChosen(f *facts) Result {
	var r Result
	first := sim.Never
	f.walk(func(o *sim.Observation) {
		if o.Kind == sim.ObsBegin && o.Grant != "" && !r.Applicable {
			r.Applicable, first = true, o.At
		}
	}, func(procEvent) {})
	if !r.Applicable {
		return r
	}
	chosen, _ := chosenValues(f)
	deadline := first.Add(f.bound())
	for _, cs := range chosen {
		if len(cs) > 0 && cs[0].at <= deadline {
			return r
		}
	}
	if deadline > f.end() {
		undecided(&r, first, f)
		return r
	}
	r.Violations = append(r.Violations, violation(deadline,
		sprintf("the first proposal was made at %s, and %s later no value had been chosen", first, sim.FormatDuration(f.bound()))))
	return r
}
