package redis_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/locksim/locksim/protocols/redis"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/simtest"
)

// Property test of replication across a master's restart (issue 31, item 5).
// Source: Redis, Replication, "Safety of replication when master has
// persistence turned off": a restarted master has a new history, and its
// replicas resynchronise with it in full, so "Nodes B and C will replicate from
// node A, which is empty, so they'll effectively destroy their copy of the
// data". Whatever the writes, the crash and the persistence, a replica left
// alone for two of its once-a-second acknowledgements holds exactly what its
// master holds: nothing it had before the restart survives unless the master
// kept it. rapid draws every time, key, value and delay (a failure logs its
// seed; simtest.Check runs 3 rounds).
func TestPropertyReplicaHoldsWhatItsRestartedMasterHolds(t *testing.T) {
	simtest.Check(t, 3, func(t *rapid.T) {
		persist := rapid.SampledFrom([]redis.Persistence{redis.PersistNone, redis.PersistEverySec, redis.PersistAlways}).Draw(t, "persistence")
		w := sim.NewWorld(sim.Config{Seed: 1, Snapshots: true})
		w.AddProcess("r1", "redis", sim.Clock{}, redis.NewNode(redis.NodeConfig{Persistence: persist}))
		w.AddProcess("r2", "redis", sim.Clock{}, redis.NewNode(redis.NodeConfig{Replica: true, Master: 0}))
		w.AddProcess("d", "client", sim.Clock{}, func(sim.Env) sim.Process { return driver{} })
		w.Network().SetDefault(sim.Link{Delay: time.Duration(rapid.IntRange(0, 5000).Draw(t, "delay_us")) * time.Microsecond})

		ms := func(label string, lo, hi int) time.Duration {
			return time.Duration(rapid.IntRange(lo, hi).Draw(t, label)) * time.Millisecond
		}
		var story []string
		last := time.Duration(0)
		for i := range rapid.IntRange(1, 15).Draw(t, "writes") {
			at := ms(fmt.Sprintf("write%d_at", i), 1, 4000)
			key := rapid.SampledFrom([]string{"K1", "K2", "K3"}).Draw(t, fmt.Sprintf("write%d_key", i))
			m := sim.Message{Op: redis.OpDel, Key: key}
			if rapid.IntRange(0, 3).Draw(t, fmt.Sprintf("write%d_del", i)) > 0 {
				// A TTL longer than the run: no key expires, so the states compare.
				m = sim.Message{Op: redis.OpSet, Key: key, Value: fmt.Sprintf("v%d", i), Opts: "PX"}.With(redis.ArgTime, 600_000)
			}
			w.Schedule(sim.Time(at), sim.Action{Kind: sim.ActCommand, Proc: 2, Msg: m})
			story = append(story, fmt.Sprintf("%s at %s", m, at))
			last = max(last, at)
		}
		crash := ms("crash_at", 1, 4000)
		restart := crash + ms("down_for", 0, 2000)
		w.Schedule(sim.Time(crash), sim.Action{Kind: sim.ActCrash, Proc: 0})
		w.Schedule(sim.Time(restart), sim.Action{Kind: sim.ActRestart, Proc: 0})
		story = append(story, fmt.Sprintf("r1 (persistence %s) crashes at %s, restarts at %s", persist, crash, restart))
		// Two acknowledgements after the last change: the first finds the
		// restarted master (and resyncs), the second is not needed but is harmless.
		end := max(last, restart) + 2500*time.Millisecond
		w.Schedule(sim.Time(end), sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
		tr := w.Run()

		final := map[sim.ProcID]string{}
		for i := range tr.Len() {
			if e := tr.Event(i); e.Proc == 0 || e.Proc == 1 {
				if s := tr.State(e); s != "" {
					final[e.Proc] = s
				}
			}
		}
		if final[0] == "" || final[1] == "" {
			t.Fatalf("no state recorded for the nodes (snapshots off?)")
		}
		if final[0] != final[1] {
			t.Fatalf("the replica holds %q, its master %q\nstory: %s", final[1], final[0], strings.Join(story, "; "))
		}
	})
}
