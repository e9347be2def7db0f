package zookeeper_test

import (
	"fmt"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/locksim/locksim/protocols/resource"
	"github.com/locksim/locksim/protocols/zookeeper"
	"github.com/locksim/locksim/scenarios/proptest"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/check"
	"github.com/locksim/locksim/sim/fault"
	"github.com/locksim/locksim/sim/simtest"
)

// Property tests of the ZooKeeper lock recipe (ZooKeeper recipes; Kleppmann 2016;
// Junqueira on fencing with the zxid): with the czxid as a fencing token the
// protected resource stays safe under random pauses, crashes, partitions and
// leader failures; without it, a pause finds the lost update (every pause over
// a template, testdata/properties/pause-unfenced.scn); and the ensemble never
// lets two live sessions hold the lock at once. Each random test runs
// fixed cases (simtest.Check): 100 schedules by default, 1,000 under
// -tags long, each drawn from a seed the failure names. The servers tick every 100 ms
// (ZooKeeper's default is 2 s), so that sessions expire and leaders fail over
// several times within each 12 s run.

// servers are the ensemble: z1 (the first leader), z2, z3.
var servers = []string{"z1", "z2", "z3"}

// run runs a drawn case: the ensemble, the clients and the resource db. A
// partition cuts a server off from the other two.
func run(s simtest.Case, fencing bool) check.Report {
	return runWith(s, setup{client: zookeeper.ClientConfig{Fencing: fencing}, fencing: fencing})
}

// setup is a property test's ensemble and clients: the clients' variant (the
// recipe, or one of its mistakes), the servers' lock nodes, the resource.
type setup struct {
	client     zookeeper.ClientConfig // Servers and SessionTimeout are filled in
	containers bool                   // lock nodes are containers, checked every tick
	fencing    bool                   // the resource checks tokens
}

func runWith(s simtest.Case, u setup) check.Report {
	w := sim.NewWorld(sim.Config{Seed: s.Seed, Limits: sim.Limits{MaxEvents: 200_000, MaxTime: 12 * time.Second, MaxQueue: 10_000}})
	var ids []sim.ProcID
	for i := range servers {
		ids = append(ids, sim.ProcID(i))
	}
	for _, name := range servers {
		w.AddProcess(name, "zookeeper", sim.Clock{}, zookeeper.NewServer(zookeeper.ServerConfig{Servers: ids, Tick: 100 * time.Millisecond,
			Containers: u.containers, ContainerCheck: 100 * time.Millisecond}))
	}
	var clients []sim.ProcID
	for i := range s.Clients {
		cfg := u.client
		cfg.Servers = []sim.ProcID{ids[i%3], ids[(i+1)%3], ids[(i+2)%3]}
		cfg.SessionTimeout = 2 * time.Second
		clients = append(clients, w.AddProcess(fmt.Sprintf("c%d", i+1), "client", sim.Clock{}, zookeeper.NewClient(cfg)))
	}
	w.AddProcess("db", "resource", sim.Clock{}, resource.New(resource.Config{Fencing: u.fencing}))
	w.Network().SetDefault(sim.Link{Delay: time.Millisecond, Jitter: time.Millisecond, Dist: sim.DelayUniform})
	s.Apply(w, clients, servers)
	return check.Check(w.Run(), check.Options{})
}

func violations(rep check.Report, name string) []check.Violation {
	r, _ := rep.Result(name)
	return r.Violations
}

func TestPropertyCzxidFencingKeepsTheResourceSafe(t *testing.T) {
	simtest.Check(t, 10, func(t *rapid.T) {
		s := simtest.Draw(t, servers, simtest.Menu{Clients: []fault.Kind{fault.Pause}, Servers: []fault.Kind{fault.Crash, fault.Partition}})
		rep := run(s, true)
		for _, inv := range []string{"resource-safe", "fencing-monotonic", "tokens-ordered", "grant-exclusive"} {
			if v := violations(rep, inv); len(v) > 0 {
				t.Fatalf("%s violated at %s: %s\nschedule: %s", inv, v[0].At, v[0].Detail, s)
			}
		}
	})
}

func TestPropertyEnsembleNeverGrantsTwoLiveSessions(t *testing.T) {
	simtest.Check(t, 10, func(t *rapid.T) {
		s := simtest.Draw(t, servers, simtest.Menu{Servers: []fault.Kind{fault.Crash, fault.Partition}})
		if v := violations(run(s, false), "grant-exclusive"); len(v) > 0 {
			t.Fatalf("grant-exclusive violated at %s: %s\nschedule: %s", v[0].At, v[0].Detail, s)
		}
	})
}

// Without fencing, a pause finds the lost update of zk-session-expiry-pause:
// every pause of up to one fault over the template, in a fixed order.
func TestPropertyPausesWithoutFencingAreFound(t *testing.T) {
	proptest.Find(t, proptest.Config{Template: "testdata/properties/pause-unfenced.scn",
		Faults: []fault.Kind{fault.Pause}, Invariants: []string{"resource-safe"}, CheckFaults: 1, Dir: t.TempDir()})
}
