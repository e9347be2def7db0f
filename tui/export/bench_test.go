package export_test

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/tui/export"
)

// bigRun runs Paxos's dueling proposers (paxos-dueling-proposers, which never
// choose a value) until the trace holds n events: a long run of a real protocol.
func bigRun(tb testing.TB, n int) *scenarios.Result { return bigRunEdited(tb, n, "", "") }

// bigRunEdited is bigRun with one line of the scenario changed.
func bigRunEdited(tb testing.TB, n int, line, to string) *scenarios.Result {
	tb.Helper()
	src, ok := scenarios.CatalogueSource("paxos-dueling-proposers")
	if !ok || !strings.Contains(src, "run until=40s") || !strings.Contains(src, line) {
		tb.Fatalf("paxos-dueling-proposers no longer ends with run until=40s, or lacks %q: update bigRun", line)
	}
	src = strings.Replace(src, "run until=40s", fmt.Sprintf("limit events=%d\nrun until=1h", n), 1)
	if line != "" {
		src = strings.Replace(src, line, to, 1)
	}
	s, err := scenarios.Parse("paxos-long.scn", src)
	if err != nil {
		tb.Fatal(err)
	}
	res := scenarios.Run(s, scenarios.RunOptions{})
	if res.Trace.Len() < n {
		tb.Fatalf("the long run has %d events, not %d", res.Trace.Len(), n)
	}
	return res
}

var (
	millionOnce sync.Once
	million     *scenarios.Result
)

// countingWriter counts what is written and keeps none of it.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// BenchmarkExport measures writing a run of a million events in each format,
// and the bytes each writes per event:
//
//	go test ./tui/export -run '^$' -bench Export -benchmem -benchtime 3x
func BenchmarkExport(b *testing.B) {
	millionOnce.Do(func() { million = bigRun(b, 1_000_000) })
	res := million
	formats := []format{
		{"json-events", func(w io.Writer) error { return res.WriteJSON(w, scenarios.JSONOptions{Events: true}) }},
		{"mermaid", func(w io.Writer) error { return export.WriteMermaid(w, res, export.Options{}) }},
		{"mermaid-full", func(w io.Writer) error { return export.WriteMermaid(w, res, export.Options{Full: true}) }},
		{"svg", func(w io.Writer) error { return export.WriteSVG(w, res, export.Options{}) }},
		{"svg-full", func(w io.Writer) error { return export.WriteSVG(w, res, export.Options{Full: true}) }},
		{"html", func(w io.Writer) error { return export.WriteHTML(w, res, export.Options{}) }},
	}
	benchFormats(b, res.Trace.Len(), formats)
}

type format struct {
	name  string
	write func(io.Writer) error
}

// benchFormats writes in each format, and reports the bytes written per event.
func benchFormats(b *testing.B, events int, formats []format) {
	for _, f := range formats {
		b.Run(f.name, func(b *testing.B) {
			var c countingWriter
			for range b.N {
				c.n = 0
				if err := f.write(&c); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(c.n)/float64(events), "bytes/event")
		})
	}
}

// BenchmarkExportCompare measures writing two runs of 100 000 events side by
// side, in each format, lining-up included, and the bytes written per event of
// both: the dueling proposers, and the same with p2 proposing 1 ms later, so
// that the runs part at 118 ms and differ on nearly every line after.
//
//	go test ./tui/export -run '^$' -bench ExportCompare -benchmem -benchtime 3x
func BenchmarkExportCompare(b *testing.B) {
	x, y := bigRun(b, 100_000), bigRunEdited(b, 100_000, "at 117ms p2 propose", "at 118ms p2 propose")
	formats := []format{
		{"json", func(w io.Writer) error { return export.WriteCompareJSON(w, x, y, scenarios.JSONOptions{}) }},
		{"mermaid", func(w io.Writer) error { return export.WriteCompareMermaid(w, x, y, export.Options{}) }},
		{"svg", func(w io.Writer) error { return export.WriteCompareSVG(w, x, y, export.Options{}) }},
		{"html", func(w io.Writer) error { return export.WriteCompareHTML(w, x, y, export.Options{}) }},
	}
	benchFormats(b, x.Trace.Len()+y.Trace.Len(), formats)
}
