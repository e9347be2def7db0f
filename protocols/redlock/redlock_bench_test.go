package redlock_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/locksim/locksim/protocols/redis"
	"github.com/locksim/locksim/protocols/redlock"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/check"
)

// workload is the pinned benchmark workload of issue 3: 5 masters, 3 clients each
// looping acquire, 100 ms of work, release, with random network delays and retry
// jitter, for 60 s of virtual time.
func workload(seed uint64, snapshots bool) *sim.World {
	w := sim.NewWorld(sim.Config{Seed: seed, Snapshots: snapshots,
		Limits: sim.Limits{MaxEvents: 10_000_000, MaxTime: 60 * time.Second, MaxQueue: 100_000}})
	var nodes []sim.ProcID
	for _, n := range []string{"A", "B", "C", "D", "E"} {
		nodes = append(nodes, w.AddProcess(n, "redis", sim.Clock{}, redis.NewNode(redis.NodeConfig{})))
	}
	cfg := redlock.DefaultConfig()
	cfg.Nodes = nodes
	cfg.Multiplex = true
	cfg.Work = 100 * time.Millisecond
	for i := range 3 {
		c := w.AddProcess(fmt.Sprintf("c%d", i+1), "client", sim.Clock{}, redlock.New(cfg))
		w.Schedule(0, sim.Action{Kind: sim.ActCommand, Proc: c, Msg: sim.Message{Op: redis.CmdAcquire, Key: "L"}})
	}
	w.Network().SetDefault(sim.Link{Delay: 500 * time.Microsecond, Jitter: time.Millisecond, Dist: sim.DelayUniform})
	return w
}

// BenchmarkRedlockRun measures whole Redlock runs of the pinned workload on one
// core, with the trace on and per-step snapshots off, judged by the checker:
//
//	go test ./protocols/redlock -run '^$' -bench RedlockRun -benchmem -cpu 1
func BenchmarkRedlockRun(b *testing.B) {
	b.ReportAllocs()
	events := 0
	for i := range b.N {
		tr := workload(uint64(i), false).Run()
		events += tr.Len()
		if rep := check.Check(tr, check.Options{}); rep.Verdict != check.SAFE {
			b.Fatalf("seed %d: %s", i, rep.Verdict)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "runs/s")
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(events)/float64(b.N), "events/run")
	// What one run's trace keeps on the heap, per event (events, messages,
	// observations, strings), after a garbage collection.
	b.StopTimer()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	tr := workload(1, false).Run()
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(tr.Len()), "B/event-resident")
	runtime.KeepAlive(tr)
}
