package check

import "github.com/locksim/locksim/sim"

// promise is a grant's promised validity: the service promised that client holds
// the lock from its grant until end (true time). Only a release by the owner closes
// it early; an expiry on a fast clock, a restart that lost the key or another
// client's DEL withdraws the grant but not the promise. A reset by the
// protocol's own recovery (a reaper taking back a job it judged stuck) ends a
// grant that had no expiry, as a lease's expiry ends a lease: whether the owner
// was in fact still running is mutex-belief's to judge.
type promise struct {
	client sim.ProcID
	rec    *grantRec
	end    sim.Time
}

func promiseEnd(o *sim.Observation) sim.Time {
	if o.Window <= 0 {
		return sim.Never
	}
	return o.At.Add(o.Window)
}

// grantExclusive: the lock service never grants a lock while an earlier grant's
// promised validity is still open. Grants are grouped by service and lock, so the
// nodes of one replicated service share a promise. A client that acquires by
// majority (Redlock) makes its own promise (T1 + TTL - drift by its computation):
// the single nodes' grants to it are votes, judged by quorum-backed, and a node
// whose clock runs fast within the drift allowance does not break the promise.
func grantExclusive(f *facts) Result {
	type key struct{ service, lock string }
	open := map[key][]*promise{}
	var r Result
	f.walk(func(o *sim.Observation) {
		k := key{o.Service, o.Lock}
		if f.isVote(o) {
			return // a node's vote for a client that acquires by majority
		}
		switch o.Kind {
		case sim.ObsGrant:
			r.Applicable = true
			var mine *promise
			for _, p := range open[k] {
				if p.client == o.Client {
					mine = p
				}
			}
			// A renewal (EXPIRE after SETNX, an extension) is the same grant: it
			// moves the promise's end and is not judged again.
			renewal := mine != nil && mine.rec != nil && mine.rec.grant == o.Grant && mine.end >= o.At
			for _, p := range open[k] {
				switch {
				case p.client == o.Client || renewal:
				case p.end > o.At:
					who := f.name(o.Proc) + " granted " + o.Lock + " to " + f.name(o.Client)
					if o.Value > 0 { // a majority the client won itself (Redlock)
						who = f.name(o.Client) + " won a majority of the " + sprintf("%d", o.Value) + " nodes for " + o.Lock
					}
					d := sprintf("%s while %s's grant was promised until %s", who, f.name(p.client), promiseEndText(p.end))
					if p.rec != nil && p.rec.withdrawn <= o.At {
						d += "; that grant had " + p.rec.withdrawal.text(f)
					}
					r.Violations = append(r.Violations, violation(o.At, d, f.name(p.client), f.name(o.Client)).at(o.Event))
				}
			}
			if mine == nil {
				mine = &promise{client: o.Client}
				open[k] = append(open[k], mine)
			}
			mine.rec = f.ledgerEntry(o.Service, o.Lock, o.Grant, o.At)
			mine.end = promiseEnd(o)
		case sim.ObsGrantEnd:
			for _, p := range open[k] {
				if p.client != o.Client || p.rec == nil || p.rec.grant != o.Grant {
					continue
				}
				switch {
				case o.Reason == sim.ReasonReleased && o.By == o.Client:
					p.end = min(p.end, o.At) // the owner let go
				case o.Reason == sim.ReasonExpired && p.end == sim.Never:
					// A grant with no time window (a ZooKeeper node, an etcd key)
					// is promised while the owner's session lives: the service
					// expiring the session ends the promise.
					p.end = o.At
				case o.Reason == sim.ReasonReset:
					// A reaper reset the claim (lostinsoba's state-transition
					// lock with a timeout status set by another worker): the
					// protocol's recovery, by design, ends the grant there.
					p.end = min(p.end, o.At)
				}
			}
		}
	}, func(procEvent) {})
	return r
}

func promiseEndText(t sim.Time) string {
	if t == sim.Never {
		return "forever (no expiry)"
	}
	return t.String()
}
