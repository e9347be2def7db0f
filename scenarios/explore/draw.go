package explore

import (
	"math/rand/v2"
	"slices"
	"time"
)

// Space is what a schedule is drawn from.
type Space struct {
	Menu      []Kind
	MaxFaults int   // at most this many faults (default 4)
	MaxDrift  int64 // drift faults draw |ppm| up to this (default 2000, within Redlock's 1% allowance)
	// Swarm makes each seed first draw its own mix: a subset of the menu and a
	// fault count (Groce et al., "Swarm Testing", ISSTA 2012).
	Swarm bool
}

// Draw draws a schedule from seed alone.
func (sp Space) Draw(t *Template, seed uint64) Schedule {
	rng := rand.New(rand.NewPCG(seed, 0x6c6f636b73696d)) // "locksim"
	menu := sp.Usable(t)
	if len(menu) == 0 {
		return nil
	}
	max := sp.MaxFaults
	if max <= 0 {
		max = 4
	}
	if sp.Swarm {
		var mix []Kind
		for _, k := range menu {
			if rng.IntN(2) == 0 {
				mix = append(mix, k)
			}
		}
		if len(mix) == 0 {
			mix = []Kind{menu[rng.IntN(len(menu))]}
		}
		menu, max = mix, 1+rng.IntN(max)
	}
	horizon := t.Horizon.Milliseconds()
	n := 1 + rng.IntN(max)
	var s Schedule
	for range n {
		f := sp.drawOne(t, rng, menu, horizon)
		if !slices.ContainsFunc(s, f.clashes) { // a clashing fault is dropped, not redrawn: the count stays a draw
			s = append(s, f)
		}
	}
	return s
}

// drawOne draws one fault that ends before the horizon.
func (sp Space) drawOne(t *Template, rng *rand.Rand, menu []Kind, horizon int64) Fault {
	k := menu[rng.IntN(len(menu))]
	f := Fault{Kind: k, At: time.Duration(rng.Int64N(horizon*9/10)) * time.Millisecond}
	procs, pairs := t.targets(k)
	if len(pairs) > 0 {
		pr := pairs[rng.IntN(len(pairs))]
		f.Proc, f.Peer = pr[0], pr[1]
	} else {
		f.Proc = procs[rng.IntN(len(procs))]
	}
	// Everything a fault starts ends before the horizon.
	left := horizon - f.At.Milliseconds()
	switch k {
	case Crash, RestartEmpty, Partition, Loss, Duplicate, Delay:
		f.Dur = time.Duration(1+rng.Int64N(min(left-1, 5000))) * time.Millisecond
	case Pause:
		f.Dur = time.Duration(1+rng.Int64N(min(left-1, 8000))) * time.Millisecond
	}
	switch k {
	case ClockJump:
		f.Mag = (1 + rng.Int64N(30_000)) * int64(1-2*rng.IntN(2)) // up to 30 s either way
	case Drift:
		maxDrift := sp.MaxDrift
		if maxDrift <= 0 {
			maxDrift = 2000
		}
		f.Mag = (1 + rng.Int64N(maxDrift)) * int64(1-2*rng.IntN(2))
	case Loss, Duplicate:
		f.Mag = 1 + rng.Int64N(1000)
	case Delay:
		f.Mag = 1 + rng.Int64N(2000) // ms added to the link's delay
	}
	return f
}

// Usable is the menu without kinds that have nothing to hit in the template.
func (sp Space) Usable(t *Template) []Kind {
	var out []Kind
	for _, k := range sp.Menu {
		procs, pairs := t.targets(k)
		if (len(procs) > 0 || len(pairs) > 0) && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}
