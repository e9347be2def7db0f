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

// world is a drawn run: the schedule and the network's loss, duplication and
// reordering (Raft tolerates all three; etcd's clients see them as timeouts).
type world struct {
	simtest.Schedule
	net sim.Link
}

func (w world) String() string {
	return fmt.Sprintf("%s; network loss %.2f dup %.2f reorder %.2f", w.Schedule, w.net.Loss, w.net.Dup, w.net.Reorder)
}

// draw draws a schedule of the given fault kinds and, when lossy, a network that
// loses, duplicates and reorders up to 5% of messages each.
func draw(t *rapid.T, kinds []string, lossy bool) world {
	w := world{Schedule: simtest.Draw(t, kinds), net: sim.Link{Delay: time.Millisecond, Jitter: time.Millisecond, Dist: sim.DelayUniform}}
	if lossy {
		p := func(name string) float64 { return float64(rapid.IntRange(0, 5).Draw(t, name)) / 100 }
		w.net.Loss, w.net.Dup, w.net.Reorder = p("loss_pct"), p("dup_pct"), p("reorder_pct")
	}
	return w
}

func run(s world, fencing bool) check.Report {
	return check.Check(runTrace(s, fencing), check.Options{})
}

// runTrace runs a drawn world: 3 members, the clients, the resource db. Fault
// kinds: pause (a client), crash-client, crash-member (crash and restart; e1 leads
// a fresh cluster, so a crash of e1 early is a leader failure, and later crashes
// hit whoever leads then as often as a follower), pause-member, partition (one
// member from the other two).
func runTrace(s world, fencing bool) *sim.Trace {
	w := sim.NewWorld(sim.Config{Seed: s.Seed, Limits: sim.Limits{MaxEvents: 300_000, MaxTime: 15 * time.Second, MaxQueue: 10_000}})
	var members []sim.ProcID
	for i := range 3 {
		members = append(members, sim.ProcID(i))
	}
	for i := range 3 {
		w.AddProcess(fmt.Sprintf("e%d", i+1), "etcd", sim.Clock{}, etcd.NewMember(etcd.MemberConfig{Members: members}))
	}
	var clients []sim.ProcID
	for i := range s.Clients {
		order := []sim.ProcID{members[i%3], members[(i+1)%3], members[(i+2)%3]}
		clients = append(clients, w.AddProcess(fmt.Sprintf("c%d", i+1), "client", sim.Clock{},
			etcd.NewClient(etcd.ClientConfig{Members: order, Fencing: fencing, TTL: 2 * time.Second})))
	}
	w.AddProcess("db", "resource", sim.Clock{}, resource.New(resource.Config{Fencing: fencing}))
	w.Network().SetDefault(s.net)
	s.Work(w, clients)
	others := func(p int) []sim.ProcID {
		return append(append([]sim.ProcID{}, members[:p]...), members[p+1:]...)
	}
	for _, f := range s.Faults {
		at, end := sim.Time(f.At), sim.Time(f.At+f.Dur)
		switch f.Kind {
		case "pause":
			w.Schedule(at, sim.Action{Kind: sim.ActPause, Proc: clients[f.Proc%len(clients)], Dur: f.Dur})
		case "crash-client":
			w.Schedule(at, sim.Action{Kind: sim.ActCrash, Proc: clients[f.Proc%len(clients)]})
			w.Schedule(end, sim.Action{Kind: sim.ActRestart, Proc: clients[f.Proc%len(clients)]})
		case "crash-member":
			w.Schedule(at, sim.Action{Kind: sim.ActCrash, Proc: members[f.Proc]})
			w.Schedule(end, sim.Action{Kind: sim.ActRestart, Proc: members[f.Proc]})
		case "pause-member":
			w.Schedule(at, sim.Action{Kind: sim.ActPause, Proc: members[f.Proc], Dur: f.Dur})
		case "partition":
			w.Schedule(at, sim.Action{Kind: sim.ActPartition, A: []sim.ProcID{members[f.Proc]}, B: others(f.Proc)})
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
		s := draw(t, []string{"pause", "crash-client", "crash-member", "pause-member", "partition"}, true)
		rep := run(s, true)
		for _, inv := range []string{"resource-safe", "fencing-monotonic", "tokens-ordered", "grant-exclusive"} {
			if v := violations(rep, inv); len(v) > 0 {
				t.Fatalf("%s violated at %s: %s\nschedule: %s", inv, v[0].At, v[0].Detail, s)
			}
		}
	})
}

func TestPropertyClusterNeverGrantsTwoLiveLeases(t *testing.T) {
	simtest.Check(t, 10, func(t *rapid.T) {
		s := draw(t, []string{"crash-member", "pause-member", "partition"}, true)
		if v := violations(run(s, false), "grant-exclusive"); len(v) > 0 {
			t.Fatalf("grant-exclusive violated at %s: %s\nschedule: %s", v[0].At, v[0].Detail, s)
		}
	})
}

// While no client stops, a holder hears of its lease's end before anyone else
// can hold: the leader revokes a lease one TTL after the last renewal it
// received, and the holder, unanswered, gives up one TTL after its last answer
// (later than the renewal). Member faults and partitions alone never make two
// clients believe at once; a lessor that expired early or renewed late would.
func TestPropertyLiveClientsNeverBelieveTogether(t *testing.T) {
	simtest.Check(t, 10, func(t *rapid.T) {
		s := draw(t, []string{"crash-member", "pause-member", "partition"}, false)
		if v := violations(run(s, false), "mutex-belief"); len(v) > 0 {
			t.Fatalf("mutex-belief violated at %s: %s\nschedule: %s", v[0].At, v[0].Detail, s)
		}
	})
}

// Without fencing, random pauses find the lost update of etcd-pause.
func TestPropertyPausesWithoutFencingAreFound(t *testing.T) {
	simtest.Find(t, func(t *rapid.T) {
		s := world{Schedule: simtest.DrawPause(t), net: sim.Link{Delay: time.Millisecond, Jitter: time.Millisecond, Dist: sim.DelayUniform}}
		if v := violations(run(s, false), "resource-safe"); len(v) > 0 {
			t.Fatalf("%s\nschedule: %s", v[0].Detail, s)
		}
	})
}
