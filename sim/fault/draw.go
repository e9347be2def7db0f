package fault

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

// Source makes a schedule's choices, each a number in [0, n), labelled with
// what it chooses. The explorer's is a seeded generator (Seeded); a property
// test's is rapid (simtest.Rapid), so that rapid can shrink every fault.
type Source interface {
	// IntN returns a number in [0, n); label names the choice ("fault_kind").
	IntN(label string, n int64) int64
}

// Seeded is the explorer's source: a schedule drawn from a seed alone.
func Seeded(seed uint64) Source {
	return seeded{rand.New(rand.NewPCG(seed, 0x6c6f636b73696d))} // "locksim"
}

type seeded struct{ rng *rand.Rand }

func (s seeded) IntN(_ string, n int64) int64 { return s.rng.Int64N(n) }

// Targets is what a fault kind can hit: processes, or for a kind that acts
// between two processes (a link fault, a partition of a pair) the pairs.
type Targets struct {
	Procs []string    // the processes it can hit, by name
	Pairs [][2]string // the pairs it can act between (link faults)
}

// Space is what a schedule is drawn from.
type Space struct {
	Menu []Kind // the kinds of fault to draw from
	// Targets says what each kind of the menu can hit; a kind with nothing to
	// hit is left out (Usable).
	Targets func(Kind) Targets
	// When faults fall: each starts in [Start, Stop) and is over before End.
	// Stop is nine tenths of End when 0. The explorer's faults start from 0 and
	// are over by its heal phase; a property test's start once its workload
	// has begun, and may outlast it.
	Start, Stop, End time.Duration
	MaxFaults        int   // at most this many faults (default 4)
	MaxDrift         int64 // drift faults draw |ppm| up to this (default 2000, within Redlock's 1% allowance)
	// Swarm makes each schedule first draw its own mix: a subset of the menu and
	// a fault count (Groce et al., "Swarm Testing", ISSTA 2012).
	Swarm bool
}

// Usable is the menu without kinds that have nothing to hit.
func (sp Space) Usable() []Kind {
	if sp.Targets == nil {
		panic("fault: a space needs Targets: what each kind of its menu can hit")
	}
	var out []Kind
	for _, k := range sp.Menu {
		t := sp.Targets(k)
		if (len(t.Procs) > 0 || len(t.Pairs) > 0) && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// Draw draws a schedule: 1 to MaxFaults faults of the usable menu. A fault that
// clashes with one drawn before it is dropped, not drawn again, so that the
// count stays one choice.
func (sp Space) Draw(src Source) Schedule {
	if stop := cmp.Or(sp.Stop, sp.End*9/10); sp.End <= 0 || stop <= sp.Start || stop > sp.End {
		panic(fmt.Sprintf("fault: a space whose faults start in [%s, %s) and end by %s has no room for a fault", sp.Start, stop, sp.End))
	}
	menu := sp.Usable()
	if len(menu) == 0 {
		return nil
	}
	limit := int64(sp.MaxFaults)
	if limit <= 0 {
		limit = 4
	}
	if sp.Swarm {
		var mix []Kind
		for _, k := range menu {
			if src.IntN("swarm_"+string(k), 2) == 0 {
				mix = append(mix, k)
			}
		}
		if len(mix) == 0 {
			mix = []Kind{menu[src.IntN("swarm_kind", int64(len(menu)))]}
		}
		menu, limit = mix, 1+src.IntN("swarm_max_faults", limit)
	}
	n := 1 + src.IntN("faults", limit)
	var s Schedule
	for range n {
		f := sp.drawOne(src, menu)
		if !slices.ContainsFunc(s, f.Clashes) {
			s = append(s, f)
		}
	}
	return s
}

// drawOne draws one fault, in whole milliseconds.
func (sp Space) drawOne(src Source, menu []Kind) Fault {
	start, stop, end := sp.Start.Milliseconds(), sp.Stop.Milliseconds(), sp.End.Milliseconds()
	if stop == 0 {
		stop = end * 9 / 10
	}
	k := menu[src.IntN("kind", int64(len(menu)))]
	f := Fault{Kind: k, At: time.Duration(start+src.IntN("at_ms", stop-start)) * time.Millisecond}
	t := sp.Targets(k)
	if len(t.Pairs) > 0 {
		pr := t.Pairs[src.IntN("pair", int64(len(t.Pairs)))]
		f.Proc, f.Peer = pr[0], pr[1]
	} else {
		f.Proc = t.Procs[src.IntN("proc", int64(len(t.Procs)))]
	}
	left := end - f.At.Milliseconds()
	switch k {
	case Crash, RestartEmpty, Partition, Loss, Duplicate, Delay:
		f.Dur = time.Duration(1+src.IntN("dur_ms", min(left-1, 5000))) * time.Millisecond
	case Pause:
		f.Dur = time.Duration(1+src.IntN("dur_ms", min(left-1, 8000))) * time.Millisecond
	}
	sign := func() int64 { return 1 - 2*src.IntN("negative", 2) }
	switch k {
	case ClockJump:
		f.Mag = (1 + src.IntN("jump_ms", 30_000)) * sign() // up to 30 s either way
	case Drift:
		maxDrift := sp.MaxDrift
		if maxDrift <= 0 {
			maxDrift = 2000
		}
		f.Mag = (1 + src.IntN("drift_ppm", maxDrift)) * sign()
	case Loss, Duplicate:
		f.Mag = 1 + src.IntN("per_mille", 1000)
	case Delay:
		f.Mag = 1 + src.IntN("delay_ms", 2000) // ms added to the link's delay
	}
	return f
}
