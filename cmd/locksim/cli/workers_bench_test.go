package cli

import (
	"testing"
	"time"

	"github.com/locksim/locksim/scenarios/explore"
	"github.com/locksim/locksim/sim/fault"
)

// BenchmarkExploreWorkers measures how explore's runs per second scale from one
// worker to two, on the paxos preset (which finds nothing, so every seed runs):
// each op runs the same 200 seeds with 1 worker, then with 2, and the ratio of
// their rates comes from the same op, so the machine's load moves both alike.
//
//	go test ./cmd/locksim -run '^$' -bench ExploreWorkers
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
	var took [3]time.Duration
	for b.Loop() {
		for _, w := range []int{1, 2} {
			t0 := time.Now()
			n := 0
			inOrder(w, func(w int, i uint64) error { _, err := workers[w].Explore(1 + i); return err }, func(err error) bool {
				if err != nil {
					b.Fatal(err)
				}
				n++
				return n < seeds
			})
			took[w] += time.Since(t0)
		}
	}
	r1 := float64(b.N*seeds) / took[1].Seconds()
	r2 := float64(b.N*seeds) / took[2].Seconds()
	b.ReportMetric(r1, "runs/s-1worker")
	b.ReportMetric(r2, "runs/s-2workers")
	b.ReportMetric(r2/r1, "x-scaling")
}
