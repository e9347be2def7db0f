package check

import "github.com/locksim/locksim/sim"

// resourceSafe: critical sections are serial at the protected resource. Accepted
// operations are grouped by the grant they act under; once another grant's operation
// has been accepted, an earlier grant must never be accepted again, or its update
// and the other's interleave (the lost update of Kleppmann's GC-pause story).
func resourceSafe(f *facts) Result {
	var r Result
	type section struct {
		client sim.ProcID
		first  sim.Time
	}
	seen := map[string]section{} // per resource: grant -> section
	current := map[string]string{}
	for i := range f.t.Obs {
		o := &f.t.Obs[i]
		if o.Kind != sim.ObsResource {
			continue
		}
		r.Applicable = true
		if !o.Accepted {
			continue
		}
		res := o.Lock
		key := res + "\x00" + o.Grant
		cur := current[res]
		if _, ok := seen[key]; ok && cur != o.Grant {
			other := seen[res+"\x00"+cur]
			r.Violations = append(r.Violations, violation(o.At,
				sprintf("%s accepted %s's %s under %s after operations under %s (by %s, since %s): the critical sections interleave",
					f.name(o.Proc), f.name(o.Client), o.Op, o.Grant, cur, f.name(other.client), other.first),
				f.name(other.client), f.name(o.Client)))
		}
		if _, ok := seen[key]; !ok {
			seen[key] = section{o.Client, o.At}
		}
		current[res] = o.Grant
	}
	return r
}

// fencingMonotonic: the resource accepts an operation only if its token is at least
// every token it has already seen.
func fencingMonotonic(f *facts) Result {
	var r Result
	type high struct {
		token  int64
		client sim.ProcID
	}
	highest := map[string]high{}
	for i := range f.t.Obs {
		o := &f.t.Obs[i]
		if o.Kind != sim.ObsResource || !o.HasToken {
			continue
		}
		r.Applicable = true
		h, ok := highest[o.Lock]
		if o.Accepted && ok && o.Token < h.token {
			r.Violations = append(r.Violations, violation(o.At,
				sprintf("%s accepted %s's %s with token %d after seeing token %d from %s",
					f.name(o.Proc), f.name(o.Client), o.Op, o.Token, h.token, f.name(h.client)),
				f.name(h.client), f.name(o.Client)))
		}
		if !ok || o.Token > h.token {
			highest[o.Lock] = high{o.Token, o.Client}
		}
	}
	return r
}
