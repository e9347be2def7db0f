package check

import (
	"time"

	"github.com/locksim/locksim/sim"
)

// facts is the trace read once into the shapes the invariants need: observations
// and process events (downs and restarts) in trace order, and the ledger of grants.
type facts struct {
	t         *sim.Trace
	opt       Options
	resource  bool        // the protected resource saw operations
	procs     []procEvent // crashes, power losses, shutdowns and restarts, in order
	lastFault sim.Time    // the last fault event (noFault when none)
	grants    []*grantRec // every grant, in the order issued
	byKey     map[ledgerKey][]*grantRec
}

// ledgerKey finds a grant's records: the node, the lock and the granted value.
type ledgerKey struct {
	proc        sim.ProcID
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
	idx          int      // trace event index of the grant
	withdrawn    sim.Time // sim.Never while held
	withdrawnIdx int      // trace event index of the withdrawal (maxIdx while held)
	withdrawal   string   // how it was withdrawn, for sentences
	resurrected  bool     // brought back by a restart after it was withdrawn
}

const maxIdx = int(^uint(0) >> 1)

// noFault marks a run without faults.
const noFault = sim.Time(-1)

func newFacts(t *sim.Trace, opt Options) *facts {
	f := &facts{t: t, opt: opt, lastFault: noFault}
	for i := range t.Len() {
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
	for i := range t.Obs {
		if t.Obs[i].Kind == sim.ObsResource {
			f.resource = true
		}
	}
	f.buildLedger()
	return f
}

// walk visits observations and process events in trace order. A process event is
// visited after the observations of its own step (a restart's report of what it
// recovered) and before those of any later event.
func (f *facts) walk(obs func(o *sim.Observation), proc func(p procEvent)) {
	pi := 0
	for i := range f.t.Obs {
		o := &f.t.Obs[i]
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
	open := map[sim.ProcID][]*grantRec{} // by granting node
	recovered := map[*grantRec]bool{}
	f.byKey = map[ledgerKey][]*grantRec{}
	f.walk(func(o *sim.Observation) {
		switch o.Kind {
		case sim.ObsGrant:
			for _, g := range open[o.Proc] {
				if g.lock == o.Lock && g.client == o.Client && g.grant == o.Grant {
					return // an extension of a grant already in the ledger
				}
			}
			g := f.addGrant(&grantRec{client: o.Client, proc: o.Proc, service: o.Service,
				lock: o.Lock, grant: o.Grant, at: o.At, idx: o.Event})
			if o.Value > 0 && o.Window > 0 {
				// A majority grant is the client's own computation: nothing withdraws
				// it at a node, it simply ends with its validity.
				g.withdrawn, g.withdrawal = promiseEnd(o), "run out at "+promiseEnd(o).String()
			}
			open[o.Proc] = append(open[o.Proc], g)
		case sim.ObsGrantEnd:
			f.withdraw(open, o.Proc, func(g *grantRec) bool { return g.lock == o.Lock && g.grant == o.Grant },
				o.At, o.Event, withdrawalText(f, o))
		case sim.ObsStored:
			if o.Reason != "recovered" {
				return
			}
			found := false
			for _, g := range open[o.Proc] {
				if g.lock == o.Lock && g.grant == o.Grant {
					recovered[g] = true
					found = true
				}
			}
			// A granted key that the disk brings back after it was withdrawn (a
			// DEL that was never fsynced) holds the lock again.
			if prev := f.byKey[ledgerKey{o.Proc, o.Lock, o.Grant}]; !found && len(prev) > 0 {
				last := prev[len(prev)-1]
				g := f.addGrant(&grantRec{client: last.client, proc: o.Proc, service: last.service, lock: o.Lock,
					grant: o.Grant, at: o.At, idx: o.Event, resurrected: true})
				open[o.Proc] = append(open[o.Proc], g)
				recovered[g] = true
			}
		}
	}, func(p procEvent) {
		if p.kind != sim.EvRestart {
			return
		}
		f.withdraw(open, p.proc, func(g *grantRec) bool { return !recovered[g] }, p.at, p.idx,
			"been lost when "+f.name(p.proc)+" restarted at "+p.at.String())
		for _, g := range open[p.proc] {
			delete(recovered, g)
		}
	})
}

func (f *facts) addGrant(g *grantRec) *grantRec {
	g.withdrawn, g.withdrawnIdx = sim.Never, maxIdx
	f.grants = append(f.grants, g)
	k := ledgerKey{g.proc, g.lock, g.grant}
	f.byKey[k] = append(f.byKey[k], g)
	return g
}

func (f *facts) withdraw(open map[sim.ProcID][]*grantRec, node sim.ProcID, which func(*grantRec) bool, at sim.Time, idx int, how string) {
	kept := open[node][:0]
	for _, g := range open[node] {
		if which(g) {
			g.withdrawn, g.withdrawnIdx, g.withdrawal = at, idx, how
			continue
		}
		kept = append(kept, g)
	}
	open[node] = kept
}

// withdrawalText says how a grant was withdrawn, as a clause after "the grant had".
func withdrawalText(f *facts, o *sim.Observation) string {
	switch o.Reason {
	case sim.ReasonExpired:
		return "expired by " + f.name(o.Proc) + "'s clock at " + o.At.String()
	case sim.ReasonReleased:
		return "been released at " + o.At.String()
	}
	s := "been " + o.Reason
	if o.By != sim.NoProc {
		s += " by " + f.name(o.By)
	}
	return s + " at " + o.At.String()
}

// ledgerEntry finds the ledger's record of the grant an observation reports.
func (f *facts) ledgerEntry(proc sim.ProcID, lock, grant string, at sim.Time) *grantRec {
	var found *grantRec
	for _, g := range f.byKey[ledgerKey{proc, lock, grant}] {
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
