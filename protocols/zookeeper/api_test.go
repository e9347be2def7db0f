package zookeeper

import (
	"slices"
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
)

// Three answers of ZooKeeper 3.8's API that the live suite found the model
// giving wrongly (issue 31; testdata/fidelity/zookeeper-3.8.0.txt, cases
// watch-forms, delete-versions and create-modes): each is ZooKeeper's rule,
// from its server (PrepRequestProcessor, DataTree, WatchManager).

// getChildren on a missing node answers NONODE and sets no watch (where
// exists sets one): a later child of the node, once it is made, fires nothing.
func TestAChildWatchIsSetOnlyOnANodeThatExists(t *testing.T) {
	e := newEnsemble(1, ServerConfig{})
	d1, d2 := e.driver(0, 4*time.Second, 0), e.driver(0, 4*time.Second, 0)
	e.at(10*time.Millisecond, d2, sim.Message{Op: OpGetChildren, Key: "/m", Opts: "WATCH"})
	e.at(20*time.Millisecond, d1, sim.Message{Op: OpCreate, Key: "/m"})
	e.at(30*time.Millisecond, d1, sim.Message{Op: OpCreate, Key: "/m/a"})
	if got, want := replies(e.w.Run(), d2), []string{"CONNECTED", "ERROR /m NONODE"}; !slices.Equal(got, want) {
		t.Fatalf("d2 heard %q, want %q: no watch was set", got, want)
	}
}

// delete's version -1 means any version; every other value, -2 included, must
// be the node's (checkAndIncVersion).
func TestDeleteVersionMinusOneIsAnyOtherValuesMustMatch(t *testing.T) {
	e := newEnsemble(1, ServerConfig{})
	d := e.driver(0, 4*time.Second, 0)
	e.at(10*time.Millisecond, d, sim.Message{Op: OpCreate, Key: "/v"})
	e.at(20*time.Millisecond, d, sim.Message{Op: OpDelete, Key: "/v"}.With(ArgVersion, -2))
	e.at(30*time.Millisecond, d, sim.Message{Op: OpDelete, Key: "/v"}.With(ArgVersion, -1))
	got := replies(e.w.Run(), d)
	want := []string{"CONNECTED", "CREATED /v", "ERROR /v BADVERSION", "DELETED /v"}
	if !slices.Equal(got, want) {
		t.Fatalf("replies %q, want %q", got, want)
	}
}

// An ephemeral node has no children, sequential or not; a refused create does
// not move the ephemeral parent's counter.
func TestAnEphemeralNodeHasNoChildren(t *testing.T) {
	e := newEnsemble(3, ServerConfig{})
	d := e.driver(2, 4*time.Second, 0)
	e.at(10*time.Millisecond, d, sim.Message{Op: OpCreate, Key: "/e", Opts: "EPHEMERAL"})
	e.at(20*time.Millisecond, d, sim.Message{Op: OpCreate, Key: "/e/c"})
	e.at(30*time.Millisecond, d, sim.Message{Op: OpCreate, Key: "/e/c-", Opts: "EPHEMERAL SEQUENTIAL"})
	tr := e.w.Run()
	want := []string{"CONNECTED", "CREATED /e", "ERROR /e/c NOCHILDRENFOREPHEMERALS", "ERROR /e/c-0000000000 NOCHILDRENFOREPHEMERALS"}
	if got := replies(tr, d); !slices.Equal(got, want) {
		t.Fatalf("replies %q, want %q", got, want)
	}
	sameData(t, tr, "z1", "z2", "z3")
}
