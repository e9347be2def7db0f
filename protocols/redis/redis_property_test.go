package redis_test

import (
	"fmt"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/locksim/locksim/protocols/lockkit"
	"github.com/locksim/locksim/protocols/redis"
	"github.com/locksim/locksim/scenarios/proptest"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/check"
	"github.com/locksim/locksim/sim/fault"
	"github.com/locksim/locksim/sim/simtest"
)

// Property tests of the single-instance Redis lock, judged by the same checker as
// the catalogue. Source: Redis, "Distributed Locks with Redis" (single instance):
// with SET NX PX, a unique value and compare-and-delete, one node never grants the
// lock twice and clients that stop believing at their TTL never overlap, so long as
// the node keeps its data; a node that restarts empty breaks the promise.
//
// Every part of the schedule (clients, operations, times, TTLs, delays) is drawn
// by rapid from the case's seed (simtest.Check): 10 fixed cases by default,
// 100 under -tags long; a failure names its seed. That a restart breaks the
// promise is found without chance: every crash over a template
// (testdata/properties/restart-no-persistence.scn).

type schedule struct {
	clients int
	ttl     time.Duration
	jitter  time.Duration
	ops     []clientOp
}

type clientOp struct {
	client  int
	at      time.Duration
	hold    time.Duration
	release bool
}

func (s schedule) String() string {
	out := fmt.Sprintf("%d clients, ttl %s, jitter %s", s.clients, s.ttl, s.jitter)
	for _, o := range s.ops {
		out += fmt.Sprintf("; c%d acquire at %s", o.client+1, o.at)
		if o.release {
			out += fmt.Sprintf(" release after %s", o.hold)
		}
	}
	return out
}

func drawSchedule(t *rapid.T) schedule {
	s := schedule{
		clients: rapid.IntRange(2, 4).Draw(t, "clients"),
		ttl:     time.Duration(rapid.IntRange(50, 3000).Draw(t, "ttl_ms")) * time.Millisecond,
		jitter:  time.Duration(rapid.IntRange(0, 5000).Draw(t, "jitter_us")) * time.Microsecond,
	}
	n := rapid.IntRange(1, 12).Draw(t, "ops")
	for range n {
		s.ops = append(s.ops, clientOp{
			client:  rapid.IntRange(0, s.clients-1).Draw(t, "client"),
			at:      time.Duration(rapid.IntRange(0, 10_000).Draw(t, "at_ms")) * time.Millisecond,
			hold:    time.Duration(rapid.IntRange(0, 4000).Draw(t, "hold_ms")) * time.Millisecond,
			release: rapid.Bool().Draw(t, "release"),
		})
	}
	return s
}

func runSchedule(s schedule, validityTimer bool) check.Report {
	w := sim.NewWorld(sim.Config{Seed: 1, Limits: sim.Limits{MaxEvents: 200_000, MaxTime: time.Minute, MaxQueue: 10_000}})
	node := w.AddProcess("r1", "redis", sim.Clock{}, redis.NewNode(redis.NodeConfig{}))
	for i := range s.clients {
		w.AddProcess(fmt.Sprintf("c%d", i+1), "client", sim.Clock{}, redis.NewClient(redis.ClientConfig{
			Server: node, ValidityTimer: validityTimer, TTL: s.ttl,
			Retry: lockkit.Retry{Backoff: lockkit.Fixed, Delay: 100 * time.Millisecond, Attempts: 5}, Timeout: time.Second,
		}))
	}
	w.Network().SetDefault(sim.Link{Delay: 500 * time.Microsecond, Jitter: s.jitter, Dist: sim.DelayUniform})
	for _, o := range s.ops {
		c := sim.ProcID(o.client + 1)
		w.Schedule(sim.Time(o.at), sim.Action{Kind: sim.ActCommand, Proc: c,
			Msg: sim.Message{Op: redis.CmdAcquire, Key: "L"}})
		if o.release {
			w.Schedule(sim.Time(o.at+o.hold), sim.Action{Kind: sim.ActCommand, Proc: c,
				Msg: sim.Message{Op: redis.CmdRelease, Key: "L"}})
		}
	}
	return check.Check(w.Run(), check.Options{})
}

func violated(rep check.Report, name string) []check.Violation {
	r, _ := rep.Result(name)
	return r.Violations
}

// With the atomic client, compare-and-delete, a validity timer and no faults,
// neither the service nor the clients ever overlap.
func TestPropertyAtomicLockWithoutFaultsIsSafe(t *testing.T) {
	simtest.Check(t, 1, func(t *rapid.T) {
		s := drawSchedule(t)
		rep := runSchedule(s, true)
		for _, inv := range []string{"grant-exclusive", "mutex-belief"} {
			if v := violated(rep, inv); len(v) > 0 {
				t.Fatalf("%s violated: %s\nschedule: %s", inv, v[0].Detail, s)
			}
		}
	})
}

// A node that restarts without persistence forgets the lock: a crash of the
// node while a client holds the lock finds the grant-exclusive violation,
// among every crash over the template, in a fixed order.
func TestPropertyRestartWithoutPersistenceIsFound(t *testing.T) {
	f := proptest.Find(t, proptest.Config{Template: "testdata/properties/restart-no-persistence.scn",
		Faults: []fault.Kind{fault.Crash}, Invariants: []string{"grant-exclusive"}, CheckFaults: 1, Dir: t.TempDir()})
	if len(f.Schedule) != 1 || f.Schedule[0].Proc != "r1" {
		t.Errorf("found with %v, want the node's restart", f.Schedule)
	}
}
