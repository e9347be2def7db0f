package scenarios

import (
	"flag"
	"fmt"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

var scaleEvents = flag.String("scale.events", "10000,100000,1000000",
	"BenchmarkScale's sizes, in events, comma-separated (10000000 takes a minute and 2 GB)")

// BenchmarkScale is issue 21's growth table: the Redlock scale scenario
// (testdata/scale/gen.sh: 500 clients contending for one lock on 5 nodes) cut at
// each size, run and judged once per op. It reports the cost per event and the
// heap the finished run keeps (its trace and report, after a collection) in all
// and per event: both must stay flat as the run grows.
//
//	go test ./scenarios -run '^$' -bench Scale -benchtime 1x
//	go test ./scenarios -run '^$' -bench Scale -benchtime 1x -scale.events 10000000
func BenchmarkScale(b *testing.B) {
	for _, f := range strings.Split(*scaleEvents, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			b.Fatalf("-scale.events: %q is not a number", f)
		}
		out, err := exec.Command("sh", "../testdata/scale/gen.sh", "500", strconv.Itoa(n)).Output()
		if err != nil {
			b.Skipf("testdata/scale/gen.sh: %v", err)
		}
		s, err := Parse("scale.scn", string(out))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			var before, after runtime.MemStats
			var r *Result
			for b.Loop() {
				r = nil
				runtime.GC()
				runtime.ReadMemStats(&before)
				r = Run(s, RunOptions{})
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			events := float64(r.Trace.Len())
			kept := float64(int64(after.HeapAlloc) - int64(before.HeapAlloc))
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/events, "ns/event")
			b.ReportMetric(kept/events, "B/event-resident")
			b.ReportMetric(kept/1e6, "MB-resident")
			runtime.KeepAlive(r)
		})
	}
}
