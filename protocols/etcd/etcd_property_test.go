package etcd_test

import (
	"fmt"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/locksim/locksim/protocols/etcd"
	"github.com/locksim/locksim/protocols/resource"
	"github.com/locksim/locksim/scenarios/explore"
	"github.com/locksim/locksim/scenarios/proptest"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/check"
	"github.com/locksim/locksim/sim/fault"
	"github.com/locksim/locksim/sim/simtest"
)

// Property tests of etcd's lease lock (Jepsen, "etcd 3.4.3", 2020; etcd's "Notes
// on the usage of lock and lease"): with the lock key's create revision as a
// fencing token the protected resource stays safe under random pauses, crashes,
// partitions and leader failures; without it, a pause finds the lost update
// (every pause over a template, testdata/properties/pause-unfenced.scn); and
// the cluster never grants the lock to two live leases. Each random test
// runs 100 fixed schedules by default, 1,000 under -tags long
// (simtest.Check; a failure names its seed).

// world is a drawn run: the schedule and the network's loss, duplication and
// reordering (Raft tolerates all three; etcd's clients see them as timeouts).
type world struct {
	simtest.Case
	net sim.Link
}

func (w world) String() string {
	return fmt.Sprintf("%s; network loss %.2f dup %.2f reorder %.2f", w.Case, w.net.Loss, w.net.Dup, w.net.Reorder)
}

// members are the cluster: e1 (the first leader), e2, e3.
var members = []string{"e1", "e2", "e3"}

// draw draws a case with faults from the menu and, when lossy, a network that
// loses, duplicates and reorders up to 5% of messages each.
func draw(t *rapid.T, m simtest.Menu, lossy bool) world {
	w := world{Case: simtest.Draw(t, members, m), net: netOf()}
	if lossy {
		p := func(name string) float64 { return float64(rapid.IntRange(0, 5).Draw(t, name)) / 100 }
		w.net.Loss, w.net.Dup, w.net.Reorder = p("loss_pct"), p("dup_pct"), p("reorder_pct")
	}
	return w
}

// netOf is the drawn runs' network: 1-2 ms a message.
func netOf() sim.Link {
	return sim.Link{Delay: time.Millisecond, Jitter: time.Millisecond, Dist: sim.DelayUniform}
}

func run(s world, fencing bool) check.Report {
	return check.Check(runTrace(s, etcd.ClientConfig{Fencing: fencing}), check.Options{})
}

// runTrace runs a drawn world: 3 members, the clients, the resource db. A crash
// restarts the process later (e1 leads a fresh cluster, so a crash of e1 early
// is a leader failure, and later crashes hit whoever leads then as often as a
// follower); a partition cuts a member off from the other two.
func runTrace(s world, client etcd.ClientConfig) *sim.Trace {
	w := sim.NewWorld(sim.Config{Seed: s.Seed, Limits: sim.Limits{MaxEvents: 300_000, MaxTime: 15 * time.Second, MaxQueue: 10_000}})
	var ids []sim.ProcID
	for i := range members {
		ids = append(ids, sim.ProcID(i))
	}
	for _, name := range members {
		w.AddProcess(name, "etcd", sim.Clock{}, etcd.NewMember(etcd.MemberConfig{Members: ids}))
	}
	var clients []sim.ProcID
	for i := range s.Clients {
		order := []sim.ProcID{ids[i%3], ids[(i+1)%3], ids[(i+2)%3]}
		cfg := client
		cfg.Members, cfg.TTL = order, 2*time.Second
		clients = append(clients, w.AddProcess(fmt.Sprintf("c%d", i+1), "client", sim.Clock{}, etcd.NewClient(cfg)))
	}
	w.AddProcess("db", "resource", sim.Clock{}, resource.New(resource.Config{Fencing: client.Fencing}))
	w.Network().SetDefault(s.net)
	s.Apply(w, clients, members)
	return w.Run()
}

func violations(rep check.Report, name string) []check.Violation {
	r, _ := rep.Result(name)
	return r.Violations
}

func TestPropertyRevisionFencingKeepsTheResourceSafe(t *testing.T) {
	simtest.Check(t, 10, func(t *rapid.T) {
		s := draw(t, simtest.Menu{Clients: []fault.Kind{fault.Pause, fault.Crash},
			Servers: []fault.Kind{fault.Crash, fault.Pause, fault.Partition}}, true)
		rep := run(s, true)
		for _, inv := range []string{"resource-safe", "fencing-monotonic", "tokens-ordered", "grant-exclusive"} {
			if v := violations(rep, inv); len(v) > 0 {
				t.Fatalf("%s violated at %s: %s\nschedule: %s", inv, v[0].At, v[0].Detail, s)
			}
		}
	})
}

// memberFaults hit the cluster only: crashes, pauses and partitions of members.
var memberFaults = simtest.Menu{Servers: []fault.Kind{fault.Crash, fault.Pause, fault.Partition}}

func TestPropertyClusterNeverGrantsTwoLiveLeases(t *testing.T) {
	simtest.Check(t, 10, func(t *rapid.T) {
		s := draw(t, memberFaults, true)
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
		s := draw(t, memberFaults, false)
		if v := violations(run(s, false), "mutex-belief"); len(v) > 0 {
			t.Fatalf("mutex-belief violated at %s: %s\nschedule: %s", v[0].At, v[0].Detail, s)
		}
	})
}

// Without fencing, a pause finds the lost update of etcd-pause: every pause
// over the template, in a fixed order, at the gaps that follow a step with an
// observation (a grant, a belief, a write): the members beat every 200 ms, and
// a pause in every gap between their beats would cost half a second.
func TestPropertyPausesWithoutFencingAreFound(t *testing.T) {
	proptest.Find(t, proptest.Config{Template: "testdata/properties/pause-unfenced.scn",
		Faults: []fault.Kind{fault.Pause}, Invariants: []string{"resource-safe"}, CheckFaults: 1,
		Points: explore.Points{Mode: explore.PointsObservations}, Dir: t.TempDir()})
}
