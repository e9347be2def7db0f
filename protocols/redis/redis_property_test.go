package redis_test

import (
	"fmt"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/locksim/locksim/protocols/lockkit"
	"github.com/locksim/locksim/protocols/redis"
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
// Every part of the schedule (clients, operations, times, TTLs, delays, faults) is
// drawn by rapid, so a failure shrinks to a small schedule. rapid runs 100 cases
// (a fifth under -short); more with -rapid.checks=N.

type schedule struct {
	clients  int
	ttl      time.Duration
	jitter   time.Duration
	ops      []clientOp
	restarts fault.Schedule // the node crashes and restarts (persistence none: empty)
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
	if len(s.restarts) > 0 {
		out += "; " + s.restarts.String()
	}
	return out
}

func drawSchedule(t *rapid.T, faults bool) schedule {
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
	if faults {
		for range rapid.IntRange(1, 3).Draw(t, "restarts") {
			s.restarts = append(s.restarts, fault.Fault{Kind: fault.Crash, Proc: "r1", Dur: time.Millisecond,
				At: time.Duration(rapid.IntRange(0, 10_000).Draw(t, "restart_ms")) * time.Millisecond})
		}
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
	s.restarts.Apply(w, nil)
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
		s := drawSchedule(t, false)
		rep := runSchedule(s, true)
		for _, inv := range []string{"grant-exclusive", "mutex-belief"} {
			if v := violated(rep, inv); len(v) > 0 {
				t.Fatalf("%s violated: %s\nschedule: %s", inv, v[0].Detail, s)
			}
		}
	})
}

// A node that restarts without persistence forgets the lock: random schedules
// find the grant-exclusive violation, and rapid shrinks it to a few operations.
func TestPropertyRestartWithoutPersistenceIsFound(t *testing.T) {
	simtest.Find(t, func(t *rapid.T) {
		s := drawSchedule(t, true)
		if v := violated(runSchedule(s, true), "grant-exclusive"); len(v) > 0 {
			t.Fatalf("%s\nschedule: %s", v[0].Detail, s)
		}
	})
}
