package check

import "github.com/locksim/locksim/sim"

// tokensOrdered: each grant's fencing token is strictly greater than the token of
// every earlier grant of the same lock from the same service, in grant order
// (Kleppmann 2016: the token must increase every time a client acquires the
// lock). The token is the one reported with the grant, or else the one the
// client reported with its belief in that grant (a Redis INCR counter's). A
// token source that goes backwards (a counter on a node that restarts empty) or
// repeats a number (two counters) violates it. Each grant is judged once: a
// renewal is the same grant, and a new leader's replay of an old grant is not a
// new one. Applicable when some client uses tokens.
func tokensOrdered(f *facts) Result {
	type tok struct {
		token int64
		at    sim.Time
		event int
	}
	believed := map[acqKey]tok{} // the token each acquisition's holder first believed it had
	usesTokens := map[string]bool{}
	for i := range f.t.Obs {
		o := &f.t.Obs[i]
		if o.Kind != sim.ObsBeliefStart || !o.HasToken {
			continue
		}
		usesTokens[o.Lock] = true
		if k := (acqKey{o.Lock, o.Grant}); !has(believed, k) {
			believed[k] = tok{o.Token, o.At, o.Event}
		}
	}
	type lockKey struct{ service, lock string }
	type high struct {
		token int64
		g     *grantRec
	}
	highest := map[lockKey]high{}
	var r Result
	for _, g := range f.grants { // in grant order
		k := acqKey{g.lock, g.grant}
		if f.acqs[k] != g || !usesTokens[g.lock] {
			continue // a vote, a renewal's record, or a lock whose clients use no tokens
		}
		t := tok{g.token, g.at, g.idx}
		if !g.hasToken {
			b, ok := believed[k]
			if !ok {
				continue
			}
			t = b
		}
		r.Applicable = true
		lk := lockKey{g.service, g.lock}
		h, seen := highest[lk]
		if seen && t.token <= h.token {
			how := "went backwards"
			if t.token == h.token {
				how = "repeated a number"
			}
			r.Violations = append(r.Violations, violation(t.at,
				sprintf("%s's grant %s of %s carries token %d, not above token %d of %s's earlier grant %s: the token source %s",
					f.name(g.client), g.grant, g.lock, t.token, h.token, f.name(h.g.client), h.g.grant, how),
				f.name(h.g.client), f.name(g.client)).at(t.event))
		}
		if !seen || t.token > h.token {
			highest[lk] = high{t.token, g}
		}
	}
	return r
}

func has[K comparable, V any](m map[K]V, k K) bool {
	_, ok := m[k]
	return ok
}
