package zookeeper

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
)

// A sequential create's suffix is its parent's cversion (ZooKeeper's
// PrepRequestProcessor formats "%010d" of parentRecord.stat.getCversion()),
// which every child created under the parent moves on, sequential or not; a
// create refused NODEEXISTS does not move it, nor does a delete. The live
// recording of ZooKeeper 3.8.0 (testdata/fidelity/zookeeper-3.8.0.txt, case
// sequence-counter-is-cversion) shows the same answers.

func TestSequentialNameIsTheParentsCversion(t *testing.T) {
	e := newEnsemble(3, ServerConfig{})
	d := e.driver(1, 4*time.Second, 0) // on a follower: the leader names the nodes, the follower answers
	seq := sim.Message{Op: OpCreate, Key: "/L/lock-", Opts: "EPHEMERAL SEQUENTIAL"}
	for i, m := range []sim.Message{
		{Op: OpCreate, Key: "/L"},
		{Op: OpCreate, Key: "/L/lock-0000000001"}, // plain, named like the next sequential node
		seq, // cversion 1: lock-0000000001 is taken
		seq, // refused creates do not count: taken again
		{Op: OpCreate, Key: "/L/other"},
		seq,
		{Op: OpDelete, Key: "/L/other"},
		seq, // a delete does not count
	} {
		e.at(time.Duration(10*(i+1))*time.Millisecond, d, m)
	}
	tr := e.w.Run()
	want := []string{"CONNECTED", "CREATED /L", "CREATED /L/lock-0000000001",
		"ERROR /L/lock-0000000001 NODEEXISTS", "ERROR /L/lock-0000000001 NODEEXISTS",
		"CREATED /L/other", "CREATED /L/lock-0000000002", "DELETED /L/other", "CREATED /L/lock-0000000003"}
	if got := replies(tr, d); !slices.Equal(got, want) {
		t.Fatalf("replies %q,\nwant %q", got, want)
	}
	sameData(t, tr, "z1", "z2", "z3")
}

// A new leader goes on from the cversion the ensemble logged: it never issues
// a name twice, and counts the plain child the old leader created.
func TestANewLeaderGoesOnFromTheCversion(t *testing.T) {
	e := newEnsemble(3, ServerConfig{})
	d := e.driver(1, 20*time.Second, time.Second)
	seq := sim.Message{Op: OpCreate, Key: "/L/lock-", Opts: "EPHEMERAL SEQUENTIAL"}
	e.at(10*time.Millisecond, d, sim.Message{Op: OpCreate, Key: "/L/x"})
	e.at(20*time.Millisecond, d, seq)
	e.act(100*time.Millisecond, sim.Action{Kind: sim.ActCrash, Proc: e.servers[0]})
	e.at(15*time.Second, d, seq)
	tr := e.w.Run()
	if len(notes(tr, "leads the ensemble (epoch 2")) == 0 {
		t.Fatal("no new leader in epoch 2")
	}
	got := replies(tr, d)
	if !slices.Contains(got, "CREATED /L/lock-0000000001") || !slices.Contains(got, "CREATED /L/lock-0000000002") {
		t.Fatalf("replies %q: want lock-0000000001 before the leader's crash and lock-0000000002 from the new leader", got)
	}
}

// A Curator client whose sequential create is refused NODEEXISTS does not
// retry it: CreateBuilderImpl rethrows NodeExistsException, RetryLoop retries
// only connection losses, and LockInternals.attemptLock only NoNodeException,
// so InterProcessMutex.acquire throws. The client gives its acquire up, holds
// nothing, and leaves no node.
func TestARefusedSequentialCreateFailsTheAcquire(t *testing.T) {
	e := newEnsemble(1, ServerConfig{})
	d := e.driver(0, 4*time.Second, time.Second)
	c := e.w.AddProcess("c1", "client", sim.Clock{}, NewClient(ClientConfig{Servers: e.servers, SessionTimeout: 4 * time.Second}))
	e.at(10*time.Millisecond, d, sim.Message{Op: OpCreate, Key: "/L/lock-0000000001"})
	e.act(100*time.Millisecond, sim.Action{Kind: sim.ActCommand, Proc: c, Msg: sim.Message{Op: CmdAcquire, Key: "L"}})
	e.act(3*time.Second, sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
	tr := e.w.Run()
	var refused, gaveUp, believed bool
	for _, o := range tr.Observations() {
		switch {
		case o.Kind == sim.ObsNote && o.Proc == c && strings.Contains(o.Text, "refused NODEEXISTS"):
			refused = true
		case o.Kind == sim.ObsGiveUp && o.Client == c:
			gaveUp = true
		case o.Kind == sim.ObsBeliefStart && o.Client == c:
			believed = true
		}
	}
	if !refused || !gaveUp || believed {
		t.Fatalf("refused %v, gave up %v, believed %v: want the create refused, the acquire given up, no belief", refused, gaveUp, believed)
	}
	if st := lastState(tr, "c1"); !strings.Contains(st, "idle") {
		t.Errorf("c1 ends %q: want idle, its acquire given up", st)
	}
	if st := data(tr, "z1"); strings.Count(st, "/L/lock-") != 1 {
		t.Errorf("z1 ends with %q: want only the plain /L/lock-0000000001", st)
	}
}
