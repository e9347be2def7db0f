package scenarios

import "testing"

// BenchmarkCatalogueRun measures whole runs of a catalogue scenario (build the
// world, simulate, check), without per-step snapshots, as verify and the explorer
// run them:
//
//	go test ./scenarios -run '^$' -bench CatalogueRun -benchmem
func BenchmarkCatalogueRun(b *testing.B) {
	for _, id := range []string{"redis-happy", "redis-setnx-expire-crash"} {
		b.Run(id, func(b *testing.B) {
			s, err := Load(id)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			events := 0
			for range b.N {
				r := Run(s, RunOptions{})
				events += r.Trace.Len()
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "runs/s")
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
