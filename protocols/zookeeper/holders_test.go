package zookeeper

import (
	"fmt"
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
)

// Tests of lock-holder reporting on its own (ZooKeeper recipes, "Locks": the
// client whose node has the lowest sequence number holds the lock): the holder
// is recomputed from the tree after each transaction, and the leader reports
// each change as the old grant's end and the new grant, with the node's czxid
// as its token.

const leaderID sim.ProcID = 9

// holderRun applies transactions to a tree as a server does and records what
// the leader would report.
type holderRun struct {
	t   *tree
	obs []string
}

func newHolderRun() *holderRun {
	h := &holderRun{t: newTree()}
	h.t.sessions[10] = &session{client: 1}
	h.t.sessions[11] = &session{client: 2}
	return h
}

// newQueue is a run in which c1 holds L and c2 waits behind it.
func newQueue() *holderRun {
	h := newHolderRun()
	h.do(&txn{Kind: txCreate, Path: "/L/n-0000000000", Zxid: zx(1, 1), Session: 10})
	h.do(&txn{Kind: txCreate, Path: "/L/n-0000000001", Zxid: zx(1, 2), Session: 11})
	h.obs = nil
	return h
}

func (h *holderRun) do(x *txn) {
	switch x.Kind {
	case txCreate:
		h.t.create(x.Path, x.Zxid, x.Session)
	case txDelete:
		h.t.drop(x.Path)
	case txCloseSession:
		for _, p := range h.t.sortedPaths() {
			if h.t.nodes[p].ephemeral == x.Session {
				h.t.drop(p)
			}
		}
		delete(h.t.sessions, x.Session)
	}
	for _, o := range grantObservations(x, h.t.updateHolders(), leaderID) {
		s := fmt.Sprintf("%s %s c%d %s", o.Kind, o.Lock, o.Client, o.Grant)
		if o.Kind == sim.ObsGrantEnd {
			s += fmt.Sprintf(" %s by %d", o.Reason, o.By)
		} else {
			s += fmt.Sprintf(" token %s", zxidText(o.Token))
		}
		h.obs = append(h.obs, s)
	}
}

func (h *holderRun) expect(t *testing.T, step string, want ...string) {
	t.Helper()
	if fmt.Sprint(h.obs) != fmt.Sprint(want) {
		t.Errorf("%s: reported %q, want %q", step, h.obs, want)
	}
	h.obs = nil
}

func TestHoldersTheLowestSequenceNumberHolds(t *testing.T) {
	h := newHolderRun()
	h.do(&txn{Kind: txCreate, Path: "/x", Zxid: zx(1, 1)})
	h.expect(t, "a node under the root is no lock")
	h.do(&txn{Kind: txCreate, Path: "/L/n-0000000001", Zxid: zx(1, 2), Session: 11})
	h.expect(t, "the first child", "grant L c2 n-0000000001 token 0x100000002")
	h.do(&txn{Kind: txCreate, Path: "/L/n-0000000000", Zxid: zx(1, 3), Session: 10})
	h.expect(t, "a lower sequence number", "grant-end L c2 n-0000000001 deleted by 9", "grant L c1 n-0000000000 token 0x100000003")
	h.do(&txn{Kind: txCreate, Path: "/L/n-0000000002", Zxid: zx(1, 4), Session: 11})
	h.expect(t, "a higher sequence number waits")
}

func TestHoldersAReleaseHandsTheLockToTheNext(t *testing.T) {
	h := newQueue()
	h.do(&txn{Kind: txDelete, Path: "/L/n-0000000000", Zxid: zx(1, 3), Session: 10, Client: 1})
	h.expect(t, "c1 deletes its node", "grant-end L c1 n-0000000000 released by 1", "grant L c2 n-0000000001 token 0x100000002")
	h.do(&txn{Kind: txCloseSession, Zxid: zx(1, 4), Session: 11, Client: sim.NoProc})
	h.expect(t, "the leader expires c2's session", "grant-end L c2 n-0000000001 expired by 9")
	if l := h.t.lowest["/L"]; l.name != "" {
		t.Errorf("the lock is free, yet its holder is %q", l.name)
	}
}

// Regression: a grant ends as deleted by whoever deleted its node, when that
// is not its owner (it was reported as released by the owner); and as
// released when its owner closes its session (it was reported as expired by
// the leader).
func TestHoldersWhoEndedAGrant(t *testing.T) {
	h := newQueue()
	h.do(&txn{Kind: txDelete, Path: "/L/n-0000000000", Zxid: zx(1, 3), Session: 11, Client: 2})
	h.expect(t, "c2 deletes c1's node", "grant-end L c1 n-0000000000 deleted by 2", "grant L c2 n-0000000001 token 0x100000002")
	h.do(&txn{Kind: txCloseSession, Zxid: zx(1, 4), Session: 11, Client: 2})
	h.expect(t, "c2 closes its session", "grant-end L c2 n-0000000001 released by 2")
}

// Regression: the holder changes a leader applies before it is established
// are reported by whoever is established with that history. d1 holds L on
// z1; z2 and z3 crash, and d1's delete is logged by z1 alone. z3 restarts and
// z1, with the longer log, wins epoch 2 on its vote: it applies the delete and
// sends z3 that history, then crashes before z3's acknowledgement reaches it.
// z3 leads epoch 3 with the history it took, and reports d1's release: the
// model once dropped it with z1, and the next grant of L broke a promise.
func TestHoldersAReleaseAppliedByALeaderNeverEstablishedIsReported(t *testing.T) {
	e := newEnsemble(3, ServerConfig{Tick: 100 * time.Millisecond})
	d := e.driver(0, 10*time.Second, 0)
	e.at(100*time.Millisecond, d, sim.Message{Op: OpCreate, Key: "/L/n-", Opts: "EPHEMERAL SEQUENTIAL"})
	e.act(200*time.Millisecond, sim.Action{Kind: sim.ActCrash, Proc: e.servers[1]})
	e.act(200*time.Millisecond, sim.Action{Kind: sim.ActCrash, Proc: e.servers[2]})
	e.at(300*time.Millisecond, d, sim.Message{Op: OpDelete, Key: "/L/n-0000000000"})
	e.act(1500*time.Millisecond, sim.Action{Kind: sim.ActRestart, Proc: e.servers[2]})
	e.w.When(sim.Match{Kind: sim.ObsCounter, Proc: e.servers[0], Client: sim.NoProc, Name: "elections"}, 0,
		sim.Action{Kind: sim.ActCrash, Proc: e.servers[0]})
	e.act(3*time.Second, sim.Action{Kind: sim.ActRestart, Proc: e.servers[0]})
	e.act(3*time.Second, sim.Action{Kind: sim.ActRestart, Proc: e.servers[1]})
	e.act(6*time.Second, sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
	tr := e.w.Run()
	if led := notes(tr, "z1 leads the ensemble (epoch 2"); len(led) != 1 {
		t.Fatalf("z1 should lead epoch 2 once, with d1's delete in its log: %q", led)
	}
	if led := notes(tr, "z3 leads the ensemble (epoch 3"); len(led) != 1 {
		t.Fatalf("z3 should lead epoch 3 with z1's history: %q", led)
	}
	var ends []string
	for _, o := range tr.Observations() {
		if o.Kind == sim.ObsGrantEnd {
			ends = append(ends, fmt.Sprintf("%s: %s %s", tr.Names[o.Proc], o.Grant, o.Reason))
		}
	}
	if want := []string{"z3: n-0000000000 released"}; fmt.Sprint(ends) != fmt.Sprint(want) {
		t.Errorf("grant ends reported %q, want %q", ends, want)
	}
}
