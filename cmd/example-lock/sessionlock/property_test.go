package sessionlock_test

import (
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/locksim/locksim/cmd/example-lock/sessionlock"
	"github.com/locksim/locksim/protocols/lockkit"
	"github.com/locksim/locksim/protocols/resource"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/check"
	"github.com/locksim/locksim/sim/fault"
	"github.com/locksim/locksim/sim/simtest"
)

// Property tests with the helpers the built-in protocols' tests use
// (sim/simtest): rapid draws 2 or 3 clients that each acquire L, read and write
// db and release, and 1 to 4 faults (pauses, crashes and clock jumps on the
// clients, crashes and pauses on the server); the checker judges each run.
// Rapid shrinks a failure to the faults that matter. 1,000 schedules by
// default (10 rounds of 100), a fifth under -short.

var menu = simtest.Menu{
	Clients: []fault.Kind{fault.Pause, fault.Crash, fault.ClockJump},
	Servers: []fault.Kind{fault.Crash, fault.Pause},
}

// run builds the world of a drawn case: server s, the clients, resource db
// (without fencing: the client's validity timer alone must keep it safe).
func run(c simtest.Case, validity bool) check.Result {
	w := sim.NewWorld(sim.Config{Seed: c.Seed, Limits: sim.Limits{MaxEvents: 100_000, MaxTime: 12 * time.Second, MaxQueue: 10_000}})
	srv := w.AddProcess("s", "lock-server", sim.Clock{}, sessionlock.NewServer(sessionlock.ServerConfig{}))
	var clients []sim.ProcID
	for i := range c.Clients {
		clients = append(clients, w.AddProcess("c"+string(rune('1'+i)), "client", sim.Clock{},
			sessionlock.NewClient(sessionlock.ClientConfig{Server: srv, ValidityTimer: validity,
				Retry: lockkit.Retry{Backoff: lockkit.Uniform, Delay: 100 * time.Millisecond, Max: 300 * time.Millisecond}})))
	}
	w.AddProcess("db", "resource", sim.Clock{}, resource.New(resource.Config{}))
	w.Network().SetDefault(sim.Link{Delay: time.Millisecond, Jitter: time.Millisecond, Dist: sim.DelayUniform})
	c.Apply(w, clients, []string{"s"})
	rep := check.Check(w.Run(), check.Options{})
	r, _ := rep.Result("resource-safe")
	return r
}

func TestPropertyValidityTimerKeepsTheResourceSafe(t *testing.T) {
	simtest.Check(t, 10, func(t *rapid.T) {
		c := simtest.Draw(t, []string{"s"}, menu)
		if r := run(c, true); len(r.Violations) > 0 {
			t.Fatalf("resource-safe violated at %s: %s\ncase: %s", r.Violations[0].At, r.Violations[0].Detail, c)
		}
	})
}

// The broken client (no validity timer) is searched for over a template, by
// proptest.Find in cmd/example-lock/property_test.go: every one-fault schedule,
// in a fixed order, so the search finds it on every run rather than by chance.
