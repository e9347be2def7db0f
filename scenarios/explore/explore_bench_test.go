package explore_test

import (
	"maps"
	"os"
	"slices"
	"testing"

	"github.com/locksim/locksim/scenarios/explore"
	"github.com/locksim/locksim/sim/fault"
)

// Benchmarks of exploration (docs/explore.md): runs per second for each preset
// (one drawn schedule, run and judged, per op), and shrinking.
//
//	go test ./scenarios/explore -run '^$' -bench . -benchmem -cpu 1

func BenchmarkRuns(b *testing.B) { benchRuns(b, false) }

// BenchmarkRunsFullTrace is BenchmarkRuns recording each run's whole trace, as
// explore did before it recorded only what the checker reads: the ratio of the
// two is that saving.
func BenchmarkRunsFullTrace(b *testing.B) { benchRuns(b, true) }

func benchRuns(b *testing.B, full bool) {
	for _, name := range explore.Presets() {
		b.Run(name, func(b *testing.B) {
			tpl, err := explore.Preset(name)
			if err != nil {
				b.Fatal(err)
			}
			c := &explore.Config{Template: tpl, Space: fault.Space{Menu: fault.Kinds}, FullTrace: full}
			c.Space.Menu = c.Usable()
			c = c.Worker() // as each of explore's workers runs
			b.ReportAllocs()
			seed, events := uint64(0), 0
			for b.Loop() {
				seed++
				o, err := c.Explore(seed)
				if err != nil {
					b.Fatal(err)
				}
				events += o.Events
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "runs/s")
			b.ReportMetric(float64(events)/float64(b.N), "events/run")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
		})
	}
}

// redlockRestartEmpty is the Redlock preset with restarts without persistence
// only: the violation the goals are measured on.
func redlockRestartEmpty(b *testing.B) *explore.Config {
	tpl, err := explore.Preset("redlock")
	if err != nil {
		b.Fatal(err)
	}
	c := &explore.Config{Template: tpl, Space: fault.Space{Menu: []fault.Kind{fault.RestartEmpty}}}
	return c.Worker() // as each of explore's workers runs
}

// runsToFind counts the runs from seed first until one fails.
func runsToFind(b *testing.B, c *explore.Config, first uint64) (int, explore.Outcome) {
	for n := 1; n <= 100_000; n++ {
		o, err := c.Explore(first + uint64(n-1))
		if err != nil {
			b.Fatal(err)
		}
		if o.Failed() {
			return n, o
		}
	}
	b.Fatal("nothing found in 100,000 runs")
	return 0, explore.Outcome{}
}

// BenchmarkRunsToFindRedlock: the median number of runs to find the Redlock
// violation under restarts without persistence, over 200 independent seed
// streams (goal: at most 100).
func BenchmarkRunsToFindRedlock(b *testing.B) {
	c := redlockRestartEmpty(b)
	for b.Loop() {
		var counts []int
		for stream := range uint64(200) {
			n, _ := runsToFind(b, c, stream<<32|1)
			counts = append(counts, n)
		}
		slices.Sort(counts)
		b.ReportMetric(float64(counts[len(counts)/2]), "median-runs")
		b.ReportMetric(float64(counts[len(counts)*9/10]), "p90-runs")
	}
}

// BenchmarkShrinkRedlock: the time to shrink a found Redlock violation (goal: at
// most 10 s), over the failures of 20 seed streams.
func BenchmarkShrinkRedlock(b *testing.B) {
	c := redlockRestartEmpty(b)
	var found []explore.Outcome
	for stream := range uint64(20) {
		_, o := runsToFind(b, c, stream<<32|1)
		found = append(found, o)
	}
	i := 0
	for b.Loop() {
		if _, _, err := c.Shrink(found[i%len(found)], 1000); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// benchTemplates are the presets, and the five-node Redlock workload the
// redlock preset had until it moved to three nodes (the performance figures
// before then were measured on it).
func benchTemplates(b *testing.B) map[string]*explore.Template {
	out := map[string]*explore.Template{}
	for _, name := range explore.Presets() {
		tpl, err := explore.Preset(name)
		if err != nil {
			b.Fatal(err)
		}
		out[name] = tpl
	}
	src, err := os.ReadFile("../../testdata/explore/redlock-five.scn")
	if err != nil {
		b.Fatal(err)
	}
	if out["redlock-five"], err = explore.FromSource("redlock-five", string(src)); err != nil {
		b.Fatal(err)
	}
	return out
}

// BenchmarkCheck is locksim check's schedules per second on one worker, for
// each preset with its whole menu of faults at event points. An op is one
// schedule: a one-fault schedule of the check's level 1, taken in a fixed
// order that spreads them over the run (every fault kind, target and time, as
// a level's schedules are). A level-2 schedule costs the same run; its level's
// jobs add one run per first fault (to find where the second may fall), a
// fraction of a percent of a level of thousands.
//
//	go test ./scenarios/explore -run '^$' -bench Check -benchmem -cpu 1
func BenchmarkCheck(b *testing.B) {
	tpls := benchTemplates(b)
	names := slices.Sorted(maps.Keys(tpls))
	for _, name := range names {
		b.Run(name, func(b *testing.B) {
			c := &explore.Config{Template: tpls[name], Space: fault.Space{Menu: fault.Kinds}}
			c.Space.Menu = c.Usable()
			e, err := c.Exhaustive(1, explore.Bound{MaxFaults: 1}, 1, 1)
			if err != nil {
				b.Fatal(err)
			}
			w := c.Worker()
			n := e.Jobs(1)
			stride := 7919 % n // a prime: the order visits every job before repeating
			for gcd(stride, n) != 1 {
				stride++
			}
			b.ReportAllocs()
			events, j := 0, 0
			for b.Loop() {
				t, err := e.Job(w, 1, j)
				if err != nil {
					b.Fatal(err)
				}
				events += t.Events
				j = (j + stride) % n
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "schedules/s")
			b.ReportMetric(float64(events)/float64(b.N), "events/schedule")
		})
	}
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
