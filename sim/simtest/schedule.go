package simtest

import (
	"fmt"
	"time"

	"pgregory.net/rapid"

	"github.com/locksim/locksim/sim"
)

// Fault is one fault of a drawn schedule: its kind (the test's own vocabulary:
// pause, crash-server, partition, ...), which process (an index the test maps),
// when, and for how long.
type Fault struct {
	Kind string
	Proc int
	At   time.Duration
	Dur  time.Duration
}

// Schedule is a lock property test's random run: clients that each acquire at
// their start, read and write the resource during their hold, and release; and
// the faults.
type Schedule struct {
	Seed    uint64 // the world's seed: message delays, election timeouts
	Clients int
	Starts  []time.Duration
	Holds   []time.Duration
	Faults  []Fault
}

func (s Schedule) String() string {
	out := fmt.Sprintf("seed %d: %d clients starting at %v holding %v", s.Seed, s.Clients, s.Starts, s.Holds)
	for _, f := range s.Faults {
		out += fmt.Sprintf("; %s %d at %s for %s", f.Kind, f.Proc, f.At, f.Dur)
	}
	return out
}

// Draw draws 2 or 3 clients and 1 to 4 faults of the given kinds on processes 0-2.
func Draw(t *rapid.T, kinds []string) Schedule {
	s := Schedule{Seed: rapid.Uint64().Draw(t, "seed"), Clients: rapid.IntRange(2, 3).Draw(t, "clients")}
	for range s.Clients {
		s.Starts = append(s.Starts, ms(rapid.IntRange(100, 2000).Draw(t, "start_ms")))
		s.Holds = append(s.Holds, ms(rapid.IntRange(500, 5000).Draw(t, "hold_ms")))
	}
	for range rapid.IntRange(1, 4).Draw(t, "faults") {
		s.Faults = append(s.Faults, Fault{
			Kind: rapid.SampledFrom(kinds).Draw(t, "fault"),
			Proc: rapid.IntRange(0, 2).Draw(t, "proc"),
			At:   ms(rapid.IntRange(200, 5000).Draw(t, "fault_at_ms")),
			Dur:  ms(rapid.IntRange(100, 6000).Draw(t, "fault_ms")),
		})
	}
	return s
}

// DrawPause draws the shape of the published pause failure (Kleppmann 2016;
// Jepsen on etcd 3.4.3), its times random: c1 holds first, and its process
// stops during its hold (after its read, before its writes) for longer than a
// 2 s session or lease; c2 queues behind it and works with the lock meanwhile.
func DrawPause(t *rapid.T) Schedule {
	return Schedule{Seed: rapid.Uint64().Draw(t, "seed"), Clients: 2,
		Starts: []time.Duration{100 * time.Millisecond, ms(rapid.IntRange(200, 600).Draw(t, "c2_start_ms"))},
		Holds:  []time.Duration{3 * time.Second, ms(rapid.IntRange(5500, 7000).Draw(t, "c2_hold_ms"))},
		Faults: []Fault{{Kind: "pause", Proc: 0,
			At:  ms(rapid.IntRange(1000, 1700).Draw(t, "pause_at_ms")),
			Dur: ms(rapid.IntRange(3500, 5500).Draw(t, "pause_ms"))}},
	}
}

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// Work schedules each client's commands: acquire L at its start; read the
// resource db 30% into its hold and write at 60% and 90% (a paused client's
// write goes out when it wakes); release at the end of its hold.
func (s Schedule) Work(w *sim.World, clients []sim.ProcID) {
	cmd := func(at time.Duration, c sim.ProcID, op, key string) {
		w.Schedule(sim.Time(at), sim.Action{Kind: sim.ActCommand, Proc: c, Msg: sim.Message{Op: op, Key: key}})
	}
	for i, c := range clients {
		cmd(s.Starts[i], c, "acquire", "L")
		for _, f := range []float64{0.3, 0.6, 0.9} {
			op := "read"
			if f > 0.5 {
				op = "write"
			}
			cmd(s.Starts[i]+time.Duration(float64(s.Holds[i])*f), c, op, "db")
		}
		cmd(s.Starts[i]+s.Holds[i], c, "release", "L")
	}
}
