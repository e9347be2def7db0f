package fault

import (
	"fmt"
	"time"

	"github.com/locksim/locksim/sim"
)

// Timed is a kernel action at a true time.
type Timed struct {
	At     sim.Time   // when
	Action sim.Action // what
}

// failoverOp is the command a failover sends the promoted replica: Redis's
// REPLICAOF NO ONE (protocols/redis CmdFailover, which this package may not
// import; a test in scenarios/explore proves the two agree).
const failoverOp = "REPLICAOF NO ONE"

// Actions is the schedule as the kernel's actions, each at its true time, in
// the order Text writes them: the same run the scenario text makes. link gives
// a link's settings before a fault (sim.Network.Declared): a link fault changes
// them, and restores them when it ends.
func (s Schedule) Actions(c Cast, link func(from, to sim.ProcID) sim.Link) []Timed {
	out := make([]Timed, 0, 2*len(s)) // a fault and its end at most
	s.each(c, link, func(at time.Duration, a sim.Action) { out = append(out, Timed{sim.Time(at), a}) })
	return out
}

// each hands each of the schedule's actions to add, in Actions' order.
func (s Schedule) each(c Cast, link func(from, to sim.ProcID) sim.Link, add func(time.Duration, sim.Action)) {
	for _, f := range s {
		end := f.At + f.Dur
		lasts := f.Dur != Forever
		switch f.Kind {
		case Crash, RestartEmpty:
			kind := sim.ActCrash
			if f.Kind == RestartEmpty {
				kind = sim.ActPowerLoss
			}
			add(f.At, sim.Action{Kind: kind, Proc: c.id(f.Proc)})
			if lasts {
				add(end, sim.Action{Kind: sim.ActRestart, Proc: c.id(f.Proc)})
			}
		case Pause:
			a := sim.Action{Kind: sim.ActPause, Proc: c.id(f.Proc), Dur: f.Dur}
			if !lasts {
				a.Dur = 0 // until a resume that never comes
			}
			add(f.At, a)
		case ClockJump:
			add(f.At, sim.Action{Kind: sim.ActJump, Proc: c.id(f.Proc), Dur: time.Duration(f.Mag) * time.Millisecond})
		case Drift:
			add(f.At, sim.Action{Kind: sim.ActDrift, Proc: c.id(f.Proc), PPM: f.Mag})
		case Partition:
			a, b := c.sides(f)
			add(f.At, sim.Action{Kind: sim.ActPartition, Proc: sim.NoProc, A: c.ids(a), B: c.ids(b)})
			if lasts {
				add(end, sim.Action{Kind: sim.ActHeal, Proc: sim.NoProc})
			}
		case Loss, Duplicate, Delay:
			p, q := c.id(f.Proc), c.id(f.Peer)
			base := link(p, q)
			l := base
			switch f.Kind {
			case Loss:
				l.Loss = float64(f.Mag) / 1000
			case Duplicate:
				l.Dup = float64(f.Mag) / 1000
			case Delay:
				l.Delay += time.Duration(f.Mag) * time.Millisecond
			}
			add(f.At, sim.Action{Kind: sim.ActLink, Proc: sim.NoProc, A: []sim.ProcID{p}, B: []sim.ProcID{q}, Link: l})
			if lasts {
				add(end, sim.Action{Kind: sim.ActLink, Proc: sim.NoProc, A: []sim.ProcID{p}, B: []sim.ProcID{q}, Link: base})
			}
		case Failover:
			add(f.At, sim.Action{Kind: sim.ActCommand, Proc: c.id(f.Proc), Msg: sim.Message{Op: failoverOp}})
		default:
			panic(fmt.Sprintf("fault: unknown kind %q", f.Kind))
		}
	}
}

// Apply schedules the faults in w. group is whom a partition with no Peer cuts
// its process off from (every process when nil; see Cast.Group).
//
// It schedules each action as it is made: an explorer applies a schedule to
// every run, and a slice of them was a fifth of what each run allocated.
func (s Schedule) Apply(w *sim.World, group []string) {
	s.each(Cast{Names: w.Names(), Group: group}, w.Network().Declared, func(at time.Duration, a sim.Action) { w.Schedule(sim.Time(at), a) })
}
