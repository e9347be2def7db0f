package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/locksim/locksim/scenarios/explore"
	"github.com/locksim/locksim/sim/fault"
)

// envelopeSummary is --envelope's report (docs/check.md).
type envelopeSummary struct {
	Target      string   `json:"target"`
	Kind        string   `json:"kind"`
	Proc        string   `json:"proc"`
	Resolution  float64  `json:"resolution_ms"`
	Points      int      `json:"points"`
	Runs        int      `json:"runs"`
	Found       bool     `json:"found"`         // some size breaks the invariants
	SafeBelowMs float64  `json:"safe_below_ms"` // the smallest size that breaks
	Breaking    []string `json:"breaking"`      // that fault
	Broken      []string `json:"broken"`
	Detail      string   `json:"detail"`
	Sentence    string   `json:"sentence"`
}

// checkEnvelope finds the envelope of --envelope KIND:PROC and prints it.
func checkEnvelope(cfg *explore.Config, e *explore.Exhaustive, o *checkOptions, target string, stdout io.Writer) error {
	kind, proc, ok := strings.Cut(o.envelope, ":")
	if !ok || proc == "" {
		return usagef("--envelope %q: expected KIND:PROC, like pause:c1", o.envelope)
	}
	kinds, err := fault.ParseKinds(kind)
	if err != nil {
		return usagef("--envelope: %v%s", err, didYouMean(kind, kindNames()))
	}
	if len(kinds) != 1 {
		return usagef("--envelope %q: one kind of fault, like pause:c1 (an envelope sizes one kind at a time)", o.envelope)
	}
	v, err := e.Envelope(cfg.Worker(), kinds[0], proc, o.resolution)
	if err != nil {
		return usageError{err}
	}
	s := envelopeSummary{Target: target, Kind: string(v.Kind), Proc: v.Proc, Resolution: float64(v.Resolution.Microseconds()) / 1000,
		Points: v.Points, Runs: v.Runs, Sentence: v.Sentence(), Breaking: []string{}, Broken: []string{}}
	if v.Breaking != nil {
		s.Found, s.SafeBelowMs = true, float64(v.Breaks.Microseconds())/1000
		s.Breaking, s.Broken, s.Detail = words(v.Breaking.Schedule), v.Breaking.Broken, v.Breaking.Detail
	}
	if o.format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}
	fmt.Fprintf(stdout, "check %s --envelope %s: %d points, %d runs, resolution %s\n", target, o.envelope, v.Points, v.Runs, v.Resolution)
	fmt.Fprintln(stdout, v.Sentence())
	if v.Breaking != nil {
		fmt.Fprintf(stdout, "  %s\n", v.Breaking.Detail)
	}
	return nil
}
