package zookeeper_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/locksim/locksim/protocols/zookeeper"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/check"
)

// The lock recipe (ZooKeeper recipes, "Locks"): a client holds the lock when
// its node has "the lowest sequence number" among the children. A server
// answers getChildren in its own order (a Java HashSet's), so the client must
// sort the list; one that takes the first child for the lowest believes it
// holds the lock while another does.
func TestTheRecipeSortsTheChildren(t *testing.T) {
	w := sim.NewWorld(sim.Config{Seed: 1})
	w.AddProcess("z1", "zookeeper", sim.Clock{}, zookeeper.NewServer(zookeeper.ServerConfig{Servers: []sim.ProcID{0}}))
	for i := range 3 { // c1 holds for a second; c2 and c3 queue behind it
		c := w.AddProcess(fmt.Sprintf("c%d", i+1), "client", sim.Clock{},
			zookeeper.NewClient(zookeeper.ClientConfig{Servers: []sim.ProcID{0}, Hold: time.Second}))
		w.Schedule(sim.Time(time.Duration(100+100*i)*time.Millisecond), sim.Action{Kind: sim.ActCommand, Proc: c,
			Msg: sim.Message{Op: zookeeper.CmdAcquire, Key: "L"}})
	}
	w.Network().SetDefault(sim.Link{Delay: time.Millisecond})
	w.Schedule(sim.Time(5*time.Second), sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
	rep := check.Check(w.Run(), check.Options{})
	if r, _ := rep.Result("mutex-belief"); len(r.Violations) > 0 {
		t.Fatalf("two clients believed at once: %s", r.Violations[0].Detail)
	}
	if got, _ := rep.Metric("acquisitions"); got != 3 {
		t.Fatalf("%v acquisitions, want 3", got)
	}
}
