package check

// tokensOrdered: each grant's fencing token is strictly greater than the token of
// every earlier grant of the same lock from the same service, in grant order
// (Kleppmann 2016: the token must increase every time a client acquires the
// lock). The token is the one the client reported with the belief that rests
// on the grant (a Redis INCR counter's, or a ZooKeeper node name's suffix),
// or else the one reported with the grant. A token source that goes backwards (a counter on a node that
// restarts empty) or repeats a number (two counters) violates it. Each grant is
// judged once: a renewal is the same grant, and a new leader's replay of an old
// grant is not a new one; a retry granted the same value again is a new grant.
// Applicable when some client uses tokens.
func tokensOrdered(f *facts) Result {
	usesTokens := map[string]bool{}
	for k, bs := range f.beliefsOf {
		for _, b := range bs {
			usesTokens[k.lock] = usesTokens[k.lock] || b.hasToken
		}
	}
	type high struct {
		token int64
		g     *grantRec
	}
	highest := map[lockKey]high{}
	var r Result
	for _, g := range f.acqs { // in grant order
		if !usesTokens[g.lock] {
			continue
		}
		token, at, event := g.token, g.at, g.idx
		// The token that fences is the one the client carries to the resource:
		// where it made its own (a ZooKeeper client that reads the token off
		// the node's name instead of taking the czxid the grant carries), the
		// client's is judged.
		if b, ok := f.beliefOn(g); ok && b.hasToken && (!g.hasToken || b.token != g.token) {
			token, at, event = b.token, b.at, b.event
		} else if !g.hasToken {
			continue // nobody came to hold it with a token
		}
		r.Applicable = true
		k := lockKey{g.service, g.lock}
		h, seen := highest[k]
		if seen && token <= h.token {
			how := "went backwards"
			if token == h.token {
				how = "repeated a number"
			}
			r.Violations = append(r.Violations, violation(at,
				sprintf("%s's grant %s of %s carries token %d, not above token %d of %s's earlier grant %s: the token source %s",
					f.name(g.client), g.grant, g.lock, token, h.token, f.name(h.g.client), h.g.grant, how),
				f.name(h.g.client), f.name(g.client)).at(event))
		}
		if !seen || token > h.token {
			highest[k] = high{token, g}
		}
	}
	return r
}
