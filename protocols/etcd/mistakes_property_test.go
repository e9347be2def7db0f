package etcd_test

import (
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/locksim/locksim/protocols/etcd"
	"github.com/locksim/locksim/scenarios/proptest"
	"github.com/locksim/locksim/sim/check"
	"github.com/locksim/locksim/sim/fault"
	"github.com/locksim/locksim/sim/simtest"
)

// Property tests of mistake 12 (issue 19; docs/protocols/etcd.md, "Common
// mistakes"): the Mutex before the fix of etcd issue 11456 returned from its
// wait without checking that its key still existed, and nothing in the wait
// looked at the lease. A partition that cuts a waiter off from the cluster
// FINDS it, among every schedule of one partition over a template
// (testdata/properties/mutex-no-wait-check.scn); today's Mutex (with either
// way of checking the client-side lease deadline) keeps live clients from
// believing together over 100 fixed schedules (1,000 under -tags long).

// clientCuts cut clients off from the cluster (or from one member) and hit the
// members too. No client pauses: a paused process cannot check anything.
var clientCuts = simtest.Menu{Clients: []fault.Kind{fault.Partition}, Servers: memberFaults.Servers, MaxClients: 4}

func mutexBeliefOf(s world, cfg etcd.ClientConfig) []check.Violation {
	return violations(check.Check(runTrace(s, cfg), check.Options{}), "mutex-belief")
}

// drawWaiterCut draws the shape of Jepsen's finding, its times random: c1
// holds first; c2 queues behind it and c3 behind c2; c2 is cut off from the
// cluster for longer than its 2 s lease while it waits, and c1 releases some
// time around the heal.
func drawWaiterCut(t *rapid.T) world {
	c2 := ms(rapid.IntRange(200, 600).Draw(t, "c2_start_ms"))
	cut := c2 + ms(rapid.IntRange(100, 1000).Draw(t, "cut_after_c2_ms"))
	heal := cut + ms(rapid.IntRange(2500, 5000).Draw(t, "cut_ms"))
	c1Hold := heal + ms(rapid.IntRange(-1000, 2000).Draw(t, "c1_release_after_heal_ms"))
	return world{Case: simtest.Case{Seed: rapid.Uint64().Draw(t, "world_seed"), Clients: 3,
		Starts: []time.Duration{100 * time.Millisecond, c2, c2 + ms(rapid.IntRange(50, 500).Draw(t, "c3_after_c2_ms"))},
		Holds:  []time.Duration{c1Hold, ms(rapid.IntRange(6000, 9000).Draw(t, "c2_hold_ms")), ms(rapid.IntRange(6000, 9000).Draw(t, "c3_hold_ms"))},
		Faults: fault.Schedule{{Kind: fault.Partition, Proc: "c2", Peer: "e1,e2,e3", At: cut, Dur: heal - cut}},
	}, net: netOf()}
}

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

func TestPropertyMutexWithoutWaitCheckIsFound(t *testing.T) {
	f := proptest.Find(t, proptest.Config{Template: "testdata/properties/mutex-no-wait-check.scn",
		Faults: []fault.Kind{fault.Partition}, Invariants: []string{"mutex-belief"}, CheckFaults: 1, Dir: t.TempDir()})
	if len(f.Schedule) != 1 || f.Schedule[0].Proc != "c2" {
		t.Errorf("found with %v, want the waiter c2 cut off", f.Schedule)
	}
}

func TestPropertyMutexWithWaitCheckKeepsLiveClientsApart(t *testing.T) {
	simtest.Check(t, 10, func(t *rapid.T) {
		s := draw(t, clientCuts, false)
		if v := mutexBeliefOf(s, etcd.ClientConfig{}); len(v) > 0 {
			t.Fatalf("mutex-belief violated at %s: %s\nschedule: %s", v[0].At, v[0].Detail, s)
		}
	})
}

// The same shape as the finding, with today's Mutex, its deadline checked by
// a timer or by clientv3's once-a-second loop: c2 gives up its wait.
func TestPropertyMutexWithWaitCheckSurvivesTheCut(t *testing.T) {
	simtest.Check(t, 10, func(t *rapid.T) {
		s := drawWaiterCut(t)
		loop := rapid.Bool().Draw(t, "deadline_loop")
		if v := mutexBeliefOf(s, etcd.ClientConfig{DeadlineLoop: loop}); len(v) > 0 {
			t.Fatalf("mutex-belief violated at %s: %s\nschedule: %s (deadline loop %v)", v[0].At, v[0].Detail, s, loop)
		}
	})
}

// Issue 31, item 9a: an application that ignores Session.Done(). drawHolderCut
// draws its story with random times: c1 holds first, c2 queues behind it; c1
// is cut off from the cluster for longer than its 2 s lease, and both release
// some time after the heal.
func drawHolderCut(t *rapid.T) world {
	c2 := ms(rapid.IntRange(200, 800).Draw(t, "c2_start_ms"))
	cut := ms(rapid.IntRange(300, 1500).Draw(t, "cut_ms"))
	heal := cut + ms(rapid.IntRange(3000, 6000).Draw(t, "cut_for_ms"))
	return world{Case: simtest.Case{Seed: rapid.Uint64().Draw(t, "world_seed"), Clients: 2,
		Starts: []time.Duration{100 * time.Millisecond, c2},
		// A hold is counted from the client's start: c2 waits for c1's lease
		// to run out and holds past the heal.
		Holds: []time.Duration{heal + ms(rapid.IntRange(200, 3000).Draw(t, "c1_release_after_heal_ms")) - 100*time.Millisecond,
			heal - c2 + ms(rapid.IntRange(500, 3000).Draw(t, "c2_release_after_heal_ms"))},
		Faults: fault.Schedule{{Kind: fault.Partition, Proc: "c1", Peer: "e1,e2,e3", At: cut, Dur: heal - cut}},
	}, net: netOf()}
}

// Ignoring Done, c1 believes until its release, after the heal, and etcd has
// granted L to c2 by then: two believers, every time. etcd itself never
// grants twice (grant-exclusive holds).
func TestPropertyIgnoringSessionDoneOverlapsTheNextHolder(t *testing.T) {
	simtest.Check(t, 10, func(t *rapid.T) {
		s := drawHolderCut(t)
		rep := check.Check(runTrace(s, etcd.ClientConfig{IgnoreSessionDone: true}), check.Options{})
		if len(violations(rep, "mutex-belief")) == 0 {
			t.Fatalf("mutex-belief holds: c1 ignored Done and still nobody believed beside it\nschedule: %s", s)
		}
		if v := violations(rep, "grant-exclusive"); len(v) > 0 {
			t.Fatalf("grant-exclusive violated at %s: %s\nschedule: %s", v[0].At, v[0].Detail, s)
		}
	})
}

// Looking at Done (the default), the same stories keep the two apart.
func TestPropertyStoppingAtSessionDoneKeepsThemApart(t *testing.T) {
	simtest.Check(t, 10, func(t *rapid.T) {
		s := drawHolderCut(t)
		if v := mutexBeliefOf(s, etcd.ClientConfig{}); len(v) > 0 {
			t.Fatalf("mutex-belief violated at %s: %s\nschedule: %s", v[0].At, v[0].Detail, s)
		}
	})
}
