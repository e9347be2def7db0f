package zookeeper_test

import (
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/protocols/zookeeper"
	"github.com/locksim/locksim/sim"
)

// A create whose answer is lost with its server (issue 31, item 10): the
// client's server dies with the create in flight. A real client's connection
// drops and the create ends in CONNECTIONLOSS; ZooKeeper's client library
// calls the connection lost when nothing has come from its server for 2/3 of
// the session timeout (ClientCnxn's read timeout, the model's by which a
// crashed machine is noticed), reconnects to the next server with its
// session, and the protected create looks among the children for a node with
// its prefix before creating again (ZooKeeper recipes, "Locks": "the client
// ... look for a node with the GUID"; Curator's protected mode). It finds its
// node when the ensemble made it, and creates one when it did not; either way
// it holds the lock, and no client waits for ever.

// lostCreate: c1, protected, talks to z2 and asks for L at 500 ms; z2 crashes
// crashAt and stays down. The create reaches z2 at 501 ms, z2 forwards it to
// the leader z1 (502 ms), z1 commits it with z3's acknowledgement (504 ms) and
// z2 would answer at 505 ms.
func lostCreate(t *testing.T, crashAt time.Duration) (creates int, found bool, held []string, nodes int) {
	t.Helper()
	s := newStory(3, false)
	s.client("c1", 1, zookeeper.ClientConfig{Protected: true})
	s.cmd(500*time.Millisecond, "c1", zookeeper.CmdAcquire, "L")
	s.act(crashAt, sim.Action{Kind: sim.ActCrash, Proc: s.procs["z2"]})
	tr, _ := s.run(8 * time.Second)
	c1 := s.procs["c1"]
	for i := range tr.Len() {
		if e := tr.Event(i); e.Kind == sim.EvSend && e.Proc == c1 && tr.Msg(e).Op == zookeeper.OpCreate {
			creates++
		}
	}
	for _, o := range tr.Observations() {
		if o.Kind == sim.ObsBeliefStart && o.Client == c1 {
			held = append(held, o.Grant)
		}
	}
	// The nodes the ensemble made for c1: each is granted the lock in turn
	// (the leader reports a grant when the lowest child changes), so count
	// the names granted to it.
	granted := map[string]bool{}
	for _, o := range tr.Observations() {
		if o.Kind == sim.ObsGrant && o.Client == c1 {
			granted[o.Grant] = true
		}
	}
	nodes = len(granted)
	found = creates == 1 && len(held) == 1
	return creates, found, held, nodes
}

// The ensemble made the node, its answer died with z2: c1 finds it by its
// prefix and holds with it; it creates nothing more.
func TestALostCreateThatHappenedIsFoundByItsName(t *testing.T) {
	creates, found, held, nodes := lostCreate(t, 503*time.Millisecond)
	if !found || nodes != 1 {
		t.Fatalf("c1 sent %d creates, held as %v, and the ensemble granted L to %d of its nodes: want one create, found again, one node", creates, held, nodes)
	}
	if !strings.HasPrefix(held[0], "lock-") || strings.Count(held[0], "-") != 2 {
		t.Errorf("c1 held as %q: want its protected name, lock-<session>-<sequence>", held[0])
	}
}

// The create died with z2 before it was forwarded: the search finds nothing,
// and c1 creates again, on the next server, and holds.
func TestALostCreateThatNeverHappenedIsMadeAgain(t *testing.T) {
	creates, _, held, nodes := lostCreate(t, 500*time.Millisecond+500*time.Microsecond)
	if creates != 2 || len(held) != 1 || nodes != 1 {
		t.Fatalf("c1 sent %d creates, held as %v, and the ensemble granted L to %d of its nodes: want two creates, one hold, one node", creates, held, nodes)
	}
}
