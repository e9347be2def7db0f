package check

import (
	"maps"
	"slices"
	"sort"
	"time"

	"github.com/locksim/locksim/sim"
)

// facts is the trace read once into the shapes the invariants need: observations
// and process events (downs and restarts) in trace order, and the ledger of grants.
type facts struct {
	t         *sim.Trace
	opt       Options
	resource  bool        // a protected resource is declared, or saw operations: resource invariants decide
	operated  bool        // some protected resource saw an operation
	unreached []string    // the declared resources no operation reached, by name
	procs     []procEvent // crashes, power losses, shutdowns and restarts, in order
	lastFault sim.Time    // the last fault event (noFault when none)
	grants    []*grantRec // every grant, in the order issued
	byKey     map[ledgerKey][]*grantRec
	obs       []sim.Observation // the trace's observations, rebuilt once: every invariant walks them
	replayed  []bool            // by observation: a grant report a new leader repeated (see sim.Observation.Seq)
	voters    map[voter]bool    // clients that acquire a lock by majority (Redlock)
	// The acquisitions: every grant of the lock service that is not a vote, a
	// renewal or a key brought back by a restart, in grant order; and the same
	// by owner (client and lock) and by service and lock.
	acqs      []*grantRec
	acqsOf    map[voter][]*grantRec
	acqsOn    map[lockKey][]*grantRec
	beliefsOf map[voter][]beliefRec // each client's belief starts, by lock, in order
	resOps    []resOp               // the resource operations, judged once (resourceOps)
}

// lockKey is a lock of one service.
type lockKey struct{ service, lock string }

// beliefRec is a client's conclusion that it holds a lock: at trace event
// event, as grant (the value it names), with a token when it has one.
type beliefRec struct {
	at       sim.Time
	event    int
	grant    string
	token    int64
	hasToken bool
}

// voter is a client that acquires a lock by majority: the single nodes' grants to
// it are votes, and its own majority grant is the grant.
type voter struct {
	client sim.ProcID
	lock   string
}

// ledgerKey finds a grant's records: the service, the lock and the granted value.
// Keyed by service, not by node, so that the grant one leader (or master) made is
// withdrawn when the next one reports its end.
type ledgerKey struct {
	service     string
	lock, grant string
}

// procEvent is a process going down or coming back.
type procEvent struct {
	idx  int // trace event index
	at   sim.Time
	proc sim.ProcID
	kind sim.EventKind
}

func (p procEvent) down() bool { return p.kind != sim.EvRestart }

// grantRec is one grant as the service kept it: from its issue until it was
// withdrawn (ended, deleted, expired, or lost when its node restarted without it).
type grantRec struct {
	client       sim.ProcID
	proc         sim.ProcID // the node that granted it
	service      string
	lock         string
	grant        string
	at           sim.Time
	idx          int          // trace event index of the grant
	withdrawn    sim.Time     // sim.Never while held
	withdrawnIdx int          // trace event index of the withdrawal (maxIdx while held)
	withdrawal   howWithdrawn // how it was withdrawn, for sentences
	resurrected  bool         // brought back by a restart after it was withdrawn
	vote         bool         // a node's vote for a client that acquires by majority
	pos          int          // an acquisition's place among its lock's (acqsOn)
	// The promised end of the grant as first reported with an expiry (Never
	// while it has none), and as its renewals (the same grant reported again
	// with a new window: EXPIRE, an extension) have moved it since.
	firstEnd, end sim.Time
	renewed       bool // a renewal moved its end past firstEnd
	token         int64
	hasToken      bool
}

const maxIdx = int(^uint(0) >> 1)

// noFault marks a run without faults.
const noFault = sim.Time(-1)

func newFacts(t *sim.Trace, opt Options) *facts {
	f := &facts{t: t, opt: opt, lastFault: noFault}
	for i := range t.Len() {
		if !t.KindOf(i).IsFault() {
			continue // most events are messages and timers: read only their kind
		}
		e := t.Event(i)
		if e.Kind.IsFault() {
			f.lastFault = e.At
		}
		switch e.Kind {
		case sim.EvCrash, sim.EvPowerLoss, sim.EvShutdown, sim.EvRestart:
			if t.Note(e) != sim.NoteAlreadyDown {
				f.procs = append(f.procs, procEvent{i, e.At, e.Proc, e.Kind})
			}
		}
	}
	f.obs = t.Observations()
	reached := map[sim.ProcID]bool{}
	for i := range f.obs {
		if f.obs[i].Kind == sim.ObsResource {
			f.operated = true
			reached[f.obs[i].Proc] = true
		}
	}
	// A declared resource protects the run whether or not an operation reached
	// it: a run whose every write was lost or delayed past its end is judged by
	// what the data went through (nothing), not by the lock's promises, which
	// the resource is there to make matter less (issue 31, item 14).
	f.resource = f.operated
	for p, role := range t.Roles {
		if role == sim.RoleResource {
			f.resource = true
			if !reached[sim.ProcID(p)] {
				f.unreached = append(f.unreached, f.name(sim.ProcID(p)))
			}
		}
	}
	for _, p := range slices.Sorted(maps.Keys(opt.Resources)) {
		f.resource = true
		if !reached[p] {
			f.unreached = append(f.unreached, opt.Resources[p])
		}
	}
	f.replayed = replays(f.obs)
	f.voters, f.beliefsOf = map[voter]bool{}, map[voter][]beliefRec{}
	for i := range f.obs {
		switch o := &f.obs[i]; o.Kind {
		case sim.ObsAttempt:
			if o.Value > 0 {
				f.voters[voter{o.Client, o.Lock}] = true
			}
		case sim.ObsBeliefStart:
			k := voter{o.Client, o.Lock}
			f.beliefsOf[k] = append(f.beliefsOf[k], beliefRec{o.At, o.Event, o.Grant, o.Token, o.HasToken})
		}
	}
	f.buildLedger()
	return f
}

// isVote reports whether a grant report is a single node's vote for a client that
// acquires by majority (Redlock): not a grant of the lock service.
func (f *facts) isVote(o *sim.Observation) bool {
	return (o.Kind == sim.ObsGrant || o.Kind == sim.ObsGrantEnd) && o.Value <= 0 && f.voters[voter{o.Client, o.Lock}]
}

// restsOn returns the acquisition a belief rests on: the service's latest grant
// of the lock to that client, reported at or before the belief started (a
// client that retries with the same value may be granted it twice: the belief
// rests on the grant it came from). Nil when the service reported none.
func (f *facts) restsOn(client sim.ProcID, lock string, b beliefRec) *grantRec {
	gs := f.acqsOf[voter{client, lock}]
	i := sort.Search(len(gs), func(i int) bool { return gs[i].idx > b.event }) // the first granted after it
	if i == 0 {
		return nil
	}
	return gs[i-1]
}

// operatesUnder returns the acquisition a resource operation acts under: the one
// its client's latest belief in that grant, before the operation, rests on.
func (f *facts) operatesUnder(o *sim.Observation) *grantRec {
	bs := f.beliefsOf[voter{o.Client, o.Lock}]
	i := sort.Search(len(bs), func(i int) bool { return bs[i].event > o.Event }) // the beliefs before it: bs[:i]
	for i--; i >= 0; i-- {
		if bs[i].grant == o.Grant {
			return f.restsOn(o.Client, o.Lock, bs[i])
		}
	}
	return nil
}

// beliefOn returns the first belief that rests on acquisition g, if any.
func (f *facts) beliefOn(g *grantRec) (beliefRec, bool) {
	bs := f.beliefsOf[voter{g.client, g.lock}]
	i := sort.Search(len(bs), func(i int) bool { return bs[i].event >= g.idx })
	if i < len(bs) && f.restsOn(g.client, g.lock, bs[i]) == g {
		return bs[i], true
	}
	return beliefRec{}, false
}

// later reports whether acquisition h was granted after g by the same service,
// of the same lock.
func later(h, g *grantRec) bool {
	return h.service == g.service && h.lock == g.lock && h.idx > g.idx
}

// supersededAt reports whether a later acquisition of g's lock had been granted
// by g's service at time t.
func (f *facts) supersededAt(g *grantRec, t sim.Time) bool {
	on := f.acqsOn[lockKey{g.service, g.lock}]
	return g.pos+1 < len(on) && on[g.pos+1].at <= t
}

// replays marks the grant reports that repeat a state change already reported:
// a report whose Seq is below the last one read for its service and lock, or equal
// to it but from another step (one log entry may end one grant and start the next,
// both in the step that applied it).
func replays(obs []sim.Observation) []bool {
	type key struct{ service, lock string }
	type pos struct {
		seq   int64
		event int
	}
	last := map[key]pos{}
	out := make([]bool, len(obs))
	for i := range obs {
		o := &obs[i]
		if (o.Kind != sim.ObsGrant && o.Kind != sim.ObsGrantEnd) || o.Seq == 0 {
			continue
		}
		k := key{o.Service, o.Lock}
		p, seen := last[k]
		if seen && (o.Seq < p.seq || o.Seq == p.seq && o.Event != p.event) {
			out[i] = true
			continue
		}
		last[k] = pos{o.Seq, o.Event}
	}
	return out
}

// walk visits observations and process events in trace order. A process event is
// visited after the observations of its own step (a restart's report of what it
// recovered) and before those of any later event.
func (f *facts) walk(obs func(o *sim.Observation), proc func(p procEvent)) {
	pi := 0
	for i := range f.obs {
		o := &f.obs[i]
		if f.replayed[i] {
			continue
		}
		for pi < len(f.procs) && f.procs[pi].idx < o.Event {
			proc(f.procs[pi])
			pi++
		}
		obs(o)
	}
	for ; pi < len(f.procs); pi++ {
		proc(f.procs[pi])
	}
}

// buildLedger records every grant and its withdrawal. A node that restarts
// reports the keys it recovered; the grants it held and did not recover were lost
// with its memory (a restart without persistence, a power loss, a key that expired
// while it was down).
func (f *facts) buildLedger() {
	open := map[string][]*grantRec{} // by service
	recovered := map[*grantRec]bool{}
	f.byKey = map[ledgerKey][]*grantRec{}
	// ofNode visits the open grants a node made, whatever service they are for.
	ofNode := func(p sim.ProcID, visit func(*grantRec)) {
		for _, svc := range sortedKeys(open) {
			for _, g := range open[svc] {
				if g.proc == p {
					visit(g)
				}
			}
		}
	}
	f.walk(func(o *sim.Observation) {
		switch o.Kind {
		case sim.ObsGrant:
			for _, g := range open[o.Service] {
				if g.lock == o.Lock && g.client == o.Client && g.grant == o.Grant {
					g.renew(o) // reported again: a renewal (EXPIRE, an extension)
					return
				}
			}
			g := f.addGrant(&grantRec{client: o.Client, proc: o.Proc, service: o.Service,
				lock: o.Lock, grant: o.Grant, at: o.At, idx: o.Event, vote: f.isVote(o),
				end: promiseEnd(o), token: o.Token, hasToken: o.HasToken})
			g.firstEnd = g.end
			if o.Value > 0 && o.Window > 0 {
				// A majority grant is the client's own computation: nothing withdraws
				// it at a node, it simply ends with its validity.
				g.withdrawn, g.withdrawal = promiseEnd(o), howWithdrawn{reason: ranOut, at: promiseEnd(o)}
			}
			open[o.Service] = append(open[o.Service], g)
		case sim.ObsGrantEnd:
			f.withdraw(open, o.Service, func(g *grantRec) bool { return g.lock == o.Lock && g.grant == o.Grant },
				o.At, o.Event, withdrawnBy(o))
		case sim.ObsStored:
			if o.Reason != sim.ReasonRecovered {
				return
			}
			found := false
			ofNode(o.Proc, func(g *grantRec) {
				if g.lock == o.Lock && g.grant == o.Grant {
					recovered[g], found = true, true
				}
			})
			// A granted key that the disk brings back after it was withdrawn (a
			// DEL that was never fsynced) holds the lock again.
			var last *grantRec
			for _, g := range f.grants {
				if g.proc == o.Proc && g.lock == o.Lock && g.grant == o.Grant {
					last = g
				}
			}
			if !found && last != nil {
				g := f.addGrant(&grantRec{client: last.client, proc: o.Proc, service: last.service, lock: o.Lock,
					grant: o.Grant, at: o.At, idx: o.Event, resurrected: true})
				open[last.service] = append(open[last.service], g)
				recovered[g] = true
			}
		}
	}, func(p procEvent) {
		if p.kind != sim.EvRestart {
			return
		}
		// A single node that restarts without reporting a key it granted has lost
		// it. A replicated service (an ensemble) keeps its grants through one
		// server's restart: no inference there.
		svc := f.name(p.proc)
		f.withdraw(open, svc, func(g *grantRec) bool { return g.proc == p.proc && !recovered[g] }, p.at, p.idx,
			howWithdrawn{reason: lostInRestart, by: p.proc, at: p.at})
		ofNode(p.proc, func(g *grantRec) { delete(recovered, g) })
	})
}

func (f *facts) addGrant(g *grantRec) *grantRec {
	g.withdrawn, g.withdrawnIdx = sim.Never, maxIdx
	if g.end == 0 {
		g.end, g.firstEnd = sim.Never, sim.Never
	}
	f.grants = append(f.grants, g)
	k := ledgerKey{g.service, g.lock, g.grant}
	f.byKey[k] = append(f.byKey[k], g)
	if !g.vote && !g.resurrected {
		if f.acqsOf == nil {
			f.acqsOf, f.acqsOn = map[voter][]*grantRec{}, map[lockKey][]*grantRec{}
		}
		on := lockKey{g.service, g.lock}
		g.pos = len(f.acqsOn[on])
		f.acqs = append(f.acqs, g)
		f.acqsOf[voter{g.client, g.lock}] = append(f.acqsOf[voter{g.client, g.lock}], g)
		f.acqsOn[on] = append(f.acqsOn[on], g)
	}
	return g
}

// renew applies a renewal of the grant: the same grant reported again with a new
// window. The first window with an expiry is the grant's own (SETNX, then
// PEXPIRE); a later one renews it.
func (g *grantRec) renew(o *sim.Observation) {
	end := promiseEnd(o)
	if !g.hasToken && o.HasToken {
		g.token, g.hasToken = o.Token, true
	}
	if end == sim.Never {
		return
	}
	switch {
	case g.firstEnd == sim.Never:
		g.firstEnd = end
	case end > g.firstEnd:
		g.renewed = true
	}
	g.end = end
	if o.Value > 0 && g.withdrawnIdx == maxIdx {
		g.withdrawn, g.withdrawal = end, howWithdrawn{reason: ranOut, at: end} // a majority grant's validity, extended
	}
}

func (f *facts) withdraw(open map[string][]*grantRec, svc string, which func(*grantRec) bool, at sim.Time, idx int, how howWithdrawn) {
	kept := open[svc][:0]
	for _, g := range open[svc] {
		if which(g) {
			if at < g.withdrawn { // a majority grant's validity may have run out already
				g.withdrawn, g.withdrawal = at, how
			}
			g.withdrawnIdx = idx
			continue
		}
		kept = append(kept, g)
	}
	open[svc] = kept
}

// howWithdrawn is how a grant was withdrawn, kept as facts: the sentence (text)
// is made only for the violation that quotes it, not for every grant.
type howWithdrawn struct {
	reason string     // a Reason* constant, or ranOut, or lostInRestart
	by     sim.ProcID // whose clock expired it, who deleted it, the node that restarted
	at     sim.Time
}

// Withdrawals no protocol reports: the checker's own conclusions.
const (
	ranOut        = "(run out)" // a majority grant's validity ended
	lostInRestart = "(lost)"    // its node restarted without it
)

// withdrawnBy is the withdrawal a grant-end observation reports.
func withdrawnBy(o *sim.Observation) howWithdrawn {
	h := howWithdrawn{reason: o.Reason, by: o.By, at: o.At}
	if o.Reason == sim.ReasonExpired && o.By == sim.NoProc {
		h.by = o.Proc // expired by the clock of who made it expire (a client's, for a lease on client time)
	}
	return h
}

// text says how the grant was withdrawn, as a clause after "the grant had".
func (h howWithdrawn) text(f *facts) string {
	switch h.reason {
	case ranOut:
		return "run out at " + h.at.String()
	case lostInRestart:
		return "been lost when " + f.name(h.by) + " restarted at " + h.at.String()
	case sim.ReasonExpired:
		return "expired by " + f.name(h.by) + "'s clock at " + h.at.String()
	case sim.ReasonReleased:
		return "been released at " + h.at.String()
	}
	s := "been " + h.reason
	if h.by != sim.NoProc {
		s += " by " + f.name(h.by)
	}
	return s + " at " + h.at.String()
}

// ledgerEntry finds the ledger's record of the grant an observation reports.
func (f *facts) ledgerEntry(service, lock, grant string, at sim.Time) *grantRec {
	var found *grantRec
	for _, g := range f.byKey[ledgerKey{service, lock, grant}] {
		if g.at <= at {
			found = g
		}
	}
	return found
}

// heldAt reports whether grant g was held at the service at trace event idx.
func (g *grantRec) heldAt(idx int) bool { return g.idx < idx && idx < g.withdrawnIdx }

// downAt reports whether process p was down at trace event idx.
func (f *facts) downAt(p sim.ProcID, idx int) bool {
	down := false
	for _, e := range f.procs {
		if e.idx >= idx {
			break
		}
		if e.proc == p {
			down = e.down()
		}
	}
	return down
}

func (f *facts) name(p sim.ProcID) string { return f.t.Name(p) }

func (f *facts) end() sim.Time { return f.t.End }

func (f *facts) bound() time.Duration { return f.opt.Bound }
