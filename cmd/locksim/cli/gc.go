package cli

import (
	"os"
	"runtime/debug"
)

// exploreGC lets the garbage collector run less often during an exploration.
// Each run allocates 100-300 KB that is garbage as soon as the run is judged,
// and the live heap is a few runs' worth, so with Go's default (GOGC=100) the
// collector ran so often that it cost a quarter of the time and kept a second
// worker from paying off: BenchmarkExploreWorkers measured 17,400 runs/s on one
// worker and 1.25x on two at 100, 23,500 runs/s and 1.52x at 400. A GOGC the
// user set is kept. It returns a function that puts the old setting back.
func exploreGC() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(400)
	return func() { debug.SetGCPercent(old) }
}
