package simtest

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"pgregory.net/rapid"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/fault"
)

// Rapid is a fault.Source that draws through rapid: each choice of a schedule
// is a labelled draw rapid records, so it can remove a fault and shrink its
// time, duration and magnitude.
func Rapid(t *rapid.T) fault.Source { return rapidSource{t} }

type rapidSource struct{ t *rapid.T }

func (r rapidSource) IntN(label string, n int64) int64 {
	return rapid.Int64Range(0, n-1).Draw(r.t, label)
}

// Case is a lock property test's drawn run: clients c1, c2, ... that each
// acquire L at their start, read and write the resource db during their hold,
// and release; and the faults.
type Case struct {
	// Seed seeds what the kernel draws itself (message delays on a link with
	// jitter, election timeouts); the faults are drawn apart, through rapid.
	Seed    uint64
	Clients int             // how many clients: c1, c2, ...
	Starts  []time.Duration // when each client acquires, by client
	Holds   []time.Duration // how long each holds before it releases, by client
	Faults  fault.Schedule  // the faults, drawn through rapid
}

// String is the case in words, for a failure message: the seed, the clients'
// starts and holds, and each fault.
func (c Case) String() string {
	out := fmt.Sprintf("seed %d: %d clients starting at %v holding %v", c.Seed, c.Clients, c.Starts, c.Holds)
	if len(c.Faults) > 0 {
		out += "; " + c.Faults.String()
	}
	return out
}

// Menu is the faults a lock property test draws: the kinds that hit the
// clients, and those that hit the servers.
type Menu struct {
	Clients    []fault.Kind // faults that hit the clients
	Servers    []fault.Kind // faults that hit the servers
	MaxClients int          // from 2 to this many clients (3 when 0)
}

// Draw draws 2 or more clients, when each starts and how long it holds, and 1
// to 4 faults from the menu on the clients and on servers.
func Draw(t *rapid.T, servers []string, m Menu) Case {
	c := Case{Seed: rapid.Uint64().Draw(t, "world_seed"), Clients: rapid.IntRange(2, cmp.Or(m.MaxClients, 3)).Draw(t, "clients")}
	var clients []string
	for i := range c.Clients {
		clients = append(clients, fmt.Sprintf("c%d", i+1))
		c.Starts = append(c.Starts, ms(rapid.IntRange(100, 2000).Draw(t, "start_ms")))
		c.Holds = append(c.Holds, ms(rapid.IntRange(500, 5000).Draw(t, "hold_ms")))
	}
	// Faults fall while the clients work (they start from 100 ms to 2 s and hold
	// for up to 5 s): each starts from 200 ms to 5 s, and is over by 11 s.
	sp := fault.Space{Menu: slices.Concat(m.Clients, m.Servers), Start: 200 * time.Millisecond, Stop: 5 * time.Second, End: 11 * time.Second, Targets: func(k fault.Kind) fault.Targets {
		var procs []string
		if slices.Contains(m.Clients, k) {
			procs = append(procs, clients...)
		}
		if slices.Contains(m.Servers, k) {
			procs = append(procs, servers...)
		}
		return fault.Targets{Procs: procs}
	}}
	c.Faults = sp.Draw(Rapid(t))
	return c
}

// DrawPause draws the shape of the published pause failure (Kleppmann 2016;
// Jepsen on etcd 3.4.3), its times random: c1 holds first, and its process
// stops during its hold (after its read, before its writes) for longer than a
// 2 s session or lease; c2 queues behind it and works with the lock meanwhile.
func DrawPause(t *rapid.T) Case {
	return Case{Seed: rapid.Uint64().Draw(t, "world_seed"), Clients: 2,
		Starts: []time.Duration{100 * time.Millisecond, ms(rapid.IntRange(200, 600).Draw(t, "c2_start_ms"))},
		Holds:  []time.Duration{3 * time.Second, ms(rapid.IntRange(5500, 7000).Draw(t, "c2_hold_ms"))},
		Faults: fault.Schedule{{Kind: fault.Pause, Proc: "c1",
			At:  ms(rapid.IntRange(1000, 1700).Draw(t, "pause_at_ms")),
			Dur: ms(rapid.IntRange(3500, 5500).Draw(t, "pause_ms"))}},
	}
}

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// Apply schedules the case in w: each client's commands (acquire L at its
// start; read the resource db 30% into its hold and write at 60% and 90%, a
// paused client's write going out when it wakes; release at the end of its
// hold), and the faults, a partition cutting a server off from the other
// servers.
func (c Case) Apply(w *sim.World, clients []sim.ProcID, servers []string) {
	cmd := func(at time.Duration, p sim.ProcID, op, key string) {
		w.Schedule(sim.Time(at), sim.Action{Kind: sim.ActCommand, Proc: p, Msg: sim.Message{Op: op, Key: key}})
	}
	for i, p := range clients {
		cmd(c.Starts[i], p, "acquire", "L")
		for _, f := range []float64{0.3, 0.6, 0.9} {
			op := "read"
			if f > 0.5 {
				op = "write"
			}
			cmd(c.Starts[i]+time.Duration(float64(c.Holds[i])*f), p, op, "db")
		}
		cmd(c.Starts[i]+c.Holds[i], p, "release", "L")
	}
	c.Faults.Apply(w, servers)
}
