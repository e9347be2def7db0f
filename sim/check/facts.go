package check

import (
	"time"

	"github.com/locksim/locksim/sim"
)

// facts is the trace read once into the shapes the invariants need: observations in
// order, and the process faults that end a client's belief.
type facts struct {
	t         *sim.Trace
	opt       Options
	resource  bool       // a process with role "resource" exists
	downs     []downFact // crashes, power losses and shutdowns, in order
	lastFault sim.Time   // the last fault event (NoFault when none)
}

type downFact struct {
	at   sim.Time
	proc sim.ProcID
	kind sim.EventKind
}

// noFault marks a run without faults.
const noFault = sim.Time(-1)

func newFacts(t *sim.Trace, opt Options) *facts {
	f := &facts{t: t, opt: opt, lastFault: noFault}
	for _, r := range t.Roles {
		if r == "resource" {
			f.resource = true
		}
	}
	for i := range t.Len() {
		e := t.Event(i)
		if e.Kind.IsFault() {
			f.lastFault = e.At
		}
		switch e.Kind {
		case sim.EvCrash, sim.EvPowerLoss, sim.EvShutdown:
			if t.Note(e) != sim.NoteAlreadyDown {
				f.downs = append(f.downs, downFact{e.At, e.Proc, e.Kind})
			}
		}
	}
	return f
}

// timeline merges observations with process downs in trace order, so an invariant
// can walk both. For each step it calls obs or down.
func (f *facts) walk(obs func(o *sim.Observation), down func(d downFact)) {
	di := 0
	for i := range f.t.Obs {
		o := &f.t.Obs[i]
		for di < len(f.downs) && f.downs[di].at <= o.At && f.eventBefore(f.downs[di], o) {
			down(f.downs[di])
			di++
		}
		obs(o)
	}
	for ; di < len(f.downs); di++ {
		down(f.downs[di])
	}
}

// eventBefore reports whether a down happened before the observation's step.
func (f *facts) eventBefore(d downFact, o *sim.Observation) bool {
	if d.at < o.At {
		return true
	}
	// Same instant: compare trace positions.
	for i := o.Event; i >= 0 && f.t.Event(i).At == d.at; i-- {
		e := f.t.Event(i)
		if e.Proc == d.proc && e.Kind == d.kind {
			return i < o.Event
		}
	}
	return false
}

func (f *facts) name(p sim.ProcID) string { return f.t.Name(p) }

func (f *facts) end() sim.Time { return f.t.End }

func (f *facts) bound() time.Duration { return f.opt.Bound }
