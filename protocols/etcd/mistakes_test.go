package etcd_test

import (
	"testing"
	"time"

	"github.com/locksim/locksim/protocols/etcd"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/check"
)

// Mistake 12 (issue 19; docs/protocols/etcd.md, "Common mistakes") told a
// second way: the catalogue's etcd-mutex-no-wait-check cuts the waiter off
// with a partition; here it pauses. And the client-side lease deadline as
// clientv3 checks it, once a second.

// mutexStory builds 3 members, clients c1..cn with cfg (TTL 2 s), and runs
// the schedule until the given time.
func mutexStory(n int, cfg etcd.ClientConfig, schedule func(w *sim.World, c []sim.ProcID), until time.Duration) (*sim.Trace, check.Report) {
	w := sim.NewWorld(sim.Config{Seed: 3})
	ids := []sim.ProcID{0, 1, 2}
	for _, name := range members {
		w.AddProcess(name, "etcd", sim.Clock{}, etcd.NewMember(etcd.MemberConfig{Members: ids}))
	}
	var cs []sim.ProcID
	for i := range n {
		c := cfg
		c.Members, c.TTL = []sim.ProcID{ids[i%3], ids[(i+1)%3], ids[(i+2)%3]}, 2*time.Second
		cs = append(cs, w.AddProcess("c"+string(rune('1'+i)), "client", sim.Clock{}, etcd.NewClient(c)))
	}
	w.Network().SetDefault(sim.Link{Delay: time.Millisecond})
	schedule(w, cs)
	w.Schedule(sim.Time(until), sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
	tr := w.Run()
	return tr, check.Check(tr, check.Options{})
}

func command(w *sim.World, at time.Duration, p sim.ProcID, op string) {
	w.Schedule(sim.Time(at), sim.Action{Kind: sim.ActCommand, Proc: p, Msg: sim.Message{Op: op, Key: "L"}})
}

// c1 holds; c2 waits behind it and c3 behind c2; c2's process pauses for 4 s,
// twice its lease, during which its key is deleted, c1 releases and c3 holds.
// When c2 runs again, the Mutex before the fix of etcd#11456 finds nobody
// before it and returns: c2 holds beside c3. Today's Mutex sees that its
// lease's deadline has passed and gives up.
func TestAPausedWaiterIsNotToldItHoldsTheLock(t *testing.T) {
	for _, noCheck := range []bool{true, false} {
		tr, rep := mutexStory(3, etcd.ClientConfig{NoWaitCheck: noCheck}, func(w *sim.World, c []sim.ProcID) {
			command(w, 100*time.Millisecond, c[0], etcd.CmdAcquire)
			command(w, 300*time.Millisecond, c[1], etcd.CmdAcquire)
			command(w, 500*time.Millisecond, c[2], etcd.CmdAcquire)
			w.Schedule(sim.Time(time.Second), sim.Action{Kind: sim.ActPause, Proc: c[1], Dur: 4 * time.Second})
			command(w, 4*time.Second, c[0], etcd.CmdRelease)
		}, 8*time.Second)
		c2Held := false
		for _, o := range tr.Observations() {
			c2Held = c2Held || o.Kind == sim.ObsBeliefStart && tr.Name(o.Client) == "c2"
		}
		r, _ := rep.Result("mutex-belief")
		if c2Held != noCheck || r.Holds() == noCheck {
			t.Errorf("no wait check %v: c2 came to hold: %v; mutex-belief holds: %v", noCheck, c2Held, r.Holds())
		}
	}
}

// clientv3's lessor closes a keepalive whose deadline has passed in a loop
// that runs once a second (lease.go, deadlineLoop): a holder cut off from the
// cluster learns of its lease's loss up to a second after the deadline that
// a timer would have kept exactly.
func TestTheDeadlineLoopNoticesWithinASecond(t *testing.T) {
	lostAt := func(loop bool) sim.Time {
		tr, _ := mutexStory(1, etcd.ClientConfig{DeadlineLoop: loop}, func(w *sim.World, c []sim.ProcID) {
			command(w, 100*time.Millisecond, c[0], etcd.CmdAcquire)
			w.Schedule(sim.Time(1500*time.Millisecond), sim.Action{Kind: sim.ActPartition, A: c, B: []sim.ProcID{0, 1, 2}})
		}, 10*time.Second)
		for _, o := range tr.Observations() {
			if o.Kind == sim.ObsBeliefEnd {
				return o.At
			}
		}
		return -1
	}
	timer, loop := lostAt(false), lostAt(true)
	if timer < 0 || loop < 0 {
		t.Fatalf("the belief ended at %s (timer) and %s (loop): want both", timer, loop)
	}
	if lag := time.Duration(loop - timer); lag <= 0 || lag > time.Second {
		t.Errorf("the loop noticed %s after the timer (at %s, %s), want within (0, 1s]", lag, timer, loop)
	}
}

// Issue 31, item 9a (docs/protocols/etcd.md, "Common mistakes"): an
// application that ignores Session.Done() keeps believing after its lease is
// gone, told a second way. The catalogue's etcd-session-done-ignored cuts the
// holder off with a 5 s lease; here the lease is 2 s, three clients queue, and
// the second story is Jepsen's whole finding: the Mutex before etcd#11456's
// fix tells a waiter whose lease expired that it holds the lock, and an
// application that ignores Done goes on believing after the next keepalive
// says the lease is gone, where one that looks stops.
func TestAnApplicationThatIgnoresSessionDoneKeepsBelieving(t *testing.T) {
	for _, ignore := range []bool{true, false} {
		// c1 holds and is cut off from the cluster for 4 s; c2 and c3 queue.
		tr, rep := mutexStory(3, etcd.ClientConfig{IgnoreSessionDone: ignore}, func(w *sim.World, c []sim.ProcID) {
			command(w, 50*time.Millisecond, c[0], etcd.CmdAcquire)
			command(w, 400*time.Millisecond, c[1], etcd.CmdAcquire)
			command(w, 700*time.Millisecond, c[2], etcd.CmdAcquire)
			w.Schedule(sim.Time(800*time.Millisecond), sim.Action{Kind: sim.ActPartition, A: c[:1], B: []sim.ProcID{0, 1, 2}})
			w.Schedule(sim.Time(4800*time.Millisecond), sim.Action{Kind: sim.ActHeal})
			command(w, 6*time.Second, c[0], etcd.CmdRelease)
			command(w, 7*time.Second, c[1], etcd.CmdRelease)
		}, 9*time.Second)
		var c1End sim.Time = -1
		for _, o := range tr.Observations() {
			if o.Kind == sim.ObsBeliefEnd && tr.Name(o.Client) == "c1" {
				c1End = o.At
				break
			}
		}
		r, _ := rep.Result("mutex-belief")
		g, _ := rep.Result("grant-exclusive")
		released := c1End >= sim.Time(6*time.Second)
		if released != ignore || r.Holds() == ignore || !g.Holds() {
			t.Errorf("ignore Done %v: c1 stopped believing at %s (at its release: %v); mutex-belief %s, grant-exclusive %s",
				ignore, c1End, released, r.Status(), g.Status())
		}
	}
	for _, ignore := range []bool{true, false} {
		// Before etcd#11456's fix: c2 waits, is cut off past its lease, and is
		// told it holds L when c1 releases after the heal.
		tr, _ := mutexStory(3, etcd.ClientConfig{NoWaitCheck: true, IgnoreSessionDone: ignore}, func(w *sim.World, c []sim.ProcID) {
			command(w, 100*time.Millisecond, c[0], etcd.CmdAcquire)
			command(w, 300*time.Millisecond, c[1], etcd.CmdAcquire)
			command(w, 500*time.Millisecond, c[2], etcd.CmdAcquire)
			w.Schedule(sim.Time(time.Second), sim.Action{Kind: sim.ActPartition, A: c[1:2], B: []sim.ProcID{0, 1, 2}})
			w.Schedule(sim.Time(5*time.Second), sim.Action{Kind: sim.ActHeal})
			command(w, 5500*time.Millisecond, c[0], etcd.CmdRelease)
			command(w, 9*time.Second, c[1], etcd.CmdRelease)
		}, 10*time.Second)
		var start, end sim.Time = -1, -1
		for _, o := range tr.Observations() {
			switch {
			case o.Kind == sim.ObsBeliefStart && tr.Name(o.Client) == "c2":
				start = o.At
			case o.Kind == sim.ObsBeliefEnd && tr.Name(o.Client) == "c2":
				end = o.At
			}
		}
		// Looking at Done, c2 stops at the next keepalive's answer (within
		// TTL/3); ignoring it, only its release at 9 s ends the belief.
		if start < 0 || end < 0 || (end >= sim.Time(9*time.Second)) != ignore {
			t.Errorf("no wait check, ignore Done %v: c2 believed from %s to %s", ignore, start, end)
		}
	}
}
