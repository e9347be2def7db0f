package zookeeper_test

import (
	"testing"
	"time"

	"github.com/locksim/locksim/protocols/zookeeper"
	"github.com/locksim/locksim/sim/fault"
	"github.com/locksim/locksim/sim/simtest"
)

// Container lock nodes (ZooKeeper Programmer's Guide, "Container Nodes"): a
// create that races the leader's delete of an empty container lands under the
// new container, never beside a name from the old counter. Found by
// TestPropertyCzxidTokensSurviveContainers: c2 releases at 1.894 s, the
// leader deletes the empty /L at its next tick, and c1 and c3 create at 2 s.
// Before the leader held such creates back, c1 took lock-0000000001 from the
// old counter while c3 took lock-0000000000 from the new one, and c3's lower
// name took the lock from c1, whose session lived (grant-exclusive).
func TestACreateRacingAContainerDeleteLandsUnderTheNewContainer(t *testing.T) {
	s := simtest.Case{Seed: 0, Clients: 3,
		Starts: []time.Duration{2 * time.Second, 100 * time.Millisecond, 2 * time.Second},
		Holds:  []time.Duration{500 * time.Millisecond, 1794 * time.Millisecond, 500 * time.Millisecond},
		Faults: fault.Schedule{{Kind: fault.Pause, Proc: "c1", At: 200 * time.Millisecond, Dur: time.Millisecond}},
	}
	rep := runWith(s, setup{client: zookeeper.ClientConfig{Fencing: true}, containers: true, fencing: true})
	for _, inv := range []string{"grant-exclusive", "tokens-ordered", "mutex-belief"} {
		if v := violations(rep, inv); len(v) > 0 {
			t.Errorf("%s violated at %s: %s", inv, v[0].At, v[0].Detail)
		}
	}
}
