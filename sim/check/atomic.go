package check

import "github.com/locksim/locksim/sim"

// allOrNothing: a logical update made of writes to several resources under one
// grant (the scenario names the update on each write) is accepted by every
// resource or refused by all. Fencing protects each resource on its own: a
// holder that writes x, pauses, and writes y after a newer holder has used y
// gets x accepted and y refused, and the update is half done (Jepsen's point
// that fencing is not atomicity). Applicable when some update spans two
// resources or more. The copies of an item replicated across regions are such
// resources too: an update that one region applied and another discarded
// (last writer wins) is half done, and lost.
func allOrNothing(f *facts) Result {
	type key struct {
		client sim.ProcID
		update string
	}
	type outcome struct {
		res sim.ProcID
		at  sim.Time
	}
	type state struct {
		accepted, refused *outcome
		resources         map[sim.ProcID]bool
		broken            bool
	}
	updates := map[key]*state{}
	var r Result
	for _, op := range f.resourceOps() {
		o := op.o
		if o.Name == "" || o.Op != "write" {
			continue
		}
		k := key{o.Client, o.Name}
		s := updates[k]
		if s == nil {
			s = &state{resources: map[sim.ProcID]bool{}}
			updates[k] = s
		}
		s.resources[o.Proc] = true
		if len(s.resources) > 1 {
			r.Applicable = true
		}
		here := &outcome{o.Proc, o.At}
		if o.Accepted && s.accepted == nil {
			s.accepted = here
		}
		if !o.Accepted && s.refused == nil {
			s.refused = here
		}
		if s.broken || s.accepted == nil || s.refused == nil || len(s.resources) < 2 {
			continue
		}
		s.broken = true
		// Fenced writes refused by a token; or (no token) the copies of a
		// replicated item, where a region that discards an update another
		// region acknowledged has lost it (last writer wins).
		why := "fencing protects each resource, not the update across them"
		if !o.HasToken {
			why = "an update one copy applied and another discarded is lost"
		}
		r.Violations = append(r.Violations, violation(o.At,
			sprintf("%s's update %s %s is half done: %s accepted its write at %s and %s refused one at %s; %s",
				f.name(o.Client), o.Name, grantText(o.Grant), f.name(s.accepted.res), s.accepted.at, f.name(s.refused.res), s.refused.at, why),
			f.name(o.Client)).at(o.Event))
	}
	return r
}
