package etcd_test

import (
	"fmt"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/locksim/locksim/protocols/etcd"
	"github.com/locksim/locksim/protocols/resource"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/check"
	"github.com/locksim/locksim/sim/simtest"
)

// Property tests of etcd's lease lock (Jepsen, "etcd 3.4.3", 2020; etcd's "Notes
// on the usage of lock and lease"): with the lock key's create revision as a
// fencing token the protected resource stays safe under random pauses, crashes,
// partitions and leader failures; without it, random pauses find the lost
// update; and the cluster never grants the lock to two live leases. Each test
// runs 10 rounds of rapid checks (1,000 schedules by default; rapid runs a fifth
// under -short; more with -rapid.checks=N).

type fault struct {
	kind string // pause, crash-client, crash-member, crash-leader, partition
	proc int
	at   time.Duration
	dur  time.Duration
}

type schedule struct {
	clients int
	starts  []time.Duration
	holds   []time.Duration
	faults  []fault
}

func (s schedule) String() string {
	out := fmt.Sprintf("%d clients starting at %v holding %v", s.clients, s.starts, s.holds)
	for _, f := range s.faults {
		out += fmt.Sprintf("; %s %d at %s for %s", f.kind, f.proc, f.at, f.dur)
	}
	return out
}

func draw(t *rapid.T, kinds []string) schedule {
	s := schedule{clients: rapid.IntRange(2, 3).Draw(t, "clients")}
	for range s.clients {
		s.starts = append(s.starts, time.Duration(rapid.IntRange(100, 2000).Draw(t, "start_ms"))*time.Millisecond)
		s.holds = append(s.holds, time.Duration(rapid.IntRange(500, 5000).Draw(t, "hold_ms"))*time.Millisecond)
	}
	for range rapid.IntRange(1, 4).Draw(t, "faults") {
		s.faults = append(s.faults, fault{
			kind: rapid.SampledFrom(kinds).Draw(t, "fault"),
			proc: rapid.IntRange(0, 2).Draw(t, "proc"),
			at:   time.Duration(rapid.IntRange(200, 5000).Draw(t, "fault_at_ms")) * time.Millisecond,
			dur:  time.Duration(rapid.IntRange(100, 6000).Draw(t, "fault_ms")) * time.Millisecond,
		})
	}
	return s
}

func run(s schedule, fencing bool) check.Report {
	return check.Check(runTrace(s, fencing), check.Options{})
}

func runTrace(s schedule, fencing bool) *sim.Trace {
	w := sim.NewWorld(sim.Config{Seed: 1, Limits: sim.Limits{MaxEvents: 300_000, MaxTime: 15 * time.Second, MaxQueue: 10_000}})
	var members []sim.ProcID
	for i := range 3 {
		members = append(members, sim.ProcID(i))
	}
	for i := range 3 {
		w.AddProcess(fmt.Sprintf("e%d", i+1), "etcd", sim.Clock{}, etcd.NewMember(etcd.MemberConfig{Members: members}))
	}
	var clients []sim.ProcID
	for i := range s.clients {
		order := []sim.ProcID{members[i%3], members[(i+1)%3], members[(i+2)%3]}
		clients = append(clients, w.AddProcess(fmt.Sprintf("c%d", i+1), "client", sim.Clock{},
			etcd.NewClient(etcd.ClientConfig{Members: order, Fencing: fencing, TTL: 2 * time.Second})))
	}
	w.AddProcess("db", "resource", sim.Clock{}, resource.New(resource.Config{Fencing: fencing}))
	w.Network().SetDefault(sim.Link{Delay: time.Millisecond, Jitter: time.Millisecond, Dist: sim.DelayUniform})
	cmd := func(at time.Duration, c sim.ProcID, op, key string) {
		w.Schedule(sim.Time(at), sim.Action{Kind: sim.ActCommand, Proc: c, Msg: sim.Message{Op: op, Key: key}})
	}
	for i, c := range clients {
		cmd(s.starts[i], c, etcd.CmdAcquire, "L")
		// Read and write well into the hold, and once more at its end: a paused
		// client's write goes out when it wakes.
		for _, f := range []float64{0.3, 0.6, 0.9} {
			op := "read"
			if f > 0.5 {
				op = "write"
			}
			cmd(s.starts[i]+time.Duration(float64(s.holds[i])*f), c, op, "db")
		}
		cmd(s.starts[i]+s.holds[i], c, etcd.CmdRelease, "L")
	}
	others := func(p int) []sim.ProcID {
		return append(append([]sim.ProcID{}, members[:p]...), members[p+1:]...)
	}
	for _, f := range s.faults {
		at, end := sim.Time(f.at), sim.Time(f.at+f.dur)
		switch f.kind {
		case "pause":
			w.Schedule(at, sim.Action{Kind: sim.ActPause, Proc: clients[f.proc%len(clients)], Dur: f.dur})
		case "crash-client":
			w.Schedule(at, sim.Action{Kind: sim.ActCrash, Proc: clients[f.proc%len(clients)]})
			w.Schedule(end, sim.Action{Kind: sim.ActRestart, Proc: clients[f.proc%len(clients)]})
		case "crash-member", "crash-leader":
			p := members[f.proc]
			if f.kind == "crash-leader" {
				p = members[0] // the leader of a fresh cluster
			}
			w.Schedule(at, sim.Action{Kind: sim.ActCrash, Proc: p})
			w.Schedule(end, sim.Action{Kind: sim.ActRestart, Proc: p})
		case "partition":
			w.Schedule(at, sim.Action{Kind: sim.ActPartition, A: []sim.ProcID{members[f.proc]}, B: others(f.proc)})
			w.Schedule(end, sim.Action{Kind: sim.ActHeal})
		}
	}
	return w.Run()
}

func violations(rep check.Report, name string) []check.Violation {
	r, _ := rep.Result(name)
	return r.Violations
}

func TestPropertyRevisionFencingKeepsTheResourceSafe(t *testing.T) {
	simtest.Check(t, 10, func(t *rapid.T) {
		s := draw(t, []string{"pause", "crash-client", "crash-member", "crash-leader", "partition"})
		rep := run(s, true)
		for _, inv := range []string{"resource-safe", "fencing-monotonic", "grant-exclusive"} {
			if v := violations(rep, inv); len(v) > 0 {
				t.Fatalf("%s violated at %s: %s\nschedule: %s", inv, v[0].At, v[0].Detail, s)
			}
		}
	})
}

func TestPropertyClusterNeverGrantsTwoLiveLeases(t *testing.T) {
	simtest.Check(t, 10, func(t *rapid.T) {
		s := draw(t, []string{"crash-member", "crash-leader", "partition"})
		if v := violations(run(s, false), "grant-exclusive"); len(v) > 0 {
			t.Fatalf("grant-exclusive violated at %s: %s\nschedule: %s", v[0].At, v[0].Detail, s)
		}
	})
}

// drawPause draws the shape of Jepsen's finding, its times random: c1 holds
// first, and its process stops during its hold (after its read, before its
// writes) for longer than its 2 s lease; c2 queues behind it and works with the
// lock meanwhile.
func drawPause(t *rapid.T) schedule {
	s := schedule{clients: 2,
		starts: []time.Duration{100 * time.Millisecond, time.Duration(rapid.IntRange(200, 600).Draw(t, "c2_start_ms")) * time.Millisecond},
		holds:  []time.Duration{3 * time.Second, time.Duration(rapid.IntRange(5500, 7000).Draw(t, "c2_hold_ms")) * time.Millisecond}}
	s.faults = []fault{{kind: "pause", proc: 0,
		at:  time.Duration(rapid.IntRange(1000, 1700).Draw(t, "pause_at_ms")) * time.Millisecond,
		dur: time.Duration(rapid.IntRange(3500, 5500).Draw(t, "pause_ms")) * time.Millisecond}}
	return s
}

// Without fencing, random pauses find the lost update of etcd-pause.
func TestPropertyPausesWithoutFencingAreFound(t *testing.T) {
	simtest.Find(t, func(t *rapid.T) {
		s := drawPause(t)
		if v := violations(run(s, false), "resource-safe"); len(v) > 0 {
			t.Fatalf("%s\nschedule: %s", v[0].Detail, s)
		}
	})
}
