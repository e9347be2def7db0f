package scenarios

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// SchemaVersion is the version of the JSON output (docs/json-output.md). 2 added
// the event list (`--events`).
const SchemaVersion = 2

// ReproduceCommand is the command that reproduces this run, seed included.
func (r *Result) ReproduceCommand() string {
	prog := r.Program
	if prog == "" {
		prog = "locksim"
	}
	arg := r.Scenario.arg()
	if strings.HasPrefix(arg, "-") { // a file named like a flag: ./-x.scn
		arg = "./" + arg
	}
	cmd := fmt.Sprintf("%s run %s", prog, ShellWord(arg))
	for _, l := range r.Scenario.WhatIf {
		cmd += " --with " + ShellWord(l)
	}
	return fmt.Sprintf("%s --seed %d", cmd, r.Seed)
}

// arg is how the command line names the scenario: its id when it is a catalogue
// scenario, its path otherwise.
func (s *Scenario) arg() string {
	if strings.HasPrefix(s.File, "catalogue/") || strings.HasPrefix(s.File, "exercises/") { // embedded: by id
		return s.ID
	}
	return s.File
}

// JSONResult is the stable JSON form of a run (docs/json-output.md).
type JSONResult struct {
	SchemaVersion   int                `json:"schema_version"`   // SchemaVersion
	Scenario        string             `json:"scenario"`         // the scenario's id
	File            string             `json:"file"`             // where it was read from
	Protocol        string             `json:"protocol"`         // its protocol line
	Summary         string             `json:"summary"`          // the teaching paragraph's first line
	Seed            uint64             `json:"seed"`             // the seed it ran with
	Events          int                `json:"events"`           // how many trace events
	EndMs           float64            `json:"end_ms"`           // when the run ended, in ms
	EndReason       string             `json:"end_reason"`       // why it ended (sim.EndReason)
	LimitReached    bool               `json:"limit_reached"`    // a limit cut it short
	TraceSHA256     string             `json:"trace_sha256"`     // the trace's hash: equal runs, equal hashes
	Verdict         string             `json:"verdict"`          // SAFE, UNSAFE or STUCK
	ExpectedVerdict string             `json:"expected_verdict"` // its expect verdict line's, or ""
	OK              bool               `json:"ok"`               // every expectation was met
	Invariants      []JSONInvariant    `json:"invariants"`       // every invariant's judgement
	Expectations    []JSONExpectation  `json:"expectations"`     // every expect line's outcome
	Metrics         map[string]float64 `json:"metrics"`          // the metrics by name (units in the names)
	Notes           []string           `json:"notes"`            // notes that qualify the verdict
	Reproduce       string             `json:"reproduce"`        // the command that reproduces the run
}

// JSONInvariant is one invariant's judgement; Holds is null when not applicable.
type JSONInvariant struct {
	Name       string          `json:"name"`           // the invariant (docs/invariants.md)
	Kind       string          `json:"kind"`           // "safety" or "liveness"
	Holds      *bool           `json:"holds"`          // true, false, or null when not applicable
	Note       string          `json:"note,omitempty"` // why it is not applicable, when worth telling
	Violations []JSONViolation `json:"violations"`     // every violation, in time order
}

// JSONViolation is one violation.
type JSONViolation struct {
	AtMs      float64  `json:"at_ms"`     // true time, in ms
	Processes []string `json:"processes"` // the processes involved
	Detail    string   `json:"detail"`    // the violation in words
}

// JSONExpectation is one expect line and whether it was met.
type JSONExpectation struct {
	Text string `json:"text"` // the line as written, without "expect"
	Met  bool   `json:"met"`  // the run met it
	Got  string `json:"got"`  // what the run showed, when it differs
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

// WriteJSONIn writes the run's JSON value with every line after the first
// prefixed, so that it can sit inside another object (a comparison's "a"), and
// no final newline.
func (r *Result) WriteJSONIn(w io.Writer, opt JSONOptions, prefix string) error {
	bw := bufio.NewWriter(w)
	if err := r.writeJSON(bw, opt, prefix); err != nil {
		return err
	}
	return bw.Flush()
}

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
