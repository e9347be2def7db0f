package zookeeper_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/locksim/locksim/protocols/zookeeper"
	"github.com/locksim/locksim/scenarios/proptest"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/check"
	"github.com/locksim/locksim/sim/fault"
	"github.com/locksim/locksim/sim/simtest"
)

// Property tests of the published mistakes of ZooKeeper lock clients (issue 19,
// mistakes 8-11; docs/protocols/zookeeper.md, "Common mistakes"): each mistake
// the sources call unsafe is FOUND, and each fix stays safe over 100 fixed
// schedules (1,000 under -tags long; simtest.Check). A mistake that a fault brings out is found without chance:
// every schedule of one fault of the kinds its story turns on, over a template
// in testdata/properties (proptest.Find); one that breaks with no fault at all
// (a watch trusted as the lock), or under a fault the explorer's menu does not
// have (CURATOR-604's one-way partition), is found by random times around its
// story. The verdicts are the checker's.

// findIn finds a violation of inv in the template under one fault of the
// kinds given, at every gap between the steps of the process it hits.
func findIn(t *testing.T, template string, kinds []fault.Kind, inv string) proptest.Failure {
	t.Helper()
	f := proptest.Find(t, proptest.Config{Template: "testdata/properties/" + template, Faults: kinds,
		Invariants: []string{inv}, CheckFaults: 1, Dir: t.TempDir()})
	if len(f.Schedule) != 1 || !slices.Contains(kinds, f.Schedule[0].Kind) {
		t.Errorf("found with %v, want one fault of %v", f.Schedule, kinds)
	}
	return f
}

// serverFaults hit the ensemble only: crashes (with a later restart) and
// partitions of a server from the other two.
var serverFaults = simtest.Menu{Servers: []fault.Kind{fault.Crash, fault.Partition}}

func requireHolds(t *rapid.T, rep check.Report, s any, invs ...string) {
	for _, inv := range invs {
		if v := violations(rep, inv); len(v) > 0 {
			t.Fatalf("%s violated at %s: %s\nschedule: %s", inv, v[0].At, v[0].Detail, s)
		}
	}
}

func reportViolated(t *rapid.T, rep check.Report, s any, inv string) {
	if v := violations(rep, inv); len(v) > 0 {
		t.Fatalf("%s\nschedule: %s", v[0].Detail, s)
	}
}

// Mistake 8 (ZooKeeper recipes, "Locks", steps 4-5): a waiter that takes its
// predecessor's deletion for the lock holds beside the holder as soon as a
// waiter in the middle of the queue gives up (a release while it waits).
// Random times of that story find it with no fault at all (the general draw
// finds it too, but shrinking its case takes about 10 s). Both this test and
// the next handle connection states as Curator advises (StopOnSuspend), so
// that a holder cut off from a serving ensemble by server faults stops
// believing: the only difference between them is the watch.
func TestPropertyTrustingTheWatchIsFound(t *testing.T) {
	// Found at seed 1; from other seeds in 10 of 10 ranges of 50 cases (Find requires 8).
	simtest.Find(t, func(t *rapid.T) {
		s := drawGiveUp(t)
		reportViolated(t, runWith(s, setup{client: zookeeper.ClientConfig{TrustWatch: true, StopOnSuspend: true}}), s, "mutex-belief")
	})
}

// drawGiveUp draws the story of zk-watch-is-not-the-lock, its times random:
// c1 holds; c2 queues behind it and gives up while c1 still holds; c3 queues
// behind c2 and waits longer.
func drawGiveUp(t *rapid.T) simtest.Case {
	c1Hold := ms(rapid.IntRange(2000, 4000).Draw(t, "c1_hold_ms"))
	c2 := ms(rapid.IntRange(200, 600).Draw(t, "c2_start_ms"))
	return simtest.Case{Seed: rapid.Uint64().Draw(t, "world_seed"), Clients: 3,
		Starts: []time.Duration{100 * time.Millisecond, c2, c2 + ms(rapid.IntRange(20, 300).Draw(t, "c3_after_c2_ms"))},
		Holds: []time.Duration{c1Hold, ms(rapid.IntRange(200, int((c1Hold-c2)/time.Millisecond)).Draw(t, "c2_gives_up_after_ms")),
			ms(rapid.IntRange(4000, 6000).Draw(t, "c3_hold_ms"))},
	}
}

// The recipe reads the children again after every notification: with live
// clients (contention, give-ups, server crashes and partitions) no two
// clients ever believe at once, and the resource, unfenced, loses nothing.
func TestPropertyTheRecipeRereadsTheChildren(t *testing.T) {
	simtest.Check(t, 10, func(t *rapid.T) {
		s := simtest.Draw(t, servers, simtest.Menu{Servers: serverFaults.Servers, MaxClients: 4})
		if rapid.Bool().Draw(t, "story_shape") {
			s = drawGiveUp(t)
		}
		requireHolds(t, runWith(s, setup{client: zookeeper.ClientConfig{StopOnSuspend: true}}), s, "mutex-belief", "resource-safe", "grant-exclusive")
	})
}

// Mistake 9 (ZooKeeper programmer's guide, "Sequence Nodes", "Container
// Nodes"): a token read off the sequence suffix repeats once an empty
// container lock node is deleted and made again. Found with no client fault:
// a server fault delays the next holder's create past the deletion.
func TestPropertySequenceTokensRepeatAreFound(t *testing.T) {
	findIn(t, "sequence-token-container.scn", serverFaults.Servers, "tokens-ordered")
}

// The czxid never repeats, whatever happens to the lock node: with container
// lock nodes and every fault, fencing keeps the resource safe.
func TestPropertyCzxidTokensSurviveContainers(t *testing.T) {
	simtest.Check(t, 10, func(t *rapid.T) {
		s := simtest.Draw(t, servers, simtest.Menu{Clients: []fault.Kind{fault.Pause}, Servers: serverFaults.Servers})
		requireHolds(t, runWith(s, setup{client: zookeeper.ClientConfig{Fencing: true}, containers: true, fencing: true}), s,
			"resource-safe", "fencing-monotonic", "tokens-ordered", "grant-exclusive")
	})
}

// drawStaleRelease draws the shape of mistake 10, its times random: c1 holds
// first and, cut off from everyone during its hold, releases (its delete is
// lost); the partition outlasts its 2 s session; c2 and c3 come after it
// began, c3 queueing behind c2.
func drawStaleRelease(t *rapid.T) simtest.Case {
	hold := ms(rapid.IntRange(800, 2000).Draw(t, "c1_hold_ms"))
	cut := 100*time.Millisecond + ms(rapid.IntRange(300, int(hold/time.Millisecond)-100).Draw(t, "partition_at_ms"))
	c2 := cut + ms(rapid.IntRange(2500, 6000).Draw(t, "c2_after_cut_ms"))
	return simtest.Case{Seed: rapid.Uint64().Draw(t, "world_seed"), Clients: 3,
		Starts: []time.Duration{100 * time.Millisecond, c2, c2 + ms(rapid.IntRange(20, 500).Draw(t, "c3_after_c2_ms"))},
		Holds:  []time.Duration{hold, ms(rapid.IntRange(1500, 4000).Draw(t, "c2_hold_ms")), ms(rapid.IntRange(1500, 4000).Draw(t, "c3_hold_ms"))},
		Faults: fault.Schedule{{Kind: fault.Partition, Proc: "c1", At: cut, Dur: ms(rapid.IntRange(2500, 6000).Draw(t, "partition_ms"))}},
	}
}

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// Mistake 10: a client that resends its release after its session expired
// deletes a node of the same name, issued again under a new container lock
// node: the ensemble ends a live session's grant (grant-exclusive is violated,
// "deleted by c1").
func TestPropertyStaleReleaseIsFound(t *testing.T) {
	f := findIn(t, "stale-release.scn", []fault.Kind{fault.Partition}, "grant-exclusive")
	if !strings.Contains(f.Detail, "deleted by c1") {
		t.Errorf("grant-exclusive broken by %q, want a grant deleted by c1", f.Detail)
	}
}

// A client that forgets its node with its session never deletes another's.
func TestPropertyExpiredSessionsReleaseNothing(t *testing.T) {
	simtest.Check(t, 10, func(t *rapid.T) {
		s := drawStaleRelease(t)
		requireHolds(t, runWith(s, setup{containers: true}), s, "grant-exclusive", "mutex-belief")
	})
}

// clientPartitions cut clients off (from everyone, or from one peer) as well
// as hitting the ensemble.
var clientPartitions = simtest.Menu{Clients: []fault.Kind{fault.Partition}, Servers: serverFaults.Servers}

// Mistake 11 (Curator, Tech Note 12 and the lock recipes' documentation): a
// holder that treats SUSPENDED as still holding believes beside the next
// holder when a partition outlasts its session. A partition finds it.
func TestPropertyHoldingThroughSuspendedIsFound(t *testing.T) {
	findIn(t, "suspended-still-holding.scn", []fault.Kind{fault.Partition}, "mutex-belief")
}

// drawCutHolder draws the shape of the published story (CURATOR-206), its
// times random: c1 holds first and is cut off from the ensemble during its
// hold, for longer or shorter than its 2 s session; c2 queues behind it. (The
// general draw finds it too, but its shrinking takes tens of seconds.)
func drawCutHolder(t *rapid.T) simtest.Case {
	hold := ms(rapid.IntRange(3000, 6000).Draw(t, "c1_hold_ms"))
	return simtest.Case{Seed: rapid.Uint64().Draw(t, "world_seed"), Clients: 2,
		Starts: []time.Duration{100 * time.Millisecond, ms(rapid.IntRange(200, 800).Draw(t, "c2_start_ms"))},
		Holds:  []time.Duration{hold, ms(rapid.IntRange(2000, 6000).Draw(t, "c2_hold_ms"))},
		Faults: fault.Schedule{{Kind: fault.Partition, Proc: "c1", Peer: "z1,z2,z3", At: ms(rapid.IntRange(300, 1500).Draw(t, "cut_at_ms")),
			Dur: ms(rapid.IntRange(500, 5000).Draw(t, "cut_ms"))}},
	}
}

// Curator's advice, over the general draw and over the story's shape: a
// holder that stops work on SUSPENDED (2/3 of the session
// timeout without a word, before the ensemble can expire the session) and
// gives up on LOST never believes beside another, and loses no update, while
// it keeps running (a paused process cannot notice anything).
func TestPropertyStoppingOnSuspendedIsSafe(t *testing.T) {
	simtest.Check(t, 10, func(t *rapid.T) {
		s := simtest.Draw(t, servers, clientPartitions)
		if rapid.Bool().Draw(t, "story_shape") {
			s = drawCutHolder(t)
		}
		requireHolds(t, runWith(s, setup{client: zookeeper.ClientConfig{StopOnSuspend: true}}), s, "mutex-belief", "resource-safe", "grant-exclusive")
	})
}

// Curator's LeaderLatch (the recipe with StopOnSuspend and Rejoin): under
// client partitions and server faults, participants that lose their session
// rejoin, and no two ever believe they lead at once.
func TestPropertyLeaderLatchElectsOneLeader(t *testing.T) {
	simtest.Check(t, 10, func(t *rapid.T) {
		s := simtest.Draw(t, servers, clientPartitions)
		requireHolds(t, runWith(s, setup{client: zookeeper.ClientConfig{StopOnSuspend: true, Rejoin: true}}), s, "mutex-belief", "resource-safe", "grant-exclusive")
	})
}

// adoptCase is the shape of CURATOR-604, its times drawn: c2 holds; c1's
// create is answered into a one-way partition (the servers' messages to c1
// are cut, c1's arrive), its connection goes SUSPENDED and LOST, and it goes
// on under a new session once the partition heals; c3 queues; c2 releases.
type adoptCase struct{ heal, c2Release, c3Start time.Duration }

func drawAdopt(t *rapid.T) adoptCase {
	return adoptCase{heal: ms(rapid.IntRange(4000, 8000).Draw(t, "heal_ms")),
		c2Release: ms(rapid.IntRange(5000, 10000).Draw(t, "c2_release_ms")),
		c3Start:   ms(rapid.IntRange(4000, 9000).Draw(t, "c3_start_ms"))}
}

// runAdopt runs the case on three servers (1 s ticks, 3 s sessions), every
// client following Curator's connection advice, c1 protected by guid or by
// session.
func runAdopt(c adoptCase, guid bool) check.Report {
	s := newStory(3, false)
	s.client("c1", 0, zookeeper.ClientConfig{StopOnSuspend: true, Protected: true, ProtectedGUID: guid})
	s.client("c2", 1, zookeeper.ClientConfig{StopOnSuspend: true})
	s.client("c3", 2, zookeeper.ClientConfig{StopOnSuspend: true})
	s.resource()
	s.cmd(100*time.Millisecond, "c2", zookeeper.CmdAcquire, "L")
	s.cmd(500*time.Millisecond, "c1", zookeeper.CmdAcquire, "L")
	s.act(502*time.Millisecond, sim.Action{Kind: sim.ActPartition, A: s.servers, B: []sim.ProcID{s.procs["c1"]}, OneWay: true})
	s.act(c.heal, sim.Action{Kind: sim.ActHeal})
	s.cmd(c.c3Start, "c3", zookeeper.CmdAcquire, "L")
	s.cmd(c.c2Release, "c2", zookeeper.CmdRelease, "L")
	for _, p := range []string{"c1", "c3"} {
		s.cmd(11*time.Second, p, "write", "db")
		s.cmd(12*time.Second, p, "write", "db")
	}
	_, rep := s.run(14 * time.Second)
	return rep
}

// CURATOR-604: random times around the story find a client that believes it
// holds through the node of a session the ensemble then expires.
func TestPropertyAdoptingTheOldSessionsNodeIsFound(t *testing.T) {
	// Found at seed 5; from other seeds in 10 of 10 ranges of 50 cases (Find requires 8).
	simtest.Find(t, func(t *rapid.T) {
		c := drawAdopt(t)
		reportViolated(t, runAdopt(c, true), c, "mutex-belief")
	})
}

// Named after the session, a protected node is never adopted by a new one.
func TestPropertyProtectedBySessionNeverAdopts(t *testing.T) {
	simtest.Check(t, 10, func(t *rapid.T) {
		c := drawAdopt(t)
		requireHolds(t, runAdopt(c, false), c, "mutex-belief", "resource-safe", "grant-exclusive")
	})
}
