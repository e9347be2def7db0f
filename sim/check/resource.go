package check

import "github.com/locksim/locksim/sim"

// resourceSafe: critical sections are serial at the protected resource. Accepted
// operations are grouped by the client and the grant it acts under (a client that
// never held the lock acts under none, and still has a section of its own); once
// another section's operation has been accepted, an earlier section must never be
// accepted again, or their updates interleave (the lost update of Kleppmann's
// GC-pause story).
func resourceSafe(f *facts) Result {
	var r Result
	type section struct {
		client sim.ProcID
		grant  string
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
		sec := f.name(o.Client) + " " + grantText(o.Grant)
		key := res + "\x00" + sec
		cur := current[res]
		if _, ok := seen[key]; ok && cur != sec {
			other := seen[res+"\x00"+cur]
			r.Violations = append(r.Violations, violation(o.At,
				sprintf("%s accepted %s's %s %s after operations of %s %s (since %s): the critical sections interleave",
					f.name(o.Proc), f.name(o.Client), o.Op, grantText(o.Grant), f.name(other.client), grantText(other.grant), other.first),
				f.name(other.client), f.name(o.Client)).at(o.Event))
		}
		if _, ok := seen[key]; !ok {
			seen[key] = section{o.Client, o.Grant, o.At}
		}
		current[res] = sec
	}
	return r
}

func grantText(g string) string {
	if g == "" {
		return "under no grant"
	}
	return "under " + g
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
				f.name(h.client), f.name(o.Client)).at(o.Event))
		}
		if !ok || o.Token > h.token {
			highest[o.Lock] = high{o.Token, o.Client}
		}
	}
	return r
}
