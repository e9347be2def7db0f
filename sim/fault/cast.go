package fault

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/locksim/locksim/sim"
)

// Cast is the processes a schedule's faults name.
type Cast struct {
	Names []string // every process, by sim.ProcID
	// Group is whom a partition with no Peer cuts its Proc off from: the rest of
	// Group (every process when nil). The explorer leaves out the protected
	// resources, storage both sides of a partition reach; a property test of a
	// replicated service cuts a server off from the other servers.
	Group []string
}

// others is the other side of a partition of side.
func (c Cast) others(side []string) []string {
	group := c.Group
	if group == nil {
		group = c.Names
	}
	var out []string
	for _, n := range group {
		if !slices.Contains(side, n) {
			out = append(out, n)
		}
	}
	return out
}

// sides are a partition's two sides, by name.
func (c Cast) sides(f Fault) (a, b []string) {
	a = strings.Split(f.Proc, ",")
	if f.Peer == "" {
		return a, c.others(a)
	}
	return a, strings.Split(f.Peer, ",")
}

func (c Cast) id(name string) sim.ProcID {
	if i := slices.Index(c.Names, name); i >= 0 {
		return sim.ProcID(i)
	}
	panic(fmt.Sprintf("fault: a fault names %q, which is not among the processes %v", name, c.Names))
}

func (c Cast) ids(names []string) []sim.ProcID {
	out := make([]sim.ProcID, len(names))
	for i, n := range names {
		out[i] = c.id(n)
	}
	return out
}

// Timed is a kernel action at a true time.
type Timed struct {
	At     sim.Time
	Action sim.Action
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
	var out []Timed
	add := func(at time.Duration, a sim.Action) { out = append(out, Timed{sim.Time(at), a}) }
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
	return out
}

// Apply schedules the faults in w. group is whom a partition with no Peer cuts
// its process off from (every process when nil; see Cast.Group).
func (s Schedule) Apply(w *sim.World, group []string) {
	for _, t := range s.Actions(Cast{Names: w.Names(), Group: group}, w.Network().Declared) {
		w.Schedule(t.At, t.Action)
	}
}

// Text is the schedule in the scenario language: each fault's lines, after its
// sentence as a comment when narrate is set. It is the one text form of a
// schedule: the explorer writes its found scenarios with it, and it makes the
// run Actions makes.
func (s Schedule) Text(c Cast, narrate bool) string {
	var b strings.Builder
	for _, f := range s {
		if narrate {
			b.WriteString("# " + f.String() + ".\n")
		}
		for _, l := range f.lines(c) {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// lines renders the fault in the scenario language.
func (f Fault) lines(c Cast) []string {
	at := "at " + ms(f.At) + " "
	var end []string
	until := func(line string) {
		if f.Dur != Forever {
			end = append(end, "at "+ms(f.At+f.Dur)+" "+line)
		}
	}
	var start string
	switch f.Kind {
	case Crash:
		start = at + "crash " + f.Proc
		until("restart " + f.Proc)
	case RestartEmpty:
		start = at + "power-loss " + f.Proc
		until("restart " + f.Proc)
	case Pause:
		start = at + "pause " + f.Proc
		if f.Dur != Forever {
			start += " for=" + ms(f.Dur)
		}
	case ClockJump:
		start = fmt.Sprintf("%sclock-jump %s %+dms", at, f.Proc, f.Mag)
	case Drift:
		start = fmt.Sprintf("%sclock-drift %s %d", at, f.Proc, f.Mag)
	case Partition:
		a, b := c.sides(f)
		start = at + "partition " + strings.Join(a, ",") + " | " + strings.Join(b, ",")
		until("heal")
	case Loss, Duplicate:
		key := "loss"
		if f.Kind == Duplicate {
			key = "dup"
		}
		start = fmt.Sprintf("%slink %s %s %s=%g", at, f.Proc, f.Peer, key, float64(f.Mag)/1000)
		until("link " + f.Proc + " " + f.Peer)
	case Delay:
		start = fmt.Sprintf("%slink %s %s extra-delay=%dms", at, f.Proc, f.Peer, f.Mag)
		until("link " + f.Proc + " " + f.Peer)
	case Failover:
		start = at + "failover " + f.Proc
	default:
		panic(fmt.Sprintf("fault: unknown kind %q", f.Kind))
	}
	return append([]string{start}, end...)
}
