package zookeeper_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/protocols/zookeeper"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/check"
)

// Tests of the lock client's connection handling, after ZooKeeper's Java client
// (ClientCnxn): it pings when it has sent nothing for a third of the session
// timeout, and calls the connection lost when it has heard nothing for two
// thirds of it (readTimeout); a session's ephemeral nodes die with it.

// oneServer builds z1 (process 0) and c1 (process 1) with a 3 s session (the
// server ticks every second, so it grants 3 s: within [2, 20] ticks).
func oneServer() (*sim.World, sim.ProcID, sim.ProcID) {
	w := sim.NewWorld(sim.Config{Seed: 1})
	z := w.AddProcess("z1", "zookeeper", sim.Clock{}, zookeeper.NewServer(zookeeper.ServerConfig{Servers: []sim.ProcID{0}, Tick: time.Second}))
	c := w.AddProcess("c1", "client", sim.Clock{}, zookeeper.NewClient(zookeeper.ClientConfig{
		Servers: []sim.ProcID{z}, SessionTimeout: 3 * time.Second}))
	w.Network().SetDefault(sim.Link{Delay: time.Millisecond})
	return w, z, c
}

func TestClientCallsTheConnectionLostAtTwoThirdsOfTheSessionTimeout(t *testing.T) {
	w, z, c := oneServer()
	w.Schedule(sim.Time(1500*time.Millisecond), sim.Action{Kind: sim.ActPartition, A: []sim.ProcID{c}, B: []sim.ProcID{z}})
	w.Schedule(sim.Time(8*time.Second), sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
	tr := w.Run()
	var heard, lost sim.Time = -1, -1
	for i := range tr.Len() {
		if e := tr.Event(i); e.Kind == sim.EvDeliver && e.Proc == c && e.Peer == z {
			heard = e.At
		}
	}
	for _, o := range tr.Observations() {
		if o.Kind == sim.ObsNote && o.Proc == c && strings.Contains(o.Text, "lost its connection") {
			lost = o.At
			break
		}
	}
	if heard < 0 || lost < 0 {
		t.Fatalf("heard at %s, lost at %s: want both", heard, lost)
	}
	if want := heard.Add(2 * time.Second); lost != want {
		t.Errorf("connection lost at %s, want %s: 2/3 of the 3 s session after it last heard from z1 (%s)", lost, want, heard)
	}
}

func TestClientDoesNotResendAnExpiredSessionsDelete(t *testing.T) {
	w, z, c := oneServer()
	cmd := func(at time.Duration, op string) {
		w.Schedule(sim.Time(at), sim.Action{Kind: sim.ActCommand, Proc: c, Msg: sim.Message{Op: op, Key: "L"}})
	}
	cmd(100*time.Millisecond, zookeeper.CmdAcquire)
	w.Schedule(sim.Time(time.Second), sim.Action{Kind: sim.ActPartition, A: []sim.ProcID{c}, B: []sim.ProcID{z}})
	cmd(1200*time.Millisecond, zookeeper.CmdRelease) // its DELETE is lost in the partition
	w.Schedule(sim.Time(10*time.Second), sim.Action{Kind: sim.ActHeal})
	w.Schedule(sim.Time(20*time.Second), sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
	tr := w.Run()
	expiredAt := sim.Time(-1)
	for _, o := range tr.Observations() {
		if o.Kind == sim.ObsNote && o.Proc == c && strings.Contains(o.Text, "has expired") {
			expiredAt = o.At
		}
	}
	if expiredAt < 0 {
		t.Fatal("the client never learned that its session expired")
	}
	for i := range tr.Len() {
		e := tr.Event(i)
		if e.Kind == sim.EvSend && e.Proc == c && e.At >= expiredAt && tr.Msg(e).Op == zookeeper.OpDelete {
			t.Errorf("at %s, after its session expired (%s), c1 sends %s under its new session", e.At, expiredAt, tr.Msg(e))
		}
	}
}

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
