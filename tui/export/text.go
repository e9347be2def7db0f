package export

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/check"
	"github.com/locksim/locksim/tui/layout"
)

// The text report `locksim run` prints: the runner (scenarios) gives the run,
// the layout (tui/layout) its timeline, and this file puts them on the page.

// TextOptions shape the text output.
type TextOptions struct {
	Full  bool // every event and row, however long the run
	Width int  // fit the timeline into this many columns; 0: unlimited
}

// CutHead and CutTail are the rows a long run shows of its event log and
// timeline, unless Full: its first CutHead and last CutTail. The exports cut
// where the text does.
const (
	CutHead = 300
	CutTail = 60
)

// WriteText writes the run as `locksim run` prints it: the lesson, the event log
// with true time and each process's own clock, the timeline, the verdict, metrics
// and expectations. A long run shows its beginning and end (and every violation).
func WriteText(w io.Writer, r *scenarios.Result, opt TextOptions) error {
	head, tail := CutHead, CutTail
	if opt.Full {
		head, tail = 0, 0
	}
	s := r.Scenario
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("%s  (protocol %s, seed %d)\n", s.ID, s.Protocol, r.Seed)
	if s.Teaching != "" {
		p("\n%s\n", indent(strings.Join(sim.Wrap(s.Teaching, 78), "\n"), "  "))
	}
	p("\nEvents (true time, process, its own clock readings, what happened; = what the step reported):\n")
	if err := r.Trace.WriteNarrated(w, head, tail); err != nil {
		return err
	}
	heading := "Timeline (one column per process, time downwards; ┃ a client believes it holds the lock, │ a service's promise to one, ◆ a violation):"
	if opt.Width > 0 {
		heading = strings.Join(sim.Wrap(heading, opt.Width), "\n")
	}
	p("\n%s\n", heading)
	if err := layout.New(r.Trace, &r.Report).WriteFitted(w, head, tail, opt.Width); err != nil {
		return err
	}
	p("\nVerdict: %s", r.Report.Verdict)
	if er := r.Trace.EndReason; er.AtLimit() {
		p("  (the run stopped at its %s at %s)", er, r.Trace.End)
	}
	if r.Report.Resource {
		p("  (a resource is protected: only %s decide UNSAFE%s)", listWords(check.ResourceNames()), unreached(&r.Report, "; "))
	}
	p("\n")
	for _, n := range r.Report.Notes {
		p("  note: %s\n", n)
	}
	for _, res := range r.Report.Results {
		p("  %-18s %-9s %s\n", res.Name, res.Status(), res.Kind)
		if res.Note != "" {
			p("      %s\n", res.Note)
		}
		for _, v := range res.Violations {
			p("      at %s [%s] %s\n", v.At, strings.Join(v.Procs, ","), v.Detail)
		}
	}
	if len(r.Report.Metrics) > 0 {
		p("Metrics:\n")
		for _, m := range r.Report.Metrics {
			p("  %-22s %s\n", m.Name, strconv.FormatFloat(m.Value, 'f', -1, 64))
		}
		if v, ok := r.Report.Metric("unavailable_max_ms"); ok && v > 0 && r.Report.Verdict != "UNSAFE" {
			p("  (a client waited up to %s at a stretch for a lock that nobody was using but the service still held)\n", msToDuration(v))
		}
	}
	if len(r.Expectations) > 0 {
		p("Expectations:\n")
		for _, e := range r.Expectations {
			if e.Met {
				p("  ok    expect %s\n", e.Text)
			} else {
				p("  FAIL  expect %s (got %s)\n", e.Text, e.Got)
			}
		}
	}
	p("Run: %d events, ended at %s (%s), trace sha256 %s\n", r.Trace.Len(), r.Trace.End,
		r.Trace.EndReason, r.Trace.Hash())
	p("Reproduce: %s\n", r.ReproduceCommand())
	return nil
}

// CompareColumnWidth is the width of one process column in `locksim run A --vs B`.
const CompareColumnWidth = 10

// WriteCompareText writes two runs side by side as `locksim run A --vs B` prints it:
// each run's verdict and expectations, the two timelines lined up on true time
// with ≠ before the rows only one run has, then those rows' sentences. A long
// comparison shows its beginning and end and every difference.
func WriteCompareText(w io.Writer, a, b *scenarios.Result, opt TextOptions) error {
	head, tail := CutHead, CutTail
	if opt.Full {
		head, tail = 0, 0
	}
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("Compare: A %s (seed %d) with B %s (seed %d)\n", a.Scenario.Title(), a.Seed, b.Scenario.Title(), b.Seed)
	for i, r := range []*scenarios.Result{a, b} {
		p("  %s %-30s verdict %-7s", "AB"[i:i+1], r.Scenario.Title(), r.Report.Verdict)
		var broken []string
		for _, res := range r.Report.Results {
			if len(res.Violations) > 0 {
				broken = append(broken, res.Name)
			}
		}
		if len(broken) > 0 {
			p(" violated: %s", strings.Join(broken, ", "))
		}
		if !r.OK() {
			p("  (an expectation failed: %s)", r.ReproduceCommand())
		}
		p("\n")
	}
	p("\nTimelines (true time downwards; ≠ a row only one run has):\n")
	c := layout.Compare(layout.New(a.Trace, &a.Report), layout.New(b.Trace, &b.Report))
	return c.WriteText(w, [2]string{a.Scenario.Title(), b.Scenario.Title()}, CompareColumnWidth, head, tail)
}

func msToDuration(ms float64) sim.Time { return sim.Time(ms * 1e6) }

func indent(s, pre string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = pre + l
		}
	}
	return strings.Join(lines, "\n")
}

// listWords joins words as a sentence does: "a", "a and b", "a, b and c".
func listWords(ws []string) string {
	if len(ws) <= 1 {
		return strings.Join(ws, "")
	}
	return strings.Join(ws[:len(ws)-1], ", ") + " and " + ws[len(ws)-1]
}

// unreached says which declared resources no operation reached ("no operation
// reached db"), after sep, or nothing: the resource invariants judged a run
// whose data went through nothing, which is why a lock-level overlap did not
// make it UNSAFE.
func unreached(rep *check.Report, sep string) string {
	if len(rep.Unreached) == 0 {
		return ""
	}
	return sep + "no operation reached " + listWords(rep.Unreached)
}
