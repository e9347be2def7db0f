package scenarios

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/check"
	"github.com/locksim/locksim/tui/layout"
)

// SchemaVersion is the version of the JSON output (docs/json-output.md). 2 added
// the event list (`--events`).
const SchemaVersion = 2

// ReproduceCommand is the command that reproduces this run, seed included.
func (r *Result) ReproduceCommand() string {
	return fmt.Sprintf("locksim run %s --seed %d", r.Scenario.arg(), r.Seed)
}

// arg is how the command line names the scenario: its id when it is a catalogue
// scenario, its path otherwise.
func (s *Scenario) arg() string {
	if strings.HasPrefix(s.File, "catalogue/") {
		return s.ID
	}
	return s.File
}

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
func (r *Result) WriteText(w io.Writer, opt TextOptions) error {
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
	heading := "Timeline (one column per process, time downwards; ┃ a client believes it holds the lock, ◆ a violation):"
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
		p("  (a resource is protected: only %s decide UNSAFE)", listWords(check.ResourceNames()))
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

// WriteCompare writes two runs side by side as `locksim run A --vs B` prints it:
// each run's verdict and expectations, the two timelines lined up on true time
// with ≠ before the rows only one run has, then those rows' sentences. A long
// comparison shows its beginning and end and every difference.
func WriteCompare(w io.Writer, a, b *Result, opt TextOptions) error {
	head, tail := CutHead, CutTail
	if opt.Full {
		head, tail = 0, 0
	}
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("Compare: A %s (seed %d) with B %s (seed %d)\n", a.Scenario.ID, a.Seed, b.Scenario.ID, b.Seed)
	for i, r := range []*Result{a, b} {
		p("  %s %-30s verdict %-7s", "AB"[i:i+1], r.Scenario.ID, r.Report.Verdict)
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
	return c.WriteText(w, [2]string{a.Scenario.ID, b.Scenario.ID}, CompareColumnWidth, head, tail)
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

// JSONResult is the stable JSON form of a run (docs/json-output.md).
type JSONResult struct {
	SchemaVersion   int                `json:"schema_version"`
	Scenario        string             `json:"scenario"`
	File            string             `json:"file"`
	Protocol        string             `json:"protocol"`
	Summary         string             `json:"summary"`
	Seed            uint64             `json:"seed"`
	Events          int                `json:"events"`
	EndMs           float64            `json:"end_ms"`
	EndReason       string             `json:"end_reason"`
	LimitReached    bool               `json:"limit_reached"`
	TraceSHA256     string             `json:"trace_sha256"`
	Verdict         string             `json:"verdict"`
	ExpectedVerdict string             `json:"expected_verdict"`
	OK              bool               `json:"ok"`
	Invariants      []JSONInvariant    `json:"invariants"`
	Expectations    []JSONExpectation  `json:"expectations"`
	Metrics         map[string]float64 `json:"metrics"`
	Notes           []string           `json:"notes"`
	Reproduce       string             `json:"reproduce"`
}

// JSONInvariant is one invariant's judgement; Holds is null when not applicable.
type JSONInvariant struct {
	Name       string          `json:"name"`
	Kind       string          `json:"kind"`
	Holds      *bool           `json:"holds"`
	Note       string          `json:"note,omitempty"`
	Violations []JSONViolation `json:"violations"`
}

// JSONViolation is one violation.
type JSONViolation struct {
	AtMs      float64  `json:"at_ms"`
	Processes []string `json:"processes"`
	Detail    string   `json:"detail"`
}

// JSONExpectation is one expect line and whether it was met.
type JSONExpectation struct {
	Text string `json:"text"`
	Met  bool   `json:"met"`
	Got  string `json:"got"`
}

// JSON returns the run's JSON form.
func (r *Result) JSON() JSONResult {
	s := r.Scenario
	out := JSONResult{SchemaVersion: SchemaVersion, Scenario: s.ID, File: s.File, Protocol: s.Protocol,
		Summary: s.Summary, Seed: r.Seed, Events: r.Trace.Len(), EndMs: r.Trace.End.Ms(),
		EndReason: r.Trace.EndReason.String(), LimitReached: r.Trace.EndReason.AtLimit(), TraceSHA256: r.Trace.Hash(), Verdict: string(r.Report.Verdict),
		ExpectedVerdict: s.ExpectedVerdict(), OK: r.OK(), Metrics: map[string]float64{},
		Invariants: []JSONInvariant{}, Expectations: []JSONExpectation{}, Notes: append([]string{}, r.Report.Notes...),
		Reproduce: r.ReproduceCommand()}
	for _, res := range r.Report.Results {
		ji := JSONInvariant{Name: res.Name, Kind: res.Kind.String(), Note: res.Note, Violations: []JSONViolation{}}
		if res.Applicable {
			h := res.Holds()
			ji.Holds = &h
		}
		for _, v := range res.Violations {
			ji.Violations = append(ji.Violations, JSONViolation{AtMs: v.At.Ms(), Processes: v.Procs, Detail: v.Detail})
		}
		out.Invariants = append(out.Invariants, ji)
	}
	for _, e := range r.Expectations {
		out.Expectations = append(out.Expectations, JSONExpectation{Text: "expect " + e.Text, Met: e.Met, Got: e.Got})
	}
	for _, m := range r.Report.Metrics {
		out.Metrics[m.Name] = m.Value
	}
	return out
}

// JSONOptions shape the JSON output.
type JSONOptions struct {
	Events bool // add event_list, every event of the trace
}

// WriteJSON writes the run's JSON form, indented, with a final newline. The event
// list, when asked for, comes last with one event per line, so that a reader can
// grep it and a million events stream out without being held.
func (r *Result) WriteJSON(w io.Writer, opt JSONOptions) error {
	bw := bufio.NewWriter(w)
	if err := r.writeJSON(bw, opt, ""); err != nil {
		return err
	}
	bw.WriteString("\n")
	return bw.Flush()
}

// writeJSON writes the run's JSON value with every line after the first
// prefixed, so that it can sit inside another object, and no final newline.
func (r *Result) writeJSON(bw *bufio.Writer, opt JSONOptions, prefix string) error {
	head, err := json.MarshalIndent(r.JSON(), prefix, "  ")
	if err != nil {
		return err
	}
	if !opt.Events {
		bw.Write(head)
		return nil
	}
	bw.Write(bytes.TrimSuffix(head, []byte("\n"+prefix+"}")))
	bw.WriteString(",\n" + prefix + "  \"event_list\": [")
	var line bytes.Buffer
	enc := json.NewEncoder(&line)
	enc.SetEscapeHTML(false) // "c1->r1", not "c1-\u003er1"
	sep := "\n" + prefix + "    "
	err = EachEvent(r.Trace, &r.Report, func(je *JSONEvent) error {
		line.Reset()
		err := enc.Encode(je)
		bw.WriteString(sep)
		bw.Write(bytes.TrimSuffix(line.Bytes(), []byte("\n")))
		sep = ",\n" + prefix + "    "
		return err
	})
	if err != nil {
		return err
	}
	bw.WriteString("\n" + prefix + "  ]\n" + prefix + "}")
	return nil
}

// JSONDifference is a line of a comparison that only one run has
// (docs/json-output.md#compare).
type JSONDifference struct {
	Line      int     `json:"line"` // its place among the lined-up rows, from 0
	AtMs      float64 `json:"at_ms"`
	Run       string  `json:"run"`                 // "a" or "b": the run that has it
	Event     *int    `json:"event,omitempty"`     // the row's event: its index in that run's trace (and event_list)
	Invariant string  `json:"invariant,omitempty"` // a violation row: the invariant
	Text      string  `json:"text"`                // the row's sentence, as the timeline writes it
}

// WriteCompareJSON writes two runs lined up on true time (layout.Compare, as
// `locksim run A --vs B` prints them): how many lines the comparison has, every
// line only one run has, then each run's own JSON form (with its event list when
// asked for), under "a" and "b".
func WriteCompareJSON(w io.Writer, a, b *Result, opt JSONOptions) error {
	c := layout.Compare(layout.New(a.Trace, &a.Report), layout.New(b.Trace, &b.Report))
	diffs := []JSONDifference{}
	for i := range c.Len() {
		if !c.Differs(i) {
			continue
		}
		ra, rb := c.Own(i)
		d, tl, r := JSONDifference{Line: i, AtMs: c.Time(i).Ms(), Run: "a"}, c.A, ra
		if ra < 0 {
			d.Run, tl, r = "b", c.B, rb
		}
		row := tl.Row(r)
		d.Text, d.Invariant = row.Text, row.Invariant
		if row.Event >= 0 {
			ev := row.Event
			d.Event = &ev
		}
		diffs = append(diffs, d)
	}
	var head bytes.Buffer
	enc := json.NewEncoder(&head)
	enc.SetEscapeHTML(false) // "c2->C", as the event list writes it
	enc.SetIndent("", "  ")
	err := enc.Encode(struct {
		SchemaVersion int              `json:"schema_version"`
		Reproduce     string           `json:"reproduce"`
		Lines         int              `json:"lines"`
		Differences   []JSONDifference `json:"differences"`
	}{SchemaVersion, CompareCommand(a, b), c.Len(), diffs})
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	bw.Write(bytes.TrimSuffix(head.Bytes(), []byte("\n}\n")))
	for i, r := range []*Result{a, b} {
		bw.WriteString(",\n  \"" + "ab"[i:i+1] + "\": ")
		if err := r.writeJSON(bw, opt, "  "); err != nil {
			return err
		}
	}
	bw.WriteString("\n}\n")
	return bw.Flush()
}

// CompareCommand is the command that prints these two runs side by side: with
// the seed when both ran with the same one (--seed sets both), else with each
// scenario's own.
func CompareCommand(a, b *Result) string {
	cmd := "locksim run " + a.Scenario.arg() + " --vs " + b.Scenario.arg()
	if a.Seed == b.Seed {
		cmd += " --seed " + strconv.FormatUint(a.Seed, 10)
	}
	return cmd
}

// listWords joins words as a sentence does: "a", "a and b", "a, b and c".
func listWords(ws []string) string {
	if len(ws) <= 1 {
		return strings.Join(ws, "")
	}
	return strings.Join(ws[:len(ws)-1], ", ") + " and " + ws[len(ws)-1]
}
