package zookeeper

import (
	"slices"
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
)

// Tests of watches on their own (ZooKeeper programmer's guide, "ZooKeeper
// Watches"): "a watch event is one-time trigger"; exists sets a data watch
// (NodeCreated, NodeDeleted), getChildren a child watch (NodeChildrenChanged,
// and NodeDeleted on the node itself); a client is told of an event once,
// even when it set both kinds on the deleted node; watches are kept by the
// server the client is connected to.

func TestWatchesFireOnceThenAreGone(t *testing.T) {
	w := newWatches()
	w.watchData("/a", 1)
	w.watchData("/a", 1) // set twice by one session: one watch
	w.watchChildren("/", 2)
	want := []watchEvent{{1, "/a", "NodeCreated"}, {2, "/", "NodeChildrenChanged"}}
	if got := w.created("/a"); !slices.Equal(got, want) {
		t.Errorf("create /a: %v, want %v", got, want)
	}
	if got := w.created("/b"); got != nil {
		t.Errorf("a second change: %v; the watches fired once and are gone", got)
	}
}

func TestWatchesOnADeletedNodeTellEachSessionOnce(t *testing.T) {
	w := newWatches()
	w.watchData("/L/n1", 1)
	w.watchChildren("/L/n1", 1)
	w.watchChildren("/L/n1", 2)
	w.watchChildren("/L", 3)
	w.watchData("/L/n2", 4)
	want := []watchEvent{{1, "/L/n1", "NodeDeleted"}, {2, "/L/n1", "NodeDeleted"}, {3, "/L", "NodeChildrenChanged"}}
	if got := w.deleted("/L/n1"); !slices.Equal(got, want) {
		t.Errorf("delete /L/n1: %v, want %v", got, want)
	}
	if got := w.deleted("/L/n2"); !slices.Equal(got, []watchEvent{{4, "/L/n2", "NodeDeleted"}}) {
		t.Errorf("delete /L/n2: %v: /L's child watch already fired", got)
	}
}

func TestWatchesOfAClosedSessionAreDropped(t *testing.T) {
	w := newWatches()
	w.watchData("/a", 1)
	w.watchData("/a", 2)
	w.watchChildren("/", 1)
	w.dropSession(1)
	if got := w.created("/a"); !slices.Equal(got, []watchEvent{{2, "/a", "NodeCreated"}}) {
		t.Errorf("create /a after session 1 closed: %v, want session 2's event only", got)
	}
}

// In an ensemble: d1, connected to z2, watches for /a; d2, connected to z3,
// creates and later deletes it. d1 hears of the creation from z2, once; the
// deletion tells it nothing, since it did not watch again.
func TestWatchesAreKeptByTheClientsServer(t *testing.T) {
	e := newEnsemble(3, ServerConfig{Tick: 100 * time.Millisecond})
	d1 := e.driver(1, 4*time.Second, time.Second)
	d2 := e.driver(2, 4*time.Second, time.Second)
	e.at(100*time.Millisecond, d1, sim.Message{Op: OpExists, Key: "/a", Opts: "WATCH"})
	e.at(200*time.Millisecond, d2, sim.Message{Op: OpCreate, Key: "/a"})
	e.at(300*time.Millisecond, d2, sim.Message{Op: OpDelete, Key: "/a"})
	tr := e.w.Run()
	if got := replies(tr, d1); !slices.Equal(got, []string{"CONNECTED", "ERROR /a NONODE", "WATCH /a NodeCreated"}) {
		t.Errorf("d1 got %q", got)
	}
	for i := range tr.Len() {
		if ev := tr.Event(i); ev.Kind == sim.EvSend && tr.Msg(ev).Op == RepWatch && ev.Proc != e.servers[1] {
			t.Errorf("%s sent a watch event: only z2, d1's server, keeps its watch", tr.Names[ev.Proc])
		}
	}
}
