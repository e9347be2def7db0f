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
