package cli

import (
	"runtime"
	"testing"
	"time"

	"github.com/locksim/locksim/scenarios/explore"
	"github.com/locksim/locksim/sim/fault"
)

// BenchmarkExploreWorkers measures how explore's runs per second scale from one
// worker to two, on the paxos preset (which finds nothing, so every seed runs):
// each op runs the same 200 seeds with 1 worker, then with 2, and the ratio of
// their rates comes from the same op, so the machine's load moves both alike.
// It runs the one worker twice: as `--workers 1` runs on this machine (the Go
// runtime free to collect garbage on the idle second core) and confined to one
// core (GOMAXPROCS 1), so that x-scaling (2 workers over 1) and x-per-core (2
// workers on 2 cores over 1 worker on 1) are both read from the same op.
//
//	go test ./cmd/locksim/cli -run '^$' -bench ExploreWorkers -count 3
func BenchmarkExploreWorkers(b *testing.B) {
	tpl, err := explore.Preset("paxos")
	if err != nil {
		b.Fatal(err)
	}
	c := &explore.Config{Template: tpl, Space: fault.Space{Menu: fault.Kinds}}
	c.Space.Menu = c.Usable()
	if _, err := c.Try(1, nil); err != nil { // fills its cache before the workers share it
		b.Fatal(err)
	}
	workers := []*explore.Config{c.Worker(), c.Worker()} // as locksim explore gives each its own
	defer exploreGC()()                                  // as locksim explore runs
	const seeds = 200
	run := func(w int) time.Duration {
		t0 := time.Now()
		n := 0
		inOrder(w, func(w int, i uint64) error { _, err := workers[w].Explore(1 + i); return err }, func(err error) bool {
			if err != nil {
				b.Fatal(err)
			}
			n++
			return n < seeds
		})
		return time.Since(t0)
	}
	var one, oneCore, two time.Duration
	for b.Loop() {
		one += run(1)
		prev := runtime.GOMAXPROCS(1)
		oneCore += run(1)
		runtime.GOMAXPROCS(prev)
		two += run(2)
	}
	rate := func(d time.Duration) float64 { return float64(b.N*seeds) / d.Seconds() }
	b.ReportMetric(rate(one), "runs/s-1worker")
	b.ReportMetric(rate(oneCore), "runs/s-1worker-1core")
	b.ReportMetric(rate(two), "runs/s-2workers")
	b.ReportMetric(rate(two)/rate(one), "x-scaling")
	b.ReportMetric(rate(two)/rate(oneCore), "x-per-core")
}
