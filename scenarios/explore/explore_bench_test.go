package explore_test

import (
	"testing"

	"github.com/locksim/locksim/scenarios/explore"
)

// Benchmarks of exploration (docs/explore.md): runs per second for each preset
// (one drawn schedule, run and judged, per op), and shrinking.
//
//	go test ./scenarios/explore -run '^$' -bench . -benchmem -cpu 1

func BenchmarkRuns(b *testing.B) {
	for _, name := range explore.Presets() {
		b.Run(name, func(b *testing.B) {
			tpl, err := explore.Preset(name)
			if err != nil {
				b.Fatal(err)
			}
			c := &explore.Config{Template: tpl, Space: explore.Space{Menu: explore.Kinds}}
			c.Space.Menu = c.Space.Usable(tpl)
			b.ReportAllocs()
			seed := uint64(0)
			for b.Loop() {
				seed++
				if _, err := c.Explore(seed); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "runs/s")
		})
	}
}
